// What one microbatch of a pipeline stage costs in compute, read from the stage's HLO: the
// floating-point operations of its dots and convolutions, split into forward, backward for
// inputs (I) and backward for weights (W). hlo-pipeline --from-hlo turns them into durations.
//
//   absl::StatusOr<StageFlops> f = CountStageFlops(*module, FlopOptions{});
//   double forward_us = f->forward / (tflops * 1e12) * 1e6;
//
// Conventions (each a choice a user can check against their model):
//  - A dot costs 2 * (elements of its result) * (product of its contracting dimensions); a
//    convolution 2 * (elements of its result) * (elements of its kernel / output features).
//    Other instructions are treated as free: in a transformer they are a few percent.
//  - One microbatch. A while loop that no other loop encloses is the loop over microbatches
//    (per-rank pipelining runs one microbatch per iteration; a circular SPMD pipeline one
//    stage of one microbatch per iteration), so its body counts once. Loops nested inside it
//    count their trip count (WhileTripCount; 1 when unknown, counted in
//    unknown_trip_counts). Instructions outside every loop count once: a module without loops
//    is taken to be one microbatch. A conditional counts its most expensive branch.
//  - Forward or backward from metadata op_name: `backward_regex` (JAX writes the backward as
//    `transpose(jvp(...))`) marks the backward; everything else is forward.
//  - Input or weight gradient: a backward dot or convolution whose result has the dimensions
//    of a weight is a weight gradient (W), any other backward one an input gradient (I). A
//    weight is an entry parameter or a loop-carried element that the loop body passes through
//    unchanged (what stays fixed during a step). Dimensions are compared without layouts; an
//    activation gradient that happens to have a weight's dimensions counts as W.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "hlo/module.h"

namespace hloscope {

struct FlopOptions {
  // RE2 on metadata op_name; a match marks the instruction as part of the backward pass.
  std::string backward_regex = R"(transpose\()";
};

struct StageFlops {
  double forward = 0;
  double backward_input = 0;
  double backward_weight = 0;
  int64_t dots = 0;                 // dots and convolutions counted
  int64_t unknown_trip_counts = 0;  // nested loops counted once for want of a trip count

  double backward() const { return backward_input + backward_weight; }
};

// InvalidArgument when the regular expression does not compile.
absl::StatusOr<StageFlops> CountStageFlops(const Module& module, const FlopOptions& options);

}  // namespace hloscope
