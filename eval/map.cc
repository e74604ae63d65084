// map(a, b, ...), to_apply=f: the scalar computation f applied to the elements at each index
// of its operands, which all have the result's dimensions (their element types may differ from
// each other and from the result's: f's parameters and root say which).
//
// Operands stored in another physical order than the result are first put in the result's
// order, so that element i of every operand and of the result is the same index.
#include <vector>

#include "absl/status/status.h"
#include "eval/element_io.h"
#include "eval/kernels.h"
#include "eval/layout_util.h"
#include "support/str_util.h"

namespace hloscope::eval {

absl::StatusOr<Bytes> EvalMap(const Instruction& instr, absl::Span<const ArrayRef> operands,
                              const ScalarComputation& apply) {
  const Shape& out = instr.shape();
  if (!out.IsArray()) {
    return absl::InvalidArgumentError(
        StrCat("cannot run %", instr.name(), ": map needs an array result"));
  }
  std::vector<const uint8_t*> data(operands.size());
  std::vector<Bytes> scratch(operands.size());
  for (size_t k = 0; k < operands.size(); ++k) {
    const Shape& s = *operands[k].shape;
    if (!s.IsArray() || s.dims != out.dims) {
      return absl::InvalidArgumentError(StrCat("cannot run %", instr.name(), ": map operand ", k,
                                               " does not have the result's dimensions"));
    }
    if (PhysicalStrides(s) == PhysicalStrides(out)) {
      data[k] = operands[k].data;
      continue;
    }
    scratch[k].resize(static_cast<size_t>(s.ElementCount() * ElementBytes(s.element_type)));
    Shape target = out;
    target.element_type = s.element_type;
    Relayout(s, operands[k].data, target, scratch[k].data());
    data[k] = scratch[k].data();
  }
  const int64_t n = out.ElementCount();
  const int out_bytes = ElementBytes(out.element_type);
  Bytes result(static_cast<size_t>(n * out_bytes));
  std::vector<Scalar> args(operands.size());
  for (int64_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < operands.size(); ++k) {
      const PrimitiveType t = operands[k].shape->element_type;
      args[k] = LoadScalar(t, data[k] + i * ElementBytes(t));
    }
    absl::StatusOr<std::vector<Scalar>> r = apply(args);
    if (!r.ok()) return r.status();
    if (r->size() != 1) {
      return absl::InvalidArgumentError(
          StrCat("cannot run %", instr.name(), ": map's computation must return one scalar"));
    }
    StoreScalar(out.element_type, result.data() + i * out_bytes, (*r)[0]);
  }
  return result;
}

}  // namespace hloscope::eval
