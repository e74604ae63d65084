// Hashing for std::string_view keys in absl containers.
//
// With Debian's abseil (its own absl::string_view), absl::Hash<std::string_view> falls back
// to libstdc++'s std::hash, and abseil's own string hash is an out-of-line call into a shared
// library; both dominated parser profiles. Names are short, so an inline hash wins.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"

namespace hloscope {

// A small inline hash for short identifiers (most HLO names are under 32 bytes): 8 bytes at a
// time, multiply-xorshift mixing. It is not a cryptographic hash; absl's tables only need the
// bits well mixed, which the final multiply gives.
struct StringViewHash {
  static uint64_t Load64(const char* p) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    return w;
  }
  static uint64_t Load32(const char* p) {
    uint32_t w;
    std::memcpy(&w, p, 4);
    return w;
  }
  size_t operator()(std::string_view s) const {
    constexpr uint64_t kMul = 0x9e3779b97f4a7c15ull;
    const char* p = s.data();
    size_t n = s.size();
    uint64_t h = n * kMul;
    auto mix = [&](uint64_t w) {
      h = (h ^ w) * kMul;
      h ^= h >> 29;
    };
    // Whole-word loads only: assembling a tail byte by byte into a stack word and reading it
    // back stalls on store forwarding, which showed up as a hot spot in the parser.
    if (n >= 8) {
      for (; n > 8; p += 8, n -= 8) mix(Load64(p));
      mix(Load64(p + n - 8));  // the last 8 bytes, overlapping the previous word
    } else if (n >= 4) {
      mix(Load32(p) | (Load32(p + n - 4) << 32));
    } else if (n > 0) {
      mix(static_cast<unsigned char>(p[0]) |
          (static_cast<uint64_t>(static_cast<unsigned char>(p[n / 2])) << 8) |
          (static_cast<uint64_t>(static_cast<unsigned char>(p[n - 1])) << 16));
    }
    h *= 0xbf58476d1ce4e5b9ull;
    return static_cast<size_t>(h ^ (h >> 32));
  }
};

// Equality for the same keys, inline: a libc memcmp call per probe cost more than the compare
// itself for names this short.
struct StringViewEq {
  bool operator()(std::string_view a, std::string_view b) const {
    size_t n = a.size();
    if (n != b.size()) return false;
    const char* p = a.data();
    const char* q = b.data();
    if (n >= 8) {
      for (; n > 8; p += 8, q += 8, n -= 8) {
        if (StringViewHash::Load64(p) != StringViewHash::Load64(q)) return false;
      }
      return StringViewHash::Load64(p + n - 8) == StringViewHash::Load64(q + n - 8);
    }
    if (n >= 4) {
      return StringViewHash::Load32(p) == StringViewHash::Load32(q) &&
             StringViewHash::Load32(p + n - 4) == StringViewHash::Load32(q + n - 4);
    }
    for (size_t i = 0; i < n; ++i) {
      if (p[i] != q[i]) return false;
    }
    return true;
  }
};

template <typename V>
using StringViewMap = absl::flat_hash_map<std::string_view, V, StringViewHash, StringViewEq>;
using StringViewSet = absl::flat_hash_set<std::string_view, StringViewHash, StringViewEq>;

}  // namespace hloscope
