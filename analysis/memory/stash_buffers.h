// Stash buffers: where a pipelined training step keeps each microbatch's activations for the
// backward pass.
//
//   for (const StashBuffer& s : FindStashBuffers(alias, sizer, /*forward_only=*/false))
//     per_microbatch += s.update_bytes;
//
// A stash is a while loop's state element (top-level tuple index k) that the body's root
// writes, through copies and bitcasts, from a dynamic-update-slice (directly, or as the
// root or a root tuple element of a fusion, again through bitcasts) whose updated operand is
// the body parameter's element k, at a dynamic index: the microbatch dimension is the first
// dimension where the update is smaller than the buffer and the start index is not a
// constant. The buffer must also be read by a dynamic-slice somewhere (directly or inside a
// fusion) -- the backward pass reading the row back --, or, in a `forward_only` module (no
// backward instruction), leave the module in the entry's result (its backward runs as another
// program), or be written by the same
// multi-output fusion as such a buffer (a row the step reserves for the backward even when
// the backward does not read it, as hlo-gen's --remat=none writes one).
//
// The dimension after the microbatch dimension is the stage dimension when its start index
// is a constant and the buffer's extent there is 1 (a per-device SPMD shard of the stage
// axis) or larger than the update's (one stage's row per write); `stages` is that extent, 1
// otherwise.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "analysis/alias.h"

namespace hloscope {

struct StashBuffer {
  BufferId buffer = 0;
  const Instruction* loop = nullptr;    // the while
  int64_t tuple_index = 0;              // loop-state element
  const Instruction* writer = nullptr;  // the DUS, or the fusion around it, in the body
  int64_t update_bytes = 0;             // bytes one iteration writes (one microbatch)
  int64_t slots = 0;                    // rows: buffer extent of the microbatch dimension
  int64_t stages = 1;                   // extent of the stage dimension, 1 when none
  int64_t stage_extent_of_update = 1;   // the update's extent there
  bool read_back = false;               // some dynamic-slice reads it, or the module returns it
};

// `array_bytes` gives an array shape's bytes (so dynamic dimensions are evaluated the
// caller's way).
std::vector<StashBuffer> FindStashBuffers(const AliasAnalysis& alias,
                                          const std::function<int64_t(const Shape&)>& array_bytes,
                                          bool forward_only);

}  // namespace hloscope
