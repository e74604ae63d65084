// Hand-written modules the differential tests share.
#pragma once

#include <string>

namespace hloscope::differential::testing {

// The loop doubles start's elements one per iteration in place; `diff` reads start again
// after the loop, so the init's copy of it is needed: without it (with_copy = false) the loop
// updates start's own buffer and buffer mode disagrees with value mode. (start is computed,
// not the parameter itself: the interpreter keeps entry parameters read-only, as a device
// does, so a missing copy of one would go unnoticed.) next_i comes after every read of i: in
// buffer mode it is written into the counter's buffer (the loop state), as on a device.
inline std::string LoopModule(bool with_copy) {
  std::string text = R"(
HloModule needed_copy

loop_body {
  state = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(state), index=0
  v = f32[4] get-tuple-element(state), index=1
  row = f32[1] dynamic-slice(v, i), dynamic_slice_sizes={1}
  doubled = f32[1] add(row, row)
  updated = f32[4] dynamic-update-slice(v, doubled, i)
  one = s32[] constant(1)
  next_i = s32[] add(i, one)
  ROOT next = (s32[], f32[4]) tuple(next_i, updated)
}

loop_cond {
  state = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(state), index=0
  n = s32[] constant(4)
  ROOT lt = pred[] compare(i, n), direction=LT
}

ENTRY main {
  x = f32[4] parameter(0)
  start = f32[4] negate(x)
  zero = s32[] constant(0)
)";
  text += with_copy ? "  start_copy = f32[4] copy(start)\n"
                      "  init = (s32[], f32[4]) tuple(zero, start_copy)\n"
                    : "  init = (s32[], f32[4]) tuple(zero, start)\n";
  text += R"(  loop = (s32[], f32[4]) while(init), condition=loop_cond, body=loop_body
  final = f32[4] get-tuple-element(loop), index=1
  scaled = f32[4] multiply(final, final)
  unused = f32[4] tanh(scaled)
  ROOT diff = f32[4] subtract(final, start)
}
)";
  return text;
}

}  // namespace hloscope::differential::testing
