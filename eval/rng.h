// rng: XLA's RNG_UNIFORM and RNG_NORMAL from a std::minstd_rand0 engine (rng.cc). Its own
// header so that only the evaluator and rng.cc see <random>.
#pragma once

#include <random>

#include "absl/status/statusor.h"
#include "eval/kernels.h"

namespace hloscope::eval {

// Draws the result of `instr` (an rng with operands low/high or mean/stddev) from `engine`,
// which advances; the result's bytes are in its physical order.
absl::StatusOr<Bytes> EvalRng(const Instruction& instr, absl::Span<const ArrayRef> operands,
                              std::minstd_rand0& engine);

}  // namespace hloscope::eval
