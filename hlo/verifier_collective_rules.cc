// Step 3 of the verifier, continued: collectives. all-reduce, collective-broadcast and
// collective-permute return their operands' shapes; all-gather multiplies the gathered dimension
// by the number of participants in a group, reduce-scatter divides it, and all-to-all keeps its
// operand's shape (split into as many parts as there are participants).
//
// The number of participants is read as XLA's verifier reads it: from the first replica group
// (`{{0,1},{2,3}}`, or `[2,4]<=[8]` written as an iota), or, with empty groups, from the header's
// replica_count and num_partitions; with channel_id and use_global_device_ids=false, replicas of
// every partition take part. When that needs a count the header does not give, when it gives 1
// (XLA does not compare that either), or when the groups are in another form (mesh axes), the
// count the shapes imply is used instead.
//
// all-reduce-start, all-gather-start and collective-permute-start are checked here too (their
// -done forms in verifier_async_rules.cc), and ragged-all-to-all, which returns its output
// buffer's shape. Not checked: whether replica ids exist.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

#include "hlo/attribute_values.h"
#include "hlo/verifier_internal.h"
#include "support/str_util.h"

namespace hloscope::verifier_internal {
namespace {

// What `replica_groups=` says, with the attributes that choose how groups are counted.
struct ReplicaGroups {
  bool empty = true;          // absent or `{}`: one group of every participant
  int64_t size = 0;           // participants in the first group; 0 when not read
  bool sizes_differ = false;  // explicit groups of different sizes
  int64_t repeated = -1;      // an id named twice in explicit groups, or -1
  std::string_view text;
  bool channel = false;     // channel_id= is present
  bool global_ids = false;  // use_global_device_ids=true
};

// `{{0,1},{2,3}}`: explicit groups. `[2,4]<=[8]`, `[2,4]<=[4,2]T(1,0)`: an iota list of 2
// groups of 4.
ReplicaGroups ReadReplicaGroups(const Instruction& instr) {
  ReplicaGroups g;
  // One pass over the attributes: Mixtral-sized modules have thousands of collectives.
  std::optional<std::string_view> raw;
  const Module& module = *instr.module();
  for (const Attribute& a : instr.attributes()) {
    if (a.key < kAttrFirstUnknown) continue;
    const std::string_view key = module.AttrKeyName(a.key);
    if (key == "replica_groups") {
      raw = a.value;
    } else if (key == "channel_id") {
      g.channel = true;
    } else if (key == "use_global_device_ids") {
      g.global_ids = StripWhitespace(a.value) == "true";
    }
  }
  if (!raw) return g;
  const std::string_view text = StripWhitespace(*raw);
  g.text = text;
  if (text.empty() || text == "{}") return g;
  g.empty = false;
  if (text.front() == '[') {
    const size_t close = text.find(']');
    Dims dims;
    if (close != std::string_view::npos) AppendIntList(text.substr(1, close - 1), dims);
    if (dims.size() == 2 && dims[1] > 0) g.size = dims[1];
    return g;
  }
  if (text.size() < 2 || text.front() != '{' || text[1] != '{') return g;
  Dims ids, group;
  bool first = true;
  size_t pos = 1;
  while (pos < text.size()) {
    const size_t open = text.find('{', pos);
    if (open == std::string_view::npos) break;
    const size_t close = text.find('}', open);
    if (close == std::string_view::npos) break;
    group.clear();
    AppendIntList(text.substr(open + 1, close - open - 1), group);
    const int64_t n = static_cast<int64_t>(group.size());
    if (first) g.size = n;
    g.sizes_differ = g.sizes_differ || n != g.size;
    first = false;
    ids.insert(ids.end(), group.begin(), group.end());
    pos = close + 1;
  }
  std::sort(ids.begin(), ids.end());
  auto dup = std::adjacent_find(ids.begin(), ids.end());
  if (dup != ids.end()) g.repeated = *dup;
  return g;
}

// replica_count= or num_partitions= from the module header; 0 when the header does not say
// (XLA's tests often set them in the module's config instead, which the text does not show).
int64_t HeaderCount(const Module& module, std::string_view key) {
  std::optional<std::string_view> v = module.FindAttribute(key);
  std::optional<int64_t> n = v ? ParseInt64(StripWhitespace(*v)) : std::nullopt;
  return n && *n > 0 ? *n : 0;
}

// Participants in each group, as XLA's verifier counts them; 0 when the text does not tell.
// all-to-all has no use_global_device_ids: with a channel it is cross-partition.
int64_t GroupSize(const Instruction& instr, const ReplicaGroups& groups, bool all_to_all) {
  if (!groups.empty && groups.size == 0) return 0;
  // The header is read only for empty groups and the cross-replica-and-partition mode.
  auto header = [&](std::string_view key) { return HeaderCount(*instr.module(), key); };
  if (!groups.channel)
    return groups.empty ? header("replica_count") : groups.size;                 // cross-replica
  if (all_to_all) return groups.empty ? header("num_partitions") : groups.size;  // cross-partition
  if (groups.global_ids) return groups.size;                                     // flattened ids
  // Cross-replica-and-partition; a product past int64 is no count a module can use.
  int64_t product = 0;
  if (__builtin_mul_overflow(groups.empty ? header("replica_count") : groups.size,
                             header("num_partitions"), &product)) {
    return 0;
  }
  return product;
}

absl::Status CheckGroups(const Instruction& instr, const ReplicaGroups& groups, bool uniform) {
  if (groups.repeated >= 0) {
    return InstrError(instr, StrCat(instr.PrintedOpcode(), " replica_groups=", groups.text,
                                    " names ", groups.repeated, " more than once"));
  }
  if (uniform && groups.sizes_differ) {
    return InstrError(instr, StrCat(instr.PrintedOpcode(), " replica_groups=", groups.text,
                                    " are not all of one size"));
  }
  return absl::OkStatus();
}

// The array that operand i gives: the result itself for one operand, else element i of a
// tuple result. nullptr when the result does not have that form.
const Shape* ResultFor(const Shape& out, int64_t i, int64_t n) {
  if (n == 1 && out.IsArray()) return &out;
  if (!out.IsTuple() || static_cast<int64_t>(out.tuple_elements.size()) != n) return nullptr;
  const Shape* element = out.tuple_elements[i];
  return element->IsArray() ? element : nullptr;
}

// all-reduce and all-reduce-start return their operands' shapes. XLA's MHLO import tests write
// all-reduce-start returning (operands, results), an old form XLA's verifier rejects: its
// HandleAllReduceStart checks the shape of InferAllReduceStartShape, all-reduce's
// (xla/service/hlo_verifier.cc and shape_inference.cc at openxla/xla 33ab2836).
absl::Status CheckAllReduce(const Instruction& instr, const VerifierOptions& options) {
  if (absl::Status s = CheckGroups(instr, ReadReplicaGroups(instr), false); !s.ok()) return s;
  return CheckFirstOperandsShapes(instr, instr.operand_count(), "operands'", options);
}

absl::Status CheckCollectiveBroadcast(const Instruction& instr, const VerifierOptions& options) {
  if (absl::Status s = CheckGroups(instr, ReadReplicaGroups(instr), false); !s.ok()) return s;
  return CheckFirstOperandsShapes(instr, instr.operand_count(), "operands'", options);
}

// The offsets of one in-place buffer: a tuple of index tuples (one per slice sent), each with
// one entry per dimension of the buffer, or one such index tuple itself.
std::optional<std::string> BufferOffsetProblem(const Shape& buffer, const Shape& offsets) {
  if (!offsets.IsTuple()) return "is not a tuple";
  bool all_arrays = true, all_tuples = true;
  for (const Shape* e : offsets.tuple_elements) {
    all_arrays = all_arrays && e->IsArray();
    all_tuples = all_tuples && e->IsTuple();
  }
  if (!all_arrays && !all_tuples) return "mixes arrays and tuples";
  const size_t rank = buffer.IsArray() ? static_cast<size_t>(buffer.rank()) : 0;
  bool fits = true;
  if (all_tuples && !offsets.tuple_elements.empty()) {
    for (const Shape* e : offsets.tuple_elements) fits = fits && e->tuple_elements.size() == rank;
  } else {
    fits = offsets.tuple_elements.size() == rank;
  }
  if (!fits) return StrCat("does not have one index per dimension of the buffer (rank ", rank, ")");
  return std::nullopt;
}

// The in-place form's buffers and offsets pair up: input and output are both arrays or both
// tuples of as many buffers, and each buffer has its offsets (XLA's verifier,
// CheckInplaceCollectivePermute and CheckBufferOffset in xla/service/hlo_verifier.cc at
// openxla/xla 33ab2836).
absl::Status CheckInPlaceBuffers(const Instruction& instr) {
  const Shape& input = instr.operand(0)->shape();
  const Shape& output = instr.operand(1)->shape();
  auto offsets_of = [&](int64_t buffer_operand, const Shape& buffer, const Shape& offsets,
                        std::string_view which) -> absl::Status {
    if (std::optional<std::string> problem = BufferOffsetProblem(buffer, offsets)) {
      return InstrError(instr, StrCat(instr.PrintedOpcode(), " ", which, " offsets ",
                                      OperandRef(instr, buffer_operand + 2), " shape ",
                                      ShapeText(offsets), " ", *problem));
    }
    return absl::OkStatus();
  };
  auto buffers_mismatch = [&]() {
    return InstrError(
        instr, StrCat(instr.PrintedOpcode(), " input ", OperandRef(instr, 0), " shape ",
                      ShapeText(input), " and output ", OperandRef(instr, 1), " shape ",
                      ShapeText(output), " are not both arrays or both tuples of as many buffers"));
  };
  if (input.IsArray() && output.IsArray()) {
    if (absl::Status s = offsets_of(0, input, instr.operand(2)->shape(), "input"); !s.ok()) {
      return s;
    }
    return offsets_of(1, output, instr.operand(3)->shape(), "output");
  }
  if (!input.IsTuple() || !output.IsTuple() ||
      input.tuple_elements.size() != output.tuple_elements.size()) {
    return buffers_mismatch();
  }
  for (int64_t b = 0; b < 2; ++b) {
    const Shape& buffers = b == 0 ? input : output;
    const Shape& offsets = instr.operand(2 + b)->shape();
    const std::string_view which = b == 0 ? "input" : "output";
    if (!offsets.IsTuple() || offsets.tuple_elements.size() != buffers.tuple_elements.size()) {
      return InstrError(
          instr, StrCat(instr.PrintedOpcode(), " ", which, " offsets ", OperandRef(instr, 2 + b),
                        " shape ", ShapeText(offsets), " do not have one entry per ", which,
                        " buffer (", buffers.tuple_elements.size(), ")"));
    }
    for (size_t k = 0; k < buffers.tuple_elements.size(); ++k) {
      if (std::optional<std::string> problem =
              BufferOffsetProblem(*buffers.tuple_elements[k], *offsets.tuple_elements[k])) {
        return InstrError(instr,
                          StrCat(instr.PrintedOpcode(), " ", which, " offsets of buffer ", k, " (",
                                 OperandRef(instr, 2 + b), " element ", k, ") ", *problem));
      }
    }
  }
  return absl::OkStatus();
}

// collective-permute(x) returns x's shape, several operands a tuple of theirs. The in-place
// form (input, output, input offsets, output offsets; the offsets are tuples) returns the
// output buffer's shape. A device sends to one target and receives from one source, except
// that the in-place form may send one slice per offset.
absl::Status CheckCollectivePermute(const Instruction& instr, const VerifierOptions& options) {
  const bool in_place = instr.operand_count() == 4 && instr.operand(2)->shape().IsTuple();
  if (in_place) {
    if (absl::Status s = CheckInPlaceBuffers(instr); !s.ok()) return s;
  }
  if (std::optional<std::string_view> pairs = RawAttribute(instr, "source_target_pairs")) {
    int64_t allowed = 1;
    if (in_place) {
      const Shape& offsets = instr.operand(2)->shape();
      const bool nested = !instr.operand(0)->shape().IsArray() && !offsets.tuple_elements.empty() &&
                          offsets.tuple_elements[0]->IsTuple();
      allowed = static_cast<int64_t>(nested ? offsets.tuple_elements[0]->tuple_elements.size()
                                            : offsets.tuple_elements.size());
    }
    Dims ids;
    AppendIntList(*pairs, ids);
    Dims sources, targets;
    for (size_t k = 0; k + 1 < ids.size(); k += 2) {
      sources.push_back(ids[k]);
      targets.push_back(ids[k + 1]);
    }
    for (Dims* list : {&sources, &targets}) {
      std::sort(list->begin(), list->end());
      for (size_t k = 0; k < list->size();) {
        size_t end = k;
        while (end < list->size() && (*list)[end] == (*list)[k]) ++end;
        if (static_cast<int64_t>(end - k) > allowed) {
          return InstrError(
              instr, StrCat(instr.PrintedOpcode(), " source_target_pairs=", StripWhitespace(*pairs),
                            " has ", (*list)[k], " as a ", list == &sources ? "source" : "target",
                            allowed == 1 ? std::string(" more than once")
                                         : StrCat(" more than ", allowed, " times")));
        }
        k = end;
      }
    }
  }
  // collective-permute-start returns (sent, received, context...): the operand (or the tuple
  // of them) and what collective-permute would return. Old HLO returned only the latter.
  const Shape* result = &instr.shape();
  int64_t at = -1;
  const int64_t n = instr.operand_count();
  if (instr.opcode() == Opcode::kCollectivePermuteStart && result->IsTuple() &&
      result->tuple_elements.size() >= 2) {
    const Shape& sent = *result->tuple_elements[0];
    if (in_place || n == 1) {
      if (!ShapesAgree(sent, instr.operand(0)->shape(), options)) {
        return InstrError(instr, StrCat(instr.PrintedOpcode(), " element 0 shape ", ShapeText(sent),
                                        " does not match ", OperandRef(instr, 0), " shape ",
                                        ShapeText(instr.operand(0)->shape())));
      }
    } else if (absl::Status s = CheckFirstOperandsShapesAt(instr, sent, 0, n, "operands'", options);
               !s.ok()) {
      return s;
    }
    result = result->tuple_elements[1];
    at = 1;
  }
  if (in_place && ShapesAgree(*result, instr.operand(1)->shape(), options)) {
    return absl::OkStatus();
  }
  return CheckFirstOperandsShapesAt(instr, *result, at, n, "operands'", options);
}

// all-gather and reduce-scatter: each operand's shape with dimension `dimensions={d}`
// multiplied (gather) or divided (scatter) by the participants in a group. A scalar operand of
// several comes back unchanged: PyTorch/XLA passes its ordering token along that way.
absl::Status CheckGatherOrScatter(const Instruction& instr, const VerifierOptions& options) {
  const bool gather = instr.opcode() != Opcode::kReduceScatter;
  const ReplicaGroups groups = ReadReplicaGroups(instr);
  if (absl::Status s = CheckGroups(instr, groups, true); !s.ok()) return s;
  const int64_t n = instr.operand_count();
  // all-gather-start returns (operands, results): arrays for one operand, tuples for several.
  // Old HLO returned only the results. `at` is where the results are in the shape, for
  // messages.
  const Shape* whole = &instr.shape();
  int64_t at = -1;
  if (instr.opcode() == Opcode::kAllGatherStart && whole->IsTuple() &&
      whole->tuple_elements.size() == 2 &&
      (n == 1 ? whole->tuple_elements[1]->IsArray() : whole->tuple_elements[1]->IsTuple())) {
    if (absl::Status s = CheckFirstOperandsShapesAt(instr, *whole->tuple_elements[0], 0, n,
                                                    "operands'", options);
        !s.ok()) {
      return s;
    }
    whole = whole->tuple_elements[1];
    at = 1;
  }
  const Shape& out = *whole;
  // Message pieces, built only when a check fails: the opcode, the results' place in the
  // shape, and operand i's result's place.
  auto op = [&] { return instr.PrintedOpcode(); };
  auto results = [&] { return at < 0 ? std::string() : StrCat("element ", at, " "); };
  auto element_of = [&](int64_t i) {
    if (n == 1) return results();
    return at < 0 ? StrCat("element ", i, " ") : StrCat("element {", at, ",", i, "} ");
  };
  absl::Span<const int64_t> dim = instr.dimensions();
  int64_t reference = -1;  // the first operand that is not a passed-through scalar
  for (int64_t i = 0; i < n; ++i) {
    const Shape& in = instr.operand(i)->shape();
    if (!in.IsArray()) {
      return InstrError(instr, StrCat(op(), " ", OperandRef(instr, i), " shape ", ShapeText(in),
                                      " is not an array"));
    }
    if (ResultFor(out, i, n) == nullptr) {
      return InstrError(instr, StrCat(op(), " ", results(), "shape ", ShapeText(out),
                                      n == 1 ? std::string(" is not an array")
                                             : StrCat(" is not a tuple of ", n, " arrays")));
    }
    if (n > 1 && in.rank() == 0) continue;
    if (dim.size() != 1 || dim[0] < 0 || dim[0] >= in.rank()) {
      return InstrError(instr,
                        StrCat(op(), " ", DimsAttr("dimensions", dim), " is not one dimension of ",
                               OperandRef(instr, i), " shape ", ShapeText(in)));
    }
    if (reference < 0) reference = i;
  }
  if (reference < 0) return CheckFirstOperandsShapesAt(instr, out, at, n, "operands'", options);
  const int64_t d = dim[0];
  // The participants the shapes imply, from the reference operand (XLA's verifier takes
  // operand 0).
  const Shape& in_ref = instr.operand(reference)->shape();
  const Shape& out_ref = *ResultFor(out, reference, n);
  // The result keeps the operand's rank; dimension d is read from both before the shapes are
  // compared whole below.
  if (out_ref.rank() != in_ref.rank()) {
    return InstrError(
        instr, StrCat(op(), " ", element_of(reference), "shape ", ShapeText(out_ref), " has rank ",
                      out_ref.rank(), ", but ", OperandRef(instr, reference), " shape ",
                      ShapeText(in_ref), " has rank ", in_ref.rank()));
  }
  const int64_t small = gather ? in_ref.dims[d] : out_ref.dims[d];
  const int64_t large = gather ? out_ref.dims[d] : in_ref.dims[d];
  int64_t implied = 0;
  if (small > 0 && large != Shape::kUnboundedSize) implied = large / small + (large % small != 0);
  const int64_t participants = GroupSize(instr, groups, /*all_to_all=*/false);
  if (participants > 1 && implied > 0 && implied != participants) {
    return InstrError(
        instr, StrCat(op(), gather ? " gathers " : " scatters ", Count(implied, "part", "parts"),
                      " along dimension ", d, " (", OperandRef(instr, reference), " shape ",
                      ShapeText(in_ref), " to ", ShapeText(out_ref),
                      "), but each replica group has ", participants, " participants"));
  }
  const int64_t parts = participants > 1 ? participants : implied;
  for (int64_t i = 0; i < n; ++i) {
    const Shape& in = instr.operand(i)->shape();
    const Shape& result = *ResultFor(out, i, n);
    if (n > 1 && in.rank() == 0) {
      if (ShapesAgree(result, in, options)) continue;
      return InstrError(
          instr, StrCat(op(), " ", element_of(i), "shape ", ShapeText(result), " does not match ",
                        OperandRef(instr, i), " shape ", ShapeText(in)));
    }
    Dims dims(in.dims.begin(), in.dims.end());
    if (parts == 0 || dims[d] == Shape::kUnboundedSize) {
      dims[d] = Shape::kUnboundedSize;
    } else if (gather) {
      if (__builtin_mul_overflow(dims[d], parts, &dims[d])) {
        return InstrError(
            instr, StrCat(op(), " ", OperandRef(instr, i), " shape ", ShapeText(in),
                          " gathered from ", parts, " parts along dimension ", d, " is too large"));
      }
    } else if (dims[d] % parts != 0) {
      return InstrError(instr,
                        StrCat(op(), " ", OperandRef(instr, i), " shape ", ShapeText(in),
                               " does not split into ", parts, " parts along dimension ", d));
    } else {
      dims[d] /= parts;
    }
    if (!DimsAre(result, dims) || !TypesAgree(result.element_type, in.element_type, options)) {
      return InstrError(
          instr, StrCat(op(), " ", element_of(i), "shape ", ShapeText(result), " does not match ",
                        ShapeText(ExpectedArray(in.element_type, dims)), " (", OperandRef(instr, i),
                        " shape ", ShapeText(in), gather ? " gathered from " : " scattered to ",
                        parts, " parts along dimension ", d, ")"));
    }
  }
  return absl::OkStatus();
}

// all-to-all with `dimensions={d}` splits its one operand along d among the participants and
// returns its shape; without, it sends operand i to participant i and returns a tuple of the
// operands' shapes.
absl::Status CheckAllToAll(const Instruction& instr, const VerifierOptions& options) {
  const ReplicaGroups groups = ReadReplicaGroups(instr);
  if (absl::Status s = CheckGroups(instr, groups, true); !s.ok()) return s;
  const int64_t participants = GroupSize(instr, groups, /*all_to_all=*/true);
  absl::Span<const int64_t> dim = instr.dimensions();
  if (!dim.empty()) {
    if (instr.operand_count() != 1) {
      return InstrError(
          instr, StrCat("all-to-all with ", DimsAttr("dimensions", dim), " has ",
                        Count(instr.operand_count(), "operand", "operands"), ", expected 1"));
    }
    const Shape& in = instr.operand(0)->shape();
    if (!in.IsArray() || dim.size() != 1 || dim[0] < 0 || dim[0] >= in.rank()) {
      return InstrError(
          instr, StrCat("all-to-all ", DimsAttr("dimensions", dim), " is not one dimension of ",
                        OperandRef(instr, 0), " shape ", ShapeText(in)));
    }
    const int64_t size = in.dims[dim[0]];
    if (participants > 1 && size != Shape::kUnboundedSize && size % participants != 0) {
      return InstrError(
          instr, StrCat("all-to-all ", OperandRef(instr, 0), " shape ", ShapeText(in),
                        " does not split into ", participants, " parts along dimension ", dim[0]));
    }
    return CheckFirstOperandsShapes(instr, 1, "operand's", options);
  }
  if (participants > 1 && instr.operand_count() != participants) {
    return InstrError(instr,
                      StrCat("all-to-all has ", Count(instr.operand_count(), "operand", "operands"),
                             ", but each replica group has ", participants, " participants"));
  }
  return CheckFirstOperandsShapes(instr, instr.operand_count(), "operands'", options);
}

// ragged-all-to-all(input, output, input_offsets, send_sizes, output_offsets, recv_sizes)
// writes into `output` and returns its shape; the four offset and size operands are arrays of
// rank 1 or 2 of one shape. (The opcode table fixes the operand count.)
absl::Status CheckRaggedAllToAll(const Instruction& instr, const VerifierOptions& options) {
  if (absl::Status s = CheckGroups(instr, ReadReplicaGroups(instr), false); !s.ok()) return s;
  const Shape& first = instr.operand(2)->shape();
  for (int64_t i = 2; i < 6; ++i) {
    const Shape& s = instr.operand(i)->shape();
    if (!s.IsArray() || (s.rank() != 1 && s.rank() != 2)) {
      return InstrError(instr, StrCat("ragged-all-to-all ", OperandRef(instr, i), " shape ",
                                      ShapeText(s), " is not an array of rank 1 or 2"));
    }
    if (!ShapesAgree(s, first, options)) {
      return InstrError(
          instr, StrCat("ragged-all-to-all ", OperandRef(instr, i), " shape ", ShapeText(s),
                        " does not match ", OperandRef(instr, 2), " shape ", ShapeText(first)));
    }
  }
  const Shape& output = instr.operand(1)->shape();
  if (output.IsArray() && ShapesAgree(instr.shape(), output, options)) return absl::OkStatus();
  return InstrError(instr,
                    StrCat("ragged-all-to-all shape ", ShapeText(instr.shape()), " does not match ",
                           OperandRef(instr, 1), " shape ", ShapeText(output)));
}

}  // namespace

ShapeRule CollectiveShapeRule(Opcode op) {
  switch (op) {
    case Opcode::kAllReduce:
    case Opcode::kAllReduceStart:
      return CheckAllReduce;
    case Opcode::kCollectiveBroadcast:
      return CheckCollectiveBroadcast;
    case Opcode::kCollectivePermute:
    case Opcode::kCollectivePermuteStart:
      return CheckCollectivePermute;
    case Opcode::kAllGather:
    case Opcode::kAllGatherStart:
    case Opcode::kReduceScatter:
      return CheckGatherOrScatter;
    case Opcode::kAllToAll:
      return CheckAllToAll;
    case Opcode::kRaggedAllToAll:
      return CheckRaggedAllToAll;
    default:
      return nullptr;
  }
}

}  // namespace hloscope::verifier_internal
