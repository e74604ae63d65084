// The while loops of random modules (see random_module.h for the ways a state element is
// updated). The body is emitted in phases so that running it in text order is buffer-safe:
// reads of an element's old value come before anything writes that element's buffer.
#include <algorithm>
#include <functional>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "fmt/ranges.h"
#include "tests/differential/random_module_internal.h"

namespace hloscope::differential::random_internal {
namespace {

// How one array of the loop state changes per iteration (see random_module.h).
enum class Update { kPass, kInPlace, kInPlaceFusion, kProtected, kCopyNew, kDirectNew, kSwap };

struct StateElement {
  Val shape;           // dims and layout of the element (name unused)
  std::string source;  // entry value the init copies, empty when not a copy
  bool source_read_only = false;
  Update update = Update::kPass;
  int partner = -1;  // kSwap: the other element
};

}  // namespace

void Generator::EmitLoop(Comp& entry) {
  const int64_t trips = rng_.Between(1, 4);
  std::vector<StateElement> state;
  std::vector<std::string> init = {Const(entry, "s32", 0)};
  int n = int(rng_.Between(1, 3));
  for (int k = 0; k < n; ++k) {
    StateElement e;
    auto v = PickArray(entry);
    if (rng_.Chance(20) || !v) {
      // A stash: zeros with one row per iteration (sometimes one too few: DUS clamps).
      Dims rest = RandomDims(std::max<int64_t>(1, options_.max_elements / 4));
      if (rest.size() > 2) rest.pop_back();
      Dims dims = {rng_.Chance(80) ? trips : std::max<int64_t>(1, trips - 1)};
      dims.insert(dims.end(), rest.begin(), rest.end());
      Dims m2m =
          rng_.Chance(50) ? DefaultLayout(dims.size()) : rng_.Permutation(int64_t(dims.size()));
      e.shape = Val{"", "f32", dims, m2m};
      // Not zeros: updates computed from zeros would stay zero and hide every difference.
      std::string fill = v ? ReduceToScalar(entry, *v)
                           : Emit(entry, "one", "f32", {}, {}, "constant(1)", -1, false).name;
      init.push_back(Emit(entry, "stash_init", "f32", dims, m2m,
                          fmt::format("broadcast({}), dimensions={{}}", fill), -1, false)
                         .name);
    } else {
      e.shape = Val{"", "f32", v->dims, rng_.Chance(70) ? v->m2m : RandomLayout(v->rank())};
      bool source_used = std::any_of(state.begin(), state.end(),
                                     [&](const StateElement& o) { return o.source == v->name; });
      // Two elements copied from one value would start equal, and a swap of equal values
      // cannot show a missing copy.
      if (rng_.Chance(75) && !source_used) {
        e.source = v->name;
        e.source_read_only = v->read_only;
        init.push_back(Emit(entry, "copy", "f32", v->dims, e.shape.m2m,
                            fmt::format("copy({})", v->name), -1, false)
                           .name);
      } else {
        // A new value read only by the init tuple needs no copy.
        init.push_back(Emit(entry, "negate", "f32", v->dims, e.shape.m2m,
                            fmt::format("negate({})", v->name), -1, false)
                           .name);
      }
    }
    int pick = int(rng_.Below(100));
    bool fusable = e.shape.rank() >= 2 && e.shape.m2m.back() == 0;
    e.update = pick < 15              ? Update::kPass
               : pick < 35            ? Update::kInPlace
               : pick < 50 && fusable ? Update::kInPlaceFusion
               : pick < 65            ? Update::kProtected
               : pick < 82            ? Update::kCopyNew
                                      : Update::kDirectNew;
    state.push_back(e);
  }
  for (int j = 0; j < n; ++j)
    for (int k = j + 1; k < n; ++k)
      if (state[j].partner < 0 && state[k].partner < 0 &&
          state[j].shape.dims == state[k].shape.dims && rng_.Chance(60)) {
        state[j].update = state[k].update = Update::kSwap;
        state[j].partner = k;
        state[k].partner = j;
        needed_copies_ += 1;
      }

  std::vector<std::string> shapes = {"s32[]"};
  for (const StateElement& e : state) shapes.push_back(e.shape.Shape());
  std::string tuple_shape = fmt::format("({})", fmt::join(shapes, ", "));

  // Condition: counter < trips.
  Comp cond{Name("loop_condition")};
  cond.lines = {fmt::format("cond_state = {} parameter(0)", tuple_shape),
                "cond_counter = s32[] get-tuple-element(cond_state), index=0",
                fmt::format("trip_count = s32[] constant({})", trips)};
  Finish(cond, "keep_going = pred[] compare(cond_counter, trip_count), direction=LT");

  // Body, in phases so that text order (the interpreter's order) is buffer-safe.
  Comp body{Name("loop_body")};
  body.lines = {fmt::format("state = {} parameter(0)", tuple_shape)};
  body.counter =
      Emit(body, "counter", "s32", {}, {}, "get-tuple-element(state), index=0", -1, false).name;
  body.index = {body.counter};
  body.stale.assign(size_t(n), false);
  std::vector<Val> old;
  for (int k = 0; k < n; ++k)
    old.push_back(Emit(body, "element", "f32", state[k].shape.dims, state[k].shape.m2m,
                       fmt::format("get-tuple-element(state), index={}", k + 1), k));
  std::string izero = Const(body, "s32", 0);
  // Phase 1: copies protecting old values, free ops, update rows and new values.
  std::vector<std::string> protected_copy(static_cast<size_t>(n)), row(static_cast<size_t>(n)),
      fresh(static_cast<size_t>(n));
  for (int k = 0; k < n; ++k)
    if (state[k].update == Update::kProtected)
      protected_copy[k] = Emit(body, "copy", "f32", old[k].dims, old[k].m2m,
                               fmt::format("copy({})", old[k].name), -1, false)
                              .name;
  EmitOps(body, options_.max_body_ops);
  for (int k = 0; k < n; ++k) {
    const Val& a = old[k];
    Update u = state[k].update;
    if (u == Update::kInPlace || u == Update::kInPlaceFusion || u == Update::kProtected) {
      // row = old row at the counter + a scalar: the update depends on the state.
      Dims row_dims = a.dims;
      row_dims[0] = 1;
      Dims row_layout = u == Update::kInPlaceFusion ? a.m2m : RandomLayout(a.rank());
      std::vector<std::string> idx = {a.name, body.counter};
      for (size_t d = 1; d < a.rank(); ++d) idx.push_back(izero);
      Val old_row = Emit(body, "old_row", "f32", row_dims, row_layout,
                         fmt::format("dynamic-slice({}), dynamic_slice_sizes={{{}}}",
                                     fmt::join(idx, ", "), fmt::join(row_dims, ",")));
      std::string s;
      if (auto sv = Pick(body, [](const Val& v) { return v.rank() == 0; }); sv && rng_.Chance(50)) {
        s = sv->name;
      } else if (auto x = PickArray(body)) {
        s = ReduceToScalar(body, *x);
      } else {
        s = Emit(body, "convert", "f32", {}, {}, fmt::format("convert({})", body.counter)).name;
      }
      Val bs = Emit(body, "broadcast", "f32", row_dims, row_layout,
                    fmt::format("broadcast({}), dimensions={{}}", s), -1, false);
      row[k] = Emit(body, "new_row", "f32", row_dims, row_layout,
                    fmt::format("add({}, {})", old_row.name, bs.name))
                   .name;
    } else if (u == Update::kCopyNew) {
      auto b = PickSameDims(body, a);
      fresh[k] = Emit(body, "next", "f32", a.dims, RandomLayout(a.rank()),
                      fmt::format("multiply({}, {})", a.name, b->name))
                     .name;
    }
  }
  // Phase 2: the dynamic-update-slices. After an unprotected one the old value is stale.
  std::vector<std::string> root(static_cast<size_t>(n));
  for (int k = 0; k < n; ++k) {
    const Val& a = old[k];
    std::vector<std::string> idx = {body.counter};
    for (size_t d = 1; d < a.rank(); ++d) idx.push_back(izero);
    switch (state[k].update) {
      case Update::kInPlace:
        root[k] = Emit(body, "updated", "f32", a.dims, a.m2m,
                       fmt::format("dynamic-update-slice({}, {}, {})", a.name, row[k],
                                   fmt::join(idx, ", ")),
                       k, false)
                      .name;
        body.stale[k] = true;
        break;
      case Update::kInPlaceFusion: {
        // The paxml pattern: the update sits between bitcasts to a [rows, rest] view.
        Dims phys = a.Physical();
        int64_t rest = Product(phys) / phys[0];
        Dims row_dims = a.dims;
        row_dims[0] = 1;
        Val row_val{"", "f32", row_dims, a.m2m};
        Comp f{Name("fused_row_update")};
        std::string view = fmt::format("f32[{},{}]{{1,0}}", phys[0], rest);
        std::string row_view = fmt::format("f32[1,{}]{{1,0}}", rest);
        f.lines = {
            fmt::format("stash_in = {} parameter(0)", a.Shape()),
            fmt::format("stash_rows = {} bitcast(stash_in)", view),
            fmt::format("row_in = {} parameter(1)", row_val.Shape()),
            fmt::format("row = {} bitcast(row_in)", row_view),
            "slot = s32[] parameter(2)",
            "zero = s32[] constant(0)",
            fmt::format("updated_rows = {} dynamic-update-slice(stash_rows, row, slot, zero)",
                        view)};
        Finish(f, fmt::format("updated = {} bitcast(updated_rows)", a.Shape()));
        root[k] = Emit(body, "fusion", "f32", a.dims, a.m2m,
                       fmt::format("fusion({}, {}, {}), kind=kLoop, calls={}", a.name, row[k],
                                   body.counter, f.name),
                       k, false)
                      .name;
        body.stale[k] = true;
        break;
      }
      case Update::kProtected:
        root[k] = Emit(body, "updated", "f32", a.dims, a.m2m,
                       fmt::format("dynamic-update-slice({}, {}, {})", protected_copy[k], row[k],
                                   fmt::join(idx, ", ")),
                       -1, false)
                      .name;
        break;
      default:
        break;
    }
  }
  // Phase 3: reads after the updates; a protected element's old value is still intact.
  for (int k = 0; k < n; ++k) {
    if (state[k].update != Update::kProtected) continue;
    const Val& a = old[k];
    std::vector<std::string> idx = {a.name, body.counter};
    Dims row_dims = a.dims;
    row_dims[0] = 1;
    for (size_t d = 1; d < a.rank(); ++d) idx.push_back(izero);
    Val late = Emit(body, "late_row", "f32", row_dims, DefaultLayout(a.rank()),
                    fmt::format("dynamic-slice({}), dynamic_slice_sizes={{{}}}",
                                fmt::join(idx, ", "), fmt::join(row_dims, ",")));
    std::string s = ReduceToScalar(body, late);
    Val bs = Emit(body, "broadcast", "f32", a.dims, a.m2m,
                  fmt::format("broadcast({}), dimensions={{}}", s), -1, false);
    root[k] = Emit(body, "next", "f32", a.dims, a.m2m, fmt::format("add({}, {})", root[k], bs.name),
                   -1, false)
                  .name;
    needed_copies_ += 1;
  }
  EmitOps(body, options_.max_body_ops);
  // Phase 4: temporaries for swaps, then new values written straight into the state.
  std::vector<std::string> swap_temp(static_cast<size_t>(n));
  for (int k = 0; k < n; ++k)
    if (state[k].update == Update::kSwap && state[k].partner > k)
      swap_temp[k] = Emit(body, "copy", "f32", old[k].dims, old[k].m2m,
                          fmt::format("copy({})", old[k].name), -1, false)
                         .name;
  for (int k = 0; k < n; ++k) {
    if (state[k].update != Update::kDirectNew) continue;
    const Val& a = old[k];
    auto b = Pick(body, [&](const Val& v) { return v.dims == a.dims && v.alias < 0; });
    root[k] = Emit(body, "next", "f32", a.dims, a.m2m,
                   fmt::format("subtract({}, {})", a.name, b ? b->name : a.name), -1, false)
                  .name;
    body.stale[k] = true;
  }
  // Phase 5: root copies (a swap's first copy reads the partner's old value before the
  // partner's buffer is written by the second).
  for (int k = 0; k < n; ++k) {
    const Val& a = old[k];
    auto copy_of = [&](const std::string& src) {
      return Emit(body, "copy", "f32", a.dims, a.m2m, fmt::format("copy({})", src), -1, false).name;
    };
    switch (state[k].update) {
      case Update::kPass:
        root[k] = a.name;
        break;
      case Update::kCopyNew:
        root[k] = copy_of(fresh[k]);
        break;
      case Update::kProtected:
        root[k] = copy_of(root[k]);
        break;
      case Update::kSwap:
        if (state[k].partner > k) {
          int j = state[k].partner;
          root[k] = copy_of(old[j].name);
          root[j] = Emit(body, "copy", "f32", old[j].dims, old[j].m2m,
                         fmt::format("copy({})", swap_temp[k]), -1, false)
                        .name;
        }
        break;
      default:
        break;
    }
  }
  std::string one = Const(body, "s32", 1);
  std::string next_counter = Emit(body, "next_counter", "s32", {}, {},
                                  fmt::format("add({}, {})", body.counter, one), -1, false)
                                 .name;
  std::vector<std::string> roots = {next_counter};
  roots.insert(roots.end(), root.begin(), root.end());
  Finish(body, fmt::format("next_state = {} tuple({})", tuple_shape, fmt::join(roots, ", ")));

  // The loop in the entry, then reads of its results and of the values its init copied.
  std::string init_tuple = Name("init");
  entry.lines.push_back(
      fmt::format("{} = {} tuple({})", init_tuple, tuple_shape, fmt::join(init, ", ")));
  std::string config =
      rng_.Chance(50)
          ? fmt::format(
                ", backend_config=\"{{\\\"known_trip_count\\\":{{\\\"n\\\":\\\"{}\\\"}}}}\"", trips)
          : "";
  std::string loop = Name("loop");
  entry.lines.push_back(fmt::format("{} = {} while({}), condition={}, body={}{}", loop, tuple_shape,
                                    init_tuple, cond.name, body.name, config));
  for (int k = 0; k < n; ++k) {
    Val r = Emit(entry, "result", "f32", state[k].shape.dims, state[k].shape.m2m,
                 fmt::format("get-tuple-element({}), index={}", loop, k + 1));
    if (!state[k].source.empty() && state[k].update != Update::kPass && rng_.Chance(60)) {
      // Reads the entry value after the loop: the init's copy of it was needed.
      Emit(entry, "after_loop", "f32", r.dims, r.m2m,
           fmt::format("subtract({}, {})", r.name, state[k].source));
      needed_copies_ += state[k].source_read_only ? 0 : 1;
    }
  }
}

}  // namespace hloscope::differential::random_internal
