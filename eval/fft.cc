// fft: the discrete Fourier transform over the innermost fft_length.size() (1 to 3)
// dimensions, every other dimension a batch.
//
//   FFT   complex -> complex, X[k] = sum_j x[j] e^(-2 pi i jk / N)
//   IFFT  complex -> complex, the inverse, divided by the product of fft_length
//   RFFT  real -> complex, the FFT of a real signal; the last axis keeps N/2 + 1 outputs
//   IRFFT complex -> real, the inverse of RFFT: the last axis holds N/2 + 1 inputs and the rest
//         of the spectrum is their conjugate mirror (x[N - j] = conj(x[j]))
//
// As in XLA's evaluator, each transformed axis is read as a signal of its fft_length: input
// elements past the input's size are zero, and elements past the transform's size are not
// read; output elements past fft_length are zero. A zero fft_length makes every output zero.
// The sums run in double with twiddles e^(-2 pi i m / N) for m = jk mod N (exact index
// arithmetic, so large N loses no accuracy to the angle), and each result is rounded to the
// output type once. Axes whose length is a power of two run radix-2 Cooley-Tukey (O(N log N):
// butterflies over the bit-reversed signal, twiddles from the same exact table); other lengths
// run the direct O(N^2) sums.
#include <cmath>
#include <complex>
#include <numbers>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "eval/element_io.h"
#include "eval/kernels.h"
#include "eval/layout_util.h"
#include "hlo/attribute_values.h"
#include "support/str_util.h"

