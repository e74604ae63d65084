#include "hlo/window_attribute.h"

#include <algorithm>
#include <iterator>
#include <optional>

#include "absl/status/status.h"
#include "hlo/attribute_values.h"
#include "support/str_util.h"

namespace hloscope {
namespace {

absl::Status WindowError(std::string_view why) {
  return absl::InvalidArgumentError(StrCat("window ", why));
}

// `3x1x2` -> {3, 1, 2}; nullopt when any part is not an integer.
std::optional<std::vector<int64_t>> ParseDxD(std::string_view text) {
  std::vector<int64_t> out;
  for (size_t pos = 0;;) {
    size_t x = text.find('x', pos);
    std::optional<int64_t> v =
        ParseInt64(text.substr(pos, x == std::string_view::npos ? text.npos : x - pos));
    if (!v) return std::nullopt;
    out.push_back(*v);
    if (x == std::string_view::npos) return out;
    pos = x + 1;
  }
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Sub-attributes that hold one integer per dimension, and where each goes in a WindowDim.
struct IntField {
  std::string_view key;
  int64_t WindowDim::*member;
};
constexpr IntField kIntFields[] = {
    {"size", &WindowDim::size},
    {"stride", &WindowDim::stride},
    {"lhs_dilate", &WindowDim::base_dilation},
    {"rhs_dilate", &WindowDim::window_dilation},
};
constexpr size_t kIntFieldCount = sizeof(kIntFields) / sizeof(kIntFields[0]);

}  // namespace

absl::StatusOr<std::vector<WindowDim>> ParseWindow(std::string_view text) {
  while (!text.empty() && IsSpace(text.front())) text.remove_prefix(1);
  while (!text.empty() && IsSpace(text.back())) text.remove_suffix(1);
  if (text.size() < 2 || text.front() != '{' || text.back() != '}') {
    return WindowError(StrCat("'", text, "' is not written in braces"));
  }
  std::string_view body = text.substr(1, text.size() - 2);

  // One list per sub-attribute; a list that was given once is never empty.
  std::optional<std::vector<int64_t>> ints[kIntFieldCount];
  std::optional<std::vector<int64_t>> reversal;
  std::optional<std::vector<std::pair<int64_t, int64_t>>> pad;
  size_t pos = 0;
  while (true) {
    while (pos < body.size() && IsSpace(body[pos])) ++pos;
    if (pos == body.size()) break;
    size_t end = pos;
    while (end < body.size() && !IsSpace(body[end])) ++end;
    std::string_view item = body.substr(pos, end - pos);
    pos = end;
    size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      return WindowError(StrCat("item '", item, "' is not key=value"));
    }
    std::string_view key = item.substr(0, eq);
    std::string_view value = item.substr(eq + 1);
    auto twice = [&] { return WindowError(StrCat("gives '", key, "=' twice")); };
    if (key == "pad") {
      if (pad) return twice();
      pad.emplace();
      for (size_t p = 0;;) {
        size_t x = value.find('x', p);
        std::string_view pair = value.substr(p, x == std::string_view::npos ? value.npos : x - p);
        // The high padding may be negative, so split at the first '_' after the first digit.
        size_t u = pair.find('_', 1);
        std::optional<int64_t> lo, hi;
        if (u != std::string_view::npos) {
          lo = ParseInt64(pair.substr(0, u));
          hi = ParseInt64(pair.substr(u + 1));
        }
        if (!lo || !hi) {
          return WindowError(
              StrCat("'", item, "' is not a list of low_high paddings like 1_1x0_0"));
        }
        pad->emplace_back(*lo, *hi);
        if (x == std::string_view::npos) break;
        p = x + 1;
      }
      continue;
    }
    std::optional<std::vector<int64_t>>* target = nullptr;
    if (key == "rhs_reversal") target = &reversal;
    for (size_t f = 0; f < kIntFieldCount; ++f) {
      if (key == kIntFields[f].key) target = &ints[f];
    }
    if (target == nullptr) return WindowError(StrCat("has an unknown sub-attribute '", key, "'"));
    if (*target) return twice();
    *target = ParseDxD(value);
    if (!*target) {
      return WindowError(StrCat("'", item, "' is not a list of integers like 3x3"));
    }
  }

