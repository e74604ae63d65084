#include "eval/buffers.h"

#include <string_view>
#include <utility>

#include "eval/element_io.h"
#include "eval/layout_util.h"
#include "eval/wrapped_ops.h"
#include "hlo/computation.h"
#include "support/str_util.h"

namespace hloscope::eval {
namespace {

bool IsTarget(const Instruction& instr, std::string_view target) {
  return instr.opcode() == Opcode::kCustomCall && instr.custom_call_target() == target;
}

// Instructions that only hand values on (or run a computation on them): a buffer passes
// through them as any value does.
bool Forwards(Opcode op) {
  switch (op) {
    case Opcode::kParameter:
    case Opcode::kTuple:
    case Opcode::kGetTupleElement:
    case Opcode::kWhile:
    case Opcode::kCall:
    case Opcode::kConditional:
    case Opcode::kFusion:
    // An async pair hands its operands and its wrapped op's result on (the wrapped computation
    // is checked as any other).
    case Opcode::kAsyncStart:
    case Opcode::kAsyncUpdate:
    case Opcode::kAsyncDone:
      return true;
    default:
      return false;
  }
}

absl::Status Refuse(const Instruction& instr, std::string_view why) {
  return absl::InvalidArgumentError(StrCat("cannot run %", instr.name(), ": ", why));
}

absl::Status UninitializedRead(const Instruction& instr) {
  return Refuse(instr,
                "it reads buffer contents that nothing wrote (a CreateBuffer buffer starts "
                "uninitialized: a device would read whatever its storage held)");
}

Bytes Relaid(const ArrayRef& from, const Shape& to) {
  Bytes out(static_cast<size_t>(DenseBytes(to)));
  Relayout(*from.shape, from.data, to, out.data());
  return out;
}

}  // namespace

bool HasBuffer(const Shape& shape) {
  bool found = false;
  ForEachSubshape(shape, [&](const Shape& s, const ShapeIndex&) { found = found || s.IsBuffer(); });
  return found;
}

bool IsBufferOp(const Instruction& instr) {
  return IsTarget(instr, "Pin") || IsTarget(instr, "Unpin") || IsTarget(instr, "CreateBuffer") ||
         (instr.opcode() == Opcode::kDynamicUpdateSlice && instr.shape().IsBuffer());
}

absl::Status CheckBufferUses(const Module& module) {
  if (!module.HasBufferShapes()) return absl::OkStatus();
  if (HasBuffer(module.entry()->root()->shape())) {
    return absl::UnimplementedError(
        StrCat("the interpreter cannot run a module whose entry computation returns a buffer (",
               module.entry()->root()->shape().ToString(false), "): it returns arrays only"));
  }
  for (const Computation* c : module.computations()) {
    for (const Instruction* instr : c->instructions()) {
      if (IsBufferOp(*instr) || Forwards(instr->opcode())) continue;
      bool uses = HasBuffer(instr->shape());
      for (const Instruction* o : instr->operands()) uses = uses || HasBuffer(o->shape());
      // Unknown custom-call targets are refused by name elsewhere.
      if (uses && instr->opcode() != Opcode::kCustomCall) {
        return absl::UnimplementedError(
            StrCat("the interpreter runs buffers (b(...)) only through Pin, Unpin, CreateBuffer, "
                   "dynamic-update-slice and the instructions that forward values, not through '",
                   instr->PrintedOpcode(), "' (instruction %", instr->name(), ")"));
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<BufferContents> EvalBufferOp(const Instruction& instr,
                                            absl::Span<const ArrayRef> operands) {
  const Shape& shape = instr.shape();
  if (IsTarget(instr, "CreateBuffer")) {
    if (!operands.empty() || !shape.IsBuffer()) {
      return Refuse(instr, "CreateBuffer takes no operand and gives a buffer");
    }
    return BufferContents{shape.tuple_elements[0], std::nullopt};
  }
  if (IsTarget(instr, "Pin")) {
    if (operands.size() != 1 || !shape.IsBuffer() || !instr.operand(0)->shape().IsArray() ||
        !operands[0].shape->Compatible(*shape.tuple_elements[0])) {
      return Refuse(instr, "Pin takes one array and gives a buffer of its shape");
    }
    return BufferContents{shape.tuple_elements[0], Relaid(operands[0], *shape.tuple_elements[0])};
  }
  if (IsTarget(instr, "Unpin")) {
    if (operands.size() != 1 || !shape.IsArray() || !instr.operand(0)->shape().IsBuffer() ||
        !operands[0].shape->Compatible(shape)) {
      return Refuse(instr, "Unpin takes one buffer and gives an array of its shape");
    }
    if (operands[0].data == nullptr) return UninitializedRead(instr);
    return BufferContents{&shape, Relaid(operands[0], shape)};
  }
  // dynamic-update-slice into a buffer: operand 0 is the buffer's array.
  const Shape& array = *shape.tuple_elements[0];
  if (operands.size() < 2 || !instr.operand(0)->shape().IsBuffer() ||
      !operands[1].shape->IsArray() || operands[1].shape->rank() != array.rank() ||
      operands.size() != static_cast<size_t>(2 + array.rank())) {
    return Refuse(instr,
                  "a dynamic-update-slice into a buffer takes the buffer, an update of its rank "
                  "and one index per dimension");
  }
  // The verifier lets a float update's type differ under mixed precision (as XLA's does), but
  // a buffer is written in place with no conversion: the f64 update of an f32 buffer was
  // copied whole into it (ASan: heap-buffer-overflow in Relayout).
  if (operands[1].shape->element_type != array.element_type) {
    return Refuse(
        instr, StrCat("a dynamic-update-slice into a buffer of ", array.ToString(),
                      " takes an update of its element type, not ", operands[1].shape->ToString()));
  }
  if (operands[0].data == nullptr) {
    // Start indices are clamped so the update fits: one as large as the buffer covers it all.
    if (operands[1].shape->dims == array.dims) {
      return BufferContents{&array, Relaid(operands[1], array)};
    }
    return Refuse(instr,
                  "it writes part of a buffer whose contents nothing wrote, so the rest stays "
                  "uninitialized (a CreateBuffer buffer: a device would keep whatever its storage "
                  "held)");
  }
  absl::StatusOr<Bytes> r = EvalSliceAs(Opcode::kDynamicUpdateSlice, {}, array, operands);
  if (!r.ok()) return r.status();
  return BufferContents{&array, *std::move(r)};
}

}  // namespace hloscope::eval
