// Step 3 of the verifier, continued: the signatures of the scalar computations that reduce,
// reduce-window, scatter, select-and-scatter, sort and map apply element by element. The
// interpreter binds scalars to those computations' parameters on the promise checked here;
// without it a computation of the wrong arity or with a tuple parameter was read past its
// parameter list.
//
// The rules are XLA's, from openxla/xla xla/service/hlo_verifier.cc (ShapeVerifier::HandleSort,
// HandleMap, HandleReduce, HandleReduceWindow, HandleScatter, HandleSelectAndScatter; commit
// cb0929651519357fc0502acbf4fd1adcd6cdeef7) and xla/service/shape_inference.cc
// (VerifyReducerShape, InferMapShape, InferSelectAndScatterShape; commit
// 001918b7024cf5f020051a9d25d2dd57a5896aaa). Where XLA compares "ignoring fp precision" (any
// two floating-point types agree) so does this file, whatever allow_mixed_precision says; where
// XLA compares exactly (a reducer's accumulator parameters against its result, sort's and
// select's pred[] result) so does this file. With allow_mixed_precision off, XLA also requires
// map's, reduce's and reduce-window's parameters to have their operands' exact element types
// (SameElementTypesForOperandsAndToApplyParameters); so does this file.
//
// XLA checks no signature for all-reduce, reduce-scatter and their -start forms (their rules
// check the operands only), for a custom-call's called computations, or for top-k (which has
// none); neither does the verifier here: the interpreter checks those itself.
#include <cstdint>
#include <string>
#include <string_view>

#include "hlo/verifier_internal.h"
#include "support/str_util.h"

