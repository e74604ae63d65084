// cholesky and triangular-solve on the last two dimensions (leading dimensions are a batch),
// computed in double and rounded once to the element type.
//
//   cholesky(a), lower=true|false: L with a = L L^T (lower) or U with a = U^T U (upper), read
//     from that triangle of a; the other triangle of the result is zero. A matrix that is not
//     positive definite gives NaN from the first failing pivot on (XLA leaves it
//     implementation-defined).
//   triangular-solve(a, b), left_side, lower, unit_diagonal, transpose_a=NO_TRANSPOSE|
//     TRANSPOSE|ADJOINT: x with op(a) x = b (left_side=true) or x op(a) = b, a read from its
//     `lower` triangle only (the diagonal taken as 1 with unit_diagonal). ADJOINT is TRANSPOSE
//     for the real types hlo-run supports.
#include <cmath>
#include <vector>

#include "absl/status/status.h"
#include "eval/element_io.h"
#include "eval/kernels.h"
#include "eval/layout_util.h"
#include "hlo/attribute_values.h"
#include "support/str_util.h"

namespace hloscope::eval {
namespace {

bool BoolAttribute(const Instruction& instr, std::string_view key) {
  return RawAttribute(instr, key).value_or("false") == "true";
}

std::vector<double> LoadAll(const Shape& s, const uint8_t* data) {
  std::vector<uint8_t> scratch;
  const uint8_t* p = RowMajorData(s, data, scratch);
  const int eb = ElementBytes(s.element_type);
  std::vector<double> v(static_cast<size_t>(s.ElementCount()));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = LoadDouble(s.element_type, p + static_cast<int64_t>(i) * eb);
  return v;
}

Bytes StoreAll(const Shape& s, const std::vector<double>& v) {
  const int eb = ElementBytes(s.element_type);
  Bytes out(static_cast<size_t>(DenseBytes(s)));
  for (size_t i = 0; i < v.size(); ++i)
    StoreDouble(s.element_type, out.data() + static_cast<int64_t>(i) * eb, v[i]);
  return ToPhysical(s, std::move(out));
}

}  // namespace

absl::StatusOr<Bytes> EvalCholesky(const Instruction& instr, absl::Span<const ArrayRef> operands) {
  const Shape& s = *operands[0].shape;
  if (operands.size() != 1 || s.rank() < 2 ||
      s.dims[s.dims.size() - 1] != s.dims[s.dims.size() - 2] || s.dims != instr.shape().dims ||
      !IsFloatType(s.element_type) || s.element_type != instr.shape().element_type) {
    return absl::InvalidArgumentError(StrCat("cannot run %", instr.name(),
                                             ": cholesky takes one float array of square "
                                             "matrices and gives its shape"));
  }
  const bool lower = BoolAttribute(instr, "lower");
  const int64_t n = s.dims.back();
  const std::vector<double> a = LoadAll(s, operands[0].data);
  std::vector<double> l(a.size(), 0.0);
  const int64_t batch = n == 0 ? 0 : s.ElementCount() / (n * n);
  // at(m, i, j): element (i, j) of the factor as if lower (upper reads the transpose).
  for (int64_t m = 0; m < batch; ++m) {
    const int64_t base = m * n * n;
    auto in = [&](int64_t i, int64_t j) {
      return a[static_cast<size_t>(base + (lower ? i * n + j : j * n + i))];
    };
    auto out = [&](int64_t i, int64_t j) -> double& {
      return l[static_cast<size_t>(base + (lower ? i * n + j : j * n + i))];
    };
    for (int64_t j = 0; j < n; ++j) {
      double d = in(j, j);
      for (int64_t k = 0; k < j; ++k) d -= out(j, k) * out(j, k);
      const double pivot = d > 0 ? std::sqrt(d) : std::nan("");
      out(j, j) = pivot;
      for (int64_t i = j + 1; i < n; ++i) {
        double v = in(i, j);
        for (int64_t k = 0; k < j; ++k) v -= out(i, k) * out(j, k);
        out(i, j) = v / pivot;
      }
    }
  }
  return StoreAll(instr.shape(), l);
}

absl::StatusOr<Bytes> EvalTriangularSolve(const Instruction& instr,
                                          absl::Span<const ArrayRef> operands) {
  auto fail = [&](std::string_view why) {
    return absl::InvalidArgumentError(StrCat("cannot run %", instr.name(), ": ", why));
  };
  if (operands.size() != 2) return fail("triangular-solve takes a and b");
  const Shape& as = *operands[0].shape;
  const Shape& bs = *operands[1].shape;
  const Shape& out = instr.shape();
  const bool left = BoolAttribute(instr, "left_side");
  const size_t r = as.dims.size();
  if (r < 2 || bs.dims.size() != r || as.dims[r - 1] != as.dims[r - 2] || out.dims != bs.dims ||
      !IsFloatType(out.element_type) || as.element_type != out.element_type ||
      bs.element_type != out.element_type) {
    return fail("triangular-solve needs float a[..., n, n] and b of the result's shape");
  }
  for (size_t d = 0; d + 2 < r; ++d) {
    if (as.dims[d] != bs.dims[d]) return fail("a and b have different batch dimensions");
  }
  const int64_t n = as.dims[r - 1];
  const int64_t rows = bs.dims[r - 2], cols = bs.dims[r - 1];
  if ((left ? rows : cols) != n) {
    return fail(StrCat("b's ", left ? "rows" : "columns", " must number a's ", n));
  }
  const bool lower = BoolAttribute(instr, "lower");
  const bool unit = BoolAttribute(instr, "unit_diagonal");
  const std::string_view op = RawAttribute(instr, "transpose_a").value_or("NO_TRANSPOSE");
  if (op != "NO_TRANSPOSE" && op != "TRANSPOSE" && op != "ADJOINT") {
    return fail(StrCat("transpose_a=", op, " is not NO_TRANSPOSE, TRANSPOSE or ADJOINT"));
  }
  const bool transpose = op != "NO_TRANSPOSE";
  const std::vector<double> a = LoadAll(as, operands[0].data);
  std::vector<double> x = LoadAll(bs, operands[1].data);
  const int64_t batch = n == 0 || rows * cols == 0 ? 0 : bs.ElementCount() / (rows * cols);
  for (int64_t m = 0; m < batch; ++m) {
    const double* am = a.data() + m * n * n;
    double* xm = x.data() + m * rows * cols;
    // op(a)(i, j), reading only a's `lower` triangle (the other is zero).
    auto opa = [&](int64_t i, int64_t j) {
      const int64_t ai = transpose ? j : i, aj = transpose ? i : j;
      if (ai == aj) return unit ? 1.0 : am[ai * n + aj];
      return (lower ? ai > aj : ai < aj) ? am[ai * n + aj] : 0.0;
    };
    // op(a) is lower triangular when exactly one of lower / transpose holds... as a matrix:
    const bool op_lower = lower != transpose;
    // Solve column by column (left) or row by row (right: x op(a) = b is op(a)^T x^T = b^T).
    const int64_t systems = left ? cols : rows;
    for (int64_t s = 0; s < systems; ++s) {
      auto xv = [&](int64_t i) -> double& { return left ? xm[i * cols + s] : xm[s * cols + i]; };
      // For the right side the matrix is op(a)^T: lower-ness flips and indices swap.
      const bool tri_lower = left ? op_lower : !op_lower;
      auto mat = [&](int64_t i, int64_t j) { return left ? opa(i, j) : opa(j, i); };
      for (int64_t t = 0; t < n; ++t) {
        const int64_t i = tri_lower ? t : n - 1 - t;
        double v = xv(i);
        for (int64_t u = 0; u < t; ++u) {
          const int64_t j = tri_lower ? u : n - 1 - u;
          v -= mat(i, j) * xv(j);
        }
        xv(i) = v / mat(i, i);
      }
    }
  }
  return StoreAll(out, x);
}

}  // namespace hloscope::eval
