#include "hlo/instruction.h"

#include <algorithm>
#include <type_traits>

#include "absl/strings/numbers.h"
#include "hlo/computation.h"
#include "hlo/module.h"
#include "support/str_util.h"

namespace hloscope {

// Modules free their instructions without visiting them (ObjectPool skips trivial
// destructors); an owning member here would leak.
static_assert(std::is_trivially_destructible_v<Instruction>);
// Three cache lines; see the field order in instruction.h.
static_assert(sizeof(Instruction) == 192);

namespace {
constexpr std::string_view kFusionKindNames[] = {"", "kLoop", "kInput", "kOutput", "kCustom"};
constexpr std::string_view kDirectionNames[] = {"", "EQ", "NE", "LT", "LE", "GT", "GE"};
}  // namespace

std::string_view FusionKindName(FusionKind kind) {
  return kFusionKindNames[static_cast<int>(kind)];
}

std::optional<FusionKind> ParseFusionKind(std::string_view name) {
  for (int i = 1; i < 5; ++i) {
    if (kFusionKindNames[i] == name) return static_cast<FusionKind>(i);
  }
  return std::nullopt;
}

std::string_view ComparisonDirectionName(ComparisonDirection d) {
  return kDirectionNames[static_cast<int>(d)];
}

std::optional<ComparisonDirection> ParseComparisonDirection(std::string_view name) {
  for (int i = 1; i < 7; ++i) {
    if (kDirectionNames[i] == name) return static_cast<ComparisonDirection>(i);
  }
  return std::nullopt;
}

Module* Instruction::module() const { return parent_ ? parent_->module() : nullptr; }

StringArena& Instruction::ListArena() const { return parent_->module()->arena(); }

const Attribute* Instruction::FindAttribute(uint32_t key) const {
  for (const Attribute& a : attrs_) {
    if (a.key == key) return &a;
  }
  return nullptr;
}

std::string Instruction::PrintedOpcode() const {
  if (wrapped_ == Opcode::kOpcodeCount) return std::string(OpcodeName(opcode_));
  std::string_view suffix = opcode_ == Opcode::kAsyncStart    ? "-start"
                            : opcode_ == Opcode::kAsyncUpdate ? "-update"
                                                              : "-done";
  return StrCat(OpcodeName(wrapped_), suffix);
}

Computation* Instruction::CalledComputation(uint32_t attr_key) const {
  for (const Attribute& a : attrs_) {
    if (a.key == attr_key && a.is_computation_ref && a.count > 0 && a.first < called_.size()) {
      return called_[a.first];
    }
  }
  return nullptr;
}

std::vector<Computation*> Instruction::branch_computations() const {
  std::vector<Computation*> out;
  if (const Attribute* a = FindAttribute(kAttrBranchComputations); a && a->is_computation_ref) {
    for (int i = 0; i < a->count; ++i) out.push_back(called_[a->first + i]);
    return out;
  }
  if (Computation* t = CalledComputation(kAttrTrueComputation)) out.push_back(t);
  if (Computation* f = CalledComputation(kAttrFalseComputation)) out.push_back(f);
  return out;
}

bool Instruction::IsRoot() const { return parent_ != nullptr && parent_->root() == this; }

bool Instruction::HasSideEffect() const {
  if (HasFlag(opcode_, kOpSideEffect)) return true;
  if (opcode_ == Opcode::kCustomCall) {
    const Module* m = module();
    if (m == nullptr) return true;
    for (const Attribute& a : attrs_) {
      if (m->AttrKeyName(a.key) == "custom_call_has_side_effect") return a.value == "true";
    }
  }
  return false;
}

absl::Span<const int64_t> Instruction::dimensions() const {
  if (details_ == nullptr) return {};
  return details_->dimensions;
}
absl::Span<const SliceDim> Instruction::slice() const {
  if (details_ == nullptr) return {};
  return details_->slice;
}
absl::Span<const int64_t> Instruction::dynamic_slice_sizes() const {
  if (details_ == nullptr) return {};
  return details_->dynamic_slice_sizes;
}
absl::Span<const OperandAlias> Instruction::output_to_operand_aliasing() const {
  if (details_ == nullptr) return {};
  return details_->output_to_operand_aliasing;
}
std::string_view Instruction::custom_call_target() const {
  return details_ ? details_->custom_call_target : std::string_view();
}
std::string_view Instruction::sharding() const {
  return details_ ? details_->sharding : std::string_view();
}
std::string_view Instruction::frontend_attributes() const {
  return details_ ? details_->frontend_attributes : std::string_view();
}
std::string_view Instruction::backend_config() const {
  return details_ ? details_->backend_config : std::string_view();
}
std::optional<int64_t> Instruction::known_trip_count() const {
  if (details_ == nullptr || details_->known_trip_count < 0) return std::nullopt;
  return details_->known_trip_count;
}

std::optional<std::string_view> Instruction::FrontendAttribute(std::string_view key) const {
  // The text is `k1="v1",k2="v2"`; values are quoted strings that may contain commas.
  std::string_view text = frontend_attributes();
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == ',')) ++i;
    size_t eq = text.find('=', i);
    if (eq == std::string_view::npos) return std::nullopt;
    std::string_view k = text.substr(i, eq - i);
    size_t v = eq + 1;
    size_t end = v;
    if (v < text.size() && text[v] == '"') {
      end = v + 1;
      while (end < text.size() && text[end] != '"') end += (text[end] == '\\') ? 2 : 1;
      if (k == key) return text.substr(v + 1, std::min(end, text.size()) - v - 1);
      end = std::min(end + 1, text.size());
    } else {
      while (end < text.size() && text[end] != ',') ++end;
      if (k == key) return text.substr(v, end - v);
    }
    i = end;
  }
  return std::nullopt;
}

