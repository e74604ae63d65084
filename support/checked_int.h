// Checked int64 arithmetic for sizes, counts and products (bytes of a module, call sites,
// executions of a loop body). A wrapped value would be reported as a plausible number, so
// every such computation either says it overflowed (std::nullopt) or saturates at the
// maximum, which callers print as kSaturatedText (support/bytes.h) or refuse as too large.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>

namespace hloscope {

inline constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

// a * b, or nullopt when it does not fit in int64.
inline std::optional<int64_t> CheckedMul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// a + b, or nullopt when it does not fit in int64.
inline std::optional<int64_t> CheckedAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// a - b, or nullopt when it does not fit in int64.
inline std::optional<int64_t> CheckedSub(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// For non-negative operands: a + b, or kInt64Max when that does not fit.
inline int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_add_overflow(a, b, &r) ? kInt64Max : r;
}

// For non-negative operands: a + b, or kInt64Max with *saturated set when that does not fit (a
// report that sums many sizes says once, at the end, that a figure is a bound).
inline int64_t SaturatingAdd(int64_t a, int64_t b, bool* saturated) {
  int64_t r;
  if (!__builtin_add_overflow(a, b, &r)) return r;
  *saturated = true;
  return kInt64Max;
}

// a + b clamped to int64's range in the direction of b (a difference of saturated sizes is a
// bound, not a wrapped value).
inline int64_t ClampedAdd(int64_t a, int64_t b) {
  int64_t r;
  if (!__builtin_add_overflow(a, b, &r)) return r;
  return b > 0 ? kInt64Max : std::numeric_limits<int64_t>::min();
}

// For non-negative operands: a * b, or kInt64Max when that does not fit.
inline int64_t SaturatingMul(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_mul_overflow(a, b, &r) ? kInt64Max : r;
}

}  // namespace hloscope
