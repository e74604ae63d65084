#include "analysis/memory/stage_assignment.h"

#include <algorithm>
#include <numeric>
#include <string_view>
#include <utility>

#include "fmt/format.h"
#include "hlo/computation.h"
#include "re2/re2.h"
#include "support/option_error.h"
#include "support/str_util.h"

namespace hloscope {

int StageNames::Intern(std::string_view name) {
  if (auto it = index.find(name); it != index.end()) return it->second;
  const int id = static_cast<int>(names.size());
  index.emplace(names.emplace_back(name), id);
  return id;
}

std::vector<int> StageNames::SortedOrder() const {
  std::vector<int> order(names.size());
  std::iota(order.begin(), order.end(), 0);
  std::vector<int64_t> numbers(names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    if (!ParseInteger(names[i], &numbers[i])) return order;  // not all numbers
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return numbers[a] < numbers[b]; });
  return order;
}

namespace {

// `option`: the MemoryOptions field the pattern comes from (the error names it; a tool names
// its flag instead: support/option_error.h).
absl::StatusOr<std::unique_ptr<RE2>> Compile(const std::string& pattern, std::string_view option) {
  auto re = std::make_unique<RE2>(pattern, RE2::Quiet);
  if (!re->ok()) {
    return InvalidOptionError(
        "", option,
        fmt::format(" '{}' is not a valid regular expression: {}", pattern, re->error()));
  }
  return re;
}

std::string_view OpName(const Instruction& in) {
  return in.metadata() != nullptr ? in.metadata()->op_name : std::string_view();
}

}  // namespace

absl::StatusOr<InstructionRoles> AssignRoles(const Module& module, const CallGraph& calls,
                                             const MemoryOptions& options, StageNames& names) {
  std::unique_ptr<RE2> stage_re;
  if (options.stage_by == MemoryOptions::StageBy::kOpNameRegex) {
    absl::StatusOr<std::unique_ptr<RE2>> re = Compile(options.stage_regex, "stage_regex");
    if (!re.ok()) return re.status();
    if ((*re)->NumberOfCapturingGroups() != 1) {
      return InvalidOptionError("", "stage_regex",
                                fmt::format(" '{}' needs exactly one capture group (it has {})",
                                            options.stage_regex, (*re)->NumberOfCapturingGroups()));
    }
    stage_re = *std::move(re);
  }
  absl::StatusOr<std::unique_ptr<RE2>> forward = Compile(options.forward_regex, "forward_regex");
  if (!forward.ok()) return forward.status();
  absl::StatusOr<std::unique_ptr<RE2>> backward = Compile(options.backward_regex, "backward_regex");
  if (!backward.ok()) return backward.status();

  uint32_t max_id = 0;
  for (const Computation* c : module.computations()) {
    for (const Instruction* in : c->instructions()) max_id = std::max(max_id, in->unique_id());
  }
  InstructionRoles roles;
  roles.stage.assign(max_id + 1, -1);
  roles.direction.assign(max_id + 1, Direction::kNone);
  if (module.entry() == nullptr) return roles;

  // Memo per distinct op_name: (stage, direction).
  absl::flat_hash_map<std::string_view, std::pair<int, Direction>> by_op_name;
  auto classify = [&](std::string_view op_name) -> std::pair<int, Direction> {
    auto [it, inserted] = by_op_name.try_emplace(op_name, -1, Direction::kNone);
    if (!inserted) return it->second;
    re2::StringPiece text(op_name.data(), op_name.size());
    std::string captured;
    if (stage_re != nullptr && RE2::PartialMatch(text, *stage_re, &captured)) {
      it->second.first = names.Intern(captured);
    }
    if (RE2::PartialMatch(text, **backward)) {
      it->second.second = Direction::kBackward;
    } else if (RE2::PartialMatch(text, **forward)) {
      it->second.second = Direction::kForward;
    }
    return it->second;
  };

  // Top-down from the entry; a control-flow callee has one call site (the dataflow analysis
  // requires it), so each computation is visited once with its caller's roles.
  struct Item {
    const Computation* computation;
    int stage;
    Direction direction;
  };
  std::vector<Item> work = {{module.entry(), -1, Direction::kNone}};
  absl::flat_hash_map<const Computation*, bool> seen;
  while (!work.empty()) {
    Item item = work.back();
    work.pop_back();
    if (!seen.try_emplace(item.computation, true).second) continue;
    for (const Instruction* in : item.computation->instructions()) {
      int stage = item.stage;
      Direction dir = item.direction;
      std::string_view op_name = OpName(*in);
      if (!op_name.empty()) {
        auto [s, d] = classify(op_name);
        if (s >= 0) stage = s;
        if (d != Direction::kNone) dir = d;
      }
      if (options.stage_by == MemoryOptions::StageBy::kFrontendAttribute) {
        if (std::optional<std::string_view> v = in->FrontendAttribute(options.stage_attr)) {
          stage = names.Intern(*v);
        }
      }
      roles.stage[in->unique_id()] = stage;
      roles.direction[in->unique_id()] = dir;
    }
    // Control-flow callees inherit their calling instruction's stage and direction.
    for (const CallSite& site : calls.CallsIn(*item.computation)) {
      if (site.context != CallContext::kControlFlow) continue;
      const uint32_t id = site.caller->unique_id();
      work.push_back({site.callee, roles.stage[id], roles.direction[id]});
    }
  }
  return roles;
}

}  // namespace hloscope
