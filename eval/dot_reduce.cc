// dot and reduce: the two kernels that accumulate.
//
// dot accumulates in f32 when the result is bf16, f16 or f32, in f64 when it is f64 and in
// 64-bit integers otherwise, summing the contracted elements in row-major order and rounding
// once at the end. reduce applies to_apply in row-major order of the reduced elements, starting
// from the init value, and rounds after every step (as each to_apply result is a value of its
// type).
#include <algorithm>
#include <complex>
#include <cstring>
#include <type_traits>

#include "absl/status/status.h"
#include "eval/attributes.h"
#include "eval/dot_dims.h"
#include "eval/element_io.h"
#include "eval/kernels.h"
#include "eval/layout_util.h"
#include "hlo/computation.h"
#include "support/str_util.h"

namespace hloscope::eval {
namespace {

// c64 and c128 dots accumulate in std::complex of their component type.
template <typename T>
struct IsComplexAcc : std::false_type {};
template <typename T>
struct IsComplexAcc<std::complex<T>> : std::true_type {};

// Gathers a dot operand into a [batch, rows, contracted] (lhs) or [batch, contracted, cols]
// (rhs) matrix of accumulator values.
template <typename Acc>
std::vector<Acc> Arrange(const ArrayRef& a, absl::Span<const int64_t> batch,
                         absl::Span<const int64_t> free, absl::Span<const int64_t> contract,
                         bool contract_last) {
  const Shape& s = *a.shape;
  std::vector<int64_t> strides = PhysicalStrides(s);
  auto extent = [&](absl::Span<const int64_t> dims) {
    int64_t n = 1;
    for (int64_t d : dims) n *= s.dims[static_cast<size_t>(d)];
    return n;
  };
  int64_t nb = extent(batch), nf = extent(free), nc = extent(contract);
  std::vector<Acc> out(static_cast<size_t>(nb * nf * nc));
  std::vector<int64_t> order(batch.begin(),
                             batch.end());  // iterate batch, then the two others in output order
  const auto& second = contract_last ? free : contract;
  const auto& third = contract_last ? contract : free;
  order.insert(order.end(), second.begin(), second.end());
  order.insert(order.end(), third.begin(), third.end());
  std::vector<int64_t> dims;
  for (int64_t d : order) dims.push_back(s.dims[static_cast<size_t>(d)]);
  int eb = ElementBytes(s.element_type);
  int64_t linear = 0;
  ForEachIndex(dims, [&](const std::vector<int64_t>& idx) {
    int64_t off = 0;
    for (size_t k = 0; k < idx.size(); ++k) off += idx[k] * strides[static_cast<size_t>(order[k])];
    const uint8_t* p = a.data + off * eb;
    if constexpr (std::is_same_v<Acc, int64_t>) {
      out[static_cast<size_t>(linear++)] = LoadInt(s.element_type, p);
    } else if constexpr (IsComplexAcc<Acc>::value) {
      using T = typename Acc::value_type;
      std::complex<double> c = LoadComplex(s.element_type, p);
      out[static_cast<size_t>(linear++)] = Acc(static_cast<T>(c.real()), static_cast<T>(c.imag()));
    } else {
      out[static_cast<size_t>(linear++)] = static_cast<Acc>(LoadDouble(s.element_type, p));
    }
  });
  return out;
}

template <typename Acc>
Bytes DotWith(const Shape& out, const ArrayRef& lhs, const ArrayRef& rhs,
              absl::Span<const int64_t> lb, absl::Span<const int64_t> lc,
              absl::Span<const int64_t> rb, absl::Span<const int64_t> rc) {
  auto free_dims = [](const Shape& s, absl::Span<const int64_t> b, absl::Span<const int64_t> c) {
    std::vector<int64_t> f;
    for (int64_t d = 0; d < s.rank(); ++d) {
      if (std::find(b.begin(), b.end(), d) == b.end() &&
          std::find(c.begin(), c.end(), d) == c.end())
        f.push_back(d);
    }
    return f;
  };
  std::vector<int64_t> lf = free_dims(*lhs.shape, lb, lc), rf = free_dims(*rhs.shape, rb, rc);
  std::vector<Acc> L = Arrange<Acc>(lhs, lb, lf, lc, /*contract_last=*/true);
  std::vector<Acc> R = Arrange<Acc>(rhs, rb, rf, rc, /*contract_last=*/false);
  auto extent = [](const Shape& s, absl::Span<const int64_t> dims) {
    int64_t n = 1;
    for (int64_t d : dims) n *= s.dims[static_cast<size_t>(d)];
    return n;
  };
  int64_t B = extent(*lhs.shape, lb), M = extent(*lhs.shape, lf), K = extent(*lhs.shape, lc),
          N = extent(*rhs.shape, rf);
  int eb = ElementBytes(out.element_type);
  Bytes result(static_cast<size_t>(B * M * N * eb));
  std::vector<Acc> acc(static_cast<size_t>(N));
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t m = 0; m < M; ++m) {
      std::fill(acc.begin(), acc.end(), Acc{0});
      const Acc* lrow = L.data() + (b * M + m) * K;
      // k outer, n inner: each acc[n] still sums its products in k order, and the inner loop
      // runs over contiguous memory.
      for (int64_t k = 0; k < K; ++k) {
        Acc a = lrow[k];
        const Acc* rrow = R.data() + (b * K + k) * N;
        for (int64_t n = 0; n < N; ++n) {
          if constexpr (std::is_same_v<Acc, int64_t>) {
            acc[static_cast<size_t>(n)] =
                static_cast<int64_t>(static_cast<uint64_t>(acc[static_cast<size_t>(n)]) +
                                     static_cast<uint64_t>(a) * static_cast<uint64_t>(rrow[n]));
          } else {
            acc[static_cast<size_t>(n)] += a * rrow[n];
          }
        }
      }
      uint8_t* dst = result.data() + (b * M + m) * N * eb;
      for (int64_t n = 0; n < N; ++n) {
        if constexpr (std::is_same_v<Acc, int64_t>) {
          StoreInt(out.element_type, dst + n * eb, acc[static_cast<size_t>(n)]);
        } else if constexpr (IsComplexAcc<Acc>::value) {
          const Acc& c = acc[static_cast<size_t>(n)];
          StoreComplex(out.element_type, dst + n * eb, {c.real(), c.imag()});
        } else {
          StoreDouble(out.element_type, dst + n * eb,
                      static_cast<double>(acc[static_cast<size_t>(n)]));
        }
      }
    }
  }
  return ToPhysical(out, std::move(result));
}

}  // namespace

