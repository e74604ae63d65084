// The interpreter's own check of a scalar computation's signature before it binds scalars to
// its parameters (ApplyScalar: reducers, comparators, map's and scatter's functions). The
// verifier checks XLA's rules for the ops whose rules name one (hlo/verifier_callee_rules.cc),
// but XLA's verifier checks no signature for all-reduce and reduce-scatter, and a library
// caller may evaluate a module it never verified: without this a computation of another arity,
// or with a tuple parameter, was read past its parameter list.
#pragma once

#include <cstddef>

#include "absl/status/status.h"
#include "hlo/module.h"

namespace hloscope::eval {

// OK when `comp` takes `args` scalar parameters and returns a scalar or a tuple of scalars;
// otherwise InvalidArgument "computation <name> ..." naming what differs.
absl::Status CheckScalarSignature(const Computation& comp, size_t args);

// all-reduce and reduce-scatter: to_apply folds two elements of type `type` into one (two
// scalar parameters of that type, one scalar of it returned; floating-point types may differ).
// Elements of another type would be stored through the parameters' type and silently change
// (an f32 element read as s32 is 0). Errors are "cannot run %<instr>:
// ...".
absl::Status CheckBinaryReducer(const Instruction& instr, const Computation& comp,
                                PrimitiveType type);

}  // namespace hloscope::eval
