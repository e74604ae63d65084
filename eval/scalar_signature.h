// The interpreter's own check of a scalar computation's signature before it binds scalars to
// its parameters (ApplyScalar: reducers, comparators, map's and scatter's functions). The
// verifier checks XLA's rules for the ops whose rules name one (hlo/verifier_callee_rules.cc),
// but XLA's verifier checks no signature for all-reduce and reduce-scatter, and a library
// caller may evaluate a module it never verified: without this a computation of another arity,
// or with a tuple parameter, was read past its parameter list.
#pragma once

#include <cstddef>
#include <optional>

#include "absl/status/status.h"
#include "hlo/module.h"

namespace hloscope::eval {

// OK when `comp` takes `args` scalar parameters and returns a scalar or a tuple of scalars;
// otherwise InvalidArgument "computation <name> ..." naming what differs.
absl::Status CheckScalarSignature(const Computation& comp, size_t args);

// The opcode when `comp` is one binary elementwise op on its two parameters (add, maximum, and,
// ...; not compare or select), whatever their shapes and types; nullopt otherwise. XLA's
// backends run an all-reduce's to_apply as such a reduction kind in the operands' element type
// (the verifier checks neither the computation's types nor its shapes: XLA's tests all-reduce
// s32 with a bf16 adder and f32[2,1] with an adder of f32[2,1]).
std::optional<Opcode> ReductionKind(const Computation& comp);

// all-reduce and reduce-scatter whose to_apply is not a ReductionKind: to_apply folds two elements
// of type `type` into one (two scalar parameters of that type, one scalar of it returned;
// floating-point types may differ). Elements of another type would be stored through the
// parameters' type and silently change (an f32 element read as s32 is 0). Errors are "cannot run
// %<instr>:
// ...".
absl::Status CheckBinaryReducer(const Instruction& instr, const Computation& comp,
                                PrimitiveType type);

}  // namespace hloscope::eval