absl::StatusOr<Bytes> EvalDot(const Instruction& instr, absl::Span<const ArrayRef> operands) {
  return EvalDotWithDimensions(instr, operands, ReadDotDimensionNumbers(instr));
}

absl::StatusOr<Bytes> EvalDotWithDimensions(const Instruction& instr,
                                            absl::Span<const ArrayRef> operands,
                                            const DotDimensionNumbers& dnums) {
  return EvalDotAs(instr, instr.shape(), operands, dnums);
}

absl::StatusOr<Bytes> EvalDotAs(const Instruction& instr, const Shape& out,
                                absl::Span<const ArrayRef> operands,
                                const DotDimensionNumbers& dnums) {
  absl::Span<const int64_t> lb = dnums.lhs_batch, lc = dnums.lhs_contracting;
  absl::Span<const int64_t> rb = dnums.rhs_batch, rc = dnums.rhs_contracting;
  const Shape& ls = *operands[0].shape;
  const Shape& rs = *operands[1].shape;
  bool ok = lb.size() == rb.size() && lc.size() == rc.size();
  for (size_t i = 0; ok && i < lb.size(); ++i)
    ok = ls.dims[static_cast<size_t>(lb[i])] == rs.dims[static_cast<size_t>(rb[i])];
  for (size_t i = 0; ok && i < lc.size(); ++i)
    ok = ls.dims[static_cast<size_t>(lc[i])] == rs.dims[static_cast<size_t>(rc[i])];
  if (!ok) {
    return absl::InvalidArgumentError(
        StrCat("dot %", instr.name(), ": batch or contracting dimensions do not match"));
  }
  // The kernels write batch x lhs-free x rhs-free elements. A plain dot's result is verified to
  // be that shape, but a custom-call computed as a dot (block_scaled_dot, cuBLAS gemm) declares
  // its own: one of another size was written past its buffer.
  // Batch and lhs-free dimensions of the lhs, then the rhs's free ones (a product past int64
  // is no result size).
  int64_t elements = 1;
  bool overflow = false;
  auto times = [&](int64_t d) { overflow |= __builtin_mul_overflow(elements, d, &elements); };
  for (int64_t i = 0; i < ls.rank(); ++i) {
    if (std::find(lc.begin(), lc.end(), i) == lc.end()) times(ls.dims[static_cast<size_t>(i)]);
  }
  for (int64_t i = 0; i < rs.rank(); ++i) {
    if (std::find(rb.begin(), rb.end(), i) == rb.end() &&
        std::find(rc.begin(), rc.end(), i) == rc.end()) {
      times(rs.dims[static_cast<size_t>(i)]);
    }
  }
  if (overflow || !out.IsArray() || out.ElementCount() != elements) {
    // Operand dimensions only: a custom-call's prepared operands are shapes built in code.
    auto dims = [](const Shape& shape) {
      std::string text = "[";
      for (size_t i = 0; i < shape.dims.size(); ++i) {
        text += StrCat(i == 0 ? "" : ",", shape.dims[i]);
      }
      return text + "]";
    };
    return absl::InvalidArgumentError(
        StrCat("dot %", instr.name(), ": result shape ", out.ToString(false), " does not hold the ",
               elements, " elements of operands ", dims(ls), " and ", dims(rs)));
  }
  PrimitiveType t = out.element_type;
  if (t == PrimitiveType::kF64)
    return DotWith<double>(out, operands[0], operands[1], lb, lc, rb, rc);
  if (t == PrimitiveType::kC64) {
    return DotWith<std::complex<float>>(out, operands[0], operands[1], lb, lc, rb, rc);
  }
  if (t == PrimitiveType::kC128) {
    return DotWith<std::complex<double>>(out, operands[0], operands[1], lb, lc, rb, rc);
  }
  if (IsFloatType(t)) return DotWith<float>(out, operands[0], operands[1], lb, lc, rb, rc);
  return DotWith<int64_t>(out, operands[0], operands[1], lb, lc, rb, rc);
}