namespace hloscope::eval {
namespace {

using Complex = std::complex<double>;

enum class FftType { kFft, kIfft, kRfft, kIrfft };

// Radix-2 decimation in time for n a power of two: the signal in bit-reversed order, then
// log2(n) rounds of butterflies; the stage of span `len` uses twiddle[j * n / len].
void TransformLinePow2(Complex* line, int64_t stride, int64_t n, bool inverse,
                       const std::vector<Complex>& twiddle, std::vector<Complex>& tmp) {
  tmp.resize(static_cast<size_t>(n));
  int bits = 0;
  while ((int64_t{1} << bits) < n) ++bits;
  for (int64_t i = 0; i < n; ++i) {
    int64_t r = 0;
    for (int b = 0; b < bits; ++b) r |= ((i >> b) & 1) << (bits - 1 - b);
    tmp[static_cast<size_t>(r)] = line[i * stride];
  }
  for (int64_t len = 2; len <= n; len <<= 1) {
    const int64_t half = len / 2, step = n / len;
    for (int64_t start = 0; start < n; start += len) {
      for (int64_t j = 0; j < half; ++j) {
        const Complex& t = twiddle[static_cast<size_t>(j * step)];
        const Complex w = inverse ? std::conj(t) : t;
        Complex& lo = tmp[static_cast<size_t>(start + j)];
        Complex& hi = tmp[static_cast<size_t>(start + j + half)];
        const Complex v = hi * w;
        hi = lo - v;
        lo += v;
      }
    }
  }
  for (int64_t k = 0; k < n; ++k) line[k * stride] = tmp[static_cast<size_t>(k)];
}

// One DFT of `n` points along an axis: in place over line[0], line[stride], ...
void TransformLine(Complex* line, int64_t stride, int64_t n, bool inverse,
                   const std::vector<Complex>& twiddle, std::vector<Complex>& tmp) {
  if (n > 1 && (n & (n - 1)) == 0) return TransformLinePow2(line, stride, n, inverse, twiddle, tmp);
  tmp.assign(static_cast<size_t>(n), Complex(0));
  for (int64_t k = 0; k < n; ++k) {
    Complex sum(0);
    for (int64_t j = 0; j < n; ++j) {
      const Complex& w = twiddle[static_cast<size_t>((j * k) % n)];
      sum += line[j * stride] * (inverse ? std::conj(w) : w);
    }
    tmp[static_cast<size_t>(k)] = sum;
  }
  for (int64_t k = 0; k < n; ++k) line[k * stride] = tmp[static_cast<size_t>(k)];
}

std::vector<Complex> Twiddles(int64_t n) {
  std::vector<Complex> w(static_cast<size_t>(n));
  for (int64_t m = 0; m < n; ++m) {
    // Quarter turns are exact, so transforms of lengths 1, 2 and 4 add no rounding noise.
    if ((4 * m) % n == 0) {
      static constexpr Complex kQuarter[4] = {{1, 0}, {0, -1}, {-1, 0}, {0, 1}};
      w[static_cast<size_t>(m)] = kQuarter[(4 * m) / n];
      continue;
    }
    double angle = -2.0 * std::numbers::pi * static_cast<double>(m) / static_cast<double>(n);
    w[static_cast<size_t>(m)] = Complex(std::cos(angle), std::sin(angle));
  }
  return w;
}

// Transforms axis `axis` of a row-major work array of `dims` (every line along it).
void TransformAxis(std::vector<Complex>& work, const std::vector<int64_t>& dims, size_t axis,
                   bool inverse) {
  const int64_t n = dims[axis];
  std::vector<int64_t> strides = RowMajorStrides(dims);
  std::vector<int64_t> outer = dims;
  outer[axis] = 1;
  std::vector<Complex> twiddle = Twiddles(n), tmp;
  ForEachIndex(outer, [&](const std::vector<int64_t>& idx) {
    int64_t off = 0;
    for (size_t d = 0; d < idx.size(); ++d) off += idx[d] * strides[d];
    TransformLine(work.data() + off, strides[axis], n, inverse, twiddle, tmp);
  });
}

absl::Status Bad(const Instruction& instr, std::string_view why) {
  return absl::InvalidArgumentError(StrCat("cannot run %", instr.name(), ": ", why));
}

}  // namespace

absl::StatusOr<Bytes> EvalFft(const Instruction& instr, absl::Span<const ArrayRef> operands) {
  std::optional<std::string_view> type_text = RawAttribute(instr, "fft_type");
  FftType type;
  if (!type_text || *type_text == "FFT") {  // XLA's parser defaults fft_type to FFT
    type = FftType::kFft;
  } else if (*type_text == "IFFT") {
    type = FftType::kIfft;
  } else if (*type_text == "RFFT") {
    type = FftType::kRfft;
  } else if (*type_text == "IRFFT") {
    type = FftType::kIrfft;
  } else {
    return Bad(instr, StrCat("unknown fft_type=", *type_text));
  }
  const std::vector<int64_t> lengths = IntListAttribute(instr, "fft_length");
  const Shape& in = *operands[0].shape;
  const Shape& out = instr.shape();
  const size_t k = lengths.size();
  if (k < 1 || k > 3 || in.rank() < static_cast<int64_t>(k) || out.rank() != in.rank()) {
    return Bad(instr,
               "fft needs fft_length={...} of 1 to 3 sizes and operand and result of one "
               "rank at least that large");
  }
  for (int64_t l : lengths) {
    if (l < 0) return Bad(instr, "fft_length has a negative size");
  }
  const bool complex_in = type != FftType::kRfft, complex_out = type != FftType::kIrfft;
  if (IsComplexType(in.element_type) != complex_in ||
      IsComplexType(out.element_type) != complex_out ||
      (!complex_in && !IsFloatType(in.element_type)) ||
      (!complex_out && !IsFloatType(out.element_type))) {
    return Bad(instr, StrCat("fft_type=", type_text.value_or("FFT"), " does not take ",
                             PrimitiveTypeName(in.element_type), " to ",
                             PrimitiveTypeName(out.element_type)));
  }
  const size_t batch_rank = in.dims.size() - k;
  for (size_t d = 0; d < batch_rank; ++d) {
    if (in.dims[d] != out.dims[d]) return Bad(instr, "fft's batch dimensions differ");
  }

  Bytes result(static_cast<size_t>(DenseBytes(out)), 0);  // zeros: what is not written stays 0
  std::vector<uint8_t> scratch;
  const uint8_t* src = RowMajorData(in, operands[0].data, scratch);
  const int in_eb = ElementBytes(in.element_type), out_eb = ElementBytes(out.element_type);
  std::vector<int64_t> in_strides = RowMajorStrides(in.dims);
  std::vector<int64_t> out_strides = RowMajorStrides(out.dims);
  std::vector<int64_t> batch(in.dims.begin(),
                             in.dims.begin() + static_cast<std::ptrdiff_t>(batch_rank));
  std::vector<int64_t> fft_dims = lengths;
  int64_t total = 1;
  for (int64_t l : lengths) total *= l;
  if (total == 0 || out.ElementCount() == 0) return ToPhysical(out, std::move(result));

  // IRFFT reads a half spectrum on the last axis: the work array holds it as the input has it
  // until the outer axes are transformed, then is widened to the full length.
  std::vector<int64_t> read_dims = fft_dims;
  const int64_t last_n = fft_dims.back();
  if (type == FftType::kIrfft) read_dims.back() = last_n / 2 + 1;
  const bool inverse = type == FftType::kIfft || type == FftType::kIrfft;

  std::vector<Complex> work, full;
  ForEachIndex(batch.empty() ? std::vector<int64_t>{1} : batch, [&](const std::vector<int64_t>& b) {
    int64_t in_base = 0, out_base = 0;
    for (size_t d = 0; d < batch_rank; ++d) {
      in_base += b[d] * in_strides[d];
      out_base += b[d] * out_strides[d];
    }
    // Read the signal (zero past the input's extent).
    work.assign(static_cast<size_t>([&] {
                  int64_t n = 1;
                  for (int64_t d : read_dims) n *= d;
                  return n;
                }()),
                Complex(0));
    std::vector<int64_t> read_strides = RowMajorStrides(read_dims);
    ForEachIndex(read_dims, [&](const std::vector<int64_t>& idx) {
      int64_t off = in_base;
      for (size_t d = 0; d < k; ++d) {
        if (idx[d] >= in.dims[batch_rank + d]) return;
        off += idx[d] * in_strides[batch_rank + d];
      }
      int64_t w = 0;
      for (size_t d = 0; d < k; ++d) w += idx[d] * read_strides[d];
      work[static_cast<size_t>(w)] = LoadComplex(in.element_type, src + off * in_eb);
    });
    if (type != FftType::kIrfft) {
      for (size_t axis = 0; axis < k; ++axis) TransformAxis(work, fft_dims, axis, inverse);
    } else {
      for (size_t axis = 0; axis + 1 < k; ++axis) TransformAxis(work, read_dims, axis, inverse);
      // Widen the last axis to its full length by conjugate symmetry.
      const int64_t half = read_dims.back();
      full.assign(static_cast<size_t>(total), Complex(0));
      const int64_t lines = total / last_n;
      for (int64_t line = 0; line < lines; ++line) {
        const Complex* h = work.data() + line * half;
        Complex* f = full.data() + line * last_n;
        for (int64_t j = 0; j < last_n; ++j) {
          f[j] = j < half ? h[j] : std::conj(h[last_n - j]);
        }
      }
      work.swap(full);
      TransformAxis(work, fft_dims, k - 1, inverse);
    }
    const double scale = inverse ? 1.0 / static_cast<double>(total) : 1.0;
    // Write what the output holds of the transform (zero past fft_length).
    std::vector<int64_t> write_dims(out.dims.begin() + static_cast<std::ptrdiff_t>(batch_rank),
                                    out.dims.end());
    std::vector<int64_t> fft_strides = RowMajorStrides(fft_dims);
    ForEachIndex(write_dims, [&](const std::vector<int64_t>& idx) {
      int64_t w = 0, off = out_base;
      for (size_t d = 0; d < k; ++d) {
        if (idx[d] >= fft_dims[d]) return;
        w += idx[d] * fft_strides[d];
        off += idx[d] * out_strides[batch_rank + d];
      }
      Complex v = work[static_cast<size_t>(w)] * scale;
      uint8_t* dst = result.data() + off * out_eb;
      if (complex_out) {
        StoreComplex(out.element_type, dst, v);
      } else {
        StoreDouble(out.element_type, dst, v.real());
      }
    });
  });
  return ToPhysical(out, std::move(result));
}

}  // namespace hloscope::eval