void Instruction::RemoveUser(Instruction* user) {
  auto it = std::find(users_.begin(), users_.end(), user);
  if (it != users_.end()) users_.erase(it);
}

bool Instruction::IsUserOf(const Instruction* operand) const {
  // The user list holds each user once, so adding an operand asks whether we already use it.
  // Scanning the shorter of our operands and its users keeps a 10,000-operand tuple and a
  // constant with 10,000 users both linear to build.
  if (operand->users_.size() < operands_.size()) {
    return std::find(operand->users_.begin(), operand->users_.end(), this) != operand->users_.end();
  }
  return std::find(operands_.begin(), operands_.end(), operand) != operands_.end();
}

void Instruction::AppendOperand(Instruction* operand) {
  bool already_user = IsUserOf(operand);
  operands_.push_back(operand, ListArenaFn());
  if (!already_user) operand->users_.push_back(this, ListArenaFn());
}

void Instruction::ReplaceOperand(int64_t index, Instruction* new_operand) {
  Instruction* old = operands_[static_cast<size_t>(index)];
  if (old == new_operand) return;
  bool already_user = IsUserOf(new_operand);
  operands_[static_cast<size_t>(index)] = new_operand;
  if (!already_user) new_operand->users_.push_back(this, ListArenaFn());
  if (std::find(operands_.begin(), operands_.end(), old) == operands_.end()) old->RemoveUser(this);
}

void Instruction::ReplaceAllUsesWith(Instruction* replacement) {
  if (replacement == this) return;
  // Copy: ReplaceOperand edits users_.
  absl::InlinedVector<Instruction*, 4> users(users_.begin(), users_.end());
  for (Instruction* user : users) {
    for (int64_t i = 0; i < user->operand_count(); ++i) {
      if (user->operand(i) == this) user->ReplaceOperand(i, replacement);
    }
  }
  if (IsRoot()) parent_->set_root(replacement);
}

void Instruction::AddControlPredecessor(Instruction* pred) {
  if (control_ == nullptr) control_ = module()->CreateControlEdges();
  if (std::find(control_->preds.begin(), control_->preds.end(), pred) != control_->preds.end()) {
    return;
  }
  control_->preds.push_back(pred);
  if (pred->control_ == nullptr) pred->control_ = pred->module()->CreateControlEdges();
  pred->control_->succs.push_back(this);
}

void Instruction::RemoveAllControlEdges() {
  if (control_ == nullptr) return;
  for (Instruction* pred : control_->preds) {
    auto& s = pred->control_->succs;
    s.erase(std::remove(s.begin(), s.end(), this), s.end());
  }
  for (Instruction* succ : control_->succs) {
    auto& p = succ->control_->preds;
    p.erase(std::remove(p.begin(), p.end(), this), p.end());
  }
  control_->preds.clear();
  control_->succs.clear();
}

void Instruction::DetachOperands() {
  for (Instruction* op : operands_) op->RemoveUser(this);
  operands_.clear();
}

void Instruction::SetAttribute(uint32_t key, std::string_view value) {
  std::string_view saved = module()->Save(value);
  for (Attribute& a : attrs_) {
    if (a.key == key) {
      a.value = saved;
      return;
    }
  }
  Attribute a;
  a.key = key;
  a.value = saved;
  attrs_.push_back(a, ListArenaFn());
}

InstructionDetails& InstructionBuilder::details() {
  if (instr_->details_ == nullptr) instr_->details_ = instr_->module()->CreateDetails();
  return *instr_->details_;
}

void InstructionBuilder::set_name(std::string_view name) {
  instr_->name_ = name;
  if (instr_->parent_ != nullptr && instr_->parent_->module() != nullptr) {
    instr_->parent_->module()->set_instruction_names_known_unique(false);
  }
}

}  // namespace hloscope
