#include "tests/differential/reducer.h"

#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

#include "hlo/parser.h"
#include "hlo/printer.h"
#include "hlo/verifier.h"
#include "passes/dce.h"

namespace hloscope::differential {
namespace {

std::unique_ptr<Module> ParseValid(std::string_view text) {
  auto module = ParseModule(text);
  if (!module.ok() || !VerifyModule(**module).ok()) return nullptr;
  return std::move(*module);
}

// Constants, parameters and broadcasts of constants: what a zero replacement produces, so
// never replaced by zeros again (that would be no progress).
bool IsTrivial(const Instruction& i) {
  if (i.opcode() == Opcode::kConstant || i.opcode() == Opcode::kParameter) return true;
  return i.opcode() == Opcode::kBroadcast && i.operand(0)->opcode() == Opcode::kConstant;
}

// Progress measure: every accepted step lowers it, so reduction terminates. Turning one
// computing instruction into zeros adds an instruction (constant + broadcast) but removes a
// non-trivial one.
int64_t Cost(const Module& m) {
  int64_t cost = 0;
  for (Computation* c : m.computations())
    for (Instruction* i : c->instructions()) cost += IsTrivial(*i) ? 1 : 3;
  return cost;
}

struct Target {
  std::string computation;
  std::string instruction;
};

// Instructions that decide how often a while loop runs: its condition, the body's root and
// what the body computes for the state elements the condition reads. Editing one of them
// could make a loop endless (and the interpreter has no step limit), so they stay.
std::set<std::pair<std::string, std::string>> LoopControl(const Module& m) {
  std::set<std::pair<std::string, std::string>> out;
  auto keep = [&](const Instruction* i) {
    out.insert({std::string(i->parent()->name()), std::string(i->name())});
  };
  for (Computation* c : m.computations())
    for (Instruction* w : c->instructions()) {
      if (w->opcode() != Opcode::kWhile) continue;
      Computation* cond = w->while_condition();
      Computation* body = w->while_body();
      for (Instruction* i : cond->instructions()) keep(i);
      std::vector<Instruction*> work;
      Instruction* root = body->root();
      bool whole_state = root->opcode() != Opcode::kTuple || cond->parameter_count() != 1;
      if (!whole_state) {
        for (Instruction* u : cond->parameter(0)->users()) {
          if (u->opcode() != Opcode::kGetTupleElement || u->tuple_index() >= root->operand_count())
            whole_state = true;
          else
            work.push_back(root->operand(u->tuple_index()));
        }
      }
      if (whole_state) {
        for (Instruction* i : body->instructions()) keep(i);
        continue;
      }
      keep(root);
      while (!work.empty()) {
        Instruction* i = work.back();
        work.pop_back();
        if (!out.insert({std::string(i->parent()->name()), std::string(i->name())}).second)
          continue;
        for (Instruction* op : i->operands()) work.push_back(op);
      }
    }
  return out;
}

Instruction* Find(const Module& m, const Target& t) {
  const Computation* c = m.FindComputation(t.computation);
  if (c == nullptr) return nullptr;
  for (Instruction* i : c->instructions())
    if (i->name() == t.instruction) return i;
  return nullptr;
}

std::string Finish(Module& m) {
  DeadCodeElimination dce;
  (void)dce.Run(m);  // dce only fails on modules it cannot read; the caller re-verifies
  return PrintModule(m);
}

// The module with `t` replaced by the n-th same-shaped operand or parameter; nullopt when
// there is no n-th.
std::optional<std::string> ReplaceWithExisting(std::string_view text, const Target& t, size_t n) {
  std::unique_ptr<Module> m = ParseValid(text);
  if (m == nullptr) return std::nullopt;
  Instruction* instr = Find(*m, t);
  if (instr == nullptr) return std::nullopt;
  std::vector<Instruction*> options;
  for (Instruction* op : instr->operands())
    if (op->shape() == instr->shape()) options.push_back(op);
  for (Instruction* p : instr->parent()->parameters())
    if (p != instr && p->shape() == instr->shape()) options.push_back(p);
  if (n >= options.size()) return std::nullopt;
  instr->ReplaceAllUsesWith(options[n]);
  return Finish(*m);
}

// The module with `t` redefined as zeros of its shape (same name, so its users are kept).
// Works on the printed text: canonical printing puts each instruction on one line.
std::optional<std::string> ReplaceWithZeros(std::string_view text, const Target& t) {
  std::unique_ptr<Module> m = ParseValid(text);
  if (m == nullptr) return std::nullopt;
  Instruction* instr = Find(*m, t);
  if (instr == nullptr || IsTrivial(*instr) || !instr->shape().IsArray()) return std::nullopt;
  const Shape& shape = instr->shape();
  std::string zero = shape.element_type == PrimitiveType::kPred ? "false" : "0";
  Shape scalar;
  scalar.element_type = shape.element_type;
  std::string name(instr->name());
  std::string replacement;
  if (shape.rank() == 0) {
    replacement = name + " = " + scalar.ToString() + " constant(" + zero + ")";
  } else {
    replacement = name + ".zero = " + scalar.ToString() + " constant(" + zero + ")\n  ";
    replacement += name + " = " + shape.ToString() + " broadcast(" + name + ".zero), dimensions={}";
  }
  std::istringstream in{PrintModule(*m)};
  std::string out, line, computation;
  bool replaced = false;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] != ' ' && line.back() == '{') {
      std::string header = line.substr(0, line.size() - 2);
      if (header.starts_with("ENTRY ")) header = header.substr(6);
      computation = header;
    } else if (computation == t.computation && line.starts_with("  ")) {
      std::string body = line.substr(2);
      bool root = body.starts_with("ROOT ");
      if (root) body = body.substr(5);
      if (body.starts_with(name + " = ")) {
        line = "  " + std::string(root ? "ROOT " : "") + replacement;
        replaced = true;
      }
    }
    out += line + "\n";
  }
  if (!replaced) return std::nullopt;
  std::unique_ptr<Module> edited = ParseValid(out);
  if (edited == nullptr) return std::nullopt;
  return Finish(*edited);
}

}  // namespace

