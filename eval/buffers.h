// Buffer values `b(T)` (XLA's Pin / Unpin / CreateBuffer chains): a buffer is storage holding
// one array of shape T that custom-calls update in place through output_to_operand_aliasing.
//
// What XLA defines (openxla/xla at 2c731115ef3b): hlo_instructions.h names the targets
// kPinCustomCallTarget "Pin", kUnpinCustomCallTarget "Unpin", kCreateBufferCustomCallTarget
// "CreateBuffer"; service/hlo_verifier.cc (VerifyBuffers and the custom-call checks) allows
// Pin(array) -> b(array) and Unpin(b(array)) -> array through one alias, CreateBuffer() -> b(T)
// with no operand, buffers elsewhere only in tuples, get-tuple-elements, whiles, non-entry
// parameters and a dynamic-update-slice's operand 0 and result; service/gpu/thunk_emitter.cc
// emits no work for the three targets: Pin and Unpin only hand the same storage on, and
// CreateBuffer's storage is whatever buffer assignment gives it, never written.
//
// So the interpreter gives (eval/evaluator.cc holds a buffer as a one-element value whose
// element is its array; the dataflow analysis gives b(T) one position, as XLA's shape.h makes
// it one leaf, and buffer mode keeps the array in that position's storage, so Pin, the
// custom-calls that update the buffer and Unpin share the pinned array's storage):
//  - Pin: a buffer holding the operand's values (relaid out when T's layout differs).
//  - Unpin: the buffer's array (relaid out into the result's layout).
//  - CreateBuffer: a buffer whose contents are unknown. Reading them (Unpin, or a
//    dynamic-update-slice that keeps part of them) is refused with an error naming the reader,
//    rather than inventing values a device would not have.
//  - dynamic-update-slice into a buffer: the buffer's array with the update written in.
// Any other instruction with a buffer operand or result, apart from the forwarding ones
// (tuple, get-tuple-element, while, call, conditional, fusion, parameter, async-start/-update/
// -done), and custom-calls (refused by target unless known or opaque: opaque_custom_call.h),
// is refused by CheckBufferUses, as is an entry computation that returns a buffer.
#pragma once

#include <optional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "eval/kernels.h"
#include "hlo/instruction.h"
#include "hlo/module.h"

namespace hloscope::eval {

// Whether `shape` is or holds a buffer b(T).
bool HasBuffer(const Shape& shape);

// Pin, Unpin, CreateBuffer, or a dynamic-update-slice into a buffer: run by EvalBufferOp.
bool IsBufferOp(const Instruction& instr);

// OK when every use of a buffer in `module` is one EvalBufferOp or a forwarding instruction
// runs, and the entry computation returns no buffer.
absl::Status CheckBufferUses(const Module& module);

// The array a buffer op gives: for Unpin the result, for the others the buffer's contents
// (shape T); `bytes` is nullopt for contents nothing wrote (CreateBuffer's).
struct BufferContents {
  const Shape* shape = nullptr;
  std::optional<Bytes> bytes;
};

// Runs IsBufferOp `instr`. `operands` are the operands' arrays, a buffer operand given as its
// array (data nullptr when its contents were never written).
absl::StatusOr<BufferContents> EvalBufferOp(const Instruction& instr,
                                            absl::Span<const ArrayRef> operands);

}  // namespace hloscope::eval
