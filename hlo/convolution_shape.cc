#include "hlo/convolution_shape.h"

#include <algorithm>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "support/str_util.h"

namespace hloscope {
namespace {

absl::Status Error(const std::string& why) { return absl::InvalidArgumentError(why); }

std::string Plural(int64_t n, std::string_view noun) {
  return StrCat(n, " ", noun, n == 1 ? "" : "s");
}

// "b and f", "b, f and 0", "b, f, 0 and 1", ...
std::string LabelList(char first, char second, int64_t spatial) {
  std::vector<std::string> labels = {std::string(1, first), std::string(1, second)};
  for (int64_t k = 0; k < spatial; ++k) labels.push_back(StrCat(k));
  std::string out;
  for (size_t i = 0; i < labels.size(); ++i) {
    if (i > 0) out += i + 1 == labels.size() ? " and " : ", ";
    out += labels[i];
  }
  return out;
}

// One part of dim_labels: `first` and `second` are its two letters (b/f or i/o), every other
// character a spatial index below part.size() - 2. Each label once, so the part is a
// permutation of the dimensions of a rank part.size() shape.
absl::Status ParsePart(std::string_view part, std::string_view which, char first, char second,
                       std::string_view text, int64_t* first_pos, int64_t* second_pos,
                       std::vector<int64_t>* spatial) {
  const int64_t num_spatial = static_cast<int64_t>(part.size()) - 2;
  spatial->assign(static_cast<size_t>(std::max<int64_t>(num_spatial, 0)), -1);
  bool seen_first = false, seen_second = false, ok = num_spatial >= 0;
  for (size_t i = 0; ok && i < part.size(); ++i) {
    const char c = part[i];
    const int64_t k = c - '0';
    if (c == first && !seen_first) {
      seen_first = true;
      *first_pos = static_cast<int64_t>(i);
    } else if (c == second && !seen_second) {
      seen_second = true;
      *second_pos = static_cast<int64_t>(i);
    } else if (c >= '0' && c <= '9' && k < num_spatial && (*spatial)[k] < 0) {
      (*spatial)[k] = static_cast<int64_t>(i);
    } else {
      ok = false;
    }
  }
  if (ok) return absl::OkStatus();
  return Error(StrCat("the ", which, " labels '", part, "' in dim_labels '", text, "' must be ",
                      LabelList(first, second, num_spatial), ", once each"));
}

bool Unbounded(int64_t size) { return size == Shape::kUnboundedSize; }

std::string SizeOf(const Shape& s, int64_t dim) {
  return Unbounded(s.dims[dim]) ? std::string("?") : StrCat(s.dims[dim]);
}

}  // namespace

absl::StatusOr<ConvDimLabels> ParseConvDimLabels(std::string_view text) {
  const size_t arrow = text.find("->");
  const size_t underscore = text.find('_');
  if (arrow == std::string_view::npos || underscore == std::string_view::npos ||
      underscore > arrow || text.find('_', underscore + 1) != std::string_view::npos ||
      text.find("->", arrow + 2) != std::string_view::npos) {
    return Error(
        StrCat("dim_labels '", text, "' is not of the form lhs_rhs->output, e.g. b01f_01io->b01f"));
  }
  std::string_view lhs = text.substr(0, underscore);
  std::string_view rhs = text.substr(underscore + 1, arrow - underscore - 1);
  std::string_view out = text.substr(arrow + 2);
  if (lhs.size() != rhs.size() || lhs.size() != out.size()) {
    return Error(StrCat("dim_labels '", text, "' give the lhs, rhs and output different ranks (",
                        lhs.size(), ", ", rhs.size(), ", ", out.size(), ")"));
  }
  ConvDimLabels labels;
  labels.text = std::string(text);
  for (auto [part, which, first, second, first_pos, second_pos, spatial] :
       {std::tuple(lhs, "lhs", 'b', 'f', &labels.lhs_batch, &labels.lhs_feature,
                   &labels.lhs_spatial),
        std::tuple(rhs, "rhs", 'i', 'o', &labels.rhs_input_feature, &labels.rhs_output_feature,
                   &labels.rhs_spatial),
        std::tuple(out, "output", 'b', 'f', &labels.out_batch, &labels.out_feature,
                   &labels.out_spatial)}) {
    absl::Status s = ParsePart(part, which, first, second, text, first_pos, second_pos, spatial);
    if (!s.ok()) return s;
  }
  return labels;
}

absl::StatusOr<Shape> InferConvolutionShape(const Shape& lhs, const Shape& rhs,
                                            const ConvolutionAttributes& attrs) {
  const ConvDimLabels& dn = attrs.dim_labels;
  const int64_t fgc = attrs.feature_group_count;
  const int64_t bgc = attrs.batch_group_count;
  for (auto [shape, which] : {std::pair(&lhs, "lhs"), std::pair(&rhs, "rhs")}) {
    if (!shape->IsArray()) {
      return Error(StrCat("the ", which, " ", shape->ToString(false), " is not an array"));
    }
  }
  for (auto [count, name] :
       {std::pair(fgc, "feature_group_count"), std::pair(bgc, "batch_group_count")}) {
    if (count <= 0) return Error(StrCat(name, " must be positive, not ", count));
  }
  if (fgc > 1 && bgc > 1) {
    return Error(StrCat("feature_group_count ", fgc, " and batch_group_count ", bgc,
                        " cannot both be greater than 1"));
  }
  const int64_t num_spatial = dn.rank() - 2;
  if (static_cast<int64_t>(attrs.window.size()) != num_spatial) {
    return Error(
        StrCat("the window has ", Plural(static_cast<int64_t>(attrs.window.size()), "dimension"),
               " but dim_labels '", dn.text, "' have ", Plural(num_spatial, "spatial dimension")));
  }
  for (auto [shape, which] : {std::pair(&lhs, "lhs"), std::pair(&rhs, "rhs")}) {
    if (shape->rank() != dn.rank()) {
      return Error(StrCat("the ", which, " ", shape->ToString(false), " has rank ", shape->rank(),
                          " but dim_labels '", dn.text, "' have rank ", dn.rank()));
    }
  }

  const int64_t batch = lhs.dims[dn.lhs_batch];
  const int64_t in_features = lhs.dims[dn.lhs_feature];
  const int64_t kernel_in = rhs.dims[dn.rhs_input_feature];
  const int64_t kernel_out = rhs.dims[dn.rhs_output_feature];
  if (rhs.dynamic[dn.rhs_output_feature]) {
    return Error(StrCat("the rhs ", rhs.ToString(false),
                        " has a dynamic output feature dimension, which XLA does not support"));
  }
  if (kernel_out % bgc != 0) {
    return Error(StrCat("the rhs output feature size ", kernel_out,
                        " is not divisible by batch_group_count ", bgc));
  }
  if (!Unbounded(in_features) && !Unbounded(kernel_in) &&
      (in_features % fgc != 0 || in_features / fgc != kernel_in)) {
    return Error(StrCat("the lhs feature size ", in_features, " is not feature_group_count (", fgc,
                        ") times the rhs input feature size (", kernel_in, ")"));
  }
  if (kernel_out % fgc != 0) {
    return Error(StrCat("the rhs output feature size ", kernel_out,
                        " is not divisible by feature_group_count ", fgc));
  }
  if (!Unbounded(batch) && batch % bgc != 0) {
    return Error(
        StrCat("the lhs batch size ", batch, " is not divisible by batch_group_count ", bgc));
  }
  bool window_fits = true;
  std::vector<std::string> window_sizes, kernel_sizes;
  for (int64_t k = 0; k < num_spatial; ++k) {
    const int64_t kernel = rhs.dims[dn.rhs_spatial[k]];
    window_fits &= Unbounded(kernel) || kernel == attrs.window[k].size;
    window_sizes.push_back(StrCat(attrs.window[k].size));
    kernel_sizes.push_back(SizeOf(rhs, dn.rhs_spatial[k]));
  }
  if (!window_fits) {
    return Error(StrCat("the window size=", StrJoin(window_sizes, "x"),
                        " does not match the rhs spatial sizes ", StrJoin(kernel_sizes, "x")));
  }
  std::optional<PrimitiveType> type = HigherPrecisionType(lhs.element_type, rhs.element_type);
  if (!type) {
    return Error(StrCat("the lhs element type ", PrimitiveTypeName(lhs.element_type),
                        " and the rhs element type ", PrimitiveTypeName(rhs.element_type),
                        " have no common result type"));
  }

  Shape out;
  out.element_type = *type;
  out.dims.assign(static_cast<size_t>(dn.rank()), 0);
  out.dynamic.assign(static_cast<size_t>(dn.rank()), false);
  out.dims[dn.out_batch] = Unbounded(batch) ? batch : batch / bgc;
  out.dynamic[dn.out_batch] = lhs.dynamic[dn.lhs_batch];
  out.dims[dn.out_feature] = kernel_out;
  for (int64_t k = 0; k < num_spatial; ++k) {
    const int64_t o = dn.out_spatial[k];
    const int64_t base = lhs.dims[dn.lhs_spatial[k]];
    out.dynamic[o] = lhs.dynamic[dn.lhs_spatial[k]] || rhs.dynamic[dn.rhs_spatial[k]];
    if (Unbounded(base)) {
      out.dims[o] = base;
      continue;
    }
    absl::StatusOr<int64_t> size = WindowedOutputSize(attrs.window[k], base, k);
    if (!size.ok()) return size.status();
    out.dims[o] = *size;
  }
  return out;
}

}  // namespace hloscope
