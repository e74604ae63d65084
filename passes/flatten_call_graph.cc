#include "passes/flatten_call_graph.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "analysis/analysis_cache.h"
#include "analysis/call_graph.h"
#include "fmt/format.h"
#include "hlo/computation.h"
#include "support/bytes.h"
#include "support/checked_int.h"

namespace hloscope {

namespace {

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

// How many copies of each computation the flattened module holds, and how many instructions
// in all, counted before anything is cloned: a 4 KB module whose call graph doubles at each of
// 40 levels would flatten into 2^40 computations. A computation gets one copy per control-flow
// call site of every copy of its callers (at least the original); embedded callers (fusion,
// to_apply) share it. Counts saturate at kInt64Max. Empty when the call graph has a cycle (the
// rounds below then report it).
struct FlattenedSize {
  bool acyclic = false;
  int64_t instructions = 0;
  const Computation* widest = nullptr;  // the computation with the most copies
  int64_t widest_copies = 0;
};

FlattenedSize CountFlattened(const Module& module, const CallGraph& calls) {
  absl::flat_hash_map<const Computation*, int64_t> callers_left;  // Kahn's in-degree
  for (const Computation* c : module.computations()) callers_left.try_emplace(c, 0);
  for (const CallSite& site : calls.sites()) ++callers_left[site.callee];
  absl::flat_hash_map<const Computation*, int64_t> sites;  // control-flow sites reaching it
  std::vector<const Computation*> ready;
  for (const auto& [c, n] : callers_left) {
    if (n == 0) ready.push_back(c);
  }
  FlattenedSize size;
  size_t done = 0;
  while (!ready.empty()) {
    const Computation* c = ready.back();
    ready.pop_back();
    ++done;
    int64_t copies = std::max<int64_t>(1, sites[c]);
    size.instructions =
        SaturatingAdd(size.instructions, SaturatingMul(copies, c->instruction_count()));
    if (copies > size.widest_copies) {
      size.widest = c;
      size.widest_copies = copies;
    }
    for (const CallSite& site : calls.CallsIn(*c)) {
      if (site.context == CallContext::kControlFlow) {
        sites[site.callee] = SaturatingAdd(sites[site.callee], copies);
      }
      if (--callers_left[site.callee] == 0) ready.push_back(site.callee);
    }
  }
  size.acyclic = done == callers_left.size();
  return size;
}

}  // namespace

absl::StatusOr<bool> FlattenCallGraph::RunOnModule(Module& module, AnalysisCache& analyses) {
  // The cache's call graph serves the size check and the first round; a module with nothing to
  // flatten (the usual case) keeps it for the analyses after the pass. Later rounds see a
  // changed module and build their own.
  const CallGraph* calls = &analyses.Calls();
  std::unique_ptr<CallGraph> rebuilt;
  if (FlattenedSize size = CountFlattened(module, *calls);
      size.acyclic && size.instructions > kMaxFlattenedInstructions) {
    return absl::ResourceExhaustedError(fmt::format(
        "flatten-call-graph: the flattened module would hold {} instructions, more than the "
        "limit of {}: the call graph fans out (computation '{}' would be copied {} times, once "
        "per call site reaching it); nothing was changed",
        FormatCount(size.instructions), kMaxFlattenedInstructions, size.widest->name(),
        FormatCount(size.widest_copies)));
  }
  bool changed = false;
  // Each round clones the callees shared at the current level; the clones' own callees are
  // shared from then on and handled in the next round. The verifier guarantees the call
  // graph has no cycle, so the rounds end; the bound catches a module that skipped it.
  for (int round = 0; round < 1000; ++round) {
    if (round > 0) {
      rebuilt = CallGraph::Build(module);
      calls = rebuilt.get();
    }
    absl::flat_hash_map<const Computation*, int64_t> sites;
    std::vector<CallSite> to_clone;
    for (const CallSite& site : calls->sites()) {
      if (site.context != CallContext::kControlFlow) continue;
      // The first site keeps the original.
      if (sites[site.callee]++ > 0) to_clone.push_back(site);
    }
    if (to_clone.empty()) return changed;
    for (const CallSite& s : to_clone) {
      // The pass holds the module, so the call graph's read-only view of its caller may be
      // written through.
      Instruction* caller = const_cast<Instruction*>(s.caller);
      InstructionBuilder(caller).SetCalledComputation(s.slot, Clone(module, *s.callee));
    }
    changed = true;
  }
  return absl::InternalError(
      "flatten-call-graph: the call graph did not flatten in 1000 rounds "
      "(is it cyclic? run the verifier first)");
}

}  // namespace hloscope
