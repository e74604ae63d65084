// Which pipeline stage each instruction belongs to, and whether it is forward or backward, for
// the memory profiler.
//
//   StageNames names;
//   absl::StatusOr<InstructionRoles> roles = AssignRoles(module, *call_graph, options, names);
//   int s = roles->stage[instr->unique_id()];   // index into names, -1: none
//
// An instruction's stage comes from its metadata op_name (the one capture group of
// `options.stage_regex`) or from a frontend attribute (`options.stage_attr`); its direction
// from op_name (`backward_regex` first, then `forward_regex`). An instruction without either
// takes its calling instruction's (control-flow callees, analysis/call_graph.h: while body and
// condition, conditional branches, call and async computations), so a loop body's bookkeeping
// belongs to the loop's stage. Regular
// expressions are matched once per distinct op_name.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "analysis/call_graph.h"
#include "analysis/memory/memory_profile.h"
#include "hlo/module.h"
#include "hlo/string_hash.h"

namespace hloscope {

// Stage names shared by several modules, in order of first appearance.
struct StageNames {
  std::deque<std::string> names;  // a deque: `index` holds views into its strings
  StringViewMap<int> index;
  // Called per instruction with a stage attribute: looks up without copying the name.
  int Intern(std::string_view name);
  // A permutation that sorts the names numerically when all are integers (else keeps them):
  // order[new_index] = old_index.
  std::vector<int> SortedOrder() const;
};

enum class Direction : int8_t { kNone, kForward, kBackward };

struct InstructionRoles {
  std::vector<int> stage;            // by unique_id; -1 none
  std::vector<Direction> direction;  // by unique_id
};

// Fails when a regular expression does not compile or the stage regex has no single capture
// group; the error names the option ("stage_regex", "forward_regex", "backward_regex":
// support/option_error.h).
absl::StatusOr<InstructionRoles> AssignRoles(const Module& module, const CallGraph& calls,
                                             const MemoryOptions& options, StageNames& names);

}  // namespace hloscope
