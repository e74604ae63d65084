// rng_uniform on an empty or reversed range (low >= high), a judge-only mode
// (EvalOptions::rng_empty_range = kBackendFormula; hlo-run --rng-empty-range=backend). XLA's
// evaluator draws through std::uniform_*_distribution, undefined there, so hlo-run refuses by
// default. XLA's CPU and GPU compilers expand rng with RngExpander
// (xla/hlo/transforms/expanders/rng_expander.cc at openxla/xla 2c731115), whose formulas
// (xla/hlo/builder/lib/prng.cc) define every range:
//   floats  u * (high - low) + low, u = the top mantissa-width bits of a random word times
//           2^-mantissa_width (ConvertRandomBitsToUniformFloatingPoint); f16 and bf16 are drawn
//           in f32 and converted (ConvertSmallFpRngToF32Rng)
//   s32/u32/s64/u64  range = unsigned(high) - unsigned(low) (wrapping), dist = bits % range
//           (bits when range is 0: the emitters' X % 0 == X, xla/service/elemental_ir_emitter.cc),
//           low + dist / 2 + (dist - dist / 2) (ConvertRandomBitsToUniformInt)
// The backends' random words come from Philox under a process-global key; here they come from
// the run's engine (eval/rng.h), one word of the element's width per element in physical
// order, so the values are the formula's, not a backend's stream.
#pragma once

#include <cstdint>
#include <random>

#include "eval/kernels.h"
#include "hlo/primitive_type.h"

namespace hloscope::eval {

// Whether the backends' formula defines rng_uniform of element type `t` (f16, bf16, f32, f64,
// s32, u32, s64, u64; RngExpander rejects the others).
bool RngFormulaDefines(PrimitiveType t);

// `n` elements of type `t` (RngFormulaDefines) drawn by the formula between the scalars at
// `low` and `high`, in physical order.
Bytes RngByBackendFormula(PrimitiveType t, const uint8_t* low, const uint8_t* high, int64_t n,
                          std::minstd_rand0& engine);

}  // namespace hloscope::eval