  const std::optional<std::vector<int64_t>>& size = ints[0];
  // XLA's parser (HloParserImpl::ParseWindow, openxla/xla 2c731115) reads `{}` as a window of no
  // dimensions: a convolution without spatial dimensions, such as a 0-D cuDNN convolution.
  const bool any_given =
      pad || reversal ||
      std::any_of(std::begin(ints), std::end(ints), [](const auto& v) { return v.has_value(); });
  if (!any_given) return std::vector<WindowDim>();
  if (!size) return WindowError("has no 'size='");
  auto check_count = [&](std::string_view key, size_t count) -> absl::Status {
    if (count == size->size()) return absl::OkStatus();
    return WindowError(StrCat("'", key, "=' has ", count, count == 1 ? " value" : " values",
                              " but 'size=' has ", size->size()));
  };
  for (size_t f = 1; f < kIntFieldCount; ++f) {
    if (ints[f]) {
      if (absl::Status s = check_count(kIntFields[f].key, ints[f]->size()); !s.ok()) return s;
    }
  }
  if (pad) {
    if (absl::Status s = check_count("pad", pad->size()); !s.ok()) return s;
  }
  if (reversal) {
    if (absl::Status s = check_count("rhs_reversal", reversal->size()); !s.ok()) return s;
  }

  std::vector<WindowDim> dims(size->size());
  for (size_t d = 0; d < dims.size(); ++d) {
    for (size_t f = 0; f < kIntFieldCount; ++f) {
      if (ints[f]) dims[d].*kIntFields[f].member = (*ints[f])[d];
    }
    if (pad) {
      dims[d].padding_low = (*pad)[d].first;
      dims[d].padding_high = (*pad)[d].second;
    }
    if (reversal) dims[d].reversal = (*reversal)[d] == 1;
  }
  return dims;
}

absl::StatusOr<int64_t> WindowedOutputSize(const WindowDim& dim, int64_t base, int64_t index) {
  const IntField* nonpositive = nullptr;
  for (const IntField& f : kIntFields) {
    if (nonpositive == nullptr && dim.*f.member <= 0) nonpositive = &f;
  }
  if (nonpositive != nullptr) {
    return WindowError(StrCat("dimension ", index, " has ", nonpositive->key, "=",
                              dim.*nonpositive->member,
                              ", but sizes, strides and dilations must be positive"));
  }
  // dilated base = (base - 1) * base_dilation + 1 (0 stays 0), then the padding on both sides;
  // dilated window = (size - 1) * window_dilation + 1.
  int64_t dilated_base = 0, padded = 0, dilated_window = 0;
  bool overflow = false;
  if (base > 0) {
    overflow |= __builtin_mul_overflow(base - 1, dim.base_dilation, &dilated_base);
    overflow |= __builtin_add_overflow(dilated_base, 1, &dilated_base);
  }
  overflow |= __builtin_add_overflow(dilated_base, dim.padding_low, &padded);
  overflow |= __builtin_add_overflow(padded, dim.padding_high, &padded);
  overflow |= __builtin_mul_overflow(dim.size - 1, dim.window_dilation, &dilated_window);
  overflow |= __builtin_add_overflow(dilated_window, 1, &dilated_window);
  if (overflow) {
    return WindowError(StrCat("dimension ", index, " is too large: its extent overflows 64 bits"));
  }
  if (padded < 0) {
    return WindowError(
        StrCat("dimension ", index, " pads the input to a negative size (", padded, ")"));
  }
  if (padded == 0 || dilated_window > padded) return 0;
  return (padded - dilated_window) / dim.stride + 1;
}

}  // namespace hloscope
