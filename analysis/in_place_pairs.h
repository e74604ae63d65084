// In-place operations: which operand buffers an instruction's outputs must reuse, and whether a
// user may reuse an operand's buffer for one of its outputs.
//
//   for (const InPlacePair& p : GetInPlaceInputOutputPairs(*dus))
//     // p.input.operand_number == 0, p.input.operand_index == {}, p.output_index == {}
//
// Pairs ("the output at output_index is written into the operand's buffer"):
//  - dynamic-update-slice: operand 0 ↔ {}.
//  - scatter with N operands: operand i ↔ {i} ({} when N == 1).
//  - all-reduce-start: operand i ↔ {i} ({} with one operand).
//  - collective-permute / collective-permute-start with 4 operands (the in-place form; a start
//    only with slice_sizes, as in XLA, else it is a combined permute of four arrays): the
//    output buffer operand 1 ↔ {} / {1} (and its elements, when it is a tuple).
//  - custom-call, async-start and fusion: their output_to_operand_aliasing attribute (on the
//    short `custom-call-start` / `fusion-start` form it is the wrapped op's: output {1, ...}).
//    An async-start's own attribute is read along its chain, as XLA does for late binding
//    (async_chain_pairs.h): the start, each async-update and the async-done take the entries
//    whose parameter they bind or whose result they hold.
//  - fusion: also every output whose fused root reaches, through tuple / get-tuple-element
//    (and bitcast, when bitcasts are aliases), an in-place instruction (a DUS, a scatter, a
//    nested fusion with such pairs) whose in-place operand reaches a fused parameter the same
//    way. That parameter's operand and that output share a buffer.
//  - set-dimension-size: operand 0 ↔ {}; ragged-all-to-all: operand 1 ↔ {}.
//  - async-update: its own output_to_operand_aliasing (a context element kept in the buffer of
//    the chain's, e.g. {2} ↔ operand 0 {2}; XLA since 3c1e341809).
#pragma once

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "analysis/dataflow_options.h"
#include "hlo/instruction.h"
#include "hlo/shape.h"

namespace hloscope {

struct OperandIndex {
  int64_t operand_number = 0;
  ShapeIndex operand_index;
  bool operator==(const OperandIndex&) const = default;
};

struct InPlacePair {
  OperandIndex input;
  ShapeIndex output_index;
  bool operator==(const InPlacePair&) const = default;
};

// Of the options (dataflow_options.h) only bitcast_defines_value is read: with false, bitcasts
// forward their operand's buffer, and only then may the walk from a fusion's root to its
// parameters cross them.

std::vector<InPlacePair> GetInPlaceInputOutputPairs(const Instruction& instr,
                                                    const DataflowOptions& options = {});

// False when no instruction with this opcode has in-place pairs, so a walk over a large module
// can skip GetInPlaceInputOutputPairs for nearly every instruction.
bool MayHaveInPlacePairs(Opcode opcode);

// A fusion's pairs in two halves, for a walk over a large module that meets each fused
// computation long before its fusion: what the fused computation gives a fusion with the tuple
// structure of its root (computed while the computation is in cache), then the fusion's own
// output_to_operand_aliasing added to it. For a fusion whose shape has its root's tuple
// structure (SameTupleStructure), FusionInPlacePairs(fusion,
// FusedComputationInPlacePairs(*fusion.fused_computation())) ==
// GetInPlaceInputOutputPairs(fusion).
std::vector<InPlacePair> FusedComputationInPlacePairs(const Computation& fused,
                                                      const DataflowOptions& options = {});
std::vector<InPlacePair> FusionInPlacePairs(const Instruction& fusion,
                                            absl::Span<const InPlacePair> fused_pairs);
// Neither is a tuple (any element type, dimensions or layout), or both are tuples whose
// elements pairwise have the same tuple structure: their leaves have the same shape indices.
bool SameTupleStructure(const Shape& a, const Shape& b);

// Whether `user` may write its output at `user_index` into the buffer that holds `operand`'s
// value at `operand_index` (a structural answer, as copy insertion and buffer assignment ask
// it): true for in-place pairs; otherwise it needs equal shapes (with layouts) and one of:
// while or conditional (their callees are checked separately), an elementwise user, a loop or
// input fusion whose uses of that operand are elementwise (or tuples) all the way to the root,
// dynamic-update-slice / scatter on their in-place operand only, sort as the operand's only
// user (its own output element). Never for constants.
bool CanShareOperandBufferWithUser(const Instruction& operand, const ShapeIndex& operand_index,
                                   const Instruction& user, const ShapeIndex& user_index,
                                   const DataflowOptions& options = {});

}  // namespace hloscope
