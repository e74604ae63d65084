#include "eval/scan.h"

#include <cstring>

#include "absl/status/status.h"
#include "eval/element_io.h"
#include "eval/layout_util.h"
#include "hlo/attribute_values.h"
#include "hlo/computation.h"
#include "support/str_util.h"

namespace hloscope::eval {
namespace {

absl::Status Refuse(const Instruction& instr, std::string_view why) {
  return absl::InvalidArgumentError(StrCat("cannot run scan %", instr.name(), ": ", why));
}

// Whether `part` is `whole` without dimension `dim`, with the same element type.
bool IsSliceOf(const Shape& part, const Shape& whole, int64_t dim) {
  if (!part.IsArray() || !whole.IsArray() || part.element_type != whole.element_type ||
      part.rank() + 1 != whole.rank() || dim >= whole.rank()) {
    return false;
  }
  for (int64_t i = 0, j = 0; i < whole.rank(); ++i) {
    if (i != dim && part.dims[static_cast<size_t>(j++)] != whole.dims[static_cast<size_t>(i)]) {
      return false;
    }
  }
  return true;
}

// Calls fn(whole offset, part offset) in bytes for every element of slice `k` along `dim`
// (`part` is `whole` without that dimension; offsets in the physical order of each shape).
template <typename Fn>
void ForEachSliceElement(const Shape& whole, const Shape& part, int64_t dim, int64_t k, Fn&& fn) {
  const std::vector<int64_t> ws = PhysicalStrides(whole), ps = PhysicalStrides(part);
  const int64_t eb = ElementBytes(whole.element_type);
  const int64_t base = k * ws[static_cast<size_t>(dim)];
  ForEachIndex(part.dims, [&](const std::vector<int64_t>& index) {
    int64_t w = base, p = 0;
    for (size_t i = 0; i < index.size(); ++i) {
      p += index[i] * ps[i];
      w += index[i] * ws[i < static_cast<size_t>(dim) ? i : i + 1];
    }
    fn(w * eb, p * eb);
  });
}

bool SameArray(const Shape& a, const Shape& b) {
  return a.IsArray() && b.IsArray() && a.element_type == b.element_type && a.dims == b.dims;
}

}  // namespace

absl::StatusOr<std::vector<Bytes>> EvalScan(const Instruction& instr,
                                            absl::Span<const ArrayRef> operands,
                                            absl::Span<const Shape* const> results,
                                            const ScanBody& body) {
  const Computation* comp = instr.to_apply();
  if (comp == nullptr) return Refuse(instr, "it has no to_apply computation");
  const std::optional<int64_t> carries = IntAttribute(instr, "num_carries");
  if (!carries) {
    return Refuse(instr,
                  "it has no num_carries (without it the inputs cannot be told from the carries)");
  }
  if (instr.dimensions().size() != 1) return Refuse(instr, "it needs one scan dimension");
  const int64_t dim = instr.dimensions()[0];
  const int64_t n_ops = static_cast<int64_t>(operands.size());
  const int64_t n_results = static_cast<int64_t>(results.size());
  if (*carries < 0 || *carries > n_ops || *carries > n_results ||
      comp->parameter_count() != n_ops) {
    return Refuse(instr, "its num_carries, operands, results and body parameters do not agree");
  }
  for (const ArrayRef& o : operands) {
    if (o.shape == nullptr || !o.shape->IsArray()) return Refuse(instr, "it needs array operands");
  }
  const int64_t inputs = n_ops - *carries, outputs = n_results - *carries;
  std::vector<const Shape*> params;
  for (int64_t i = 0; i < n_ops; ++i) params.push_back(&comp->parameter(i)->shape());
  if (inputs == 0 && outputs == 0) return Refuse(instr, "it has neither inputs nor outputs");
  const Shape& first = inputs > 0 ? *operands[0].shape : *results[0];
  if (dim < 0 || dim >= first.rank()) return Refuse(instr, "the scan dimension is out of range");
  const int64_t length = first.dims[static_cast<size_t>(dim)];
  for (int64_t i = 0; i < n_ops; ++i) {
    const Shape& arg = *operands[static_cast<size_t>(i)].shape;
    const Shape& param = *params[static_cast<size_t>(i)];
    const bool ok =
        i < inputs ? IsSliceOf(param, arg, dim) && arg.dims[dim] == length : SameArray(param, arg);
    if (!ok) return Refuse(instr, StrCat("operand ", i, " does not fit body parameter ", i));
  }
  for (int64_t j = 0; j < n_results; ++j) {
    const Shape& r = *results[static_cast<size_t>(j)];
    const bool ok = j < outputs ? r.IsArray() && dim < r.rank() && r.dims[dim] == length
                                : SameArray(r, *params[static_cast<size_t>(inputs + j - outputs)]);
    if (!ok) return Refuse(instr, StrCat("result ", j, " does not fit the scan's length or carry"));
  }
  const bool reverse = RawAttribute(instr, "is_reverse").value_or("false") == "true";
  // Parameter arrays: the slices (rewritten every step) and the carries.
  std::vector<Bytes> args(static_cast<size_t>(n_ops));
  for (int64_t i = 0; i < n_ops; ++i) {
    const Shape& param = *params[static_cast<size_t>(i)];
    args[static_cast<size_t>(i)].assign(static_cast<size_t>(DenseBytes(param)), 0);
    if (i >= inputs) {
      Relayout(*operands[static_cast<size_t>(i)].shape, operands[static_cast<size_t>(i)].data,
               param, args[static_cast<size_t>(i)].data());
    }
  }
  std::vector<Bytes> out(static_cast<size_t>(n_results));
  for (int64_t j = 0; j < outputs; ++j) {
    out[static_cast<size_t>(j)].assign(static_cast<size_t>(DenseBytes(*results[j])), 0);
  }
  for (int64_t step = 0; step < length; ++step) {
    const int64_t k = reverse ? length - 1 - step : step;
    std::vector<ArrayRef> refs;
    for (int64_t i = 0; i < n_ops; ++i) {
      Bytes& a = args[static_cast<size_t>(i)];
      if (i < inputs) {
        const ArrayRef& in = operands[static_cast<size_t>(i)];
        const auto eb = static_cast<size_t>(ElementBytes(in.shape->element_type));
        ForEachSliceElement(
            *in.shape, *params[static_cast<size_t>(i)], dim, k,
            [&](int64_t w, int64_t p) { std::memcpy(a.data() + p, in.data + w, eb); });
      }
      refs.push_back(ArrayRef{params[static_cast<size_t>(i)], a.data()});
    }
    absl::StatusOr<ScanStepResult> r = body(refs);
    if (!r.ok()) return r.status();
    if (static_cast<int64_t>(r->arrays.size()) != n_results ||
        r->shapes.size() != r->arrays.size()) {
      return Refuse(instr, "the body's root does not give one array per result");
    }
    for (int64_t j = 0; j < n_results; ++j) {
      const Shape& got = *r->shapes[static_cast<size_t>(j)];
      Bytes& bytes = r->arrays[static_cast<size_t>(j)];
      if (j < outputs) {
        if (!IsSliceOf(got, *results[static_cast<size_t>(j)], dim)) {
          return Refuse(instr, StrCat("body root element ", j, " is not a slice of result ", j));
        }
        uint8_t* dst = out[static_cast<size_t>(j)].data();
        const auto eb = static_cast<size_t>(ElementBytes(got.element_type));
        ForEachSliceElement(
            *results[static_cast<size_t>(j)], got, dim, k,
            [&](int64_t w, int64_t p) { std::memcpy(dst + w, bytes.data() + p, eb); });
        continue;
      }
      const size_t carry = static_cast<size_t>(inputs + j - outputs);
      if (!SameArray(got, *params[carry])) {
        return Refuse(instr, StrCat("body root element ", j, " does not match its carry"));
      }
      Relayout(got, bytes.data(), *params[carry], args[carry].data());
    }
  }
  for (int64_t j = outputs; j < n_results; ++j) {
    const size_t carry = static_cast<size_t>(inputs + j - outputs);
    out[static_cast<size_t>(j)].assign(static_cast<size_t>(DenseBytes(*results[j])), 0);
    Relayout(*params[carry], args[carry].data(), *results[j], out[static_cast<size_t>(j)].data());
  }
  return out;
}

}  // namespace hloscope::eval
