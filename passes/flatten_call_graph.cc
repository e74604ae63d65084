#include "passes/flatten_call_graph.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "fmt/format.h"
#include "hlo/computation.h"

namespace hloscope {

namespace {

bool IsControlFlowSite(const Instruction& caller) {
  switch (caller.opcode()) {
    case Opcode::kWhile:
    case Opcode::kConditional:
    case Opcode::kCall:
    case Opcode::kAsyncStart:
      return true;
    default:
      return false;
  }
}

std::string UniqueComputationName(const Module& module, std::string_view base) {
  std::string name = fmt::format("{}.clone", base);
  for (int k = 1; module.FindComputation(name) != nullptr; ++k) {
    name = fmt::format("{}.clone.{}", base, k);
  }
  return name;
}

Computation* Clone(Module& module, const Computation& original) {
  Computation* copy = module.AddComputation(UniqueComputationName(module, original.name()));
  absl::flat_hash_map<const Instruction*, Instruction*> map;
  for (const Instruction* old : original.instructions()) {
    Instruction* n = module.CreateInstruction(old->opcode(), old->shape_ptr(), old->name(), copy);
    InstructionBuilder b(n);
    b.set_wrapped_opcode(old->async_wrapped_opcode());
    b.set_number(old->parameter_number());
    b.set_literal(old->literal());
    b.set_fusion_kind(old->fusion_kind());
    b.set_direction(old->comparison_direction());
    if (old->metadata() != nullptr) {
      Metadata* m = module.CreateMetadata();
      *m = *old->metadata();
      b.set_metadata(m);
    }
    if (old->details() != nullptr) b.details() = *old->details();
    for (Computation* c : old->called_computations()) b.AddCalledComputation(c);
    for (const Attribute& a : old->attributes()) b.AddAttribute(a);
    copy->AddInstruction(n);
    if (old->opcode() == Opcode::kParameter) copy->SetParameter(n);
    map[old] = n;
  }
  // Operands and control edges after all instructions exist: the text may use a name before
  // its definition.
  for (const Instruction* old : original.instructions()) {
    Instruction* n = map[old];
    for (const Instruction* op : old->operands()) n->AppendOperand(map[op]);
    for (const Instruction* pred : old->control_predecessors()) {
      n->AddControlPredecessor(map[pred]);
    }
  }
  if (original.root() != nullptr) copy->set_root(map[original.root()]);
  copy->set_execution_thread(original.execution_thread());
  copy->set_had_signature(original.had_signature());
  return copy;
}

}  // namespace

absl::StatusOr<bool> FlattenCallGraph::Run(Module& module) {
  bool changed = false;
  // Each round clones the callees shared at the current level; the clones' own callees are
  // shared from then on and handled in the next round. The verifier guarantees the call
  // graph has no cycle, so the rounds end; the bound catches a module that skipped it.
  for (int round = 0; round < 1000; ++round) {
    absl::flat_hash_map<const Computation*, int64_t> sites;
    struct Slot {
      Instruction* caller;
      size_t slot;
    };
    std::vector<Slot> to_clone;
    for (Computation* c : module.computations()) {
      for (Instruction* i : c->instructions()) {
        if (!IsControlFlowSite(*i)) continue;
        const auto called = i->called_computations();
        for (size_t k = 0; k < called.size(); ++k) {
          // The first site keeps the original.
          if (sites[called[k]]++ > 0) to_clone.push_back({i, k});
        }
      }
    }
    if (to_clone.empty()) return changed;
    for (const Slot& s : to_clone) {
      const Computation* original = s.caller->called_computations()[s.slot];
      InstructionBuilder(s.caller).SetCalledComputation(s.slot, Clone(module, *original));
    }
    changed = true;
  }
  return absl::InternalError(
      "flatten-call-graph: the call graph did not flatten in 1000 rounds "
      "(is it cyclic? run the verifier first)");
}

}  // namespace hloscope
