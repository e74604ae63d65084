// Internals of the random module generator, shared by random_module.cc (the ops and the
// module) and random_loop.cc (while loops and their state updates). Not an API.
#pragma once

#include <algorithm>
#include <functional>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "fmt/ranges.h"
#include "tests/differential/random_module.h"

namespace hloscope::differential::random_internal {

// splitmix64: the same sequence on every platform (std:: distributions are not portable).
class Rng {
 public:
  // The seed is mixed first: splitmix's state advances by a constant, so unmixed seeds s
  // and s+1 would give the same sequence shifted by one.
  explicit Rng(uint64_t seed) : state_(seed) { state_ = Next() ^ 0x6A09E667F3BCC909ull; }
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n).
  int64_t Below(int64_t n) { return n <= 1 ? 0 : static_cast<int64_t>(Next() % uint64_t(n)); }
  int64_t Between(int64_t lo, int64_t hi) { return lo + Below(hi - lo + 1); }
  bool Chance(int percent) { return Below(100) < percent; }
  std::vector<int64_t> Permutation(int64_t n) {
    std::vector<int64_t> p(static_cast<size_t>(n));
    std::iota(p.begin(), p.end(), 0);
    for (int64_t i = n - 1; i > 0; --i) std::swap(p[size_t(i)], p[size_t(Below(i + 1))]);
    return p;
  }

 private:
  uint64_t state_;
};

using Dims = std::vector<int64_t>;

inline Dims DefaultLayout(size_t rank) {
  Dims m2m(rank);
  for (size_t i = 0; i < rank; ++i) m2m[i] = int64_t(rank - 1 - i);
  return m2m;
}

inline int64_t Product(const Dims& dims) {
  return std::accumulate(dims.begin(), dims.end(), int64_t{1}, std::multiplies<>());
}

// An array value: name, element type, dims and layout (minor_to_major, always written out).
// `alias` is the loop state element whose buffer the value lives in (a get-tuple-element of
// the body parameter, or a bitcast of one), -1 for a value with a buffer of its own.
struct Val {
  std::string name;
  std::string type = "f32";
  Dims dims;
  Dims m2m;
  int alias = -1;
  // An entry parameter or a bitcast of one: the interpreter keeps these read-only (as a
  // device does), so a missing copy of one cannot change a result.
  bool read_only = false;

  size_t rank() const { return dims.size(); }
  std::string Shape() const {
    if (dims.empty()) return type + "[]";
    return fmt::format("{}[{}]{{{}}}", type, fmt::join(dims, ","), fmt::join(m2m, ","));
  }
  // Dims from the most major to the most minor in memory.
  Dims Physical() const {
    Dims out;
    for (size_t j = m2m.size(); j-- > 0;) out.push_back(dims[size_t(m2m[j])]);
    return out;
  }
};

// One computation under construction.
struct Comp {
  explicit Comp(std::string n) : name(std::move(n)) {}
  std::string name;
  std::vector<std::string> lines;
  std::vector<Val> pool;           // f32 values ops may read
  std::vector<std::string> index;  // s32[] scalars usable as dynamic indices
  std::vector<bool> stale;         // by state element: its old value was overwritten
  std::string counter;             // loop body: the induction variable

  bool Readable(const Val& v) const {
    return v.alias < 0 || size_t(v.alias) >= stale.size() || !stale[size_t(v.alias)];
  }
};

class Generator {
 public:
  Generator(uint64_t seed, const RandomModuleOptions& options)
      : rng_(seed), options_(options), seed_(seed) {}

  RandomModule Run();

 private:
  std::string Name(std::string_view base) { return fmt::format("{}.{}", base, next_id_++); }

