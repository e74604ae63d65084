// reduce-window and select-and-scatter: the two ops that slide a window over their operand.
//
// A window position covers the elements of the base (lhs_dilate'd, then padded) that its
// (rhs_dilate'd) elements land on. Elements that land on padding or on a dilation hole are
// skipped, as XLA's evaluator does: reduce-window starts from its init value, so padding acts
// as that value. to_apply runs in row-major order of the window elements and every step is
// rounded to the element type (each result is a value of its type).
#include <cstring>
#include <optional>

#include "absl/status/status.h"
#include "eval/element_io.h"
#include "eval/kernels.h"
#include "eval/layout_util.h"
#include "hlo/attribute_values.h"
#include "hlo/computation.h"
#include "hlo/window_attribute.h"
#include "support/status_text.h"
#include "support/str_util.h"

namespace hloscope::eval {
namespace {

absl::StatusOr<std::vector<WindowDim>> ReadWindow(const Instruction& instr, const Shape& base,
                                                  absl::Span<const int64_t> out_dims) {
  std::optional<std::string_view> text = RawAttribute(instr, "window");
  std::vector<WindowDim> window;
  if (text) {
    absl::StatusOr<std::vector<WindowDim>> w = ParseWindow(*text);
    if (!w.ok()) {
      return absl::InvalidArgumentError(
          StrCat("cannot run %", instr.name(), ": window: ", StatusText(w.status())));
    }
    window = *std::move(w);
  }
  if (static_cast<int64_t>(window.size()) != base.rank() ||
      static_cast<int64_t>(out_dims.size()) != base.rank()) {
    return absl::InvalidArgumentError(StrCat("cannot run %", instr.name(), ": the window has ",
                                             window.size(), " dimensions, the operand ",
                                             base.rank()));
  }
  for (int64_t d = 0; d < base.rank(); ++d) {
    absl::StatusOr<int64_t> n =
        WindowedOutputSize(window[static_cast<size_t>(d)], base.dims[static_cast<size_t>(d)], d);
    if (!n.ok()) {
      return absl::InvalidArgumentError(
          StrCat("cannot run %", instr.name(), ": ", StatusText(n.status())));
    }
    if (*n != out_dims[static_cast<size_t>(d)]) {
      return absl::InvalidArgumentError(StrCat("cannot run %", instr.name(), ": the window gives ",
                                               *n, " positions along dimension ", d, ", not ",
                                               out_dims[static_cast<size_t>(d)]));
    }
  }
  return window;
}

// Calls fn(row-major offset into the base) for every window element of the window at
// `position` that lands on a base element, in row-major window order.
class WindowWalker {
 public:
  WindowWalker(std::vector<WindowDim> window, absl::Span<const int64_t> base_dims)
      : window_(std::move(window)),
        base_dims_(base_dims.begin(), base_dims.end()),
        strides_(RowMajorStrides(base_dims)) {
    for (const WindowDim& w : window_) sizes_.push_back(w.size);
  }

  template <typename Fn>
  void ForEach(const std::vector<int64_t>& position, Fn&& fn) const {
    ForEachIndex(sizes_, [&](const std::vector<int64_t>& w) {
      int64_t off = 0;
      for (size_t d = 0; d < w.size(); ++d) {
        const WindowDim& wd = window_[d];
        int64_t pos = position[d] * wd.stride + w[d] * wd.window_dilation - wd.padding_low;
        if (pos < 0 || pos % wd.base_dilation != 0) return;
        pos /= wd.base_dilation;
        if (pos >= base_dims_[d]) return;
        off += pos * strides_[d];
      }
      fn(off);
    });
  }

