#include "analysis/memory/memory_context.h"

#include "fmt/format.h"
#include "hlo/computation.h"
#include "hlo/instruction.h"
#include "hlo/opcode.h"

namespace hloscope {

std::vector<std::string> MemoryContextWarnings(const Module& module) {
  bool fused = false, fusible = false, tiled = false, collective = false;
  for (const Computation* c : module.computations()) {
    for (const Instruction* in : c->instructions()) {
      const Opcode op = in->opcode();
      if (op == Opcode::kFusion) fused = true;
      // Work XLA's fusion passes would merge into its consumers; a module of only parameters,
      // tuples and calls has nothing to fuse, so it is not called unfused.
      if (IsElementwise(op) || op == Opcode::kBroadcast || op == Opcode::kReduce ||
          op == Opcode::kTranspose || op == Opcode::kConvert) {
        fusible = true;
      }
      if (HasFlag(op, kOpCollective)) collective = true;
      if (in->sharding().find("devices=[") != std::string_view::npos) tiled = true;
    }
  }
  std::vector<std::string> out;
  const std::string_view name = module.name();
  if (!module.is_scheduled()) {
    out.push_back(fmt::format(
        "{} is not scheduled (no is_scheduled=true): the peak is for hloscope's order, and XLA's "
        "scheduler may order it to a lower or higher peak",
        name));
  }
  if (!fused && fusible) {
    out.push_back(fmt::format(
        "{} is not fused (a before-optimization dump): every intermediate counts as a buffer, "
        "so the peak overstates what XLA allocates after fusion",
        name));
  }
  if (tiled && !collective) {
    out.push_back(fmt::format(
        "{} is not partitioned (tiled shardings, no collectives): shapes are global, so the "
        "peak overstates what one device allocates",
        name));
  }
  return out;
}

}  // namespace hloscope
