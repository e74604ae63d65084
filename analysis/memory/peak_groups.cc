#include "analysis/memory/peak_groups.h"

#include <algorithm>
#include <limits>
#include <tuple>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "analysis/memory/memory_profile.h"
#include "support/checked_int.h"

namespace hloscope {

std::string_view OpNameScope(std::string_view op_name) {
  // JAX names nest transformations in parentheses (`transpose(jvp(a/b))`): a '/' inside them
  // belongs to the transformation's argument, not to the path.
  int depth = 0;
  size_t last = std::string_view::npos;
  for (size_t i = 0; i < op_name.size(); ++i) {
    const char c = op_name[i];
    if (c == '(') {
      ++depth;
    } else if (c == ')') {
      depth = std::max(depth - 1, 0);
    } else if (c == '/' && depth == 0) {
      last = i;
    }
  }
  return last == std::string_view::npos ? op_name : op_name.substr(0, last);
}

std::vector<PeakGroup> GroupPeakBuffers(std::span<const LiveBuffer> live, int keep) {
  std::vector<PeakGroup> groups;
  // Keys view the strings of `live`, which outlives both maps (the groups' own strings move
  // while they are sorted).
  using Key = std::tuple<std::string_view, std::string_view, std::string_view, std::string_view>;
  absl::flat_hash_map<Key, size_t> index;
  absl::flat_hash_map<std::string_view, int64_t> category_bytes;
  auto add = [](int64_t& total, int64_t bytes) { total = SaturatingAdd(total, bytes); };
  for (const LiveBuffer& b : live) {
    const std::string_view scope = OpNameScope(b.op_name);
    // Without an op_name, what made the buffer and its shape are what a reader can act on.
    const bool by_opcode = b.op_name.empty();
    const std::string_view opcode = by_opcode ? std::string_view(b.opcode) : std::string_view();
    const std::string_view shape = by_opcode ? std::string_view(b.shape) : std::string_view();
    auto [it, inserted] = index.try_emplace(Key{b.category, scope, opcode, shape}, groups.size());
    if (inserted) {
      PeakGroup g;
      g.category = b.category;
      g.scope = std::string(scope);
      g.opcode = std::string(opcode);
      g.shape = std::string(shape);
      groups.push_back(std::move(g));
    }
    PeakGroup& g = groups[it->second];
    add(g.bytes, b.bytes);
    add(category_bytes[b.category], b.bytes);
    ++g.buffers;
    g.largest.push_back(b);
  }
  for (PeakGroup& g : groups) {
    std::stable_sort(g.largest.begin(), g.largest.end(),
                     [](const LiveBuffer& a, const LiveBuffer& b) { return a.bytes > b.bytes; });
    if (g.largest.size() > static_cast<size_t>(std::max(keep, 0))) {
      g.largest.resize(static_cast<size_t>(std::max(keep, 0)));
    }
  }
  std::stable_sort(groups.begin(), groups.end(), [&](const PeakGroup& a, const PeakGroup& b) {
    const int64_t ca = category_bytes.at(a.category), cb = category_bytes.at(b.category);
    if (ca != cb) return ca > cb;
    if (a.category != b.category) return a.category < b.category;
    if (a.bytes != b.bytes) return a.bytes > b.bytes;
    if (a.scope != b.scope) return a.scope < b.scope;
    if (a.opcode != b.opcode) return a.opcode < b.opcode;
    return a.shape < b.shape;
  });
  return groups;
}

}  // namespace hloscope
