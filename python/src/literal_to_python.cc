#include "python/src/literal_to_python.h"

#include <pybind11/complex.h>

#include <complex>
#include <cstdint>
#include <vector>

#include "eval/element_io.h"

namespace py = pybind11;

namespace hloscope::python {
namespace {

py::object Element(PrimitiveType type, const uint8_t* p) {
  if (type == PrimitiveType::kPred) return py::bool_(eval::LoadInt(type, p) != 0);
  if (eval::IsComplexType(type)) return py::cast(eval::LoadComplex(type, p));
  if (eval::IsFloatType(type)) return py::float_(eval::LoadDouble(type, p));
  const int64_t bits = eval::LoadInt(type, p);
  // LoadInt zero-extends unsigned types, so only u64 can have the sign bit set.
  if (eval::IsUnsignedType(type)) return py::int_(static_cast<uint64_t>(bits));
  return py::int_(bits);
}

// The elements of dimensions `dim`.. at the logical multi-index `index` (its first `dim` entries
// chosen), inside `sizes` (the valid sizes).
py::object Nested(const eval::Literal& literal, const std::vector<int64_t>& sizes, size_t dim,
                  std::vector<int64_t>& index) {
  if (dim == sizes.size()) {
    return Element(literal.shape().element_type,
                   literal.data().data() + literal.PhysicalOffset(index));
  }
  py::list out;
  for (int64_t i = 0; i < sizes[dim]; ++i) {
    index[dim] = i;
    out.append(Nested(literal, sizes, dim + 1, index));
  }
  return out;
}

}  // namespace

py::object LiteralToPython(const eval::Literal& literal) {
  const Shape& shape = literal.shape();
  if (shape.IsTuple()) {
    py::tuple out(literal.elements().size());
    for (size_t i = 0; i < literal.elements().size(); ++i) {
      out[i] = LiteralToPython(literal.elements()[i]);
    }
    return out;
  }
  if (!shape.IsArray()) return py::none();  // a token holds nothing
  const std::vector<int64_t> sizes = literal.ValidSizes();
  std::vector<int64_t> index(sizes.size(), 0);
  return Nested(literal, sizes, 0, index);
}

}  // namespace hloscope::python
