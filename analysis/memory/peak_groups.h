// The buffers live at a module's peak, grouped the way people read memory: by category
// (parameters, stashed activations, other activations, temporaries, outputs) and, inside a
// category, by the name scope of their op_name (the op_name without its last `/` part, e.g.
// `jit(step)/transpose(jvp(stage_1))` for `jit(step)/transpose(jvp(stage_1))/dot_general`);
// buffers without an op_name by their defining opcode and shape.
//
//   std::vector<PeakGroup> groups = GroupPeakBuffers(live_at_peak, /*keep=*/10);
//   for (const PeakGroup& g : groups) fmt::print("{} {} {}\n", g.category, g.scope, g.bytes);
//
// Groups come largest first: categories by their total bytes, then the scopes inside each.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hloscope {

struct LiveBuffer;

struct PeakGroup {
  std::string category;
  std::string scope;  // op_name without its last part; "" for buffers without an op_name
  // Buffers without an op_name are grouped by their defining opcode and shape instead (real
  // dumps hold hundreds of such temporaries: "594 x bf16[1,8,1024,14336]"); "" otherwise.
  std::string opcode = {};
  std::string shape = {};
  int64_t bytes = 0;  // saturates at INT64_MAX
  int64_t buffers = 0;
  std::vector<LiveBuffer> largest;  // at most `keep`, largest first
};

// The scope of an op_name: everything before its last '/' that is outside parentheses
// (`a/b(c/d)/e` -> `a/b(c/d)`); an op_name without such a '/' is its own scope.
std::string_view OpNameScope(std::string_view op_name);

// Groups `live` (buffers with their category set) by (category, OpNameScope(op_name)), and
// those without an op_name by (category, opcode, shape).
std::vector<PeakGroup> GroupPeakBuffers(std::span<const LiveBuffer> live, int keep);

}  // namespace hloscope
