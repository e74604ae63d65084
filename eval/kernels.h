// The array computations of the interpreter, one function per family of opcodes. Each reads its
// operands (shape + bytes in that shape's physical order) and returns the result's bytes in the
// physical order of the instruction's shape. They never see buffers: the evaluator
// (evaluator.cc) decides where results are stored.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/instruction.h"

namespace hloscope::eval {

struct ArrayRef {
  const Shape* shape = nullptr;
  const uint8_t* data = nullptr;
};
using Bytes = std::vector<uint8_t>;

// Scalars of every supported type: floats in `f` (already rounded to their type), integers and
// pred in `i` (sign- or zero-extended bit pattern), complex numbers as `f` + `im` i.
struct Scalar {
  double f = 0;
  int64_t i = 0;
  double im = 0;
};
Scalar LoadScalar(PrimitiveType type, const uint8_t* p);
void StoreScalar(PrimitiveType type, uint8_t* p, const Scalar& s);

// Elementwise ops (unary, binary, compare, select, clamp, convert, bitcast-convert). Rank-0
// operands of a ranked op are broadcast (clamp's bounds, select's predicate).
absl::StatusOr<Bytes> EvalElementwise(const Instruction& instr,
                                      absl::Span<const ArrayRef> operands);
// The operands of an elementwise op read in the result's physical order: element i of operand
// k is at data[k] + i * step[k]. A rank-0 operand of a ranked result broadcasts (step 0); an
// operand in another layout is copied into `scratch` in the result's.
struct OperandsInResultOrder {
  std::vector<Bytes> scratch;
  std::vector<const uint8_t*> data;
  std::vector<int64_t> step;
};
OperandsInResultOrder InResultOrder(const Shape& out, absl::Span<const ArrayRef> operands);
// One binary elementwise opcode on two scalars of `type` (reduce's fast path).
Scalar ApplyBinary(Opcode op, PrimitiveType type, const Scalar& a, const Scalar& b);
bool IsSupportedElementwise(Opcode op);
// The elementwise ops with a complex operand or result, and complex/real/imag on any float
// type (complex_elementwise.cc; EvalElementwise and ApplyBinary hand them over).
bool NeedsComplexElementwise(const Instruction& instr, absl::Span<const ArrayRef> operands);
absl::StatusOr<Bytes> EvalComplexElementwise(const Instruction& instr,
                                             absl::Span<const ArrayRef> operands);
Scalar ApplyComplexBinary(Opcode op, PrimitiveType type, const Scalar& a, const Scalar& b);
// fft: FFT, IFFT, RFFT, IRFFT over the innermost fft_length dimensions (fft.cc).
absl::StatusOr<Bytes> EvalFft(const Instruction& instr, absl::Span<const ArrayRef> operands);

// Shape and data movement: broadcast, transpose, reshape, slice, dynamic-slice,
// dynamic-update-slice, concatenate, pad, reverse, iota, gather, copy, constant is not here.
absl::StatusOr<Bytes> EvalDataMovement(const Instruction& instr,
                                       absl::Span<const ArrayRef> operands);
bool IsSupportedDataMovement(Opcode op);

absl::StatusOr<Bytes> EvalDot(const Instruction& instr, absl::Span<const ArrayRef> operands);
// ragged-dot (lhs, rhs, group_sizes) (ragged_dot.cc).
absl::StatusOr<Bytes> EvalRaggedDot(const Instruction& instr, absl::Span<const ArrayRef> operands);

// reduce: `apply` evaluates to_apply on 2N scalars (accumulators first) and returns N scalars.
// Returns one result per output (N arrays).
using ScalarComputation =
    std::function<absl::StatusOr<std::vector<Scalar>>(absl::Span<const Scalar> args)>;
absl::StatusOr<std::vector<Bytes>> EvalReduce(const Instruction& instr,
                                              absl::Span<const ArrayRef> operands,
                                              const ScalarComputation& apply);

// bitcast-convert between element types of different widths (bitcast_convert.cc), and the
// width bitcast-convert gives a type (pred: 8 bits, as XLA stores it).
int BitcastConvertBits(PrimitiveType type);
absl::StatusOr<Bytes> EvalBitcastConvertWidths(const Instruction& instr, const ArrayRef& operand);

// map: `apply` is to_apply on the N operands' elements at one index; returns the result's
// element (map.cc).
absl::StatusOr<Bytes> EvalMap(const Instruction& instr, absl::Span<const ArrayRef> operands,
                              const ScalarComputation& apply);

// scatter (operands, indices, updates): `apply` is update_computation on (current, update)
// scalars. Returns one result per operand.
absl::StatusOr<std::vector<Bytes>> EvalScatter(const Instruction& instr,
                                               absl::Span<const ArrayRef> operands,
                                               const ScalarComputation& apply);

// reduce-window (N inputs, N init values; to_apply as for reduce) and select-and-scatter
// (operand, source, init; `select` returns pred, `scatter` gets (source value, output value)).
// window_ops.cc.
absl::StatusOr<std::vector<Bytes>> EvalReduceWindow(const Instruction& instr,
                                                    absl::Span<const ArrayRef> operands,
                                                    const ScalarComputation& apply);
absl::StatusOr<Bytes> EvalSelectAndScatter(const Instruction& instr,
                                           absl::Span<const ArrayRef> operands,
                                           const ScalarComputation& select,
                                           const ScalarComputation& scatter);
// sort of N operands along dimensions={d}; `compare` gets 2N scalars (lhs, rhs per operand).
// One result per operand. sort.cc.
absl::StatusOr<std::vector<Bytes>> EvalSort(const Instruction& instr,
                                            absl::Span<const ArrayRef> operands,
                                            const ScalarComputation& compare);
// topk along the last dimension: (values, s32 indices). top_k.cc.
absl::StatusOr<std::vector<Bytes>> EvalTopK(const Instruction& instr,
                                            absl::Span<const ArrayRef> operands);
// rng-bit-generator with algorithm=rng_three_fry or rng_philox: (new state, bits).
// algorithm=rng_default runs as `default_algorithm` ("rng_philox" or "rng_three_fry"); with ""
// it is refused, lifted by EvalOptions::rng_default. rng_bit_generator.cc.
absl::StatusOr<std::vector<Bytes>> EvalRngBitGenerator(const Instruction& instr,
                                                       absl::Span<const ArrayRef> operands,
                                                       std::string_view default_algorithm = "");
// Threefry-2x32 with 20 rounds (Salmon et al. 2011), counter and key as two u32 words each.
std::array<uint32_t, 2> Threefry2x32(std::array<uint32_t, 2> counter, std::array<uint32_t, 2> key);
// Philox-4x32 with 10 rounds (Salmon et al. 2011), counter as four u32 words, key as two.
std::array<uint32_t, 4> Philox4x32(std::array<uint32_t, 4> counter, std::array<uint32_t, 2> key);
// convolution and reduce-precision through one entry (array_ops.cc).
bool IsSupportedArrayOp(Opcode op);
absl::StatusOr<Bytes> EvalArrayOp(const Instruction& instr, absl::Span<const ArrayRef> operands);
// cholesky and triangular-solve (linalg.cc).
absl::StatusOr<Bytes> EvalCholesky(const Instruction& instr, absl::Span<const ArrayRef> operands);
absl::StatusOr<Bytes> EvalTriangularSolve(const Instruction& instr,
                                          absl::Span<const ArrayRef> operands);
// convolution.cc.
absl::StatusOr<Bytes> EvalConvolution(const Instruction& instr,
                                      absl::Span<const ArrayRef> operands);
// reduce_precision.cc.
absl::StatusOr<Bytes> EvalReducePrecision(const Instruction& instr,
                                          absl::Span<const ArrayRef> operands);

// Bytes of one array of `shape` in the interpreter's dense format.
int64_t DenseBytes(const Shape& shape);

}  // namespace hloscope::eval
