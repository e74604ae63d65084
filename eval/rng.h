// rng: XLA's RNG_UNIFORM and RNG_NORMAL from a std::minstd_rand0 engine (rng.cc). Its own
// header so that only the evaluator and rng.cc see <random>.
#pragma once

#include <random>

#include "absl/status/statusor.h"
#include "eval/kernels.h"

namespace hloscope::eval {

// Draws the result of `instr` (an rng with operands low/high or mean/stddev) from `engine`,
// which advances; the result's bytes are in its physical order.
// With `empty_range_by_formula`, rng_uniform on an empty or reversed range draws by XLA's
// backends' formula (eval/rng_empty_range.h) where it defines one; otherwise it is refused,
// lifted by EvalOptions::rng_empty_range.
absl::StatusOr<Bytes> EvalRng(const Instruction& instr, absl::Span<const ArrayRef> operands,
                              std::minstd_rand0& engine, bool empty_range_by_formula = false);

}  // namespace hloscope::eval
