// Constants whose contents were elided when the module was dumped: `f32[300] constant({...})`.
// XLA prints large constants this way unless --xla_dump_large_constants=true, so real dumps carry
// them and the interpreter has to decide what they hold.
//
// What XLA does (openxla/xla at 2c731115ef3b, xla/hlo/parser/hlo_parser.cc, the TokKind::kDots
// case of ParseDenseLiteral): `...` is allowed at nesting level 1 only and, with
// HloParserOptions::fill_shortform_constants_with_random_values (on by default, so
// run_hlo_module and the replay tools parse this way), the bytes are filled from a counter
// that is static to the process ("deterministic (garbage) values", so that two elided
// constants do not look equal and get CSE'd). The values therefore depend on how many elided
// bytes the process parsed before: they are not a property of the module. With the option off
// the literal is left as allocated. Neither gives a value the module defines, so by default the
// interpreter refuses such a constant (EvalOptions::elided_constants = kRefuse).
//
// kSeeded (hlo-run --elided-constants=seeded, the corpus judge) gives each elided constant
// RandomLiteral(shape, a seed mixed with a hash of the constant's name): the values the random
// arguments take (floats multiples of 1/8 in [-2,2), signed integers in [-8,8), unsigned in
// [0,16), pred 0/1), the same in every run with the same seed, and the same in two modules that
// name the constant alike (a module and its copy-insertion,copy-elision version), so outputs
// compare. An elided integer constant that bounds a loop or indexes an array gets such a small
// value too; a loop bounded by it may run more or fewer times than the real one would (a
// negative bound none), and the step limit (max_steps) ends one that runs long.
#pragma once

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "eval/evaluator.h"
#include "eval/literal.h"
#include "hlo/instruction.h"

namespace hloscope::eval {

// Whether `instr` is a constant whose literal text holds `...` (elided contents).
bool IsElidedConstant(const Instruction& instr);

// OK unless `instr` is an elided constant that `options` cannot run: refused by default (the
// refusal records elided_constants as the option lifting it, support/option_error.h); in
// seeded mode only a whole array elided as `{...}` is filled, anything else is refused.
absl::Status CheckElidedConstant(const Instruction& instr, const EvalOptions& options);

// The value of constant `instr`: its literal text parsed, or for an elided constant in seeded
// mode its seeded values (see above). Call CheckElidedConstant first.
absl::StatusOr<Literal> ConstantValue(const Instruction& instr, const EvalOptions& options);

}  // namespace hloscope::eval
