// See inplace_permute.h. The single-replica model (collectives.h) takes every other participant
// to hold this replica's operands, so a pair whose source is outside the group sends this
// replica's own input slice.
#include "eval/inplace_permute.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "eval/element_io.h"
#include "eval/layout_util.h"
#include "hlo/attribute_values.h"
#include "support/str_util.h"

namespace hloscope::eval {
namespace {

absl::Status Refuse(const Instruction& instr, std::string_view why) {
  return absl::InvalidArgumentError(
      StrCat("cannot run %", instr.name(), " (in-place collective-permute): ", why));
}

int64_t Clamp(int64_t v, int64_t lo, int64_t hi) { return std::max(lo, std::min(v, hi)); }

// The participant (position in the group) whose slice this one receives; nullopt when no pair
// targets it.
std::optional<size_t> SourceOf(const Instruction& instr, const CollectiveGroup& group) {
  const int64_t my_id = group.replicas[group.me];
  const std::vector<int64_t> pairs = IntListAttribute(instr, "source_target_pairs");
  for (size_t i = 0; i + 1 < pairs.size(); i += 2) {
    if (pairs[i + 1] != my_id) continue;
    auto it = std::find(group.replicas.begin(), group.replicas.end(), pairs[i]);
    return it == group.replicas.end() ? group.me : static_cast<size_t>(it - group.replicas.begin());
  }
  return std::nullopt;
}

absl::Status RefuseLayout(const Instruction& instr, std::string_view why) {
  return absl::UnimplementedError(
      StrCat("the interpreter does not run this in-place collective-permute (instruction %",
             instr.name(), "): ", why));
}

bool IsIndexTuple(const Shape& s, size_t rank) {
  if (!s.IsTuple() || s.tuple_elements.size() != rank) return false;
  for (const Shape* e : s.tuple_elements) {
    if (!e->IsArray() || !e->dims.empty() ||
        !(IsSignedType(e->element_type) || IsUnsignedType(e->element_type))) {
      return false;
    }
  }
  return true;
}

bool IsTupleOfTuples(const Shape& s) {
  if (!s.IsTuple() || s.tuple_elements.empty()) return false;
  for (const Shape* e : s.tuple_elements) {
    if (!e->IsTuple()) return false;
  }
  return true;
}

}  // namespace

absl::Status CheckInPlacePermuteLayout(const Instruction& instr) {
  if (instr.operand_count() != 4) {
    return RefuseLayout(instr, StrCat("it has ", instr.operand_count(),
                                      " operands (input, output, input offsets, output offsets "
                                      "are 4)"));
  }
  const Shape& in = instr.operand(0)->shape();
  const Shape& out = instr.operand(1)->shape();
  std::vector<const Shape*> buffers;
  if (in.IsArray() && out.IsArray()) {
    buffers.push_back(&out);
  } else if (in.IsTuple() && out.IsTuple() &&
             in.tuple_elements.size() == out.tuple_elements.size()) {
    for (size_t b = 0; b < out.tuple_elements.size(); ++b) {
      if (!in.tuple_elements[b]->IsArray() || !out.tuple_elements[b]->IsArray()) {
        return RefuseLayout(instr, "its input and output tuples must hold arrays");
      }
      buffers.push_back(out.tuple_elements[b]);
    }
  } else {
    return RefuseLayout(instr,
                        "its input and output must both be arrays or both tuples of as many "
                        "arrays");
  }
  for (int k = 2; k < 4; ++k) {
    const Shape& offsets = instr.operand(k)->shape();
    const char* which = k == 2 ? "input" : "output";
    if (in.IsArray()) {
      if (IsIndexTuple(offsets, buffers[0]->dims.size())) continue;
      if (IsTupleOfTuples(offsets)) {
        return RefuseLayout(
            instr, StrCat("its ", which,
                          " offsets are several index tuples for one buffer (several slices "
                          "per buffer, paired with source_target_pairs only by the backends)"));
      }
      return RefuseLayout(instr, StrCat("its ", which,
                                        " offsets must be a tuple of one integer scalar per "
                                        "dimension"));
    }
    bool per_buffer = offsets.IsTuple() && offsets.tuple_elements.size() == buffers.size();
    for (size_t b = 0; per_buffer && b < buffers.size(); ++b) {
      per_buffer = IsIndexTuple(*offsets.tuple_elements[b], buffers[b]->dims.size());
    }
    if (per_buffer) continue;
    if (offsets.IsTuple() && !offsets.tuple_elements.empty() &&
        IsTupleOfTuples(*offsets.tuple_elements[0])) {
      return RefuseLayout(
          instr, StrCat("its ", which,
                        " offsets hold several index tuples per buffer (several slices per "
                        "buffer, paired with source_target_pairs only by the backends)"));
    }
    return RefuseLayout(instr, StrCat("its ", which,
                                      " offsets must be one index tuple (an integer scalar per "
                                      "dimension) per buffer"));
  }
  const std::vector<std::vector<int64_t>> sizes = InPlacePermuteSliceSizes(instr);
  if (sizes.size() != buffers.size() && sizes.size() != 1) {
    return RefuseLayout(instr, StrCat("slice_sizes has ", sizes.size(), " lists for ",
                                      buffers.size(), " buffers (one per buffer, or one for all)"));
  }
  for (size_t b = 0; b < buffers.size(); ++b) {
    const std::vector<int64_t>& s = sizes.size() == 1 ? sizes[0] : sizes[b];
    if (s.size() != buffers[b]->dims.size()) {
      return RefuseLayout(instr, StrCat("slice_sizes list of buffer ", b, " has ", s.size(),
                                        " sizes for a rank-", buffers[b]->dims.size(), " buffer"));
    }
  }
  return absl::OkStatus();
}

std::vector<std::vector<int64_t>> InPlacePermuteSliceSizes(const Instruction& instr) {
  std::vector<std::vector<int64_t>> lists;
  std::optional<std::string_view> raw = RawAttribute(instr, "slice_sizes");
  if (!raw.has_value()) {
    // The proto form keeps only the flattened list: one list of the whole.
    if (!instr.dynamic_slice_sizes().empty()) {
      lists.emplace_back(instr.dynamic_slice_sizes().begin(), instr.dynamic_slice_sizes().end());
    }
    return lists;
  }
  // {{a,b},{c}}: each inner brace group is one list; a flat {a,b} is one list.
  std::string_view text = *raw;
  const size_t first = text.find('{');
  const size_t inner = first == std::string_view::npos ? first : text.find('{', first + 1);
  if (inner == std::string_view::npos) {
    lists.push_back(IntListAttribute(instr, "slice_sizes"));
    return lists;
  }
  size_t pos = inner;
  while (pos != std::string_view::npos && pos < text.size()) {
    const size_t close = text.find('}', pos);
    if (close == std::string_view::npos) break;
    std::vector<int64_t>& list = lists.emplace_back();
    AppendIntList(text.substr(pos + 1, close - pos - 1), list);
    pos = text.find('{', close);
  }
  return lists;
}

absl::StatusOr<std::vector<Bytes>> EvalInPlaceCollectivePermute(
    const Instruction& instr, const CollectiveGroup& group,
    absl::Span<const InPlacePermuteSender> senders, absl::Span<const ArrayRef> outputs,
    absl::Span<const std::vector<int64_t>> output_offsets,
    absl::Span<const std::vector<int64_t>> slice_sizes, absl::Span<const Shape* const> results) {
  const size_t buffers = outputs.size();
  if (group.me >= senders.size() || output_offsets.size() != buffers || results.size() != buffers) {
    return Refuse(instr, "it needs its group's inputs and one output offset per buffer");
  }
  if (slice_sizes.size() != buffers && slice_sizes.size() != 1) {
    return Refuse(instr, StrCat("slice_sizes has ", slice_sizes.size(), " lists for ", buffers,
                                " buffers (one per buffer, or one for all)"));
  }
  for (const InPlacePermuteSender& s : senders) {
    if (s.inputs.size() != buffers || s.input_offsets.size() != buffers) {
      return Refuse(instr, "the input and output operands hold different numbers of buffers");
    }
  }
  const std::optional<size_t> from = SourceOf(instr, group);
  std::vector<Bytes> out;
  for (size_t b = 0; b < buffers; ++b) {
    const Shape& to = *results[b];
    const Shape& in = *senders[group.me].inputs[b].shape;
    const std::vector<int64_t>& sizes = slice_sizes.size() == 1 ? slice_sizes[0] : slice_sizes[b];
    const size_t rank = to.dims.size();
    if (outputs[b].shape->dims != to.dims || outputs[b].shape->element_type != to.element_type) {
      return Refuse(instr, StrCat("buffer ", b, ": the output operand and the result differ"));
    }
    if (in.element_type != to.element_type || in.dims.size() != rank || sizes.size() != rank ||
        output_offsets[b].size() != rank || senders[group.me].input_offsets[b].size() != rank) {
      return Refuse(instr, StrCat("buffer ", b,
                                  ": the input, the output, both offsets and the slice size must "
                                  "be of one rank and element type"));
    }
    for (size_t d = 0; d < rank; ++d) {
      if (sizes[d] < 0 || sizes[d] > in.dims[d] || sizes[d] > to.dims[d]) {
        return Refuse(instr, StrCat("buffer ", b, ": slice size ", sizes[d], " of dimension ", d,
                                    " does not fit the input and the output"));
      }
    }
    Bytes result(static_cast<size_t>(DenseBytes(to)));
    Relayout(*outputs[b].shape, outputs[b].data, to, result.data());
    if (from.has_value()) {
      const InPlacePermuteSender& sender = senders[*from];
      const ArrayRef& src = sender.inputs[b];
      if (src.shape->dims != in.dims || src.shape->element_type != in.element_type ||
          sender.input_offsets[b].size() != rank) {
        return Refuse(instr, "the participants' inputs differ in shape");
      }
      std::vector<int64_t> in_start(rank), out_start(rank);
      for (size_t d = 0; d < rank; ++d) {
        in_start[d] = Clamp(sender.input_offsets[b][d], 0, in.dims[d] - sizes[d]);
        out_start[d] = Clamp(output_offsets[b][d], 0, to.dims[d] - sizes[d]);
      }
      const std::vector<int64_t> src_strides = PhysicalStrides(*src.shape);
      const std::vector<int64_t> to_strides = PhysicalStrides(to);
      const int64_t size = ElementBytes(to.element_type);
      ForEachIndex(sizes, [&](const std::vector<int64_t>& i) {
        int64_t f = 0, t = 0;
        for (size_t d = 0; d < rank; ++d) {
          f += (in_start[d] + i[d]) * src_strides[d];
          t += (out_start[d] + i[d]) * to_strides[d];
        }
        std::memcpy(result.data() + t * size, src.data + f * size, static_cast<size_t>(size));
      });
    }
    out.push_back(std::move(result));
  }
  return out;
}

}  // namespace hloscope::eval
