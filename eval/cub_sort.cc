#include "eval/cub_sort.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <numeric>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "eval/element_io.h"
#include "hlo/backend_config.h"
#include "hlo/primitive_type.h"
#include "support/str_util.h"

namespace hloscope::eval {
namespace {

constexpr std::string_view kUnassigned = "xla.gpu.ext.cub_sort_unassigned_scratch_size";
constexpr std::string_view kKeys = "xla.gpu.ext.cub_sort_keys";
constexpr std::string_view kPairs = "xla.gpu.ext.cub_sort_pairs";

absl::Status Refuse(const Instruction& instr, std::string_view why) {
  return absl::InvalidArgumentError(StrCat("cannot run custom-call %", instr.name(), " (",
                                           instr.custom_call_target(), "): ", why));
}

bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The value of `key` in an MLIR attribute dictionary ({descending = true, batch_size = 4 :
// i64}): the word after `key =`, without a `: type` suffix.
std::optional<std::string_view> DictionaryValue(std::string_view dict, std::string_view key) {
  for (size_t at = dict.find(key); at != std::string_view::npos; at = dict.find(key, at + 1)) {
    if (at > 0 && IsWordChar(dict[at - 1])) continue;
    size_t end = at + key.size();
    if (end < dict.size() && IsWordChar(dict[end])) continue;
    while (end < dict.size() && dict[end] == ' ') ++end;
    if (end >= dict.size() || dict[end] != '=') continue;
    ++end;
    while (end < dict.size() && dict[end] == ' ') ++end;
    size_t stop = end;
    while (stop < dict.size() && (IsWordChar(dict[stop]) || dict[stop] == '-')) ++stop;
    return dict.substr(end, stop - end);
  }
  return std::nullopt;
}

// The key types CUB's handler instantiates (cub_sort_kernel_cuda.cc GetSortKeysFn and
// GetSortPairsFn) and the value widths of the pairs form.
bool IsSortableKey(PrimitiveType t, bool pairs) {
  using P = PrimitiveType;
  if (pairs) {
    return t == P::kU8 || t == P::kU16 || t == P::kS32 || t == P::kU32 || t == P::kF32 ||
           t == P::kU64;
  }
  switch (t) {
    case P::kBF16:
    case P::kF16:
    case P::kF32:
    case P::kF64:
    case P::kS8:
    case P::kS16:
    case P::kS32:
    case P::kS64:
    case P::kU8:
    case P::kU16:
    case P::kU32:
    case P::kU64:
      return true;
    default:
      return false;
  }
}

// The unsigned number whose order is the radix sort's order of the key's bits.
uint64_t RadixKey(PrimitiveType type, const uint8_t* p, int size) {
  uint64_t bits = 0;
  std::memcpy(&bits, p, static_cast<size_t>(size));  // little-endian, as the device
  const int width = size * 8;
  const uint64_t sign = uint64_t{1} << (width - 1);
  const uint64_t mask = width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  if (IsFloatType(type)) {
    if (bits == sign) bits = 0;  // -0.0 sorts as +0.0
    return (bits & sign) != 0 ? (~bits & mask) : (bits | sign);
  }
  if (IsSignedType(type)) return bits ^ sign;
  return bits;
}

}  // namespace

bool IsCubSortTarget(std::string_view target) {
  return target == kUnassigned || target == kKeys || target == kPairs;
}

absl::StatusOr<std::vector<Bytes>> EvalCubSort(const Instruction& instr,
                                               absl::Span<const ArrayRef> operands,
                                               absl::Span<const Shape* const> results) {
  const std::string_view target = instr.custom_call_target();
  const bool pairs = target == kPairs || (target == kUnassigned && operands.size() == 2);
  const size_t arrays = pairs ? 2 : 1;
  if (operands.size() != arrays || (target == kKeys && operands.size() != 1)) {
    return Refuse(instr, target == kUnassigned ? "needs keys and optionally values"
                                               : StrCat("needs ", arrays, " operand(s)"));
  }
  if (results.size() != arrays + 1) {
    return Refuse(instr, StrCat("needs ", arrays + 1,
                                " results: the sorted arrays and the u8[N] scratch buffer"));
  }
  const Shape& keys = *operands[0].shape;
  const int64_t count = keys.ElementCount();
  for (size_t i = 0; i < arrays; ++i) {
    const Shape& in = *operands[i].shape;
    if (in.dims != keys.dims || results[i]->element_type != in.element_type ||
        results[i]->ElementCount() != count) {
      return Refuse(instr,
                    "keys, values and their results must have the same dimensions and "
                    "each result its operand's element type");
    }
  }
  const Shape& scratch = *results[arrays];
  if (scratch.element_type != PrimitiveType::kU8 || scratch.dims.size() != 1) {
    return Refuse(instr, "the last result (CUB's scratch buffer) must be u8[N]");
  }
  if (!IsSortableKey(keys.element_type, pairs)) {
    return Refuse(instr, StrCat("CUB's handler has no ", pairs ? "pairs" : "keys",
                                " sort for keys of type ", PrimitiveTypeName(keys.element_type)));
  }
  if (pairs) {
    const int bits = ElementBytes(operands[1].shape->element_type) * 8;
    if (bits != 16 && bits != 32 && bits != 64) {
      return Refuse(instr, StrCat("CUB's handler sorts 16-, 32- or 64-bit values, not ",
                                  PrimitiveTypeName(operands[1].shape->element_type)));
    }
  }
  if (keys.dims.empty()) return Refuse(instr, "needs keys of rank 1 or more");

  const std::string config = BackendConfigText(instr);
  bool descending = false;
  int64_t batch = 0;
  if (target == kUnassigned) {
    // SortOptions JSON; proto3 leaves a false `descending` out.
    std::optional<std::string_view> d = ConfigWord(config, "descending");
    if (d && *d != "true" && *d != "false") {
      return Refuse(instr, "backend_config's descending must be true or false");
    }
    descending = d && *d == "true";
    batch = keys.dims.back() == 0 ? 0 : count / keys.dims.back();
  } else {
    std::optional<std::string_view> d = DictionaryValue(config, "descending");
    std::optional<std::string_view> b = DictionaryValue(config, "batch_size");
    if (!d || (*d != "true" && *d != "false") || !b) {
      return Refuse(instr,
                    "backend_config must give the handler's attributes {descending = "
                    "true|false, batch_size = N : i64}");
    }
    descending = *d == "true";
    auto [p, ec] = std::from_chars(b->data(), b->data() + b->size(), batch);
    if (ec != std::errc() || p != b->data() + b->size() || batch < 1 ||
        (count != 0 && count % batch != 0)) {
      return Refuse(instr, StrCat("batch_size ", *b,
                                  " is not a positive divisor of the keys' element count ", count));
    }
  }

  std::vector<Bytes> out;
  const int key_size = ElementBytes(keys.element_type);
  const int value_size = pairs ? ElementBytes(operands[1].shape->element_type) : 0;
  out.emplace_back(static_cast<size_t>(count * key_size));
  if (pairs) out.emplace_back(static_cast<size_t>(count * value_size));
  if (count > 0) {
    const int64_t segment = count / batch;
    std::vector<uint64_t> radix(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i) {
      radix[i] = RadixKey(keys.element_type, operands[0].data + i * key_size, key_size);
    }
    std::vector<int64_t> order(static_cast<size_t>(segment));
    for (int64_t s = 0; s < batch; ++s) {
      const int64_t base = s * segment;
      std::iota(order.begin(), order.end(), base);
      std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
        return descending ? radix[a] > radix[b] : radix[a] < radix[b];
      });
      for (int64_t j = 0; j < segment; ++j) {
        std::memcpy(out[0].data() + (base + j) * key_size, operands[0].data + order[j] * key_size,
                    static_cast<size_t>(key_size));
        if (pairs) {
          std::memcpy(out[1].data() + (base + j) * value_size,
                      operands[1].data + order[j] * value_size, static_cast<size_t>(value_size));
        }
      }
    }
  }
  out.emplace_back(static_cast<size_t>(DenseBytes(scratch)), 0);
  return out;
}

}  // namespace hloscope::eval
