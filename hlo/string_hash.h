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

namespace hloscope {

// A small inline hash for short identifiers (most HLO names are under 32 bytes): 8 bytes at a
// time, multiply-xorshift mixing. It is not a cryptographic hash; absl's tables only need the
// bits well mixed, which the final multiply gives.
struct StringViewHash {
  size_t operator()(std::string_view s) const {
    constexpr uint64_t kMul = 0x9e3779b97f4a7c15ull;
    uint64_t h = s.size() * kMul;
    const char* p = s.data();
    size_t n = s.size();
    while (n >= 8) {
      uint64_t w;
      std::memcpy(&w, p, 8);
      h = (h ^ w) * kMul;
      h ^= h >> 29;
      p += 8;
      n -= 8;
    }
    if (n > 0) {
      uint64_t w = 0;
      std::memcpy(&w, p, n);
      h = (h ^ w) * kMul;
      h ^= h >> 29;
    }
    h *= 0xbf58476d1ce4e5b9ull;
    return static_cast<size_t>(h ^ (h >> 32));
  }
};

template <typename V>
using StringViewMap = absl::flat_hash_map<std::string_view, V, StringViewHash>;

}  // namespace hloscope