  Val Emit(Comp& c, std::string_view base, std::string type, Dims dims, Dims m2m,
           const std::string& rhs, int alias = -1, bool add_to_pool = true) {
    Val v{Name(base), std::move(type), std::move(dims), std::move(m2m), alias};
    c.lines.push_back(fmt::format("{} = {} {}", v.name, v.Shape(), rhs));
    if (add_to_pool && v.type == "f32") c.pool.push_back(v);
    return v;
  }
  Val EmitLike(Comp& c, std::string_view base, const Val& like, const Dims& m2m,
               const std::string& rhs, bool add_to_pool = true) {
    return Emit(c, base, like.type, like.dims, m2m, rhs, -1, add_to_pool);
  }
  std::string Const(Comp& c, std::string_view type, int64_t value) {
    Val v = Emit(c, "constant", std::string(type), {}, {}, fmt::format("constant({})", value), -1,
                 /*add_to_pool=*/false);
    return v.name;
  }
  Dims RandomLayout(size_t rank) {
    return rng_.Chance(70) ? DefaultLayout(rank) : rng_.Permutation(int64_t(rank));
  }
  Dims RandomDims(int64_t max_elements) {
    Dims dims;
    int64_t rank = rng_.Between(1, 3);
    for (int64_t i = 0; i < rank; ++i) {
      int64_t d = rng_.Chance(10) ? 8 : rng_.Between(1, 5);
      if (Product(dims) * d > max_elements) d = 1;
      dims.push_back(d);
    }
    return dims;
  }

  // A readable f32 value matching `filter`, preferring recent ones; nullopt when none does.
  std::optional<Val> Pick(const Comp& c, const std::function<bool(const Val&)>& filter) {
    std::vector<const Val*> ok;
    for (const Val& v : c.pool)
      if (c.Readable(v) && filter(v)) ok.push_back(&v);
    if (ok.empty()) return std::nullopt;
    // Half the time one of the last three: chains of ops, not only wide fans.
    size_t n = ok.size();
    size_t i = rng_.Chance(50) ? n - 1 - size_t(rng_.Below(std::min<int64_t>(3, int64_t(n))))
                               : size_t(rng_.Below(int64_t(n)));
    return *ok[i];
  }
  std::optional<Val> PickArray(const Comp& c) {
    return Pick(c, [](const Val& v) { return v.rank() > 0; });
  }
  std::optional<Val> PickSameDims(const Comp& c, const Val& a) {
    return Pick(c, [&](const Val& v) { return v.dims == a.dims; });
  }
  std::string IndexOperand(Comp& c, int64_t dim_size) {
    if (!c.index.empty() && rng_.Chance(60))
      return c.index[size_t(rng_.Below(int64_t(c.index.size())))];
    // Sometimes out of range: dynamic-slice and dynamic-update-slice clamp their indices.
    return Const(c, "s32", rng_.Between(-1, dim_size));
  }
  std::string AddRegion();
  std::string ReduceToScalar(Comp& c, const Val& a);

  // One random op appended to `c`; false when the chosen op found no operand.
  bool EmitOp(Comp& c);
  bool EmitUnary(Comp& c);
  bool EmitBinary(Comp& c);
  bool EmitSelect(Comp& c);
  bool EmitBroadcast(Comp& c);
  bool EmitReshape(Comp& c);
  bool EmitTranspose(Comp& c);
  bool EmitSlice(Comp& c);
  bool EmitDynamicSlice(Comp& c);
  bool EmitDot(Comp& c);
  bool EmitReduce(Comp& c);
  bool EmitBitcast(Comp& c);
  bool EmitConcatenate(Comp& c);
  bool EmitReverse(Comp& c);
  bool EmitPad(Comp& c);
  bool EmitIota(Comp& c);
  bool EmitConvertRoundTrip(Comp& c);
  bool EmitFusion(Comp& c);
  bool EmitConditional(Comp& c);
  void EmitOps(Comp& c, int max_ops) {
    int n = int(rng_.Between(1, max_ops));
    for (int i = 0, tries = 0; i < n && tries < 8 * max_ops; ++tries)
      if (EmitOp(c)) ++i;
  }

  // Finishes a helper computation: its text goes before the computation that calls it.
  void Finish(const Comp& c, const std::string& root_line) {
    std::string text = fmt::format("{} {{\n", c.name);
    for (const std::string& l : c.lines) text += "  " + l + "\n";
    text += "  ROOT " + root_line + "\n}\n";
    helpers_.push_back(std::move(text));
  }

  void EmitLoop(Comp& entry);

  Rng rng_;
  RandomModuleOptions options_;
  uint64_t seed_;
  int next_id_ = 0;
  int needed_copies_ = 0;
  std::string add_region_;
  std::vector<std::string> helpers_;
};

}  // namespace hloscope::differential::random_internal
