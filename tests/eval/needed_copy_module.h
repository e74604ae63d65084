// A module whose copy is needed, and the same module with that copy removed by hand: the
// smallest case where buffer mode must disagree with value mode. Shared by the interpreter's
// unit tests and the hlo-run tool tests.
#pragma once

#include <string_view>

namespace hloscope::eval::testing {

// x is updated in place by the dynamic-update-slice through its copy; the root reads x after
// the update. With the copy the update has its own buffer.
constexpr std::string_view kWithCopy = R"(
HloModule needed_copy
ENTRY e {
  p = f32[4] parameter(0)
  x = f32[4] negate(p)
  c = f32[4] copy(x)
  v = f32[1] constant({100})
  i = s32[] constant(1)
  d = f32[4] dynamic-update-slice(c, v, i)
  ROOT t = (f32[4], f32[4]) tuple(x, d)
}
)";
// The same module with the copy removed by hand: d now updates x's buffer.
constexpr std::string_view kCopyRemoved = R"(
HloModule needed_copy
ENTRY e {
  p = f32[4] parameter(0)
  x = f32[4] negate(p)
  v = f32[1] constant({100})
  i = s32[] constant(1)
  d = f32[4] dynamic-update-slice(x, v, i)
  ROOT t = (f32[4], f32[4]) tuple(x, d)
}
)";

}  // namespace hloscope::eval::testing
