// Step 3 of the verifier, continued: scan.
//
//   (outputs..., carries...) scan(inputs..., inits...), dimensions={d}, num_carries=C,
//                            to_apply=body
//
// The last C operands are the initial carries, the others are inputs sliced along dimension d.
// Step k calls body(input slices at k..., carries...), which returns (output slices...,
// carries...); the outputs are stacked along d, and the result is (outputs..., final carries...)
// (one element alone is not wrapped in a tuple). So every input and output has the same size
// along d, body's parameters are the input slices then the inits, and its root is the output
// slices then the carries again. Modules written before `num_carries` existed cannot tell
// inputs from carries: for them only the dimension and the parameter count are checked.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hlo/attribute_values.h"
#include "hlo/verifier_internal.h"
#include "support/str_util.h"

namespace hloscope::verifier_internal {
namespace {

// The elements of a scan-shaped value: a tuple's elements, or the value itself.
std::vector<const Shape*> Elements(const Shape& s) {
  if (s.IsTuple()) return s.tuple_elements;
  return {&s};
}

// Whether `part` is `whole` without dimension `dim` (sizes as in DimsAre).
bool IsSliceOf(const Shape& part, const Shape& whole, int64_t dim, const VerifierOptions& options) {
  if (!part.IsArray() || !whole.IsArray() ||
      !TypesAgree(part.element_type, whole.element_type, options) ||
      part.rank() != whole.rank() - 1) {
    return false;
  }
  for (int64_t i = 0, j = 0; i < whole.rank(); ++i) {
    if (i == dim) continue;
    if (!SizesAgree(part.dims[j++], whole.dims[i])) return false;
  }
  return true;
}

std::string SliceText(const Shape& whole, int64_t dim) {
  Dims dims;
  for (int64_t i = 0; i < whole.rank(); ++i) {
    if (i != dim) dims.push_back(whole.dims[i]);
  }
  return ShapeText(ExpectedArray(whole.element_type, dims));
}

}  // namespace

absl::Status CheckScan(const Instruction& instr, const VerifierOptions& options) {
  const Computation* body = instr.to_apply();
  if (body == nullptr) return InstrError(instr, "scan has no to_apply computation");
  absl::Span<const int64_t> dims = instr.dimensions();
  if (dims.size() != 1 || dims[0] < 0) {
    return InstrError(instr, StrCat("scan has ", DimsAttr("dimensions", dims),
                                    "; it needs exactly one scan dimension, at least 0"));
  }
  const int64_t dim = dims[0];
  const int64_t operands = instr.operand_count();
  if (body->parameter_count() != operands) {
    return InstrError(instr, StrCat("scan computation '", body->name(), "' has ",
                                    Count(body->parameter_count(), "parameter", "parameters"),
                                    " but the scan has ", Count(operands, "operand", "operands")));
  }
  const std::optional<int64_t> carries = IntAttribute(instr, "num_carries");
  if (!carries) return absl::OkStatus();  // the older form: see the header comment
  const std::vector<const Shape*> results = Elements(instr.shape());
  const std::vector<const Shape*> roots = Elements(body->root()->shape());
  const int64_t result_count = static_cast<int64_t>(results.size());
  if (*carries < 0 || *carries > operands || *carries > result_count) {
    return InstrError(instr, StrCat("scan num_carries=", *carries, " is not between 0 and its ",
                                    Count(operands, "operand", "operands"), " and ",
                                    Count(result_count, "result", "results")));
  }
  const int64_t inputs = operands - *carries, outputs = result_count - *carries;
  if (inputs == 0 && outputs == 0) {
    return InstrError(instr, "scan has neither inputs nor outputs, so no length to scan");
  }
  if (static_cast<int64_t>(roots.size()) != result_count) {
    return InstrError(*body->root(),
                      StrCat("scan root shape ", ShapeText(body->root()->shape()), " has ",
                             Count(static_cast<int64_t>(roots.size()), "element", "elements"),
                             " but scan shape ", ShapeText(instr.shape()), " has ", result_count));
  }
  // The scan's length: the first input's size along `dim`, else the first output's.
  const Shape& first = inputs > 0 ? instr.operand(0)->shape() : *results[0];
  if (!first.IsArray() || dim >= first.rank()) {
    const std::string what =
        inputs > 0 ? StrCat(OperandRef(instr, 0), " shape ") : "result element 0 shape ";
    return InstrError(
        instr, StrCat("scan dimension ", dim, " is out of range for ", what, ShapeText(first)));
  }
  const int64_t length = first.dims[dim];
  auto check_stacked = [&](const Shape& s, std::string_view what) -> absl::Status {
    if (!s.IsArray() || dim >= s.rank()) {
      return InstrError(instr, StrCat("scan dimension ", dim, " is out of range for ", what,
                                      " shape ", ShapeText(s)));
    }
    if (!SizesAgree(s.dims[dim], length)) {
      return InstrError(
          instr, StrCat("scan ", what, " shape ", ShapeText(s), " has size ", s.dims[dim],
                        " along scan dimension ", dim, ", but the scan's length is ", length));
    }
    return absl::OkStatus();
  };
  for (int64_t i = 0; i < operands; ++i) {
    const Shape& arg = instr.operand(i)->shape();
    const Instruction& param = *body->parameter(i);
    if (i < inputs) {
      if (absl::Status s = check_stacked(arg, StrCat("input ", OperandRef(instr, i))); !s.ok())
        return s;
      if (!IsSliceOf(param.shape(), arg, dim, options)) {
        return InstrError(
            param, StrCat("scan parameter ", i, " shape ", ShapeText(param.shape()),
                          " is not a slice of input ", OperandRef(instr, i), " shape ",
                          ShapeText(arg), " along dimension ", dim, ", ", SliceText(arg, dim)));
      }
    } else if (!ShapesAgree(param.shape(), arg, options)) {
      return InstrError(
          param, StrCat("scan parameter ", i, " shape ", ShapeText(param.shape()),
                        " does not match init ", OperandRef(instr, i), " shape ", ShapeText(arg)));
    }
  }
  for (int64_t j = 0; j < result_count; ++j) {
    const Shape& root = *roots[j];
    const Shape& result = *results[j];
    if (j < outputs) {
      if (absl::Status s = check_stacked(result, StrCat("result element ", j)); !s.ok()) return s;
      if (!IsSliceOf(root, result, dim, options)) {
        return InstrError(*body->root(), StrCat("scan root element ", j, " shape ", ShapeText(root),
                                                " is not a slice of scan result element ", j,
                                                " shape ", ShapeText(result), " along dimension ",
                                                dim, ", ", SliceText(result, dim)));
      }
      continue;
    }
    // A carry: the root returns it in the parameter's shape, and the scan returns it as is.
    const Shape& param = body->parameter(inputs + (j - outputs))->shape();
    if (!ShapesAgree(root, param, options)) {
      return InstrError(*body->root(), StrCat("scan root element ", j, " shape ", ShapeText(root),
                                              " does not match carry parameter ",
                                              inputs + (j - outputs), " shape ", ShapeText(param)));
    }
    if (!ShapesAgree(root, result, options)) {
      return InstrError(*body->root(), StrCat("scan root element ", j, " shape ", ShapeText(root),
                                              " does not match scan result "
                                              "element ",
                                              j, " shape ", ShapeText(result)));
    }
  }
  return absl::OkStatus();
}

}  // namespace hloscope::verifier_internal
