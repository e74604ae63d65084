#include "eval/spmd_multi_slice.h"

#include <charconv>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "eval/element_io.h"
#include "eval/layout_util.h"
#include "hlo/backend_config.h"
#include "support/str_util.h"

namespace hloscope::eval {
namespace {

absl::Status Refuse(const Instruction& instr, std::string_view why) {
  return absl::InvalidArgumentError(StrCat("cannot run custom-call %", instr.name(), " (",
                                           instr.custom_call_target(), "): ", why));
}

std::optional<int64_t> ParseInt(std::string_view s) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

// The text after `key=` in "k=v,k=[a,b],..." up to the next top-level comma (brackets kept).
std::optional<std::string_view> Field(std::string_view config, std::string_view key) {
  size_t at = 0;
  while (at < config.size()) {
    size_t end = at;
    int depth = 0;
    while (end < config.size() && (depth > 0 || config[end] != ',')) {
      if (config[end] == '[') ++depth;
      if (config[end] == ']') --depth;
      ++end;
    }
    std::string_view item = config.substr(at, end - at);
    const size_t eq = item.find('=');
    if (eq != std::string_view::npos && item.substr(0, eq) == key) return item.substr(eq + 1);
    at = end + 1;
  }
  return std::nullopt;
}

std::optional<std::vector<int64_t>> ParseList(std::string_view s) {
  if (s.size() < 2 || s.front() != '[' || s.back() != ']') return std::nullopt;
  s = s.substr(1, s.size() - 2);
  std::vector<int64_t> out;
  while (!s.empty()) {
    const size_t comma = s.find(',');
    std::optional<int64_t> v = ParseInt(s.substr(0, comma));
    if (!v) return std::nullopt;
    out.push_back(*v);
    if (comma == std::string_view::npos) break;
    s.remove_prefix(comma + 1);
  }
  return out;
}

}  // namespace

absl::StatusOr<std::vector<Bytes>> EvalSpmdMultiSlice(const Instruction& instr,
                                                      const ArrayRef& operand,
                                                      absl::Span<const Shape* const> results) {
  std::string config = BackendConfigText(instr);
  if (config.size() >= 2 && config.front() == '"' && config.back() == '"') {
    config = config.substr(1, config.size() - 2);
  }
  const std::optional<std::string_view> dim_text = Field(config, "dimension");
  const std::optional<std::string_view> amount_text = Field(config, "amount");
  const std::optional<std::string_view> starts_text = Field(config, "start_indices");
  const std::optional<std::string_view> limits_text = Field(config, "limit_indices");
  std::optional<int64_t> dim = dim_text ? ParseInt(*dim_text) : std::nullopt;
  std::optional<int64_t> amount = amount_text ? ParseInt(*amount_text) : std::nullopt;
  std::optional<std::vector<int64_t>> starts = starts_text ? ParseList(*starts_text) : std::nullopt;
  std::optional<std::vector<int64_t>> limits = limits_text ? ParseList(*limits_text) : std::nullopt;
  if (!dim || !amount || !starts || !limits || !Field(config, "bufferize")) {
    return Refuse(instr,
                  "backend_config must give dimension=, amount=, start_indices=[..], "
                  "limit_indices=[..] and bufferize=");
  }
  const Shape& in = *operand.shape;
  const int64_t rank = static_cast<int64_t>(in.dims.size());
  if (*dim < 0 || *dim >= rank || static_cast<int64_t>(starts->size()) != rank ||
      static_cast<int64_t>(limits->size()) != rank) {
    return Refuse(instr, "dimension and the index lists must fit the operand's rank");
  }
  const int64_t start = (*starts)[*dim];
  const int64_t limit = (*limits)[*dim];
  if (*amount < 0 || start < 0 || limit < start || limit + *amount > in.dims[*dim]) {
    return Refuse(instr, StrCat("slices [", start, "+k, ", limit, "+k) for k up to ", *amount,
                                " do not fit dimension ", *dim, " of size ", in.dims[*dim]));
  }
  if (std::optional<std::string_view> s = Field(config, "strides")) {
    std::optional<std::vector<int64_t>> strides = ParseList(*s);
    if (!strides || static_cast<int64_t>(strides->size()) != rank || (*strides)[*dim] != 1) {
      return Refuse(instr, "strides along the sliced dimension must be 1");
    }
  }
  if (static_cast<int64_t>(results.size()) != *amount + 1) {
    return Refuse(instr, StrCat("needs amount + 1 = ", *amount + 1, " results"));
  }
  for (const Shape* r : results) {
    bool fits = r->element_type == in.element_type && r->dims.size() == in.dims.size();
    for (int64_t d = 0; fits && d < rank; ++d) {
      fits = r->dims[d] == (d == *dim ? limit - start : in.dims[d]);
    }
    if (!fits) {
      return Refuse(instr,
                    "each result must be the operand's type with the sliced "
                    "dimension limit - start long");
    }
  }
  const int64_t size = ElementBytes(in.element_type);
  const std::vector<int64_t> from = PhysicalStrides(in);
  std::vector<Bytes> out;
  for (int64_t k = 0; k <= *amount; ++k) {
    const Shape& r = *results[k];
    const std::vector<int64_t> into = PhysicalStrides(r);
    Bytes bytes(static_cast<size_t>(DenseBytes(r)), 0);
    ForEachIndex(r.dims, [&](const std::vector<int64_t>& index) {
      int64_t f = 0, t = 0;
      for (int64_t d = 0; d < rank; ++d) {
        f += (index[d] + (d == *dim ? start + k : 0)) * from[d];
        t += index[d] * into[d];
      }
      std::memcpy(bytes.data() + t * size, operand.data + f * size, static_cast<size_t>(size));
    });
    out.push_back(std::move(bytes));
  }
  return out;
}

}  // namespace hloscope::eval
