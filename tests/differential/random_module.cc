// The random module generator (see random_module.h): the ops of the DAGs and the module
// around them; while loops are in random_loop.cc. Text is built directly (no Module): each
// computation collects its instruction lines; helper computations (regions, branches, fused
// computations, loop condition and body) are finished before the computation that calls
// them, so callees come first in the text as in XLA's dumps.
#include "tests/differential/random_module.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "fmt/ranges.h"
#include "tests/differential/random_module_internal.h"

namespace hloscope::differential {
namespace random_internal {

std::string Generator::AddRegion() {
  if (!add_region_.empty()) return add_region_;
  add_region_ = Name("add_f32");
  Comp r{add_region_};
  r.lines = {"lhs = f32[] parameter(0)", "rhs = f32[] parameter(1)"};
  Finish(r, "sum = f32[] add(lhs, rhs)");
  return add_region_;
}

std::string Generator::ReduceToScalar(Comp& c, const Val& a) {
  if (a.rank() == 0) return a.name;
  std::string zero = Emit(c, "zero", "f32", {}, {}, "constant(0)", -1, false).name;
  Dims all(a.rank());
  std::iota(all.begin(), all.end(), 0);
  return Emit(c, "reduce", "f32", {}, {},
              fmt::format("reduce({}, {}), dimensions={{{}}}, to_apply={}", a.name, zero,
                          fmt::join(all, ","), AddRegion()))
      .name;
}

bool Generator::EmitUnary(Comp& c) {
  auto a = Pick(c, [](const Val&) { return true; });
  if (!a) return false;
  static constexpr const char* kOps[] = {"negate", "abs",  "tanh",       "floor",
                                         "cosine", "sign", "exponential"};
  const char* op = kOps[rng_.Below(7)];
  EmitLike(c, op, *a, a->m2m, fmt::format("{}({})", op, a->name));
  return true;
}

bool Generator::EmitBinary(Comp& c) {
  auto a = Pick(c, [](const Val&) { return true; });
  if (!a) return false;
  auto b = PickSameDims(c, *a);
  static constexpr const char* kOps[] = {"add", "subtract", "multiply", "maximum", "minimum"};
  const char* op = kOps[rng_.Below(5)];
  EmitLike(c, op, *a, rng_.Chance(50) ? a->m2m : DefaultLayout(a->rank()),
           fmt::format("{}({}, {})", op, a->name, b->name));
  return true;
}

bool Generator::EmitSelect(Comp& c) {
  auto a = PickArray(c);
  if (!a) return false;
  auto b = PickSameDims(c, *a);
  Val p = Emit(c, "compare", "pred", a->dims, a->m2m,
               fmt::format("compare({}, {}), direction=GT", a->name, b->name), -1, false);
  EmitLike(c, "select", *a, a->m2m, fmt::format("select({}, {}, {})", p.name, a->name, b->name));
  return true;
}

bool Generator::EmitBroadcast(Comp& c) {
  auto a = Pick(c, [](const Val& v) { return v.rank() < 3; });
  if (!a) return false;
  int64_t size = rng_.Between(2, 4);
  if (Product(a->dims) * size > options_.max_elements) return false;
  size_t pos = size_t(rng_.Below(int64_t(a->rank()) + 1));
  Dims out = a->dims, kept;
  out.insert(out.begin() + int64_t(pos), size);
  for (size_t i = 0; i < out.size(); ++i)
    if (i != pos) kept.push_back(int64_t(i));
  Emit(c, "broadcast", "f32", out, RandomLayout(out.size()),
       fmt::format("broadcast({}), dimensions={{{}}}", a->name, fmt::join(kept, ",")));
  return true;
}

bool Generator::EmitReshape(Comp& c) {
  auto a = PickArray(c);
  if (!a) return false;
  Dims out = a->dims;
  if (out.size() >= 2) {
    size_t i = size_t(rng_.Below(int64_t(out.size()) - 1));
    out[i] *= out[i + 1];
    out.erase(out.begin() + int64_t(i) + 1);
  } else {
    int64_t n = out[0], f = 1;
    for (int64_t d = 2; d < n; ++d)
      if (n % d == 0) f = d;
    if (f == 1) return false;
    out = {f, n / f};
  }
  Emit(c, "reshape", "f32", out, DefaultLayout(out.size()), fmt::format("reshape({})", a->name));
  return true;
}

bool Generator::EmitTranspose(Comp& c) {
  auto a = Pick(c, [](const Val& v) { return v.rank() >= 2; });
  if (!a) return false;
  Dims perm = rng_.Permutation(int64_t(a->rank())), out;
  for (int64_t p : perm) out.push_back(a->dims[size_t(p)]);
  Emit(c, "transpose", "f32", out, RandomLayout(out.size()),
       fmt::format("transpose({}), dimensions={{{}}}", a->name, fmt::join(perm, ",")));
  return true;
}

bool Generator::EmitSlice(Comp& c) {
  auto a = PickArray(c);
  if (!a) return false;
  Dims out;
  std::vector<std::string> parts;
  for (int64_t d : a->dims) {
    int64_t start = rng_.Below(d), limit = rng_.Between(start + 1, d), stride = rng_.Between(1, 2);
    out.push_back((limit - start + stride - 1) / stride);
    parts.push_back(fmt::format("[{}:{}:{}]", start, limit, stride));
  }
  Emit(c, "slice", "f32", out, DefaultLayout(out.size()),
       fmt::format("slice({}), slice={{{}}}", a->name, fmt::join(parts, ", ")));
  return true;
}

bool Generator::EmitDynamicSlice(Comp& c) {
  auto a = PickArray(c);
  if (!a) return false;
  Dims sizes;
  std::vector<std::string> operands = {a->name};
  for (int64_t d : a->dims) {
    sizes.push_back(rng_.Between(1, d));
    operands.push_back(IndexOperand(c, d));
  }
  Emit(c, "dynamic-slice", "f32", sizes, RandomLayout(sizes.size()),
       fmt::format("dynamic-slice({}), dynamic_slice_sizes={{{}}}", fmt::join(operands, ", "),
                   fmt::join(sizes, ",")));
  return true;
}

bool Generator::EmitDot(Comp& c) {
  auto a = Pick(c, [](const Val& v) { return v.rank() == 2 || v.rank() == 3; });
  if (!a) return false;
  auto b = PickSameDims(c, *a);
  if (a->rank() == 2) {
    Dims out = {a->dims[0], a->dims[0]};
    if (Product(out) > options_.max_elements) return false;
    Emit(c, "dot", "f32", out, RandomLayout(2),
         fmt::format("dot({}, {}), lhs_contracting_dims={{1}}, rhs_contracting_dims={{1}}", a->name,
                     b->name));
  } else {
    Dims out = {a->dims[0], a->dims[1], a->dims[1]};
    if (Product(out) > options_.max_elements) return false;
    Emit(c, "dot", "f32", out, DefaultLayout(3),
         fmt::format("dot({}, {}), lhs_batch_dims={{0}}, lhs_contracting_dims={{2}}, "
                     "rhs_batch_dims={{0}}, rhs_contracting_dims={{2}}",
                     a->name, b->name));
  }
  return true;
}

bool Generator::EmitReduce(Comp& c) {
  auto a = PickArray(c);
  if (!a) return false;
  if (rng_.Chance(25)) {
    c.pool.push_back(Val{ReduceToScalar(c, *a), "f32", {}, {}, -1});
    return true;
  }
  size_t d = size_t(rng_.Below(int64_t(a->rank())));
  Dims out = a->dims;
  out.erase(out.begin() + int64_t(d));
  std::string zero = Emit(c, "zero", "f32", {}, {}, "constant(0)", -1, false).name;
  Emit(
      c, "reduce", "f32", out, DefaultLayout(out.size()),
      fmt::format("reduce({}, {}), dimensions={{{}}}, to_apply={}", a->name, zero, d, AddRegion()));
  return true;
}

// A bitcast that keeps the bytes and reinterprets them: the same physical dims under another
// logical order (e.g. [2,3]{1,0} -> [3,2]{0,1}), or two adjacent physical dims merged.
bool Generator::EmitBitcast(Comp& c) {
  auto a = PickArray(c);
  if (!a) return false;
  Dims phys = a->Physical();
  size_t r = phys.size();
  if (r >= 2 && rng_.Chance(35)) {
    size_t p = size_t(rng_.Below(int64_t(r) - 1));
    phys[p] *= phys[p + 1];
    phys.erase(phys.begin() + int64_t(p) + 1);
    Emit(c, "bitcast", "f32", phys, DefaultLayout(phys.size()), fmt::format("bitcast({})", a->name),
         a->alias);
    c.pool.back().read_only = a->read_only;
    return true;
  }
  // Logical dim i sits at physical position pos[i] (0 = most major).
  Dims pos = rng_.Permutation(int64_t(r)), dims(r), m2m(r);
  for (size_t i = 0; i < r; ++i) {
    dims[i] = phys[size_t(pos[i])];
    m2m[r - 1 - size_t(pos[i])] = int64_t(i);
  }
  Emit(c, "bitcast", "f32", dims, m2m, fmt::format("bitcast({})", a->name), a->alias);
  c.pool.back().read_only = a->read_only;
  return true;
}

bool Generator::EmitConcatenate(Comp& c) {
  auto a = PickArray(c);
  if (!a || Product(a->dims) * 2 > options_.max_elements) return false;
  auto b = PickSameDims(c, *a);
  size_t d = size_t(rng_.Below(int64_t(a->rank())));
  Dims out = a->dims;
  out[d] *= 2;
  Emit(c, "concatenate", "f32", out, RandomLayout(out.size()),
       fmt::format("concatenate({}, {}), dimensions={{{}}}", a->name, b->name, d));
  return true;
}

bool Generator::EmitReverse(Comp& c) {
  auto a = PickArray(c);
  if (!a) return false;
  EmitLike(c, "reverse", *a, a->m2m,
           fmt::format("reverse({}), dimensions={{{}}}", a->name, rng_.Below(int64_t(a->rank()))));
  return true;
}

bool Generator::EmitPad(Comp& c) {
  auto a = PickArray(c);
  if (!a) return false;
  Dims out;
  std::vector<std::string> parts;
  for (int64_t d : a->dims) {
    int64_t lo = rng_.Below(2), hi = rng_.Below(2), interior = rng_.Chance(25) ? 1 : 0;
    out.push_back(lo + hi + d + (d - 1) * interior);
    parts.push_back(interior ? fmt::format("{}_{}_{}", lo, hi, interior)
                             : fmt::format("{}_{}", lo, hi));
  }
  if (Product(out) > options_.max_elements) return false;
  std::string zero = Emit(c, "zero", "f32", {}, {}, "constant(0)", -1, false).name;
  Emit(c, "pad", "f32", out, DefaultLayout(out.size()),
       fmt::format("pad({}, {}), padding={}", a->name, zero, fmt::join(parts, "x")));
  return true;
}

bool Generator::EmitIota(Comp& c) {
  Dims dims = RandomDims(std::min<int64_t>(64, options_.max_elements));
  Emit(c, "iota", "f32", dims, RandomLayout(dims.size()),
       fmt::format("iota(), iota_dimension={}", rng_.Below(int64_t(dims.size()))));
  return true;
}

bool Generator::EmitConvertRoundTrip(Comp& c) {
  auto a = Pick(c, [](const Val&) { return true; });
  if (!a) return false;
  Val narrow = Emit(c, "convert", "bf16", a->dims, a->m2m, fmt::format("convert({})", a->name));
  EmitLike(c, "convert", *a, a->m2m, fmt::format("convert({})", narrow.name));
  return true;
}

bool Generator::EmitFusion(Comp& c) {
  auto a = PickArray(c);
  if (!a) return false;
  auto b = PickSameDims(c, *a);
  Comp f{Name("fused_elementwise")};
  Val p0{"param_0", "f32", a->dims, a->m2m}, p1{"param_1", "f32", b->dims, b->m2m};
  f.lines = {fmt::format("param_0 = {} parameter(0)", p0.Shape()),
             fmt::format("param_1 = {} parameter(1)", p1.Shape()),
             fmt::format("sum = {} add(param_0, param_1)", p0.Shape())};
  Finish(f, fmt::format("product = {} multiply(sum, param_0)", p0.Shape()));
  EmitLike(c, "fusion", *a, a->m2m,
           fmt::format("fusion({}, {}), kind=kLoop, calls={}", a->name, b->name, f.name));
  return true;
}

// conditional(pred, x, x) whose branches compute new arrays from their parameter (never
// return it: a branch returning its parameter would share the operand's buffer, which XLA's
// copy insertion would have protected with a copy).
bool Generator::EmitConditional(Comp& c) {
  auto a = PickArray(c);
  if (!a) return false;
  std::string pred;
  if (!c.counter.empty()) {
    std::string bound = Const(c, "s32", rng_.Between(0, 3));
    pred = Emit(c, "compare", "pred", {}, {},
                fmt::format("compare({}, {}), direction=LT", c.counter, bound), -1, false)
               .name;
  } else {
    std::string s = ReduceToScalar(c, *a);
    std::string zero = Emit(c, "zero", "f32", {}, {}, "constant(0)", -1, false).name;
    pred = Emit(c, "compare", "pred", {}, {}, fmt::format("compare({}, {}), direction=GT", s, zero),
                -1, false)
               .name;
  }
  std::string shape = a->Shape();
  Comp t{Name("on_true")}, f{Name("on_false")};
  t.lines = {fmt::format("x = {} parameter(0)", shape)};
  Finish(t, fmt::format("negated = {} negate(x)", shape));
  f.lines = {fmt::format("y = {} parameter(0)", shape)};
  Finish(f, fmt::format("doubled = {} add(y, y)", shape));
  EmitLike(c, "conditional", *a, a->m2m,
           fmt::format("conditional({}, {}, {}), true_computation={}, false_computation={}", pred,
                       a->name, a->name, t.name, f.name));
  return true;
}

bool Generator::EmitOp(Comp& c) {
  switch (rng_.Below(19)) {
    case 0:
    case 1:
      return EmitUnary(c);
    case 2:
    case 3:
      return EmitBinary(c);
    case 4:
      return EmitSelect(c);
    case 5:
      return EmitBroadcast(c);
    case 6:
      return EmitReshape(c);
    case 7:
      return EmitTranspose(c);
    case 8:
      return EmitSlice(c);
    case 9:
      return EmitDynamicSlice(c);
    case 10:
      return EmitDot(c);
    case 11:
      return EmitReduce(c);
    case 12:
    case 13:
      return EmitBitcast(c);
    case 14:
      return EmitConcatenate(c);
    case 15:
      return EmitReverse(c);
    case 16:
      return rng_.Chance(50) ? EmitPad(c) : EmitIota(c);
    case 17:
      return rng_.Chance(50) ? EmitConvertRoundTrip(c) : EmitFusion(c);
    default:
      return EmitConditional(c);
  }
}

RandomModule Generator::Run() {
  Comp entry{"main"};
  int params = int(rng_.Between(1, 3));
  std::vector<std::string> param_shapes;
  for (int i = 0; i < params; ++i) {
    Dims dims = RandomDims(std::min<int64_t>(64, options_.max_elements));
    Val p =
        Emit(entry, "p", "f32", dims, RandomLayout(dims.size()), fmt::format("parameter({})", i));
    entry.pool.back().read_only = true;
    param_shapes.push_back(p.Shape());
  }
  EmitOps(entry, options_.max_entry_ops);
  if (rng_.Chance(options_.loop_percent)) {
    EmitLoop(entry);
    // A second loop may start from the first one's results (mpmd's forward and backward
    // loops): copies of those results are needed when they are read afterwards.
    if (rng_.Chance(30)) EmitLoop(entry);
  }
  EmitOps(entry, 2);
  // The result: the last few values, the loop's results among them.
  std::vector<std::string> outs, out_shapes;
  int want = int(rng_.Between(1, 3));
  for (size_t i = entry.pool.size(); i-- > 0 && int(outs.size()) < want;) {
    outs.push_back(entry.pool[i].name);
    out_shapes.push_back(entry.pool[i].Shape());
  }
  for (size_t i = 0; i < entry.pool.size(); ++i) {
    const Val& v = entry.pool[i];
    bool loop_result = v.name.starts_with("result.") || v.name.starts_with("after_loop.");
    if (loop_result && std::find(outs.begin(), outs.end(), v.name) == outs.end()) {
      outs.push_back(v.name);
      out_shapes.push_back(v.Shape());
    }
  }
  // Half the modules say their text order is the schedule: copy elision then reasons about
  // that exact order (the one the interpreter runs) instead of only the dependencies.
  std::string text =
      fmt::format("HloModule random_{}{}\n\n", seed_, rng_.Chance(50) ? ", is_scheduled=true" : "");
  for (const std::string& h : helpers_) text += h + "\n";
  text += "ENTRY main {\n";
  for (const std::string& l : entry.lines) text += "  " + l + "\n";
  text += fmt::format("  ROOT output = ({}) tuple({})\n}}\n", fmt::join(out_shapes, ", "),
                      fmt::join(outs, ", "));
  return RandomModule{std::move(text), needed_copies_};
}

}  // namespace random_internal

using random_internal::Generator;

RandomModule GenerateRandomModule(uint64_t seed, const RandomModuleOptions& options) {
  return Generator(seed, options).Run();
}

std::string RandomModuleText(uint64_t seed, const RandomModuleOptions& options) {
  return GenerateRandomModule(seed, options).text;
}

}  // namespace hloscope::differential