namespace {

// Whether `c` is add(parameter, parameter) on scalars: the reduction XLA's evaluator sums in
// double precision (see EvalReduce).
bool IsScalarAdd(const Computation* c) {
  if (c == nullptr || c->parameter_count() != 2) return false;
  const Instruction* root = c->root();
  if (root->opcode() != Opcode::kAdd || root->operand_count() != 2) return false;
  const Instruction* a = root->operand(0);
  const Instruction* b = root->operand(1);
  return a != b && a->opcode() == Opcode::kParameter && b->opcode() == Opcode::kParameter &&
         a->shape().IsArray() && a->shape().rank() == 0 && b->shape().IsArray() &&
         b->shape().rank() == 0;
}

}  // namespace

absl::StatusOr<std::vector<Bytes>> EvalReduce(const Instruction& instr,
                                              absl::Span<const ArrayRef> operands,
                                              const ScalarComputation& apply) {
  size_t n = operands.size() / 2;
  // XLA's evaluator sums a single floating-point reduce whose to_apply is a scalar add in a
  // double, from the init value in the operand's row-major order, and rounds once at the end
  // (HloEvaluatorPreciseReduceTest: 2^25 ones in f32 give 2^25, not 2^24). The same here, so
  // that results agree bit for bit.
  const bool sum_in_double =
      n == 1 && IsFloatType(operands[1].shape->element_type) && IsScalarAdd(instr.to_apply());
  auto reduced = instr.dimensions();
  const Shape& in = *operands[0].shape;
  std::vector<int64_t> kept;
  for (int64_t d = 0; d < in.rank(); ++d) {
    if (std::find(reduced.begin(), reduced.end(), d) == reduced.end()) kept.push_back(d);
  }
  std::vector<int64_t> sorted(reduced.begin(), reduced.end());
  std::sort(sorted.begin(), sorted.end());
  std::vector<int64_t> rd;
  for (int64_t d : sorted) rd.push_back(in.dims[static_cast<size_t>(d)]);
  std::vector<int64_t> kdims;
  for (int64_t d : kept) kdims.push_back(in.dims[static_cast<size_t>(d)]);
  std::vector<std::vector<int64_t>> strides(n);
  std::vector<PrimitiveType> types(n);
  for (size_t k = 0; k < n; ++k) {
    strides[k] = PhysicalStrides(*operands[k].shape);
    types[k] = operands[k].shape->element_type;
  }
  std::vector<const Shape*> out_shapes;
  if (instr.shape().IsTuple()) {
    out_shapes.assign(instr.shape().tuple_elements.begin(), instr.shape().tuple_elements.end());
  } else {
    out_shapes.push_back(&instr.shape());
  }
  if (out_shapes.size() != n) {
    return absl::InvalidArgumentError(StrCat("reduce %", instr.name(), ": ", operands.size(),
                                             " operands for ", out_shapes.size(), " outputs"));
  }
  std::vector<Bytes> results(n);
  for (size_t k = 0; k < n; ++k) results[k].resize(static_cast<size_t>(DenseBytes(*out_shapes[k])));
  std::vector<Scalar> args(2 * n);
  std::vector<int64_t> full(static_cast<size_t>(in.rank()));
  int64_t linear = 0;
  absl::Status status;
  ForEachIndex(kdims, [&](const std::vector<int64_t>& o) {
    if (!status.ok()) return;
    // Each init value in its own type: under mixed precision it may differ from its input's.
    for (size_t k = 0; k < n; ++k) {
      args[k] = LoadScalar(operands[n + k].shape->element_type, operands[n + k].data);
    }
    for (size_t i = 0; i < kept.size(); ++i) full[static_cast<size_t>(kept[i])] = o[i];
    // Reduced elements in row-major order of the operand (dimensions sorted).
    if (sum_in_double) {
      double sum = args[0].f;
      ForEachIndex(rd, [&](const std::vector<int64_t>& r) {
        for (size_t i = 0; i < sorted.size(); ++i) full[static_cast<size_t>(sorted[i])] = r[i];
        int64_t off = 0;
        for (size_t d = 0; d < full.size(); ++d) off += full[d] * strides[0][d];
        sum += LoadScalar(types[0], operands[0].data + off * ElementBytes(types[0])).f;
      });
      args[0].f = sum;
    }
    if (!sum_in_double)
      ForEachIndex(rd, [&](const std::vector<int64_t>& r) {
        if (!status.ok()) return;
        for (size_t i = 0; i < sorted.size(); ++i) full[static_cast<size_t>(sorted[i])] = r[i];
        for (size_t k = 0; k < n; ++k) {
          int64_t off = 0;
          for (size_t d = 0; d < full.size(); ++d) off += full[d] * strides[k][d];
          args[n + k] = LoadScalar(types[k], operands[k].data + off * ElementBytes(types[k]));
        }
        absl::StatusOr<std::vector<Scalar>> r2 = apply(args);
        if (!r2.ok()) {
          status = r2.status();
          return;
        }
        for (size_t k = 0; k < n; ++k) args[k] = (*r2)[k];
      });
    for (size_t k = 0; k < n; ++k) {
      PrimitiveType ot = out_shapes[k]->element_type;
      StoreScalar(ot, results[k].data() + linear * ElementBytes(ot), args[k]);
    }
    ++linear;
  });
  if (!status.ok()) return status;
  for (size_t k = 0; k < n; ++k) results[k] = ToPhysical(*out_shapes[k], std::move(results[k]));
  return results;
}

}  // namespace hloscope::eval