ReduceResult ReduceModule(std::string_view text, const StillFails& still_fails,
                          const ReduceOptions& options) {
  ReduceResult result;
  std::unique_ptr<Module> current = ParseValid(text);
  if (current == nullptr) {
    result.text = std::string(text);
    return result;
  }
  result.instructions_before = int(current->instruction_count());
  result.text = PrintModule(*current);
  int64_t cost = Cost(*current);
  // Tries one edited text; keeps it when it is valid, smaller and still fails.
  auto accept = [&](const std::optional<std::string>& candidate) {
    if (!candidate || result.tries >= options.max_tries) return false;
    std::unique_ptr<Module> m = ParseValid(*candidate);
    if (m == nullptr || Cost(*m) >= cost) return false;
    ++result.tries;
    if (!still_fails(*candidate)) return false;
    cost = Cost(*m);
    current = std::move(m);
    result.text = *candidate;
    return true;
  };
  for (bool progress = true; progress && result.tries < options.max_tries;) {
    progress = false;
    std::vector<Target> targets;
    std::set<std::pair<std::string, std::string>> control = LoopControl(*current);
    for (Computation* c : current->computations())
      for (Instruction* i : c->instructions())
        if (i->opcode() != Opcode::kParameter &&
            !control.contains({std::string(c->name()), std::string(i->name())}))
          targets.push_back({std::string(c->name()), std::string(i->name())});
    for (const Target& t : targets) {
      if (Find(*current, t) == nullptr) continue;  // removed by an earlier step of this sweep
      bool done = false;
      for (size_t n = 0; !done; ++n) {
        std::optional<std::string> candidate = ReplaceWithExisting(result.text, t, n);
        if (!candidate) break;
        done = accept(candidate);
      }
      if (!done) done = accept(ReplaceWithZeros(result.text, t));
      progress |= done;
    }
  }
  result.instructions_after = int(current->instruction_count());
  return result;
}

}  // namespace hloscope::differential