namespace hloscope::verifier_internal {
namespace {

bool IsScalar(const Shape& s) { return s.IsArray() && s.rank() == 0; }

// XLA's SameElementTypeIgnoringFpPrecision on scalars.
bool SameTypeIgnoringFp(PrimitiveType a, PrimitiveType b) {
  return a == b || (GetPrimitiveTypeInfo(a).is_float && GetPrimitiveTypeInfo(b).is_float);
}

std::string Called(const Instruction& instr, std::string_view role, const Computation& c) {
  return StrCat(instr.PrintedOpcode(), " ", role, " '", c.name(), "'");
}

absl::Status ParameterCount(const Instruction& instr, std::string_view role, const Computation& c,
                            int64_t expected, std::string_view why) {
  if (c.parameter_count() == expected) return absl::OkStatus();
  return InstrError(instr, StrCat(Called(instr, role, c), " has ",
                                  Count(c.parameter_count(), "parameter", "parameters"),
                                  ", expected ", expected, why));
}

absl::Status ScalarParameters(const Instruction& instr, std::string_view role,
                              const Computation& c) {
  for (int64_t i = 0; i < c.parameter_count(); ++i) {
    const Shape& s = c.parameter(i)->shape();
    if (!IsScalar(s)) {
      return InstrError(instr, StrCat(Called(instr, role, c), " parameter ", i, " has shape ",
                                      ShapeText(s), ", not a scalar"));
    }
  }
  return absl::OkStatus();
}

// Parameter `p` of `c` takes elements of operand `i`: their element types agree ignoring
// floating-point precision, and exactly without allow_mixed_precision when `strict_unless_mixed`.
absl::Status ParameterTakesElementsOf(const Instruction& instr, std::string_view role,
                                      const Computation& c, int64_t p, int64_t i,
                                      bool strict_unless_mixed, const VerifierOptions& options) {
  const PrimitiveType param = c.parameter(p)->shape().element_type;
  const PrimitiveType elem = instr.operand(i)->shape().element_type;
  const bool ok = strict_unless_mixed && !options.allow_mixed_precision
                      ? param == elem
                      : SameTypeIgnoringFp(param, elem);
  if (ok) return absl::OkStatus();
  return InstrError(instr, StrCat(Called(instr, role, c), " parameter ", p, " has element type ",
                                  PrimitiveTypeName(param), ", but ", OperandRef(instr, i), " has ",
                                  PrimitiveTypeName(elem)));
}

absl::Status RootIsPred(const Instruction& instr, std::string_view role, const Computation& c) {
  const Shape& root = c.root()->shape();
  if (IsScalarOf(root, PrimitiveType::kPred)) return absl::OkStatus();
  return InstrError(instr,
                    StrCat(Called(instr, role, c), " returns ", ShapeText(root), ", not pred[]"));
}

// An instruction whose `role` computation (to_apply=, scatter=) is not written.
absl::Status Missing(const Instruction& instr, std::string_view role) {
  return InstrError(instr, StrCat(instr.PrintedOpcode(), " has no ", role, " computation"));
}

}  // namespace

absl::Status CheckReducerSignature(const Instruction& instr, std::string_view role,
                                   const Computation* reducer, int64_t n,
                                   absl::Span<const int64_t> init_operands,
                                   absl::Span<const int64_t> input_operands,
                                   const VerifierOptions& options) {
  // XLA's parser requires the attribute, and the interpreter would call a null computation.
  if (reducer == nullptr) return Missing(instr, role);
  const Computation& c = *reducer;
  if (absl::Status s = ParameterCount(
          instr, role, c, 2 * n,
          StrCat(" (an accumulator and an element for ", Count(n, "input", "inputs"), ")"));
      !s.ok()) {
    return s;
  }
  if (absl::Status s = ScalarParameters(instr, role, c); !s.ok()) return s;
  // One scalar (one input only), or a tuple of one scalar per input.
  const Shape& root = c.root()->shape();
  bool root_ok = n == 1 && IsScalar(root);
  if (root.IsTuple() && static_cast<int64_t>(root.tuple_elements.size()) == n) {
    root_ok = true;
    for (const Shape* e : root.tuple_elements) root_ok = root_ok && IsScalar(*e);
  }
  if (!root_ok) {
    return InstrError(instr, StrCat(Called(instr, role, c), " returns ", ShapeText(root), ", not ",
                                    n == 1 ? "a scalar" : StrCat("a tuple of ", n, " scalars")));
  }
  for (int64_t i = 0; i < n; ++i) {
    const Shape& acc = root.IsTuple() ? *root.tuple_elements[i] : root;
    const std::string result = root.IsTuple() ? StrCat("result element ", i, " ", ShapeText(acc))
                                              : StrCat("result ", ShapeText(acc));
    // The accumulator parameter is fed the previous result: exactly its type.
    const Shape& acc_param = c.parameter(i)->shape();
    if (acc_param.element_type != acc.element_type) {
      return InstrError(instr,
                        StrCat(Called(instr, role, c), " parameter ", i, " has shape ",
                               ShapeText(acc_param), ", but its ", result, " is passed to it"));
    }
    const int64_t init = init_operands[i];
    const PrimitiveType init_type = instr.operand(init)->shape().element_type;
    if (!SameTypeIgnoringFp(acc.element_type, init_type)) {
      return InstrError(
          instr, StrCat(Called(instr, role, c), " ", result, " does not have the element type of ",
                        OperandRef(instr, init), ", ", PrimitiveTypeName(init_type)));
    }
    const int64_t p = n + i;
    if (absl::Status s =
            ParameterTakesElementsOf(instr, role, c, p, input_operands[i], false, options);
        !s.ok()) {
      return s;
    }
    const Shape& elem_param = c.parameter(p)->shape();
    if (!SameTypeIgnoringFp(elem_param.element_type, acc.element_type)) {
      return InstrError(instr,
                        StrCat(Called(instr, role, c), " parameter ", p, " has shape ",
                               ShapeText(elem_param), ", which does not match its ", result));
    }
  }
  // XLA's exact check without mixed precision compares parameter k with operand k, for every
  // operand (SameElementTypesForOperandsAndToApplyParameters), on reduce and reduce-window.
  if (!options.allow_mixed_precision &&
      (instr.opcode() == Opcode::kReduce || instr.opcode() == Opcode::kReduceWindow)) {
    for (int64_t k = 0; k < instr.operand_count() && k < c.parameter_count(); ++k) {
      if (absl::Status s = ParameterTakesElementsOf(instr, role, c, k, k, true, options); !s.ok()) {
        return s;
      }
    }
  }
  return absl::OkStatus();
}

// sort(operands...): the comparator takes two scalars per operand (that operand's element
// type, ignoring floating-point precision) and returns pred[].
absl::Status CheckSortComparator(const Instruction& instr, const VerifierOptions& options) {
  const Computation* compare = instr.to_apply();
  if (compare == nullptr) compare = instr.CalledComputation(kAttrComparator);
  if (compare == nullptr) return absl::OkStatus();  // the structure check names a missing one
  const Computation& c = *compare;
  constexpr std::string_view kRole = "comparator";
  if (absl::Status s = RootIsPred(instr, kRole, c); !s.ok()) return s;
  const int64_t n = instr.operand_count();
  if (absl::Status s =
          ParameterCount(instr, kRole, c, 2 * n,
                         StrCat(" (two for each of ", Count(n, "operand", "operands"), ")"));
      !s.ok()) {
    return s;
  }
  if (absl::Status s = ScalarParameters(instr, kRole, c); !s.ok()) return s;
  for (int64_t p = 0; p < c.parameter_count(); ++p) {
    if (absl::Status s = ParameterTakesElementsOf(instr, kRole, c, p, p / 2, false, options);
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

// map(operands...): to_apply takes one scalar per operand, of its element type, and returns
// a scalar of the map's element type.
absl::Status CheckMapComputation(const Instruction& instr, const VerifierOptions& options) {
  const Computation* f = instr.to_apply();
  constexpr std::string_view kRole = "to_apply";
  if (f == nullptr) return Missing(instr, kRole);  // as for reducers
  const Computation& c = *f;
  const int64_t n = instr.operand_count();
  if (absl::Status s = ParameterCount(
          instr, kRole, c, n, StrCat(" (one for each of ", Count(n, "operand", "operands"), ")"));
      !s.ok()) {
    return s;
  }
  const Shape& root = c.root()->shape();
  if (!IsScalar(root)) {
    return InstrError(
        instr, StrCat(Called(instr, kRole, c), " returns ", ShapeText(root), ", not a scalar"));
  }
  if (absl::Status s = ScalarParameters(instr, kRole, c); !s.ok()) return s;
  for (int64_t i = 0; i < n; ++i) {
    if (absl::Status s = ParameterTakesElementsOf(instr, kRole, c, i, i, true, options); !s.ok()) {
      return s;
    }
  }
  const Shape& out = instr.shape();
  if (out.IsArray() && !TypesAgree(out.element_type, root.element_type, options)) {
    return InstrError(
        instr, StrCat("map shape ", ShapeText(out), " does not have the element type ",
                      PrimitiveTypeName(root.element_type), " that ", Called(instr, kRole, c),
                      " returns"));
  }
  return absl::OkStatus();
}

// select-and-scatter(operand, source, init): select takes two elements of the operand and
// returns pred[]; scatter is a reducer of the source's elements into the init value's type.
absl::Status CheckSelectAndScatterComputations(const Instruction& instr,
                                               const VerifierOptions& options) {
  const Computation* select = instr.CalledComputation(kAttrSelect);
  if (select != nullptr) {
    const Computation& c = *select;
    constexpr std::string_view kRole = "select";
    if (absl::Status s = ParameterCount(instr, kRole, c, 2, " (two elements of operand 0)");
        !s.ok()) {
      return s;
    }
    if (absl::Status s = RootIsPred(instr, kRole, c); !s.ok()) return s;
    if (absl::Status s = ScalarParameters(instr, kRole, c); !s.ok()) return s;
    for (int64_t p = 0; p < 2; ++p) {
      if (absl::Status s = ParameterTakesElementsOf(instr, kRole, c, p, 0, false, options);
          !s.ok()) {
        return s;
      }
    }
  }
  if (instr.operand_count() != 3) return absl::OkStatus();
  const int64_t init[] = {2};
  const int64_t source[] = {1};
  return CheckReducerSignature(instr, "scatter", instr.CalledComputation(kAttrScatter), 1, init,
                               source, options);
}

}  // namespace hloscope::verifier_internal
