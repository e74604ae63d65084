// topk(x), k=K, largest=true|false: the K largest (or smallest) elements of every row along the
// last dimension, and their s32 indices, as a tuple (values, indices).
//
// Order as XLA's TopK decomposition sorts: floats by their total order (-NaN < -inf < ... < -0
// < +0 < ... < inf < NaN), integers by value, and equal elements by their index (the smaller
// index first), so the result is fully determined.
#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <numeric>

#include "absl/status/status.h"
#include "eval/element_io.h"
#include "eval/kernels.h"
#include "eval/layout_util.h"
#include "hlo/attribute_values.h"
#include "support/str_util.h"

namespace hloscope::eval {
namespace {

// A key whose signed order is the element's total order.
int64_t OrderKey(PrimitiveType t, const uint8_t* p) {
  if (IsFloatType(t)) {
    // Widening to double keeps the value and NaN's sign; the double's bits, with the magnitude
    // bits flipped for negative numbers, sort as the floats' total order.
    auto bits = std::bit_cast<int64_t>(LoadDouble(t, p));
    return bits < 0 ? bits ^ std::numeric_limits<int64_t>::max() : bits;
  }
  return LoadInt(t, p);
}

}  // namespace

absl::StatusOr<std::vector<Bytes>> EvalTopK(const Instruction& instr,
                                            absl::Span<const ArrayRef> operands) {
  auto fail = [&](std::string_view why) {
    return absl::InvalidArgumentError(StrCat("cannot run %", instr.name(), ": ", why));
  };
  const Shape& out = instr.shape();
  if (operands.size() != 1 || !operands[0].shape->IsArray() || operands[0].shape->rank() == 0 ||
      !out.IsTuple() || out.tuple_elements.size() != 2) {
    return fail("topk takes one array of rank 1 or more and gives (values, indices)");
  }
  const Shape& in = *operands[0].shape;
  const Shape& values = *out.tuple_elements[0];
  const Shape& indices = *out.tuple_elements[1];
  std::optional<int64_t> k = IntAttribute(instr, "k");
  const int64_t n = in.dims.back();
  if (!k || *k < 0 || *k > n) {
    return fail(StrCat("k must be between 0 and the last dimension's ", n));
  }
  bool dims_fit = values.dims.size() == in.dims.size() && indices.dims == values.dims &&
                  values.dims.back() == *k && values.element_type == in.element_type &&
                  indices.element_type == PrimitiveType::kS32;
  for (size_t d = 0; dims_fit && d + 1 < in.dims.size(); ++d)
    dims_fit = values.dims[d] == in.dims[d];
  if (!dims_fit) {
    return fail(StrCat("its result must be (", PrimitiveTypeName(in.element_type),
                       "[..., k], s32[..., k]) for the operand ", in.ToString(false)));
  }
  if (IsComplexType(in.element_type)) {
    // Complex numbers have no order; XLA's shape inference refuses topk on them too.
    return fail(StrCat("topk orders its operand, and ", PrimitiveTypeName(in.element_type),
                       " values have no order"));
  }
  const bool largest = RawAttribute(instr, "largest").value_or("true") != "false";
  std::vector<uint8_t> scratch;
  const uint8_t* data = RowMajorData(in, operands[0].data, scratch);
  const int eb = ElementBytes(in.element_type);
  const int64_t rows = n == 0 ? 0 : in.ElementCount() / n;
  Bytes vbytes(static_cast<size_t>(DenseBytes(values)));
  Bytes ibytes(static_cast<size_t>(DenseBytes(indices)));
  std::vector<int64_t> keys(static_cast<size_t>(n));
  std::vector<int64_t> order(static_cast<size_t>(n));
  for (int64_t r = 0; r < rows; ++r) {
    const uint8_t* row = data + r * n * eb;
    for (int64_t i = 0; i < n; ++i)
      keys[static_cast<size_t>(i)] = OrderKey(in.element_type, row + i * eb);
    std::iota(order.begin(), order.end(), 0);
    // The keys are a strict weak order, so std::stable_sort is safe here.
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      const int64_t ka = keys[static_cast<size_t>(a)], kb = keys[static_cast<size_t>(b)];
      return largest ? ka > kb : ka < kb;
    });
    for (int64_t i = 0; i < *k; ++i) {
      const int64_t src = order[static_cast<size_t>(i)];
      std::memcpy(vbytes.data() + (r * *k + i) * eb, row + src * eb, static_cast<size_t>(eb));
      StoreInt(PrimitiveType::kS32, ibytes.data() + (r * *k + i) * 4, src);
    }
  }
  std::vector<Bytes> results;
  results.push_back(ToPhysical(values, std::move(vbytes)));
  results.push_back(ToPhysical(indices, std::move(ibytes)));
  return results;
}

}  // namespace hloscope::eval
