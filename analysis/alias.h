// Alias analysis: groups the dataflow values that must live in one buffer.
//
//   absl::StatusOr<std::unique_ptr<AliasAnalysis>> aa = AliasAnalysis::Run(module);
//   for (const HloBuffer& b : (*aa)->buffers())
//     if (b.live_out) total += b.bytes;
//
// Values are joined into one buffer when
//  - while: at each index, the values of the loop's init, the body parameter, the body root,
//    the condition parameter and the while result (the loop state lives in one place);
//  - conditional: at each index, every branch root's values and the conditional's result;
//  - in-place pairs (in_place_pairs.h): an operand's values and the output they are updated
//    into (dynamic-update-slice, scatter, fusions around them, output_to_operand_aliasing, ...);
//  - the module's input_output_alias: an entry parameter index and the entry root index it
//    names.
// The dataflow analysis is run in SSA form with the given bitcast option. A buffer's bytes are
// the largest of its values' sizes (arrays: Shape::ByteSize; tuples: 8 bytes per element for
// the table of pointers; tokens: 0). A buffer is live out when one of its values may be in the
// entry's result.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "analysis/dataflow.h"

namespace hloscope {

using BufferId = uint32_t;

struct HloBuffer {
  // Sorted; points into the AliasAnalysis, valid while it lives. A module has about as many
  // buffers as instructions, nearly all holding one value: their lists are one flat array
  // (no heap block, nothing to destroy per buffer), and a buffer is 32 bytes.
  absl::Span<const ValueId> values;
  int64_t bytes = 0;
  BufferId id = 0;
  bool live_out = false;
};

class AliasAnalysis {
 public:
  // `options.ssa_form` is ignored: buffers are built from the SSA form.
  static absl::StatusOr<std::unique_ptr<AliasAnalysis>> Run(
      const Module& module, const DataflowAnalysis::Options& options);
  // With the module's call graph already built (null: the dataflow builds it in its walk).
  static absl::StatusOr<std::unique_ptr<AliasAnalysis>> Run(
      const Module& module, const DataflowAnalysis::Options& options,
      std::shared_ptr<const CallGraph> calls);
  static absl::StatusOr<std::unique_ptr<AliasAnalysis>> Run(const Module& module) {
    return Run(module, DataflowAnalysis::Options{});
  }

  const DataflowAnalysis& dataflow() const { return *dataflow_; }
  // Buffers in the order of their first value.
  absl::Span<const HloBuffer> buffers() const { return buffers_; }
  const HloBuffer& BufferOf(ValueId value) const { return buffers_[buffer_of_[value]]; }
  // The buffers that may hold (instr, index), sorted by id.
  std::vector<BufferId> BuffersAt(const Instruction& instr, const ShapeIndex& index = {}) const;
  std::vector<BufferId> LiveOutBuffers() const;
  // Whether the two positions may hold the same buffer.
  bool MayShareBuffer(const Instruction& a, const ShapeIndex& a_index, const Instruction& b,
                      const ShapeIndex& b_index) const;

  // Bytes a value occupies (see the header comment).
  static int64_t ValueBytes(const HloValue& value);

 private:
  AliasAnalysis() = default;

  std::unique_ptr<DataflowAnalysis> dataflow_;
  std::vector<HloBuffer> buffers_;
  std::vector<BufferId> buffer_of_;  // by value id
  // The values of the buffers: value_ids_[v] == v backs a buffer of one value; the lists of
  // buffers of several values follow each other in joined_values_.
  std::vector<ValueId> value_ids_;
  std::vector<ValueId> joined_values_;
};

}  // namespace hloscope
