// Step 3 of the verifier: per-opcode shape rules. Each rule may assume the structure check
// (verifier.cc) passed: operand counts match the opcode table, parents are right, called
// computations have consistent parameter tables and roots.
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "hlo/verifier_internal.h"
#include "support/str_util.h"

namespace hloscope::verifier_internal {
namespace {

absl::Status CheckTuple(const Instruction& instr, const VerifierOptions&) {
  const Shape& shape = instr.shape();
  if (!shape.IsTuple()) {
    return InstrError(instr, StrCat("tuple shape ", ShapeText(shape), " is not a tuple"));
  }
  const int64_t elements = static_cast<int64_t>(shape.tuple_elements.size());
  if (elements != instr.operand_count()) {
    return InstrError(instr, StrCat("tuple shape ", ShapeText(shape), " has ",
                                    Count(elements, "element", "elements"), " but ",
                                    Count(instr.operand_count(), "operand", "operands")));
  }
  for (int64_t i = 0; i < elements; ++i) {
    const Shape& element = *shape.tuple_elements[i];
    const Shape& operand = instr.operand(i)->shape();
    if (!element.Compatible(operand)) {
      return InstrError(
          instr, StrCat("tuple element ", i, " shape ", ShapeText(element), " does not match ",
                        OperandRef(instr, i), " shape ", ShapeText(operand)));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckGetTupleElement(const Instruction& instr, const VerifierOptions&) {
  const Instruction& op = *instr.operand(0);
  const Shape& tuple = op.shape();
  if (!tuple.IsTuple()) {
    return InstrError(instr, StrCat("get-tuple-element operand '", op.name(), "' shape ",
                                    ShapeText(tuple), " is not a tuple"));
  }
  const int64_t index = instr.tuple_index();
  if (index < 0 || index >= static_cast<int64_t>(tuple.tuple_elements.size())) {
    return InstrError(instr,
                      StrCat("get-tuple-element index ", index, " is out of range for operand '",
                             op.name(), "' shape ", ShapeText(tuple)));
  }
  const Shape& element = *tuple.tuple_elements[index];
  if (!instr.shape().Compatible(element)) {
    return InstrError(instr, StrCat("get-tuple-element shape ", ShapeText(instr.shape()),
                                    " does not match operand '", op.name(), "' element ", index,
                                    " shape ", ShapeText(element)));
  }
  return absl::OkStatus();
}

absl::Status CheckWhile(const Instruction& instr, const VerifierOptions&) {
  const Computation* cond = instr.while_condition();
  const Computation* body = instr.while_body();
  if (cond == nullptr) return InstrError(instr, "while has no condition computation");
  if (body == nullptr) return InstrError(instr, "while has no body computation");
  const Shape& shape = instr.shape();
  const Instruction& init = *instr.operand(0);
  if (!init.shape().Compatible(shape)) {
    return InstrError(instr,
                      StrCat("while operand '", init.name(), "' shape ", ShapeText(init.shape()),
                             " does not match while shape ", ShapeText(shape)));
  }
  for (const auto& [callee, role] : {std::pair{cond, "condition"}, std::pair{body, "body"}}) {
    if (callee->parameter_count() != 1) {
      return InstrError(instr, StrCat("while ", role, " '", callee->name(), "' has ",
                                      Count(callee->parameter_count(), "parameter", "parameters"),
                                      ", expected 1"));
    }
    const Instruction& param = *callee->parameter(0);
    if (!param.shape().Compatible(shape)) {
      return InstrError(param, StrCat("while ", role, " parameter shape ", ShapeText(param.shape()),
                                      " does not match while shape ", ShapeText(shape)));
    }
  }
  const Instruction& body_root = *body->root();
  if (!body_root.shape().Compatible(shape)) {
    return InstrError(body_root, StrCat("while body root shape ", ShapeText(body_root.shape()),
                                        " does not match while shape ", ShapeText(shape)));
  }
  const Instruction& cond_root = *cond->root();
  if (!IsScalarOf(cond_root.shape(), PrimitiveType::kPred)) {
    return InstrError(cond_root, StrCat("while condition root shape ", ShapeText(cond_root.shape()),
                                        " is not pred[]"));
  }
  return absl::OkStatus();
}

absl::Status CheckConditional(const Instruction& instr, const VerifierOptions&) {
  const std::vector<Computation*> branches = instr.branch_computations();
  const int64_t n = static_cast<int64_t>(branches.size());
  if (n == 0) return InstrError(instr, "conditional has no branch computations");
  const Instruction& index = *instr.operand(0);
  if (IsScalarOf(index.shape(), PrimitiveType::kPred)) {
    if (n != 2) {
      return InstrError(instr, StrCat("conditional with a pred[] branch index has ",
                                      Count(n, "branch", "branches"), ", expected 2"));
    }
  } else if (!IsScalarOf(index.shape(), PrimitiveType::kS32)) {
    return InstrError(instr, StrCat("conditional branch index '", index.name(), "' shape ",
                                    ShapeText(index.shape()), " is not pred[] or s32[]"));
  }
  if (instr.operand_count() - 1 != n) {
    return InstrError(
        instr, StrCat("conditional has ", Count(n, "branch", "branches"), " but ",
                      Count(instr.operand_count() - 1, "branch operand", "branch operands")));
  }
  for (int64_t b = 0; b < n; ++b) {
    const Computation& branch = *branches[b];
    if (branch.parameter_count() != 1) {
      return InstrError(instr, StrCat("conditional branch ", b, " '", branch.name(), "' has ",
                                      Count(branch.parameter_count(), "parameter", "parameters"),
                                      ", expected 1"));
    }
    const Instruction& param = *branch.parameter(0);
    const Shape& arg = instr.operand(b + 1)->shape();
    if (!param.shape().Compatible(arg)) {
      return InstrError(
          param, StrCat("conditional branch ", b, " parameter shape ", ShapeText(param.shape()),
                        " does not match ", OperandRef(instr, b + 1), " shape ", ShapeText(arg)));
    }
    const Instruction& root = *branch.root();
    if (!root.shape().Compatible(instr.shape())) {
      return InstrError(root,
                        StrCat("conditional branch ", b, " root shape ", ShapeText(root.shape()),
                               " does not match conditional shape ", ShapeText(instr.shape())));
    }
  }
  return absl::OkStatus();
}

// call and fusion: the callee takes the operands as parameters 0..n-1 and returns the result.
}  // namespace

absl::Status CheckCallee(const Instruction& instr, const Computation* callee, std::string_view kind,
                         std::string_view attr, const Shape& result, std::string_view result_name) {
  if (callee == nullptr) {
    return InstrError(instr, StrCat(kind, " has no ", attr, " computation"));
  }
  if (callee->parameter_count() != instr.operand_count()) {
    return InstrError(
        instr, StrCat(kind, " computation '", callee->name(), "' has ",
                      Count(callee->parameter_count(), "parameter", "parameters"), " but the ",
                      kind, " has ", Count(instr.operand_count(), "operand", "operands")));
  }
  for (int64_t i = 0; i < instr.operand_count(); ++i) {
    const Instruction& param = *callee->parameter(i);
    const Shape& arg = instr.operand(i)->shape();
    if (!param.shape().Compatible(arg)) {
      return InstrError(
          param, StrCat(kind, " parameter ", i, " shape ", ShapeText(param.shape()),
                        " does not match ", OperandRef(instr, i), " shape ", ShapeText(arg)));
    }
  }
  const Instruction& root = *callee->root();
  if (!root.shape().Compatible(result)) {
    return InstrError(root, StrCat(kind, " root shape ", ShapeText(root.shape()),
                                   " does not match ", result_name, " ", ShapeText(result)));
  }
  return absl::OkStatus();
}

// output_to_operand_aliasing (fusion, custom-call, and the async form of either, whose output
// indices are of element {1}, the wrapped op's result): each entry names an operand, a
// subshape of it and a subshape of the result that exist and agree, since the in-place
// analyses make the two share a buffer.
absl::Status CheckOperandAliasing(const Instruction& instr, const ShapeIndex& result_index) {
  const Shape* result = Subshape(instr.shape(), result_index);
  if (result == nullptr) return absl::OkStatus();  // the -start's own rule names its shape
  for (const OperandAlias& alias : instr.output_to_operand_aliasing()) {
    auto entry = [&] {
      return StrCat(instr.PrintedOpcode(), " output_to_operand_aliasing entry ",
                    ShapeIndexToString(alias.output_index), ": (", alias.operand, ", ",
                    ShapeIndexToString(alias.operand_index), ")");
    };
    if (alias.operand < 0 || alias.operand >= instr.operand_count()) {
      return InstrError(instr, StrCat(entry(), " names operand ", alias.operand, ", but the ",
                                      instr.PrintedOpcode(), " has ",
                                      Count(instr.operand_count(), "operand", "operands")));
    }
    const Shape& operand_shape = instr.operand(alias.operand)->shape();
    const Shape* from = Subshape(operand_shape, alias.operand_index);
    if (from == nullptr) {
      return InstrError(
          instr, StrCat(entry(), " names shape index ", ShapeIndexToString(alias.operand_index),
                        " of ", OperandRef(instr, alias.operand), " shape ",
                        ShapeText(operand_shape), ", which has none"));
    }
    const Shape* to = Subshape(*result, alias.output_index);
    if (to == nullptr) {
      return InstrError(instr, StrCat(entry(), " names output shape index ",
                                      ShapeIndexToString(alias.output_index), " of shape ",
                                      ShapeText(*result), ", which has none"));
    }
    // A buffer `b(f32[16])` aliases the array it holds (XLA's Pin and Unpin custom-calls).
    auto array_of = [](const Shape* s) { return s->IsBuffer() ? s->tuple_elements[0] : s; };
    if (!array_of(to)->Compatible(*array_of(from))) {
      return InstrError(instr, StrCat(entry(), " aliases output ", ShapeText(*to), " with ",
                                      ShapeText(*from), ": the shapes differ"));
    }
  }
  return absl::OkStatus();
}

namespace {

absl::Status CheckCall(const Instruction& instr, const VerifierOptions&) {
  return CheckCallee(instr, instr.to_apply(), "call", "to_apply", instr.shape(), "call shape");
}

absl::Status CheckFusion(const Instruction& instr, const VerifierOptions&) {
  if (absl::Status s = CheckCallee(instr, instr.fused_computation(), "fusion", "calls",
                                   instr.shape(), "fusion shape");
      !s.ok()) {
    return s;
  }
  return CheckOperandAliasing(instr, {});
}

// A custom-call's shapes are its target's business; only its aliasing is checked.
absl::Status CheckCustomCall(const Instruction& instr, const VerifierOptions&) {
  return CheckOperandAliasing(instr, {});
}

// The deprecated form of dynamic-(update-)slice start indices: one integer vector with an
// entry per dimension (`s32[2] start` for a rank-2 operand). XLA still accepts it, and older
// modules and tests use it.
bool IsIndexVector(const Shape& s, int64_t rank) {
  if (!s.IsArray() || s.rank() != 1 || s.dims[0] != rank) return false;
  const PrimitiveTypeInfo& info = GetPrimitiveTypeInfo(s.element_type);
  return info.is_signed_int || info.is_unsigned_int;
}

// Operands first..first+rank-1 of a dynamic-(update-)slice are scalar integer start indices,
// one per dimension of operand 0 (or, deprecated, a single index vector).
absl::Status CheckStartIndices(const Instruction& instr, int64_t first) {
  const std::string kind = instr.PrintedOpcode();
  const Instruction& op = *instr.operand(0);
  // A dynamic-update-slice into a b(...) buffer indexes the array the buffer holds.
  const Shape& sliced = op.shape().IsBuffer() ? *op.shape().tuple_elements[0] : op.shape();
  const int64_t indices = instr.operand_count() - first;
  if (indices == 1 && IsIndexVector(instr.operand(first)->shape(), sliced.rank())) {
    return absl::OkStatus();
  }
  if (indices != sliced.rank()) {
    return InstrError(instr, StrCat(kind, " has ", Count(indices, "start index", "start indices"),
                                    " but operand '", op.name(), "' has rank ", sliced.rank()));
  }
  for (int64_t i = first; i < instr.operand_count(); ++i) {
    const Shape& s = instr.operand(i)->shape();
    if (!IsIntegerScalar(s)) {
      return InstrError(instr, StrCat(kind, " ", OperandRef(instr, i), " shape ", ShapeText(s),
                                      " is not an integer scalar"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckArrayOperand(const Instruction& instr, int64_t i) {
  const Shape& s = instr.operand(i)->shape();
  if (s.IsArray()) return absl::OkStatus();
  return InstrError(instr, StrCat(instr.PrintedOpcode(), " ", OperandRef(instr, i), " shape ",
                                  ShapeText(s), " is not an array"));
}

absl::Status CheckDynamicSlice(const Instruction& instr, const VerifierOptions&) {
  if (absl::Status s = CheckArrayOperand(instr, 0); !s.ok()) return s;
  if (absl::Status s = CheckStartIndices(instr, 1); !s.ok()) return s;
  const Instruction& op = *instr.operand(0);
  const Shape& in = op.shape();
  absl::Span<const int64_t> sizes = instr.dynamic_slice_sizes();
  const std::string sizes_text = StrCat("dynamic_slice_sizes={", StrJoin(sizes, ","), "}");
  if (static_cast<int64_t>(sizes.size()) != in.rank()) {
    return InstrError(instr, StrCat("dynamic-slice ", sizes_text, " has ",
                                    Count(static_cast<int64_t>(sizes.size()), "entry", "entries"),
                                    " but operand '", op.name(), "' has rank ", in.rank()));
  }
  for (int64_t d = 0; d < in.rank(); ++d) {
    if (sizes[d] < 0 || (in.dims[d] != Shape::kUnboundedSize && sizes[d] > in.dims[d])) {
      return InstrError(instr,
                        StrCat("dynamic-slice size ", sizes[d], " in dimension ", d,
                               " does not fit in operand '", op.name(), "' shape ", ShapeText(in)));
    }
  }
  const Shape& out = instr.shape();
  bool ok = out.IsArray() && out.element_type == in.element_type && out.rank() == in.rank() &&
            std::equal(out.dims.begin(), out.dims.end(), sizes.begin());
  if (!ok) {
    Shape expected;
    expected.element_type = in.element_type;
    expected.dims.assign(sizes.begin(), sizes.end());
    expected.dynamic.assign(sizes.size(), false);
    return InstrError(instr, StrCat("dynamic-slice shape ", ShapeText(out), " does not match ",
                                    ShapeText(expected), " (element type of operand '", op.name(),
                                    "', ", sizes_text, ")"));
  }
  return absl::OkStatus();
}

// Operand 0 may be a b(...) buffer, as in XLA: the update is written into the storage it holds
// (verifier_buffer_rules.cc checks the rest: the result is that buffer, the only one). With
// allow_mixed_precision the update's floating-point type may differ from the operand's, as in
// XLA's InferDynamicUpdateSliceShape (SameElementTypeIgnoringFpPrecision); the result is the
// operand's shape exactly (CheckShape's ShapesSame for dynamic-update-slice).
absl::Status CheckDynamicUpdateSlice(const Instruction& instr, const VerifierOptions& options) {
  const Instruction& op = *instr.operand(0);
  if (!op.shape().IsBuffer()) {
    if (absl::Status s = CheckArrayOperand(instr, 0); !s.ok()) return s;
  }
  if (absl::Status s = CheckArrayOperand(instr, 1); !s.ok()) return s;
  const Instruction& update = *instr.operand(1);
  const Shape& in = op.shape().IsBuffer() ? *op.shape().tuple_elements[0] : op.shape();
  const Shape& up = update.shape();
  if (up.rank() != in.rank()) {
    return InstrError(instr, StrCat("dynamic-update-slice update '", update.name(), "' shape ",
                                    ShapeText(up), " has rank ", up.rank(), " but operand '",
                                    op.name(), "' shape ", ShapeText(in), " has rank ", in.rank()));
  }
  if (!TypesAgree(up.element_type, in.element_type, options)) {
    return InstrError(
        instr, StrCat("dynamic-update-slice update '", update.name(), "' element type ",
                      PrimitiveTypeName(up.element_type), " does not match operand '", op.name(),
                      "' element type ", PrimitiveTypeName(in.element_type)));
  }
  for (int64_t d = 0; d < in.rank(); ++d) {
    if (in.dims[d] != Shape::kUnboundedSize && up.dims[d] != Shape::kUnboundedSize &&
        up.dims[d] > in.dims[d]) {
      return InstrError(
          instr, StrCat("dynamic-update-slice update '", update.name(), "' shape ", ShapeText(up),
                        " does not fit in operand '", op.name(), "' shape ", ShapeText(in)));
    }
  }
  if (absl::Status s = CheckStartIndices(instr, 2); !s.ok()) return s;
  if (!instr.shape().Compatible(op.shape())) {
    return InstrError(
        instr, StrCat("dynamic-update-slice shape ", ShapeText(instr.shape()),
                      " does not match operand '", op.name(), "' shape ", ShapeText(op.shape())));
  }
  return absl::OkStatus();
}

// Bytes of an array in memory when its layout has tiles: each tiled dimension is padded up to
// a multiple of the first tile's size for it (the first tile applies to the most minor
// dimensions; later tiles subdivide it and add no padding of their own). A bitcast
// reinterprets that memory, so XLA's TPU dumps bitcast u32[10]{0:T(128)} to
// u32[5]{0:T(128)}: both occupy 128 elements. Equal to ByteSize() without tiles.
int64_t PaddedByteSize(const Shape& s) {
  if (!s.IsArray() || !s.has_layout || s.layout.tiles.empty() ||
      static_cast<int64_t>(s.layout.minor_to_major.size()) != s.rank()) {
    return s.ByteSize();
  }
  absl::InlinedVector<int64_t, 6> dims(s.dims.begin(), s.dims.end());
  int64_t extra = 1;  // tile dimensions beyond the shape's rank pad size-1 dimensions
  const auto& tile = s.layout.tiles.front().dims;
  const int64_t k = static_cast<int64_t>(tile.size());
  for (int64_t j = 0; j < k; ++j) {
    const int64_t t = tile[k - 1 - j];  // j-th most minor tile dimension
    if (t == Tile::kTileCombine || t <= 0) continue;
    if (j < s.rank()) {
      const int64_t dim = s.layout.minor_to_major[j];
      if (dim < 0 || dim >= s.rank()) return s.ByteSize();
      int64_t& d = dims[dim];
      if (d == Shape::kUnboundedSize) return s.ByteSize();
      d = (d + t - 1) / t * t;
    } else {
      extra *= t;
    }
  }
  int64_t elements = extra;
  for (int64_t d : dims) elements *= d;
  return (elements * s.ElementBits() + 7) / 8;
}

absl::Status CheckBitcast(const Instruction& instr, const VerifierOptions&) {
  const Instruction& op = *instr.operand(0);
  const int64_t out = instr.shape().ByteSize();
  const int64_t in = op.shape().ByteSize();
  if (out != in && PaddedByteSize(instr.shape()) != PaddedByteSize(op.shape())) {
    // Layouts are printed here: E(n) element sizes change the byte count.
    return InstrError(instr,
                      StrCat("bitcast shape ", instr.shape().ToString(), " has ",
                             Count(out, "byte", "bytes"), " but operand '", op.name(), "' shape ",
                             op.shape().ToString(), " has ", Count(in, "byte", "bytes")));
  }
  return absl::OkStatus();
}

// copy returns its operand's shape; with allow_mixed_precision the floating-point types may
// differ, as in XLA, whose CheckShape compares a copy like most ops (unlike copy-start and
// copy-done) and whose evaluator converts (HandleCopy; hlo_evaluator_test's CopyDifferentTypes).
// A copy to or from host memory (S(5)) moves bytes between memories: it keeps the element
// type even with mixed precision (XLA's layout-sensitive CheckShape for kCopy; hlo_verifier_test's
// HostOffloadingCopyCannotChangeType). Memory spaces exist only after layout assignment.
constexpr int64_t kHostMemorySpace = 5;

absl::Status CheckCopy(const Instruction& instr, const VerifierOptions& options) {
  const Instruction& op = *instr.operand(0);
  const Shape& out = instr.shape();
  const Shape& in = op.shape();
  if (out.IsArray() && in.IsArray() && out.has_layout && in.has_layout &&
      out.layout.memory_space != in.layout.memory_space &&
      (out.layout.memory_space == kHostMemorySpace || in.layout.memory_space == kHostMemorySpace) &&
      out.element_type != in.element_type) {
    return InstrError(
        instr,
        StrCat("copy between memory spaces S(", in.layout.memory_space, ") and S(",
               out.layout.memory_space, ") changes the element type ",
               PrimitiveTypeName(in.element_type), " to ", PrimitiveTypeName(out.element_type),
               ": a copy to or from host memory moves bytes unconverted"));
  }
  if (!ShapesAgree(instr.shape(), op.shape(), options)) {
    return InstrError(instr,
                      StrCat("copy shape ", ShapeText(instr.shape()), " does not match operand '",
                             op.name(), "' shape ", ShapeText(op.shape())));
  }
  return absl::OkStatus();
}

// The per-opcode rules, one line each; they take precedence over the array rules
// (verifier_array_rules.cc), so copy keeps its own rule although it is elementwise. `callees`
// marks the rules that read called computations.
struct RuleEntry {
  Opcode op;
  ShapeRule rule;
  bool callees;
};
constexpr RuleEntry kShapeRules[] = {
    {Opcode::kTuple, CheckTuple, false},
    {Opcode::kGetTupleElement, CheckGetTupleElement, false},
    {Opcode::kWhile, CheckWhile, true},
    {Opcode::kConditional, CheckConditional, true},
    {Opcode::kCall, CheckCall, true},
    {Opcode::kFusion, CheckFusion, true},
    {Opcode::kCustomCall, CheckCustomCall, false},
    {Opcode::kDynamicSlice, CheckDynamicSlice, false},
    {Opcode::kDynamicUpdateSlice, CheckDynamicUpdateSlice, false},
    {Opcode::kBitcast, CheckBitcast, false},
    {Opcode::kCopy, CheckCopy, false},
    {Opcode::kGather, CheckGather, false},
    {Opcode::kScan, CheckScan, true},
    {Opcode::kConstant, CheckConstant, false},
};

struct RuleTable {
  std::array<ShapeRule, static_cast<size_t>(Opcode::kOpcodeCount)> rule{};
  std::array<bool, static_cast<size_t>(Opcode::kOpcodeCount)> callees{};
};

const RuleTable kRules = [] {
  RuleTable t;
  // The rule families, most specific first: reduce-precision has the numeric rule although the
  // opcode table calls it elementwise.
  constexpr ShapeRule (*kFamilies[])(Opcode) = {
      AsyncShapeRule, TokenShapeRule, NumericShapeRule, CollectiveShapeRule,
      SameShapeRule,  DotShapeRule,   ArrayShapeRule};
  for (size_t op = 0; op < t.rule.size(); ++op) {
    for (ShapeRule (*family)(Opcode) : kFamilies) {
      if (t.rule[op] == nullptr) t.rule[op] = family(static_cast<Opcode>(op));
    }
  }
  // async-start's rule compares with its wrapped computation.
  t.callees[static_cast<size_t>(Opcode::kAsyncStart)] = true;
  // These rules check the signatures of the computations they apply (verifier_callee_rules.cc).
  for (Opcode op : {Opcode::kReduce, Opcode::kReduceWindow, Opcode::kScatter,
                    Opcode::kSelectAndScatter, Opcode::kSort, Opcode::kMap}) {
    t.callees[static_cast<size_t>(op)] = true;
  }
  for (const RuleEntry& e : kShapeRules) {
    t.rule[static_cast<size_t>(e.op)] = e.rule;
    t.callees[static_cast<size_t>(e.op)] = e.callees;
  }
  return t;
}();

}  // namespace

ShapeRule ShapeRuleFor(Opcode op) { return kRules.rule[static_cast<size_t>(op)]; }

bool ShapeRuleReadsCallees(Opcode op) { return kRules.callees[static_cast<size_t>(op)]; }

}  // namespace hloscope::verifier_internal
