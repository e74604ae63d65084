// Pieces of the verifier shared by its files: verifier.cc (structure: operand/user
// consistency, parameters, roots, cycles, names) and the per-opcode shape rules, one family a
// file (verifier_*_rule.cc / verifier_*_rules.cc; hlo/verifier.h lists them). Not part of the
// public API, and not installed.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/types/span.h"
#include "hlo/module.h"
#include "hlo/verifier.h"

namespace hloscope::verifier_internal {

// The payload InstrError puts on its status: the failing instruction's unique_id(), read by
// VerifyModule to point the message into VerifierOptions::source_text.
inline constexpr char kInstructionPayload[] = "hloscope.verifier.instruction";

// Message helpers. All messages go through these so the `computation '...': instruction '...':`
// prefix stays identical everywhere.
std::string ShapeText(const Shape& s);
std::string Count(int64_t n, std::string_view singular, std::string_view plural);
absl::Status ModuleError(const Module& m, std::string_view what);
absl::Status ComputationError(const Computation& c, std::string_view what);
absl::Status InstrError(const Computation& c, const Instruction& instr, std::string_view what);
// For the shape rules, which run after the structure check proved every parent right.
absl::Status InstrError(const Instruction& instr, std::string_view what);
// "operand 1 'x'"
std::string OperandRef(const Instruction& instr, int64_t i);
bool IsIntegerScalar(const Shape& s);
// What the shape rules count as equal (verifier_array_rules.cc): sizes equal or either `?`;
// the same rank with agreeing sizes, dynamic flags not compared; element types equal, or both
// floating point with allow_mixed_precision.
bool SizesAgree(int64_t a, int64_t b);
bool DimsAre(const Shape& s, absl::Span<const int64_t> dims);
bool DimsAgree(const Shape& a, const Shape& b);
bool TypesAgree(PrimitiveType a, PrimitiveType b, const VerifierOptions& options);
bool IsScalarOf(const Shape& s, PrimitiveType t);
// Shapes agree: arrays as above, tuples element by element, other shapes by element type.
bool ShapesAgree(const Shape& a, const Shape& b, const VerifierOptions& options);

// Helpers of the shape rules (verifier_array_rules.cc). Dimension lists built while checking:
// the rules run on nearly every instruction on each verification, so they do not allocate
// unless a check fails.
using Dims = absl::InlinedVector<int64_t, 8>;
bool Contains(absl::Span<const int64_t> v, int64_t x);
// `key={1,2}`, for messages.
std::string DimsAttr(std::string_view key, absl::Span<const int64_t> dims);
// An expected array shape, for messages (`?` sizes become dynamic dimensions).
Shape ExpectedArray(PrimitiveType type, absl::Span<const int64_t> dims);
// "<opcode> shape X does not match <expected> (<because>)".
absl::Status ResultMismatch(const Instruction& instr, const Shape& expected,
                            std::string_view because);
// The result and every operand are arrays.
absl::Status RequireArrays(const Instruction& instr);
// verifier_same_shape_rules.cc: the result is the shapes of the first n operands; one gives its
// own shape, several a tuple of theirs (XLA also allows a 1-tuple for one). `which` names them
// in messages ("operands'").
absl::Status CheckFirstOperandsShapes(const Instruction& instr, int64_t n, std::string_view which,
                                      const VerifierOptions& options);
// The same for `out`, element `at` of the instruction's tuple shape (the -start ops); messages
// say "element 1 shape ..." and "element {1,0} shape ...". at < 0: `out` is the whole shape.
absl::Status CheckFirstOperandsShapesAt(const Instruction& instr, const Shape& out, int64_t at,
                                        int64_t n, std::string_view which,
                                        const VerifierOptions& options);
// verifier_shape_rules.cc: `callee` (the computation of attribute `attr`, or nullptr) takes the
// instruction's operands and returns `result`. `kind` names the instruction in messages and
// `result_name` the result ("call shape").
absl::Status CheckCallee(const Instruction& instr, const Computation* callee, std::string_view kind,
                         std::string_view attr, const Shape& result, std::string_view result_name);

// verifier_shape_rules.cc: the output_to_operand_aliasing entries of `instr` name operands
// and subshapes that exist and agree with the subshape at `result_index` of its result ({} for
// fusion and custom-call, {1} for their async form, as analysis/in_place_pairs.cc reads them).
absl::Status CheckOperandAliasing(const Instruction& instr, const ShapeIndex& result_index);
// verifier_callee_rules.cc: XLA's reducer rule (VerifyReducerShape) for the computation `role`
// of a reduce, reduce-window, scatter or select-and-scatter combining n inputs: 2n scalar
// parameters (n accumulators, then n elements), one scalar or a tuple of n returned, of the
// element types of operands init_operands[i] and input_operands[i]. nullptr passes (the
// structure check names a missing computation).
absl::Status CheckReducerSignature(const Instruction& instr, std::string_view role,
                                   const Computation* reducer, int64_t n,
                                   absl::Span<const int64_t> init_operands,
                                   absl::Span<const int64_t> input_operands,
                                   const VerifierOptions& options);
// sort's comparator: 2N scalars for N operands, returning pred[].
absl::Status CheckSortComparator(const Instruction& instr, const VerifierOptions& options);
// map's to_apply: one scalar per operand, returning a scalar of the map's element type.
absl::Status CheckMapComputation(const Instruction& instr, const VerifierOptions& options);
// select-and-scatter's select (two operand elements -> pred[]) and scatter (a reducer).
absl::Status CheckSelectAndScatterComputations(const Instruction& instr,
                                               const VerifierOptions& options);

// verifier_alias_rule.cc: the module's input_output_alias against its entry computation.
absl::Status CheckInputOutputAliases(const Module& module);
// verifier_buffer_rules.cc: XLA's rules on b(...) buffer values (VerifyBuffers): where buffers
// may be, Pin/Unpin/CreateBuffer's shapes, custom-call aliases of buffers, one writer each.
absl::Status CheckBufferRules(const Module& module);
// verifier_async_pair_rules.cc: XLA's module-wide async rules: each async-done traces back to
// one async-start, every start and update reaches a done (or a while loop), and a wrapped
// computation on the main thread holds only parameters and its root.
absl::Status CheckAsyncPairRules(const Module& module);

// Step 3. The rule for one opcode: returns the first problem with the instruction's shape.
// Rules may assume the instruction and its operands passed step 1; those that read called
// computations (ShapeRuleReadsCallees) may assume the whole module did.
using ShapeRule = absl::Status (*)(const Instruction&, const VerifierOptions&);
// verifier_shape_rules.cc: the rule for `op`, or nullptr when it has none.
ShapeRule ShapeRuleFor(Opcode op);
bool ShapeRuleReadsCallees(Opcode op);
// verifier_array_rules.cc: the rule for an array op (elementwise, broadcast, reshape,
// dynamic-reshape, transpose, slice, concatenate, pad, reduce, iota, convolution,
// reduce-window), or nullptr.
ShapeRule ArrayShapeRule(Opcode op);
// verifier_dot_rules.cc: dot, ragged-dot, scaled-dot; or nullptr.
ShapeRule DotShapeRule(Opcode op);
// verifier_same_shape_rules.cc: the rule for an op that returns its operands' shapes or a fixed
// shape (reverse, sort, opt-barrier, add-dependency, domain, scatter, select-and-scatter,
// set-dimension-size, bitcast-convert, get-dimension-size, partition-id, replica-id,
// after-all, rng-get-and-update-state), or nullptr.
ShapeRule SameShapeRule(Opcode op);
// verifier_collective_rules.cc: the rule for a collective (all-reduce, all-gather,
// reduce-scatter, all-to-all, ragged-all-to-all, collective-permute, collective-broadcast, and
// the -start forms), or nullptr.
ShapeRule CollectiveShapeRule(Opcode op);
// verifier_async_rules.cc: the rule for an async op that is not a collective (async-start,
// -update, -done, copy-start, copy-done) and for every -done, or nullptr.
ShapeRule AsyncShapeRule(Opcode op);
// verifier_token_rules.cc: send, send-done, recv, recv-done, infeed, outfeed; or nullptr.
ShapeRule TokenShapeRule(Opcode op);
// verifier_numeric_rules.cc: batch-norm-*, cholesky, triangular-solve, fft, rng-bit-generator,
// reduce-precision, topk, rng; or nullptr.
ShapeRule NumericShapeRule(Opcode op);
// verifier_element_type_rules.cc: the element types XLA's shape inference lets an elementwise
// opcode take (popcnt of integers, floor of floating point, compare's comparison type, ...).
// Called by the elementwise rule once the operands are known to be arrays.
absl::Status CheckElementTypes(const Instruction& instr);
// verifier_gather_rule.cc: gather's dimension numbers against its operand and result shapes.
absl::Status CheckGather(const Instruction& instr, const VerifierOptions& options);
// verifier_scan_rule.cc: scan's operands, result and to_apply computation agree.
absl::Status CheckScan(const Instruction& instr, const VerifierOptions& options);
// verifier_constant_rule.cc: a constant's literal text fits its shape.
absl::Status CheckConstant(const Instruction& instr, const VerifierOptions& options);

}  // namespace hloscope::verifier_internal
