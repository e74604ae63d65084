#include "eval/scalar_signature.h"

#include "eval/kernels.h"
#include "support/str_util.h"

namespace hloscope::eval {
namespace {

bool IsScalar(const Shape& s) { return s.IsArray() && s.rank() == 0; }

absl::Status Bad(const Computation& comp, std::string_view why) {
  return absl::InvalidArgumentError(StrCat("computation ", comp.name(), " ", why));
}

}  // namespace

absl::Status CheckScalarSignature(const Computation& comp, size_t args) {
  if (static_cast<size_t>(comp.parameter_count()) != args) {
    return Bad(comp, StrCat("takes ", comp.parameter_count(),
                            comp.parameter_count() == 1 ? " parameter" : " parameters",
                            " but is applied to ", args, args == 1 ? " scalar" : " scalars"));
  }
  for (int64_t i = 0; i < comp.parameter_count(); ++i) {
    const Shape& s = comp.parameter(i)->shape();
    if (!IsScalar(s)) {
      return Bad(comp,
                 StrCat("has parameter ", i, " of shape ", s.ToString(false), ", not a scalar"));
    }
  }
  const Shape& root = comp.root()->shape();
  bool ok = IsScalar(root);
  if (root.IsTuple()) {
    ok = true;
    for (const Shape* e : root.tuple_elements) ok = ok && IsScalar(*e);
  }
  if (!ok) {
    return Bad(comp,
               StrCat("returns ", root.ToString(false), ", not a scalar or a tuple of scalars"));
  }
  return absl::OkStatus();
}

std::optional<Opcode> ReductionKind(const Computation& comp) {
  const Instruction* root = comp.root();
  if (comp.parameter_count() != 2 || root->operand_count() != 2) return std::nullopt;
  const Opcode op = root->opcode();
  if (!IsSupportedElementwise(op) || op == Opcode::kCompare || op == Opcode::kSelect) {
    return std::nullopt;
  }
  const Instruction* a = root->operand(0);
  const Instruction* b = root->operand(1);
  if (a->opcode() != Opcode::kParameter || b->opcode() != Opcode::kParameter || a == b) {
    return std::nullopt;
  }
  return op;
}

absl::Status CheckBinaryReducer(const Instruction& instr, const Computation& comp,
                                PrimitiveType type) {
  if (absl::Status s = CheckScalarSignature(comp, 2); !s.ok()) {
    return absl::InvalidArgumentError(
        StrCat("cannot run %", instr.name(), ": ",
               std::string_view(s.message().data(), s.message().size())));
  }
  const Shape& root = comp.root()->shape();
  for (const Shape* s : {&comp.parameter(0)->shape(), &comp.parameter(1)->shape(), &root}) {
    // Floating-point types may differ (XLA's mixed precision): scalars are applied as doubles.
    const bool floats =
        GetPrimitiveTypeInfo(s->element_type).is_float && GetPrimitiveTypeInfo(type).is_float;
    if (s->element_type != type && !floats) {
      return absl::InvalidArgumentError(StrCat(
          "cannot run %", instr.name(), ": computation ", comp.name(), " is not a reducer of ",
          PrimitiveTypeName(type), " elements (it takes ",
          comp.parameter(0)->shape().ToString(false), " and ",
          comp.parameter(1)->shape().ToString(false), " and returns ", root.ToString(false), ")"));
    }
  }
  return absl::OkStatus();
}

}  // namespace hloscope::eval
