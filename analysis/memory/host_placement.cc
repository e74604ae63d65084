#include "analysis/memory/host_placement.h"

#include "hlo/computation.h"
#include "hlo/instruction.h"
#include "hlo/module.h"

namespace hloscope {

namespace {

// The placement markers of a before-offloading module (XLA's
// host_memory_offload_annotations.h).
bool PlacesOnHost(const Instruction& i) {
  if (i.opcode() != Opcode::kCustomCall) return false;
  if (i.custom_call_target() == "MoveToHost") return true;
  if (i.custom_call_target() != "annotate_device_placement") return false;
  const std::optional<std::string_view> placement = i.FrontendAttribute("_xla_buffer_placement");
  return placement == "pinned_host" || placement == "unpinned_host";
}

}  // namespace

std::vector<bool> HostOffloadedBuffers(const AliasAnalysis& alias) {
  std::vector<bool> host(alias.buffers().size(), false);
  const Module& module = alias.dataflow().module();
  std::vector<const Instruction*> work;
  for (const Computation* c : module.computations()) {
    for (const Instruction* i : c->instructions()) {
      if (PlacesOnHost(*i)) work.push_back(i);
    }
  }
  std::vector<bool> seen(module.instruction_id_bound(), false);
  while (!work.empty()) {
    const Instruction* i = work.back();
    work.pop_back();
    if (seen[i->unique_id()]) continue;
    seen[i->unique_id()] = true;
    for (BufferId b : alias.BuffersAt(*i)) host[b] = true;
    for (const Instruction* user : i->users()) {
      switch (user->opcode()) {
        case Opcode::kBitcast:
        case Opcode::kReshape:
          work.push_back(user);
          break;
        case Opcode::kDynamicUpdateSlice:
          // As the update: the buffer updated in place is the host's. As the buffer updated,
          // the result is that same buffer.
          work.push_back(user);
          break;
        default:
          break;
      }
    }
  }
  return host;
}

}  // namespace hloscope
