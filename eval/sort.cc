// sort: orders every 1-D slice along `dimensions={d}` of N same-shaped operands by the
// comparator (to_apply), which receives 2N scalars (lhs and rhs of operand 0, then of operand
// 1, ...) and returns pred "lhs before rhs".
//
// The kernel is a merge sort written here rather than std::sort: a comparator from a module is
// not guaranteed to be a strict weak order, and std::sort may read outside the range when it is
// not; a merge sort never does. It is stable, which is one of the orders an unstable sort may
// give, and the only one is_stable=true allows.
#include <algorithm>
#include <cstring>

#include "absl/status/status.h"
#include "eval/dynamic_shapes.h"
#include "eval/element_io.h"
#include "eval/kernels.h"
#include "eval/layout_util.h"
#include "support/str_util.h"

namespace hloscope::eval {
namespace {

// Sorts `order` (positions in a slice) with less(a, b); stops at the first comparator error.
absl::Status MergeSort(std::vector<int64_t>& order,
                       const std::function<absl::StatusOr<bool>(int64_t, int64_t)>& less) {
  std::vector<int64_t> tmp(order.size());
  size_t n = order.size();
  for (size_t width = 1; width < n; width *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * width) {
      size_t mid = std::min(lo + width, n), hi = std::min(lo + 2 * width, n);
      size_t a = lo, b = mid, out = lo;
      while (a < mid && b < hi) {
        // Take from the right run only when it is strictly before: equal elements keep
        // their order.
        absl::StatusOr<bool> right_first = less(order[b], order[a]);
        if (!right_first.ok()) return right_first.status();
        tmp[out++] = *right_first ? order[b++] : order[a++];
      }
      while (a < mid) tmp[out++] = order[a++];
      while (b < hi) tmp[out++] = order[b++];
    }
    order.swap(tmp);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<Bytes>> EvalSort(const Instruction& instr,
                                            absl::Span<const ArrayRef> operands,
                                            const ScalarComputation& compare) {
  return EvalSortValid(instr, operands, compare, -1);
}

absl::StatusOr<std::vector<Bytes>> EvalSortValid(const Instruction& instr,
                                                 absl::Span<const ArrayRef> operands,
                                                 const ScalarComputation& compare,
                                                 int64_t valid_length) {
  size_t n = operands.size();
  std::vector<const Shape*> out_shapes;
  if (instr.shape().IsTuple()) {
    out_shapes.assign(instr.shape().tuple_elements.begin(), instr.shape().tuple_elements.end());
  } else {
    out_shapes.push_back(&instr.shape());
  }
  if (n == 0 || out_shapes.size() != n) {
    return absl::InvalidArgumentError(StrCat("cannot run %", instr.name(), ": ", n,
                                             " operands for ", out_shapes.size(), " outputs"));
  }
  const Shape& first = *operands[0].shape;
  for (size_t k = 0; k < n; ++k) {
    if (!operands[k].shape->IsArray() || operands[k].shape->dims != first.dims ||
        out_shapes[k]->dims != first.dims ||
        out_shapes[k]->element_type != operands[k].shape->element_type) {
      return absl::InvalidArgumentError(
          StrCat("cannot run %", instr.name(),
                 ": every operand and output must have the same dimensions"));
    }
  }
  auto dims = instr.dimensions();
  if (dims.size() != 1 || dims[0] < 0 || dims[0] >= first.rank()) {
    return absl::InvalidArgumentError(StrCat("cannot run %", instr.name(),
                                             ": sort needs one dimension of the operands' ",
                                             first.rank(), " in dimensions={...}"));
  }
  const auto d = static_cast<size_t>(dims[0]);
  std::vector<std::vector<uint8_t>> scratch(n);
  std::vector<const uint8_t*> data(n);
  std::vector<PrimitiveType> types(n);
  std::vector<int> ebs(n);
  std::vector<Bytes> results(n);
  for (size_t k = 0; k < n; ++k) {
    data[k] = RowMajorData(*operands[k].shape, operands[k].data, scratch[k]);
    types[k] = operands[k].shape->element_type;
    ebs[k] = ElementBytes(types[k]);
    results[k].resize(static_cast<size_t>(DenseBytes(*out_shapes[k])));
  }
  std::vector<int64_t> strides = RowMajorStrides(first.dims);
  const int64_t length = first.dims[d], step = strides[d];
  // A dynamic sort dimension: only its first valid_length elements are ordered, the padding
  // after them stays where it is.
  const int64_t sorted = valid_length < 0 ? length : std::min(valid_length, length);
  std::vector<int64_t> outer(first.dims.begin(), first.dims.end());
  outer[d] = 1;
  std::vector<Scalar> args(2 * n);
  std::vector<int64_t> order(static_cast<size_t>(sorted));
  absl::Status status;
  ForEachIndex(outer, [&](const std::vector<int64_t>& o) {
    if (!status.ok()) return;
    int64_t base = 0;
    for (size_t i = 0; i < o.size(); ++i) base += o[i] * strides[i];
    for (int64_t i = 0; i < sorted; ++i) order[static_cast<size_t>(i)] = i;
    auto less = [&](int64_t a, int64_t b) -> absl::StatusOr<bool> {
      for (size_t k = 0; k < n; ++k) {
        args[2 * k] = LoadScalar(types[k], data[k] + (base + a * step) * ebs[k]);
        args[2 * k + 1] = LoadScalar(types[k], data[k] + (base + b * step) * ebs[k]);
      }
      absl::StatusOr<std::vector<Scalar>> r = compare(args);
      if (!r.ok()) return r.status();
      return (*r)[0].i != 0;
    };
    status = MergeSort(order, less);
    if (!status.ok()) return;
    for (size_t k = 0; k < n; ++k) {
      for (int64_t i = 0; i < length; ++i) {
        const int64_t from = i < sorted ? order[static_cast<size_t>(i)] : i;
        std::memcpy(results[k].data() + (base + i * step) * ebs[k],
                    data[k] + (base + from * step) * ebs[k], static_cast<size_t>(ebs[k]));
      }
    }
  });
  if (!status.ok()) return status;
  for (size_t k = 0; k < n; ++k) results[k] = ToPhysical(*out_shapes[k], std::move(results[k]));
  return results;
}

}  // namespace hloscope::eval