 private:
  std::vector<WindowDim> window_;
  std::vector<int64_t> base_dims_, strides_, sizes_;
};

// The opcode when `c` is one elementwise binary op on its two scalar parameters, of one element
// type (add, maximum, ...): reduce-window then applies it directly, without calling the
// computation through the evaluator (a std::function and a result vector per window element).
// ApplyBinary is what the evaluator itself uses for such a computation, so results are the same.
std::optional<Opcode> DirectBinaryOp(const Computation* c, PrimitiveType type) {
  if (c == nullptr || c->parameter_count() != 2) return std::nullopt;
  const Instruction* root = c->root();
  if (root->operand_count() != 2 || !IsSupportedElementwise(root->opcode()) ||
      root->opcode() == Opcode::kCompare || root->opcode() == Opcode::kSelect) {
    return std::nullopt;
  }
  const Instruction* a = root->operand(0);
  const Instruction* b = root->operand(1);
  if (a->opcode() != Opcode::kParameter || b->opcode() != Opcode::kParameter ||
      a->parameter_number() != 0 || b->parameter_number() != 1) {
    return std::nullopt;
  }
  for (const Instruction* i : {root, a, b}) {
    if (!i->shape().IsArray() || i->shape().rank() != 0 || i->shape().element_type != type)
      return std::nullopt;
  }
  return root->opcode();
}

}  // namespace

absl::StatusOr<std::vector<Bytes>> EvalReduceWindow(const Instruction& instr,
                                                    absl::Span<const ArrayRef> operands,
                                                    const ScalarComputation& apply) {
  size_t n = operands.size() / 2;
  std::vector<const Shape*> out_shapes;
  if (instr.shape().IsTuple()) {
    out_shapes.assign(instr.shape().tuple_elements.begin(), instr.shape().tuple_elements.end());
  } else {
    out_shapes.push_back(&instr.shape());
  }
  if (n == 0 || operands.size() % 2 != 0 || out_shapes.size() != n) {
    return absl::InvalidArgumentError(StrCat("cannot run %", instr.name(), ": ", operands.size(),
                                             " operands for ", out_shapes.size(), " outputs"));
  }
  const Shape& base = *operands[0].shape;
  for (size_t k = 0; k < n; ++k) {
    if (!operands[k].shape->IsArray() || operands[k].shape->dims != base.dims ||
        !out_shapes[k]->IsArray() || out_shapes[k]->dims != out_shapes[0]->dims ||
        operands[n + k].shape->rank() != 0) {
      return absl::InvalidArgumentError(
          StrCat("cannot run %", instr.name(),
                 ": the inputs must share one shape, the init values be scalars"));
    }
  }
  absl::StatusOr<std::vector<WindowDim>> window = ReadWindow(instr, base, out_shapes[0]->dims);
  if (!window.ok()) return window.status();
  WindowWalker walker(*std::move(window), base.dims);
  std::vector<std::vector<uint8_t>> scratch(n);
  std::vector<const uint8_t*> data(n);
  std::vector<PrimitiveType> types(n);
  for (size_t k = 0; k < n; ++k) {
    data[k] = RowMajorData(*operands[k].shape, operands[k].data, scratch[k]);
    types[k] = operands[k].shape->element_type;
  }
  std::vector<Bytes> results(n);
  for (size_t k = 0; k < n; ++k) results[k].resize(static_cast<size_t>(DenseBytes(*out_shapes[k])));
  std::vector<Scalar> args(2 * n);
  absl::Status status;
  int64_t linear = 0;
  const std::optional<Opcode> direct = n == 1 && types[0] == out_shapes[0]->element_type &&
                                               operands[1].shape->element_type == types[0]
                                           ? DirectBinaryOp(instr.to_apply(), types[0])
                                           : std::nullopt;
  if (direct) {
    const PrimitiveType t = types[0];
    const int eb = ElementBytes(t);
    const Scalar init = LoadScalar(t, operands[1].data);
    ForEachIndex(out_shapes[0]->dims, [&](const std::vector<int64_t>& o) {
      Scalar acc = init;
      walker.ForEach(o, [&](int64_t off) {
        acc = ApplyBinary(*direct, t, acc, LoadScalar(t, data[0] + off * eb));
      });
      StoreScalar(t, results[0].data() + linear++ * eb, acc);
    });
    results[0] = ToPhysical(*out_shapes[0], std::move(results[0]));
    return results;
  }
  ForEachIndex(out_shapes[0]->dims, [&](const std::vector<int64_t>& o) {
    if (!status.ok()) return;
    // Each init value in its own type: under mixed precision it may differ from its input's.
    for (size_t k = 0; k < n; ++k) {
      args[k] = LoadScalar(operands[n + k].shape->element_type, operands[n + k].data);
    }
    walker.ForEach(o, [&](int64_t off) {
      if (!status.ok()) return;
      for (size_t k = 0; k < n; ++k)
        args[n + k] = LoadScalar(types[k], data[k] + off * ElementBytes(types[k]));
      absl::StatusOr<std::vector<Scalar>> r = apply(args);
      if (!r.ok()) {
        status = r.status();
        return;
      }
      for (size_t k = 0; k < n; ++k) args[k] = (*r)[k];
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

absl::StatusOr<Bytes> EvalSelectAndScatter(const Instruction& instr,
                                           absl::Span<const ArrayRef> operands,
                                           const ScalarComputation& select,
                                           const ScalarComputation& scatter) {
  if (operands.size() != 3) {
    return absl::InvalidArgumentError(StrCat("cannot run %", instr.name(), ": ", operands.size(),
                                             " operands, not 3 (operand, source, init)"));
  }
  const Shape& base = *operands[0].shape;
  const Shape& source = *operands[1].shape;
  const Shape& out = instr.shape();
  if (!out.IsArray() || out.dims != base.dims || operands[2].shape->rank() != 0 ||
      source.element_type != out.element_type) {
    return absl::InvalidArgumentError(
        StrCat("cannot run %", instr.name(),
               ": the result must have the operand's shape, the init value be a scalar"));
  }
  absl::StatusOr<std::vector<WindowDim>> window = ReadWindow(instr, base, source.dims);
  if (!window.ok()) return window.status();
  WindowWalker walker(*std::move(window), base.dims);
  std::vector<uint8_t> scratch_base, scratch_source;
  const uint8_t* bdata = RowMajorData(base, operands[0].data, scratch_base);
  const uint8_t* sdata = RowMajorData(source, operands[1].data, scratch_source);
  PrimitiveType bt = base.element_type, ot = out.element_type;
  int beb = ElementBytes(bt), oeb = ElementBytes(ot);
  Bytes result(static_cast<size_t>(DenseBytes(out)));
  const Scalar init = LoadScalar(operands[2].shape->element_type, operands[2].data);
  for (int64_t i = 0; i < out.ElementCount(); ++i) StoreScalar(ot, result.data() + i * oeb, init);
  absl::Status status;
  int64_t linear = 0;
  std::vector<Scalar> args(2);
  ForEachIndex(source.dims, [&](const std::vector<int64_t>& s) {
    if (!status.ok()) return;
    std::optional<int64_t> selected;
    Scalar selected_value;
    // The first element the window covers is selected; a later one replaces it when
    // select(selected, later) is false (XLA's rule, so ties keep the earlier element).
    walker.ForEach(s, [&](int64_t off) {
      if (!status.ok()) return;
      Scalar v = LoadScalar(bt, bdata + off * beb);
      if (!selected) {
        selected = off;
        selected_value = v;
        return;
      }
      args[0] = selected_value;
      args[1] = v;
      absl::StatusOr<std::vector<Scalar>> keep = select(args);
      if (!keep.ok()) {
        status = keep.status();
        return;
      }
      if ((*keep)[0].i == 0) {
        selected = off;
        selected_value = v;
      }
    });
    if (status.ok() && selected) {
      // scatter(source value, current output value), XLA's argument order.
      uint8_t* dst = result.data() + *selected * oeb;
      args[0] = LoadScalar(ot, sdata + linear * oeb);
      args[1] = LoadScalar(ot, dst);
      absl::StatusOr<std::vector<Scalar>> r = scatter(args);
      if (!r.ok()) {
        status = r.status();
      } else {
        StoreScalar(ot, dst, (*r)[0]);
      }
    }
    ++linear;
  });
  if (!status.ok()) return status;
  return ToPhysical(out, std::move(result));
}

}  // namespace hloscope::eval
