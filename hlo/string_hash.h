// Hashing for std::string_view keys in absl containers.
//
// With Debian's abseil (its own absl::string_view), absl::Hash<std::string_view> falls back
// to libstdc++'s std::hash (murmur over bytes), which dominated parser profiles. Routing the
// bytes through absl::string_view uses abseil's faster low-level hash.
#pragma once

#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "absl/strings/string_view.h"

namespace hloscope {

struct StringViewHash {
  size_t operator()(std::string_view s) const {
    return absl::Hash<absl::string_view>()(absl::string_view(s.data(), s.size()));
  }
};

template <typename V>
using StringViewMap = absl::flat_hash_map<std::string_view, V, StringViewHash>;

}  // namespace hloscope
