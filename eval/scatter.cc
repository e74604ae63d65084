// scatter: XLA's semantics, updates applied one at a time in row-major order of the update
// index; an update whose whole window does not fit in the operand is skipped.
#include <algorithm>
#include <cstring>

#include "absl/status/status.h"
#include "eval/element_io.h"
#include "eval/kernels.h"
#include "eval/layout_util.h"
#include "hlo/attribute_values.h"
#include "support/str_util.h"

namespace hloscope::eval {
namespace {

bool Contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

absl::Status Misfit(const Instruction& instr) {
  return absl::InvalidArgumentError(
      StrCat("cannot run %", instr.name(), ": scatter dimension numbers do not fit the shapes"));
}

}  // namespace

absl::StatusOr<std::vector<Bytes>> EvalScatter(const Instruction& instr,
                                               absl::Span<const ArrayRef> operands,
                                               const ScalarComputation& apply) {
  if (operands.size() < 3 || operands.size() % 2 == 0) return Misfit(instr);
  size_t n = (operands.size() - 1) / 2;
  const ArrayRef& indices = operands[n];
  const Shape& os = *operands[0].shape;
  const Shape& us = *operands[n + 1].shape;
  const Shape& is = *indices.shape;
  std::vector<int64_t> window_dims = IntListAttribute(instr, "update_window_dims");
  std::vector<int64_t> inserted = IntListAttribute(instr, "inserted_window_dims");
  // Batching dims: operand dim input_batching_dims[i] is indexed by the scatter index's
  // coordinate in dim scatter_indices_batching_dims[i] (like an inserted dim of size 1).
  std::vector<int64_t> batching = IntListAttribute(instr, "input_batching_dims");
  std::vector<int64_t> index_batching = IntListAttribute(instr, "scatter_indices_batching_dims");
  std::vector<int64_t> to_operand = IntListAttribute(instr, "scatter_dims_to_operand_dims");
  std::vector<int64_t> ivd = IntListAttribute(instr, "index_vector_dim");
  int64_t index_vector_dim = ivd.empty() ? is.rank() : ivd[0];
  // Checks that keep every access in bounds.
  bool ok =
      index_vector_dim >= 0 && index_vector_dim <= is.rank() &&
      static_cast<int64_t>(window_dims.size() + inserted.size() + batching.size()) == os.rank() &&
      batching.size() == index_batching.size() &&
      (index_vector_dim == is.rank() ? to_operand.size() == 1
                                     : is.dims[static_cast<size_t>(index_vector_dim)] ==
                                           static_cast<int64_t>(to_operand.size()));
  for (int64_t d : to_operand) ok = ok && d >= 0 && d < os.rank();
  for (int64_t d : inserted) ok = ok && d >= 0 && d < os.rank();
  for (int64_t d : batching) ok = ok && d >= 0 && d < os.rank();
  for (int64_t d : index_batching) ok = ok && d >= 0 && d < is.rank() && d != index_vector_dim;
  // A batching dim pairs an operand dim with an index dim of the same size.
  for (size_t i = 0; ok && i < batching.size(); ++i) {
    ok = os.dims[static_cast<size_t>(batching[i])] ==
         is.dims[static_cast<size_t>(index_batching[i])];
  }
  for (int64_t d : window_dims) ok = ok && d >= 0 && d < us.rank();
  for (size_t k = 0; ok && k < n; ++k) {
    ok = operands[k].shape->dims == os.dims && operands[n + 1 + k].shape->dims == us.dims;
  }
  std::vector<int64_t> scatter_dims;  // update dims that select a start index
  for (int64_t d = 0; d < us.rank(); ++d) {
    if (!Contains(window_dims, d)) scatter_dims.push_back(d);
  }
  ok = ok && static_cast<int64_t>(scatter_dims.size()) ==
                 is.rank() - (index_vector_dim < is.rank() ? 1 : 0);
  for (size_t b = 0, j = 0; ok && b < scatter_dims.size(); ++b, ++j) {
    if (static_cast<int64_t>(j) == index_vector_dim) ++j;
    ok = us.dims[static_cast<size_t>(scatter_dims[b])] == is.dims[j];
  }
  std::vector<int64_t> operand_window;  // operand dims that a window dim of the update walks
  for (int64_t d = 0; d < os.rank(); ++d) {
    if (!Contains(inserted, d) && !Contains(batching, d)) operand_window.push_back(d);
  }
  if (!ok) return Misfit(instr);
  // The rank check above counts inserted and batching dims apart; a dim in both (or repeated
  // in one) leaves more operand window dims than update window dims. XLA's shape inference
  // (InferScatterShape at ROCm/xla 183fa00cb5) refuses a repeat but not a dim in both, and
  // our verifier keeps the dimension numbers as text; the window walk below pairs them one
  // to one.
  if (operand_window.size() != window_dims.size()) {
    return absl::InvalidArgumentError(
        StrCat("cannot run %", instr.name(), ": scatter leaves ", operand_window.size(),
               " operand dimensions for its ", window_dims.size(),
               " update_window_dims (an operand dimension is both in inserted_window_dims and "
               "input_batching_dims, or repeated)"));
  }
  for (size_t w = 0; ok && w < window_dims.size(); ++w) {
    ok = us.dims[static_cast<size_t>(window_dims[w])] <=
         os.dims[static_cast<size_t>(operand_window[w])];
  }
  if (!ok) return Misfit(instr);

  // Results start as copies of the operands, in row-major order while updating.
  std::vector<Bytes> results(n);
  std::vector<Bytes> scratch(2 * n + 1);
  std::vector<const uint8_t*> updates(n);
  std::vector<PrimitiveType> types(n);
  for (size_t k = 0; k < n; ++k) {
    types[k] = operands[k].shape->element_type;
    const uint8_t* rm = RowMajorData(*operands[k].shape, operands[k].data, scratch[k]);
    results[k].assign(rm, rm + DenseBytes(*operands[k].shape));
    updates[k] =
        RowMajorData(*operands[n + 1 + k].shape, operands[n + 1 + k].data, scratch[n + 1 + k]);
  }
  const uint8_t* idx = RowMajorData(is, indices.data, scratch[n]);
  std::vector<int64_t> ostrides = RowMajorStrides(os.dims), istrides = RowMajorStrides(is.dims);
  int ib = ElementBytes(is.element_type);
  std::vector<int64_t> start(static_cast<size_t>(os.rank())), full(static_cast<size_t>(os.rank()));
  std::vector<int64_t> idx_index(static_cast<size_t>(is.rank()));
  std::vector<Scalar> args(2 * n);
  int64_t linear = 0;
  absl::Status status;
  ForEachIndex(us.dims, [&](const std::vector<int64_t>& u) {
    if (!status.ok()) return;
    int64_t here = linear++;
    for (size_t b = 0, j = 0; b < scatter_dims.size(); ++b, ++j) {
      if (static_cast<int64_t>(j) == index_vector_dim) ++j;
      idx_index[j] = u[static_cast<size_t>(scatter_dims[b])];
    }
    std::fill(start.begin(), start.end(), 0);
    for (size_t k = 0; k < to_operand.size(); ++k) {
      if (index_vector_dim < is.rank())
        idx_index[static_cast<size_t>(index_vector_dim)] = static_cast<int64_t>(k);
      int64_t off = 0;
      for (size_t d = 0; d < idx_index.size(); ++d) off += idx_index[d] * istrides[d];
      start[static_cast<size_t>(to_operand[k])] = LoadInt(is.element_type, idx + off * ib);
    }
    for (size_t k = 0; k < batching.size(); ++k) {
      start[static_cast<size_t>(batching[k])] = idx_index[static_cast<size_t>(index_batching[k])];
    }
    // The whole window must fit, else the update is skipped.
    for (size_t d = 0; d < start.size(); ++d) {
      auto w = std::find(operand_window.begin(), operand_window.end(), static_cast<int64_t>(d));
      int64_t size = w == operand_window.end()
                         ? 1
                         : us.dims[static_cast<size_t>(
                               window_dims[static_cast<size_t>(w - operand_window.begin())])];
      if (start[d] < 0 || start[d] + size > os.dims[d]) return;
    }
    full = start;
    for (size_t w = 0; w < window_dims.size(); ++w) {
      full[static_cast<size_t>(operand_window[w])] += u[static_cast<size_t>(window_dims[w])];
    }
    int64_t off = 0;
    for (size_t d = 0; d < full.size(); ++d) off += full[d] * ostrides[d];
    for (size_t k = 0; k < n; ++k) {
      int eb = ElementBytes(types[k]);
      args[k] = LoadScalar(types[k], results[k].data() + off * eb);
      args[n + k] = LoadScalar(types[k], updates[k] + here * eb);
    }
    absl::StatusOr<std::vector<Scalar>> r = apply(args);
    if (!r.ok()) {
      status = r.status();
      return;
    }
    for (size_t k = 0; k < n; ++k)
      StoreScalar(types[k], results[k].data() + off * ElementBytes(types[k]), (*r)[k]);
  });
  if (!status.ok()) return status;
  const Shape& out = instr.shape();
  for (size_t k = 0; k < n; ++k) {
    const Shape* s = out.IsTuple() ? out.tuple_elements[k] : &out;
    if (s->dims != os.dims || s->element_type != types[k]) return Misfit(instr);
    results[k] = ToPhysical(*s, std::move(results[k]));
  }
  return results;
}

}  // namespace hloscope::eval
