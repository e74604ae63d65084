#include "tools/hlo-gen/model.h"

#include <array>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fmt/core.h"
#include "fmt/format.h"

namespace hloscope::gen {
namespace {

using Dims = std::vector<int64_t>;

// Per-layer weights, in loop-state order.
enum Weight { kLn1G, kLn1B, kWq, kWk, kWv, kWo, kLn2G, kLn2B, kW1, kW2, kWeightCount };

// A layer's activations, in forward order. The backward pass asks for them by id; each is
// either read from a stash or recomputed from earlier ones (what --remat decides).
enum Act { kX, kLn1, kQ, kK, kV, kProbs, kCtx, kAttn, kH1, kLn2, kPre, kG, kY, kActCount };

// How a stashed activation is laid out logically; all go through the same [B,A,D,S] row.
enum class Form { kBSH, kBSAD, kBASD };

Form FormOf(Act a) {
  switch (a) {
    case kQ:
    case kK:
    case kV:
      return Form::kBSAD;
    case kCtx:
      return Form::kBASD;
    default:
      return Form::kBSH;
  }
}

std::vector<Act> StashedActs(Remat remat) {
  switch (remat) {
    case Remat::kFull:
      return {kX};
    case Remat::kOutProj:
      return {kX, kQ, kK, kV, kAttn};
    case Remat::kNone:
      return {kX, kLn1, kQ, kK, kV, kCtx, kAttn, kH1, kLn2};
  }
  return {kX};
}

std::string JoinDims(const Dims& d) { return fmt::format("{}", fmt::join(d, ",")); }

constexpr std::string_view kLayerFile = "model/transformer.py";
constexpr std::string_view kPipelineFile = "praxis/layers/pipeline.py";
constexpr std::string_view kScanFile = "flax/core/axes_scan.py";
constexpr std::string_view kHeadFile = "model/lm_head.py";

class Gen {
 public:
  Gen(const Options& o, int stage, Sink& sink)
      : o_(o),
        e_(sink, o.seed),
        t_(o.dtype),
        B(o.microbatch),
        S(o.seq),
        H(o.hidden),
        A(o.heads),
        D(o.head_dim()),
        F(o.ffn()),
        V(o.vocab()),
        M(o.microbatches),
        P(o.stages),
        Lps(o.layers_per_stage()),
        spmd_(o.layout == Layout::kSpmdCircular),
        stage_(stage),
        trip_(spmd_ ? M + P - 1 : M),
        stashed_(StashedActs(o.remat)) {}

  GenStats Run();

 private:
  // ---- shapes ----
  // An array of the model's element type (--dtype).
  GShape ModelArray(Dims d) const { return GShape::Array(t_, std::move(d)); }
  static GShape F32(Dims d) { return GShape::Array("f32", std::move(d)); }
  static GShape S32(Dims d = {}) { return GShape::Array("s32", std::move(d)); }
  static GShape Pred(Dims d = {}) { return GShape::Array("pred", std::move(d)); }
  // The stash buffer [N,1,B,S,A,D] laid out as [N,1,B,A,D,S] in memory, as in paxml issue 17.
  GShape StashBuf() const { return GShape::Array(t_, {trip_, 1, B, S, A, D}, {3, 5, 4, 2, 1, 0}); }
  GShape StashRows() const { return ModelArray({trip_, 1, B, A, D, S}); }
  GShape StashRow() const { return ModelArray({1, 1, B, A, D, S}); }
  GShape FormShape(Form f) const {
    switch (f) {
      case Form::kBSH:
        return ModelArray({B, S, H});
      case Form::kBSAD:
        return ModelArray({B, S, A, D});
      case Form::kBASD:
        return ModelArray({B, A, S, D});
    }
    return ModelArray({B, S, H});
  }
  std::vector<GShape> WeightShapes() const {
    return {ModelArray({H}),       ModelArray({H}),       ModelArray({H, A, D}),
            ModelArray({H, A, D}), ModelArray({H, A, D}), ModelArray({A, D, H}),
            ModelArray({H}),       ModelArray({H}),       ModelArray({H, F}),
            ModelArray({F, H})};
  }

  // ---- metadata ----
  // `scope` is the part after jit(train_step)/, e.g. "jvp(model)/pipeline/while/body/layer_3".
  Meta MakeMeta(std::string_view scope, std::string_view op, std::string_view file,
                int line) const {
    return Meta{fmt::format("jit(train_step)/{}/{}", scope, op), file, e_.SourceLine(file, line)};
  }
  std::string LayerScope(bool backward, int64_t layer) const {
    return fmt::format("{}/pipeline/while/body/layer_{}",
                       backward ? "transpose(jvp(model))" : "jvp(model)", layer);
  }

  // ---- building blocks ----
  Val Cvt(Comp& c, const Val& v, std::string_view type) {
    if (v.shape.type == type) return v;
    return c.Add("convert", v.shape.WithType(type), {v});
  }
  Val Bcast(Comp& c, const Val& v, const GShape& to, const Dims& dims) {
    return c.Add("broadcast", to, {v}, fmt::format("dimensions={{{}}}", JoinDims(dims)));
  }
  Val ConstB(Comp& c, std::string_view type, std::string_view literal, const GShape& to) {
    Val k = c.Constant(type, literal);
    return Bcast(c, k, to, {});
  }
  Val Reduce(Comp& c, const Val& x, std::string_view op, std::string_view init, const Dims& dims,
             const GShape& out) {
    const std::string region = e_.ScalarRegion(op, x.shape.type);
    Val z = c.Constant(x.shape.type, init);
    return c.Add("reduce", out, {x, z},
                 fmt::format("dimensions={{{}}}, to_apply={}", JoinDims(dims), region));
  }
  Val Dot(Comp& c, const Val& l, const Val& r, const GShape& out, const Dims& lb, const Dims& lc,
          const Dims& rb, const Dims& rc, const Meta& m) {
    std::string attrs;
    if (!lb.empty()) attrs += fmt::format("lhs_batch_dims={{{}}}, ", JoinDims(lb));
    attrs += fmt::format("lhs_contracting_dims={{{}}}, ", JoinDims(lc));
    if (!rb.empty()) attrs += fmt::format("rhs_batch_dims={{{}}}, ", JoinDims(rb));
    attrs += fmt::format("rhs_contracting_dims={{{}}}", JoinDims(rc));
    return c.Add("dot", out, {l, r}, attrs, &m);
  }
  // A fusion whose fused computation `body` builds from its parameters; returns the fusion.
  template <typename Fn>
  Val Fusion(Comp& c, std::string_view kind, const std::vector<Val>& ops, const Meta& m, Fn body) {
    const std::string name = e_.Name("fused_computation");
    GShape shape;
    {
      Comp f(e_, name);
      std::vector<Val> params;
      params.reserve(ops.size());
      for (size_t i = 0; i < ops.size(); ++i) {
        params.push_back(f.Param(ops[i].shape, fmt::format("param_{}", i)));
      }
      Val root = body(f, params);
      if (root.name != f.last()) {
        std::fprintf(stderr, "hlo-gen: internal error: fusion root is not last\n");
        std::abort();
      }
      shape = root.shape;
      f.Finish();
    }
    return c.Add("fusion", shape, ops, fmt::format("kind={}, calls={}", kind, name), &m);
  }
  Val Gte(Comp& c, const Val& t, int64_t i) {
    return c.Add("get-tuple-element", t.shape.elements[i], {t}, fmt::format("index={}", i));
  }
  Val Tuple(Comp& c, const std::vector<Val>& vs, const Meta* m = nullptr) {
    std::vector<GShape> shapes;
    shapes.reserve(vs.size());
    for (const Val& v : vs) shapes.push_back(v.shape);
    return c.Add("tuple", GShape::Tuple(std::move(shapes)), vs, {}, m);
  }
  Val AddFusion(Comp& c, const std::vector<Val>& ops, const Meta& m) {
    return Fusion(c, "kLoop", ops, m, [&](Comp& f, const std::vector<Val>& p) {
      Val acc = p[0];
      for (size_t i = 1; i < p.size(); ++i) acc = f.Add("add", p[0].shape, {acc, p[i]}, {}, &m);
      return acc;
    });
  }

  // ---- layer pieces ----
  struct Layer {
    int64_t index;  // in op_name
    bool backward;
    std::vector<Val> w;
    std::array<std::optional<Val>, kActCount> act;
    std::vector<std::pair<Act, Val>> stash;  // backward: buffers to read from
    Val slot;                                // backward: stash row
    Val zero;                                // s32[] 0 in the loop body
  };
  // Metadata of an op inside layer `l` (its scope and the layer source file).
  Meta LayerMeta(const Layer& l, std::string_view op, int line) const {
    return MakeMeta(LayerScope(l.backward, l.index), op, kLayerFile, line);
  }
  std::pair<Val, Val> LnStats(Comp& c, const Val& x, const Meta& m);
  Val LayerNorm(Comp& c, const Val& x, const Val& g, const Val& b, const Meta& m);
  Val Get(Comp& c, Layer& l, Act a);
  Val Compute(Comp& c, Layer& l, Act a);
  Val Unstash(Comp& c, Layer& l, Act a, const Val& buf);
  Val ToStashRow(Comp& c, const Val& v, Form form, const Meta& m);
  std::vector<Val> StashFusion(Comp& c, const std::vector<Val>& rows, const std::vector<Val>& bufs,
                               const Val& idx, const Meta& m);
  Val LnBackward(Comp& c, Layer& l, const Val& dy, const Val& x, int g_index, const Val& residual,
                 std::vector<Val>& grads, std::string_view scope);
  Val Accumulate(Comp& c, Layer& l, std::vector<Val>& grads, int w, const Val& d);
  Val LayerBackward(Comp& c, Layer& l, const Val& dy, std::vector<Val>& grads);

  // ---- loops ----
  struct State {
    Val idx;
    Val x;    // forward: activation passed between stages; backward: its gradient
    Val in;   // [M,B,S,H] read one microbatch per iteration
    Val out;  // [M,B,S,H] written one microbatch per iteration
    std::vector<Val> weights;
    std::vector<Val> stashes;
    std::vector<Val> grads;  // backward only
  };
  State ForwardIteration(Comp& c, const State& s);
  State BackwardIteration(Comp& c, const State& s);
  Val StartIteration(Comp& c, const State& s, const std::string& scope, Val in_idx, Val zero,
                     const Meta& pm);
  void FinishIteration(Comp& c, const State& s, const std::string& scope, Val value, Val in_idx,
                       Val zero, Val last_mb, bool backward, State& n);
  std::vector<Val> Flatten(const State& s) const;
  State Unflatten(Comp& c, const Val& tuple, const State& like);
  template <typename Fn>
  State Loop(Comp& entry, const State& init, bool backward, Fn iteration);

  // ---- entry ----
  Val Embed(Comp& c, const Val& tokens, const Val& table);
  struct Head {
    Val loss, d_out, d_table;
  };
  Head HeadAndLoss(Comp& c, const Val& y, const Val& tokens, const Val& table);
  Val EmbedGrad(Comp& c, const Val& tokens, const Val& d_in);

  const Options& o_;
  Emitter e_;
  std::string t_;
  const int64_t B, S, H, A, D, F, V, M, P, Lps;
  const bool spmd_;
  const int stage_;
  const int64_t trip_;
  const std::vector<Act> stashed_;
};

std::pair<Val, Val> Gen::LnStats(Comp& c, const Val& x, const Meta& m) {
  Val st = Fusion(c, "kInput", {x}, m, [&](Comp& f, const std::vector<Val>& p) {
    Val xf = Cvt(f, p[0], "f32");
    Val sq = f.Add("multiply", xf.shape, {xf, xf}, {}, &m);
    Val s1 = Reduce(f, xf, "add", "0", {2}, F32({B, S}));
    Val s2 = Reduce(f, sq, "add", "0", {2}, F32({B, S}));
    return Tuple(f, {s1, s2});
  });
  return {Gte(c, st, 0), Gte(c, st, 1)};
}

Val Gen::LayerNorm(Comp& c, const Val& x, const Val& g, const Val& b, const Meta& m) {
  auto [s1, s2] = LnStats(c, x, m);
  return Fusion(c, "kLoop", {x, s1, s2, g, b}, m, [&](Comp& f, const std::vector<Val>& p) {
    const GShape bs = F32({B, S}), bsh = F32({B, S, H});
    Val xf = Cvt(f, p[0], "f32");
    Val inv = ConstB(f, "f32", fmt::format("{}", 1.0 / static_cast<double>(H)), bs);
    Val mean = f.Add("multiply", bs, {p[1], inv}, {}, &m);
    Val msq = f.Add("multiply", bs, {p[2], inv}, {}, &m);
    Val mm = f.Add("multiply", bs, {mean, mean}, {}, &m);
    Val var = f.Add("subtract", bs, {msq, mm}, {}, &m);
    Val eps = ConstB(f, "f32", "1e-06", bs);
    Val ve = f.Add("add", bs, {var, eps}, {}, &m);
    Val r = f.Add("rsqrt", bs, {ve}, {}, &m);
    Val xc = f.Add("subtract", bsh, {xf, Bcast(f, mean, bsh, {0, 1})}, {}, &m);
    Val xn = f.Add("multiply", bsh, {xc, Bcast(f, r, bsh, {0, 1})}, {}, &m);
    Val gb = Bcast(f, Cvt(f, p[3], "f32"), bsh, {2});
    Val scaled = f.Add("multiply", bsh, {xn, gb}, {}, &m);
    Val bb = Bcast(f, Cvt(f, p[4], "f32"), bsh, {2});
    Val y = f.Add("add", bsh, {scaled, bb}, {}, &m);
    return Cvt(f, y, t_);
  });
}

Val Gen::Compute(Comp& c, Layer& l, Act a) {
  const std::vector<Val>& w = l.w;
  switch (a) {
    case kX:
      std::abort();  // the layer input is always given or stashed
    case kLn1:
      return LayerNorm(c, Get(c, l, kX), w[kLn1G], w[kLn1B], LayerMeta(l, "ln_1/layer_norm", 41));
    case kQ:
    case kK:
    case kV: {
      const int wi = a == kQ ? kWq : a == kK ? kWk : kWv;
      const char* nm = a == kQ   ? "attention/query/dot_general"
                       : a == kK ? "attention/key/dot_general"
                                 : "attention/value/dot_general";
      return Dot(c, Get(c, l, kLn1), w[wi], ModelArray({B, S, A, D}), {}, {2}, {}, {0},
                 LayerMeta(l, nm, 63));
    }
    case kProbs: {
      Val scores = Dot(c, Get(c, l, kQ), Get(c, l, kK), ModelArray({B, A, S, S}), {0, 2}, {3},
                       {0, 2}, {3}, LayerMeta(l, "attention/logits/dot_general", 71));
      const GShape bas = F32({B, A, S}), bass = F32({B, A, S, S});
      Meta m = LayerMeta(l, "attention/softmax", 74);
      Val mx = Fusion(c, "kInput", {scores}, m, [&](Comp& f, const std::vector<Val>& p) {
        return Reduce(f, Cvt(f, p[0], "f32"), "maximum", "-inf", {3}, bas);
      });
      Val ex = Fusion(c, "kLoop", {scores, mx}, m, [&](Comp& f, const std::vector<Val>& p) {
        Val sf = Cvt(f, p[0], "f32");
        Val scale =
            ConstB(f, "f32", fmt::format("{}", 1.0 / std::sqrt(static_cast<double>(D))), bass);
        Val ss = f.Add("multiply", bass, {sf, scale}, {}, &m);
        Val sub = f.Add("subtract", bass, {ss, Bcast(f, p[1], bass, {0, 1, 2})}, {}, &m);
        Val ex = f.Add("exponential", bass, {sub}, {}, &m);
        return Cvt(f, ex, t_);
      });
      Val sum = Fusion(c, "kInput", {ex}, m, [&](Comp& f, const std::vector<Val>& p) {
        return Reduce(f, Cvt(f, p[0], "f32"), "add", "0", {3}, bas);
      });
      return Fusion(c, "kLoop", {ex, sum}, m, [&](Comp& f, const std::vector<Val>& p) {
        Val ef = Cvt(f, p[0], "f32");
        Val d = f.Add("divide", bass, {ef, Bcast(f, p[1], bass, {0, 1, 2})}, {}, &m);
        return Cvt(f, d, t_);
      });
    }
    case kCtx:
      return Dot(c, Get(c, l, kProbs), Get(c, l, kV), ModelArray({B, A, S, D}), {0, 1}, {3}, {0, 2},
                 {1}, LayerMeta(l, "attention/context/dot_general", 80));
    case kAttn:
      return Dot(c, Get(c, l, kCtx), w[kWo], ModelArray({B, S, H}), {}, {1, 3}, {}, {0, 1},
                 LayerMeta(l, "attention/out_proj/dot_general", 88));
    case kH1:
      return AddFusion(c, {Get(c, l, kX), Get(c, l, kAttn)}, LayerMeta(l, "residual_1/add", 95));
    case kLn2:
      return LayerNorm(c, Get(c, l, kH1), w[kLn2G], w[kLn2B], LayerMeta(l, "ln_2/layer_norm", 41));
    case kPre:
      return Dot(c, Get(c, l, kLn2), w[kW1], ModelArray({B, S, F}), {}, {2}, {}, {0},
                 LayerMeta(l, "mlp/ffn_1/dot_general", 112));
    case kG: {
      Meta m = LayerMeta(l, "mlp/gelu", 115);
      return Fusion(c, "kLoop", {Get(c, l, kPre)}, m, [&](Comp& f, const std::vector<Val>& p) {
        const GShape bsf = F32({B, S, F});
        Val x = Cvt(f, p[0], "f32");
        Val x2 = f.Add("multiply", bsf, {x, x}, {}, &m);
        Val x3 = f.Add("multiply", bsf, {x2, x}, {}, &m);
        Val k3 = f.Add("multiply", bsf, {x3, ConstB(f, "f32", "0.044715", bsf)}, {}, &m);
        Val in = f.Add("add", bsf, {x, k3}, {}, &m);
        Val sc = f.Add("multiply", bsf, {in, ConstB(f, "f32", "0.797884583", bsf)}, {}, &m);
        Val th = f.Add("tanh", bsf, {sc}, {}, &m);
        Val one = f.Add("add", bsf, {th, ConstB(f, "f32", "1", bsf)}, {}, &m);
        Val hx = f.Add("multiply", bsf, {x, ConstB(f, "f32", "0.5", bsf)}, {}, &m);
        Val y = f.Add("multiply", bsf, {hx, one}, {}, &m);
        return Cvt(f, y, t_);
      });
    }
    case kY: {
      Val mlp = Dot(c, Get(c, l, kG), w[kW2], ModelArray({B, S, H}), {}, {2}, {}, {0},
                    LayerMeta(l, "mlp/ffn_2/dot_general", 118));
      return AddFusion(c, {Get(c, l, kH1), mlp}, LayerMeta(l, "residual_2/add", 121));
    }
    case kActCount:
      break;
  }
  std::abort();
}

Val Gen::Get(Comp& c, Layer& l, Act a) {
  if (l.act[a].has_value()) return *l.act[a];
  for (const auto& [sa, buf] : l.stash) {
    if (sa == a) {
      l.act[a] = Unstash(c, l, a, buf);
      return *l.act[a];
    }
  }
  l.act[a] = Compute(c, l, a);
  return *l.act[a];
}

// [B,S,H] / [B,S,A,D] / [B,A,S,D] → the stash row [B,A,D,S]: the transpose XLA's layout
// assignment leaves in a loop fusion before the stash.
Val Gen::ToStashRow(Comp& c, const Val& v, Form form, const Meta& m) {
  return Fusion(c, "kLoop", {v}, m, [&](Comp& f, const std::vector<Val>& p) {
    Val x = p[0];
    if (form == Form::kBSH) x = f.Add("bitcast", ModelArray({B, S, A, D}), {x});
    const Dims perm = form == Form::kBASD ? Dims{0, 1, 3, 2} : Dims{0, 2, 3, 1};
    return f.Add("transpose", ModelArray({B, A, D, S}), {x},
                 fmt::format("dimensions={{{}}}", JoinDims(perm)), &m);
  });
}

// One multi-output loop fusion that writes row `idx` of every buffer: for each stash a
// dynamic-update-slice between bitcasts, as in google/paxml issue 17.
std::vector<Val> Gen::StashFusion(Comp& c, const std::vector<Val>& rows,
                                  const std::vector<Val>& bufs, const Val& idx, const Meta& m) {
  std::vector<Val> ops;
  for (size_t j = 0; j < rows.size(); ++j) {
    ops.push_back(rows[j]);
    ops.push_back(bufs[j]);
    if (j == 0) ops.push_back(idx);
  }
  const size_t n = rows.size();
  Meta rem = m;
  rem.op_name = MakeMeta("jvp(model)", "pipeline/while/body/pipeline._get_iteration_inputs/rem",
                         kPipelineFile, 422)
                    .op_name;
  rem.source_file = kPipelineFile;
  Val fusion = Fusion(c, "kLoop", ops, m, [&](Comp& f, const std::vector<Val>& p) {
    auto row_param = [&](size_t j) { return p[j == 0 ? 0 : 3 + 2 * (j - 1)]; };
    auto buf_param = [&](size_t j) { return p[j == 0 ? 1 : 4 + 2 * (j - 1)]; };
    Val zero = f.Constant("s32", "0");
    Val neg = f.Add("compare", Pred(), {p[2], zero}, "direction=LT", &rem);
    Val n_rows = f.Constant("s32", fmt::format("{}", trip_));
    Val wrapped = f.Add("add", S32(), {p[2], n_rows}, {}, &rem);
    Val sel = f.Add("select", S32(), {neg, wrapped, p[2]}, {}, &rem);
    std::vector<Val> outs;
    for (size_t j = 0; j < n; ++j) {
      Val rows_view = f.Add("bitcast", StashRows(), {buf_param(j)});
      Val row = f.Add("bitcast", StashRow(), {row_param(j)});
      Val dus = f.Add("dynamic-update-slice", StashRows(),
                      {rows_view, row, sel, zero, zero, zero, zero, zero}, {}, &m);
      outs.push_back(f.Add("bitcast", StashBuf(), {dus}, {}, &m));
    }
    return n == 1 ? outs[0] : Tuple(f, outs);
  });
  std::vector<Val> result;
  for (size_t j = 0; j < n; ++j) {
    Val out = n == 1 ? fusion : Gte(c, fusion, static_cast<int64_t>(j));
    // Copy insertion: XLA cannot prove the bitcast DUS in place, so it copies the buffer.
    if (o_.xla_copies) out = c.Add("copy", StashBuf(), {out});
    result.push_back(out);
  }
  return result;
}

Val Gen::Unstash(Comp& c, Layer& l, Act a, const Val& buf) {
  Meta m = MakeMeta(LayerScope(true, l.index), "pipeline/dynamic_slice", kScanFile, 148);
  Val z = l.zero;
  Val row = c.Add("dynamic-slice", GShape::Array(t_, {1, 1, B, S, A, D}, {3, 5, 4, 2, 1, 0}),
                  {buf, l.slot, z, z, z, z, z},
                  fmt::format("dynamic_slice_sizes={{1,1,{},{},{},{}}}", B, S, A, D), &m);
  const Form form = FormOf(a);
  return Fusion(c, "kLoop", {row}, m, [&](Comp& f, const std::vector<Val>& p) {
    Val x = f.Add("bitcast", ModelArray({B, A, D, S}), {p[0]});
    if (form == Form::kBASD) {
      return f.Add("transpose", ModelArray({B, A, S, D}), {x}, "dimensions={0,1,3,2}", &m);
    }
    Val t = f.Add("transpose", ModelArray({B, S, A, D}), {x}, "dimensions={0,3,1,2}", &m);
    if (form == Form::kBSAD) return t;
    return f.Add("bitcast", ModelArray({B, S, H}), {t});
  });
}

Val Gen::Accumulate(Comp& c, Layer& l, std::vector<Val>& grads, int w, const Val& d) {
  grads[w] = AddFusion(c, {grads[w], d}, LayerMeta(l, "grad_accumulation/add", 140));
  return grads[w];
}

// Layer-norm backward: statistics fusion, input-gradient fusion (plus the residual
// gradient) and the gamma/beta gradient reduction accumulated into grads.
Val Gen::LnBackward(Comp& c, Layer& l, const Val& dy, const Val& x, int g_index,
                    const Val& residual, std::vector<Val>& grads, std::string_view scope) {
  Meta m = LayerMeta(l, fmt::format("{}/layer_norm", scope), 41);
  const GShape bs = F32({B, S}), bsh = F32({B, S, H});
  Val st = Fusion(c, "kInput", {dy, x, l.w[g_index]}, m, [&](Comp& f, const std::vector<Val>& p) {
    Val df = Cvt(f, p[0], "f32");
    Val xf = Cvt(f, p[1], "f32");
    Val gy = f.Add("multiply", bsh, {df, Bcast(f, Cvt(f, p[2], "f32"), bsh, {2})}, {}, &m);
    Val gyx = f.Add("multiply", bsh, {gy, xf}, {}, &m);
    Val sq = f.Add("multiply", bsh, {xf, xf}, {}, &m);
    Val r1 = Reduce(f, xf, "add", "0", {2}, bs);
    Val r2 = Reduce(f, sq, "add", "0", {2}, bs);
    Val r3 = Reduce(f, gy, "add", "0", {2}, bs);
    Val r4 = Reduce(f, gyx, "add", "0", {2}, bs);
    return Tuple(f, {r1, r2, r3, r4});
  });
  std::vector<Val> s;
  for (int i = 0; i < 4; ++i) s.push_back(Gte(c, st, i));
  auto norm = [&](Comp& f, const Val& xp, const Val& s1, const Val& s2, Val* r_out) {
    Val inv = ConstB(f, "f32", fmt::format("{}", 1.0 / static_cast<double>(H)), bs);
    Val mean = f.Add("multiply", bs, {s1, inv}, {}, &m);
    Val msq = f.Add("multiply", bs, {s2, inv}, {}, &m);
    Val var = f.Add("subtract", bs, {msq, f.Add("multiply", bs, {mean, mean}, {}, &m)}, {}, &m);
    Val r = f.Add("rsqrt", bs, {f.Add("add", bs, {var, ConstB(f, "f32", "1e-06", bs)}, {}, &m)}, {},
                  &m);
    if (r_out != nullptr) *r_out = r;
    Val xc = f.Add("subtract", bsh, {Cvt(f, xp, "f32"), Bcast(f, mean, bsh, {0, 1})}, {}, &m);
    return f.Add("multiply", bsh, {xc, Bcast(f, r, bsh, {0, 1})}, {}, &m);
  };
  Val dx = Fusion(c, "kLoop", {dy, x, l.w[g_index], s[0], s[1], s[2], s[3], residual}, m,
                  [&](Comp& f, const std::vector<Val>& p) {
                    Val r;
                    Val xn = norm(f, p[1], p[3], p[4], &r);
                    Val inv = ConstB(f, "f32", fmt::format("{}", 1.0 / static_cast<double>(H)), bs);
                    Val mgy = f.Add("multiply", bs, {p[5], inv}, {}, &m);
                    Val mgyx = f.Add("multiply", bs, {p[6], inv}, {}, &m);
                    Val gb = Bcast(f, Cvt(f, p[2], "f32"), bsh, {2});
                    Val gy = f.Add("multiply", bsh, {Cvt(f, p[0], "f32"), gb}, {}, &m);
                    Val t1 = f.Add("subtract", bsh, {gy, Bcast(f, mgy, bsh, {0, 1})}, {}, &m);
                    Val t2 = f.Add("multiply", bsh, {xn, Bcast(f, mgyx, bsh, {0, 1})}, {}, &m);
                    Val t3 = f.Add("subtract", bsh, {t1, t2}, {}, &m);
                    Val t4 = f.Add("multiply", bsh, {t3, Bcast(f, r, bsh, {0, 1})}, {}, &m);
                    Val sum = f.Add("add", bsh, {t4, Cvt(f, p[7], "f32")}, {}, &m);
                    return Cvt(f, sum, t_);
                  });
  const int b_index = g_index + 1;
  Val pg = Fusion(c, "kInput", {dy, x, s[0], s[1], grads[g_index], grads[b_index]}, m,
                  [&](Comp& f, const std::vector<Val>& p) {
                    Val xn = norm(f, p[1], p[2], p[3], nullptr);
                    Val df = Cvt(f, p[0], "f32");
                    Val prod = f.Add("multiply", bsh, {df, xn}, {}, &m);
                    Val dg = Reduce(f, prod, "add", "0", {0, 1}, F32({H}));
                    Val db = Reduce(f, df, "add", "0", {0, 1}, F32({H}));
                    Val ng = f.Add("add", F32({H}), {Cvt(f, p[4], "f32"), dg}, {}, &m);
                    Val nb = f.Add("add", F32({H}), {Cvt(f, p[5], "f32"), db}, {}, &m);
                    return Tuple(f, {Cvt(f, ng, t_), Cvt(f, nb, t_)});
                  });
  grads[g_index] = Gte(c, pg, 0);
  grads[b_index] = Gte(c, pg, 1);
  return dx;
}

Val Gen::LayerBackward(Comp& c, Layer& l, const Val& dy, std::vector<Val>& grads) {
  const std::vector<Val>& w = l.w;
  // MLP.
  Val g = Get(c, l, kG);
  Accumulate(c, l, grads, kW2,
             Dot(c, g, dy, ModelArray({F, H}), {}, {0, 1}, {}, {0, 1},
                 LayerMeta(l, "mlp/ffn_2/dot_general", 118)));
  Val dg = Dot(c, dy, w[kW2], ModelArray({B, S, F}), {}, {2}, {}, {1},
               LayerMeta(l, "mlp/ffn_2/dot_general", 118));
  Meta gm = LayerMeta(l, "mlp/gelu", 115);
  Val dpre = Fusion(c, "kLoop", {dg, Get(c, l, kPre)}, gm, [&](Comp& f, const std::vector<Val>& p) {
    const GShape bsf = F32({B, S, F});
    Val x = Cvt(f, p[1], "f32");
    Val x3 = f.Add("multiply", bsf, {f.Add("multiply", bsf, {x, x}, {}, &gm), x}, {}, &gm);
    Val in = f.Add("add", bsf,
                   {x, f.Add("multiply", bsf, {x3, ConstB(f, "f32", "0.044715", bsf)}, {}, &gm)},
                   {}, &gm);
    Val th = f.Add("tanh", bsf,
                   {f.Add("multiply", bsf, {in, ConstB(f, "f32", "0.797884583", bsf)}, {}, &gm)},
                   {}, &gm);
    Val half = ConstB(f, "f32", "0.5", bsf);
    Val a = f.Add("multiply", bsf,
                  {f.Add("add", bsf, {th, ConstB(f, "f32", "1", bsf)}, {}, &gm), half}, {}, &gm);
    Val sech =
        f.Add("subtract", bsf,
              {ConstB(f, "f32", "1", bsf), f.Add("multiply", bsf, {th, th}, {}, &gm)}, {}, &gm);
    Val b = f.Add("multiply", bsf, {f.Add("multiply", bsf, {x, half}, {}, &gm), sech}, {}, &gm);
    Val d = f.Add("add", bsf, {a, b}, {}, &gm);
    Val r = f.Add("multiply", bsf, {d, Cvt(f, p[0], "f32")}, {}, &gm);
    return Cvt(f, r, t_);
  });
  Accumulate(c, l, grads, kW1,
             Dot(c, Get(c, l, kLn2), dpre, ModelArray({H, F}), {}, {0, 1}, {}, {0, 1},
                 LayerMeta(l, "mlp/ffn_1/dot_general", 112)));
  Val dln2 = Dot(c, dpre, w[kW1], ModelArray({B, S, H}), {}, {2}, {}, {1},
                 LayerMeta(l, "mlp/ffn_1/dot_general", 112));
  Val dh1 = LnBackward(c, l, dln2, Get(c, l, kH1), kLn2G, dy, grads, "ln_2");
  // Attention.
  Accumulate(c, l, grads, kWo,
             Dot(c, Get(c, l, kCtx), dh1, ModelArray({A, D, H}), {}, {0, 2}, {}, {0, 1},
                 LayerMeta(l, "attention/out_proj/dot_general", 88)));
  Val dctx = Dot(c, dh1, w[kWo], ModelArray({B, S, A, D}), {}, {2}, {}, {2},
                 LayerMeta(l, "attention/out_proj/dot_general", 88));
  Val probs = Get(c, l, kProbs);
  Val dprobs = Dot(c, dctx, Get(c, l, kV), ModelArray({B, A, S, S}), {0, 2}, {3}, {0, 2}, {3},
                   LayerMeta(l, "attention/context/dot_general", 80));
  Val dv = Dot(c, probs, dctx, ModelArray({B, A, S, D}), {0, 1}, {2}, {0, 2}, {1},
               LayerMeta(l, "attention/context/dot_general", 80));
  Meta sm = LayerMeta(l, "attention/softmax", 74);
  const GShape bass = F32({B, A, S, S});
  Val sg = Fusion(c, "kInput", {dprobs, probs}, sm, [&](Comp& f, const std::vector<Val>& p) {
    Val prod = f.Add("multiply", bass, {Cvt(f, p[0], "f32"), Cvt(f, p[1], "f32")}, {}, &sm);
    return Reduce(f, prod, "add", "0", {3}, F32({B, A, S}));
  });
  Val dscores =
      Fusion(c, "kLoop", {dprobs, probs, sg}, sm, [&](Comp& f, const std::vector<Val>& p) {
        Val diff = f.Add("subtract", bass, {Cvt(f, p[0], "f32"), Bcast(f, p[2], bass, {0, 1, 2})},
                         {}, &sm);
        Val prod = f.Add("multiply", bass, {diff, Cvt(f, p[1], "f32")}, {}, &sm);
        Val scale =
            ConstB(f, "f32", fmt::format("{}", 1.0 / std::sqrt(static_cast<double>(D))), bass);
        return Cvt(f, f.Add("multiply", bass, {prod, scale}, {}, &sm), t_);
      });
  Val dq = Dot(c, dscores, Get(c, l, kK), ModelArray({B, A, S, D}), {0, 1}, {3}, {0, 2}, {1},
               LayerMeta(l, "attention/logits/dot_general", 71));
  Val dk = Dot(c, dscores, Get(c, l, kQ), ModelArray({B, A, S, D}), {0, 1}, {2}, {0, 2}, {1},
               LayerMeta(l, "attention/logits/dot_general", 71));
  Val ln1 = Get(c, l, kLn1);
  const std::array<std::pair<int, Val>, 3> qkv = {{{kWq, dq}, {kWk, dk}, {kWv, dv}}};
  std::vector<Val> dln1_parts;
  for (const auto& [wi, d] : qkv) {
    Accumulate(c, l, grads, wi,
               Dot(c, ln1, d, ModelArray({H, A, D}), {}, {0, 1}, {}, {0, 2},
                   LayerMeta(l, "attention/qkv/dot_general", 63)));
    dln1_parts.push_back(Dot(c, d, w[wi], ModelArray({B, S, H}), {}, {1, 3}, {}, {1, 2},
                             LayerMeta(l, "attention/qkv/dot_general", 63)));
  }
  Val dln1 = AddFusion(c, dln1_parts, LayerMeta(l, "attention/qkv/add_any", 63));
  return LnBackward(c, l, dln1, Get(c, l, kX), kLn1G, dh1, grads, "ln_1");
}

// ---- loops ----

std::vector<Val> Gen::Flatten(const State& s) const {
  std::vector<Val> v = {s.idx, s.x, s.in, s.out};
  v.insert(v.end(), s.weights.begin(), s.weights.end());
  v.insert(v.end(), s.stashes.begin(), s.stashes.end());
  v.insert(v.end(), s.grads.begin(), s.grads.end());
  return v;
}

Gen::State Gen::Unflatten(Comp& c, const Val& tuple, const State& like) {
  State s;
  int64_t i = 0;
  s.idx = Gte(c, tuple, i++);
  s.x = Gte(c, tuple, i++);
  s.in = Gte(c, tuple, i++);
  s.out = Gte(c, tuple, i++);
  for (size_t k = 0; k < like.weights.size(); ++k) s.weights.push_back(Gte(c, tuple, i++));
  for (size_t k = 0; k < like.stashes.size(); ++k) s.stashes.push_back(Gte(c, tuple, i++));
  for (size_t k = 0; k < like.grads.size(); ++k) s.grads.push_back(Gte(c, tuple, i++));
  return s;
}

template <typename Fn>
Gen::State Gen::Loop(Comp& entry, const State& init, bool backward, Fn iteration) {
  const std::string scope = backward ? "transpose(jvp(model))" : "jvp(model)";
  if (o_.unroll) {
    State s = init;
    for (int64_t i = 0; i < trip_; ++i) {
      s.idx = entry.Constant("s32", fmt::format("{}", i));
      s = iteration(entry, s);
    }
    return s;
  }
  const Val init_tuple = Tuple(entry, Flatten(init));
  const GShape& shape = init_tuple.shape;
  std::string cond_name, body_name;
  {
    Comp cond(e_, e_.Name(backward ? "bwd_condition" : "fwd_condition"));
    Val p = cond.Param(shape, "param");
    Val idx = Gte(cond, p, 0);
    Val n = cond.Constant("s32", fmt::format("{}", trip_));
    cond.Add("compare", Pred(), {idx, n}, "direction=LT");
    cond.Finish();
    cond_name = cond.name();
  }
  {
    Comp body(e_, e_.Name(backward ? "bwd_body" : "fwd_body"));
    Val p = body.Param(shape, "param");
    State s = iteration(body, Unflatten(body, p, init));
    Meta m = MakeMeta(scope, "pipeline/while/body/closed_call", kScanFile, 148);
    Tuple(body, Flatten(s), &m);
    body.Finish();
    body_name = body.name();
  }
  Meta m = MakeMeta(scope, "pipeline/while", kScanFile, 148);
  Val w = entry.Add("while", shape, {init_tuple},
                    fmt::format("condition={}, body={}, "
                                "backend_config={{\"known_trip_count\":{{\"n\":\"{}\"}}}}",
                                cond_name, body_name, trip_),
                    &m);
  return Unflatten(entry, w, init);
}

std::string PermutePairs(int64_t p, bool backward) {
  std::string out;
  for (int64_t i = 0; i < p; ++i) {
    if (i > 0) out += ',';
    const int64_t next = (i + 1) % p;
    out += backward ? fmt::format("{{{},{}}}", next, i) : fmt::format("{{{},{}}}", i, next);
  }
  return out;
}

// The start of one loop iteration, forward and backward alike: read this step's row of the
// input buffer at `in_idx`. Under spmd, stage 0 takes a new microbatch while there are any and
// the other stages keep the activation rotated in from their neighbour.
Val Gen::StartIteration(Comp& c, const State& s, const std::string& scope, Val in_idx, Val zero,
                        const Meta& pm) {
  Val slice = c.Add("dynamic-slice", ModelArray({1, B, S, H}), {s.in, in_idx, zero, zero, zero},
                    fmt::format("dynamic_slice_sizes={{1,{},{},{}}}", B, S, H), &pm);
  if (!spmd_) return c.Add("bitcast", ModelArray({B, S, H}), {slice});
  Meta sm = MakeMeta(scope, "pipeline/while/body/select_n", kPipelineFile, 440);
  return Fusion(c, "kLoop", {slice, s.x, s.idx}, sm, [&](Comp& f, const std::vector<Val>& p) {
    Val in = f.Add("bitcast", ModelArray({B, S, H}), {p[0]});
    Val lt = f.Add("compare", Pred(), {p[2], f.Constant("s32", fmt::format("{}", M))},
                   "direction=LT", &sm);
    Val pb = Bcast(f, lt, Pred({B, S, H}), {});
    return f.Add("select", ModelArray({B, S, H}), {pb, in, p[1]}, {}, &sm);
  });
}

// The end of one loop iteration, forward and backward alike: write this stage's output row
// (one step behind under spmd, as the pipeline lags by one stage per step), pass the
// activation to the next stage (collective-permute under spmd; forward and backward go in
// opposite directions on separate channels) and advance the loop index.
void Gen::FinishIteration(Comp& c, const State& s, const std::string& scope, Val value, Val in_idx,
                          Val zero, Val last_mb, bool backward, State& n) {
  Meta om = MakeMeta(scope, "pipeline/while/body/dynamic_update_slice", kPipelineFile, 452);
  Val out_idx = in_idx;
  if (spmd_) {
    Val lag =
        c.Add("subtract", S32(), {s.idx, c.Constant("s32", fmt::format("{}", P - 1))}, {}, &om);
    out_idx = c.Add("clamp", S32(), {zero, lag, last_mb}, {}, &om);
  }
  Val row = c.Add("bitcast", ModelArray({1, B, S, H}), {value});
  n.out =
      c.Add("dynamic-update-slice", s.out.shape, {s.out, row, out_idx, zero, zero, zero}, {}, &om);
  if (spmd_) {
    Meta cm = MakeMeta(scope, "pipeline/while/body/ppermute", kPipelineFile, 460);
    n.x = c.Add("collective-permute", ModelArray({B, S, H}), {value},
                fmt::format("channel_id={}, source_target_pairs={{{}}}", backward ? 2 : 1,
                            PermutePairs(P, backward)),
                &cm);
  } else {
    n.x = value;
  }
  Meta am = MakeMeta(scope, "pipeline/while/body/add", kPipelineFile, 470);
  n.idx = c.Add("add", S32(), {s.idx, c.Constant("s32", "1")}, {}, &am);
}

Gen::State Gen::ForwardIteration(Comp& c, const State& s) {
  const std::string scope = "jvp(model)";
  Meta pm = MakeMeta(scope, "pipeline/while/body/dynamic_slice", kPipelineFile, 431);
  State n = s;
  Val zero = c.Constant("s32", "0");
  Val last_mb = c.Constant("s32", fmt::format("{}", M - 1));
  Val in_idx = c.Add("clamp", S32(), {zero, s.idx, last_mb}, {}, &pm);
  Val x = StartIteration(c, s, scope, in_idx, zero, pm);
  const size_t per_layer = stashed_.size();
  for (int64_t j = 0; j < Lps; ++j) {
    Layer l;
    l.index = spmd_ ? j : stage_ * Lps + j;
    l.backward = false;
    l.w.assign(s.weights.begin() + j * kWeightCount, s.weights.begin() + (j + 1) * kWeightCount);
    l.act[kX] = x;
    Val y = Get(c, l, kY);
    Meta stm =
        MakeMeta(LayerScope(false, l.index), "pipeline/dynamic_update_slice", kScanFile, 148);
    std::vector<Val> rows, bufs;
    for (size_t k = 0; k < per_layer; ++k) {
      rows.push_back(ToStashRow(c, *l.act[stashed_[k]], FormOf(stashed_[k]), stm));
      bufs.push_back(s.stashes[j * per_layer + k]);
    }
    std::vector<Val> outs = StashFusion(c, rows, bufs, s.idx, stm);
    for (size_t k = 0; k < per_layer; ++k) n.stashes[j * per_layer + k] = outs[k];
    x = y;
  }
  FinishIteration(c, s, scope, x, in_idx, zero, last_mb, /*backward=*/false, n);
  return n;
}

Gen::State Gen::BackwardIteration(Comp& c, const State& s) {
  const std::string scope = "transpose(jvp(model))";
  Meta pm = MakeMeta(scope, "pipeline/while/body/dynamic_slice", kPipelineFile, 431);
  State n = s;
  Val zero = c.Constant("s32", "0");
  Val last_mb = c.Constant("s32", fmt::format("{}", M - 1));
  // Microbatches come back in reverse order; so are the stash rows.
  Val slot =
      c.Add("subtract", S32(), {c.Constant("s32", fmt::format("{}", trip_ - 1)), s.idx}, {}, &pm);
  Val in_idx = c.Add("clamp", S32(), {zero, spmd_ ? s.idx : slot, last_mb}, {}, &pm);
  Val dy = StartIteration(c, s, scope, in_idx, zero, pm);
  const size_t per_layer = stashed_.size();
  for (int64_t j = Lps - 1; j >= 0; --j) {
    Layer l;
    l.index = spmd_ ? j : stage_ * Lps + j;
    l.backward = true;
    l.w.assign(s.weights.begin() + j * kWeightCount, s.weights.begin() + (j + 1) * kWeightCount);
    for (size_t k = 0; k < per_layer; ++k) {
      l.stash.emplace_back(stashed_[k], s.stashes[j * per_layer + k]);
    }
    l.slot = slot;
    l.zero = zero;
    std::vector<Val> grads(n.grads.begin() + j * kWeightCount,
                           n.grads.begin() + (j + 1) * kWeightCount);
    dy = LayerBackward(c, l, dy, grads);
    for (int k = 0; k < kWeightCount; ++k) n.grads[j * kWeightCount + k] = grads[k];
  }
  FinishIteration(c, s, scope, dy, in_idx, zero, last_mb, /*backward=*/true, n);
  return n;
}

// ---- entry pieces ----

Val Gen::Embed(Comp& c, const Val& tokens, const Val& table) {
  Meta m = MakeMeta("jvp(model)", "embed/gather", kHeadFile, 21);
  Val ids = c.Add("reshape", S32({M, B, S, 1}), {tokens}, {}, &m);
  return c.Add("gather", ModelArray({M, B, S, H}), {table, ids},
               fmt::format("offset_dims={{3}}, collapsed_slice_dims={{0}}, start_index_map={{0}}, "
                           "index_vector_dim=3, slice_sizes={{1,{}}}",
                           H),
               &m);
}

Gen::Head Gen::HeadAndLoss(Comp& c, const Val& y, const Val& tokens, const Val& table) {
  const GShape mbsv = F32({M, B, S, V}), mbs = F32({M, B, S});
  Meta hm = MakeMeta("jvp(model)", "head/logits/dot_general", kHeadFile, 40);
  Val logits = Dot(c, y, table, ModelArray({M, B, S, V}), {}, {3}, {}, {1}, hm);
  Meta lm = MakeMeta("jvp(model)", "loss/log_softmax", kHeadFile, 52);
  Val mx = Fusion(c, "kInput", {logits}, lm, [&](Comp& f, const std::vector<Val>& p) {
    return Reduce(f, Cvt(f, p[0], "f32"), "maximum", "-inf", {3}, mbs);
  });
  Val lse = Fusion(c, "kInput", {logits, mx}, lm, [&](Comp& f, const std::vector<Val>& p) {
    Val sub =
        f.Add("subtract", mbsv, {Cvt(f, p[0], "f32"), Bcast(f, p[1], mbsv, {0, 1, 2})}, {}, &lm);
    Val ex = f.Add("exponential", mbsv, {sub}, {}, &lm);
    return Reduce(f, ex, "add", "0", {3}, mbs);
  });
  auto onehot = [&](Comp& f, const Val& tok) {
    Val iota = f.Add("iota", S32({M, B, S, V}), {}, "iota_dimension=3");
    Val tb = Bcast(f, tok, S32({M, B, S, V}), {0, 1, 2});
    return f.Add("compare", Pred({M, B, S, V}), {iota, tb}, "direction=EQ", &lm);
  };
  Meta nm = MakeMeta("jvp(model)", "loss/cross_entropy", kHeadFile, 57);
  Val loss =
      Fusion(c, "kInput", {logits, tokens, mx, lse}, nm, [&](Comp& f, const std::vector<Val>& p) {
        Val eq = onehot(f, p[1]);
        Val lf = Cvt(f, p[0], "f32");
        Val picked = f.Add("select", mbsv, {eq, lf, ConstB(f, "f32", "0", mbsv)}, {}, &nm);
        Val pk = Reduce(f, picked, "add", "0", {3}, mbs);
        Val lg = f.Add("log", mbs, {p[3]}, {}, &nm);
        Val nll = f.Add("subtract", mbs, {f.Add("add", mbs, {lg, p[2]}, {}, &nm), pk}, {}, &nm);
        Val total = Reduce(f, nll, "add", "0", {0, 1, 2}, F32({}));
        Val k = f.Constant("f32", fmt::format("{}", 1.0 / static_cast<double>(M * B * S)));
        return f.Add("multiply", F32({}), {total, k}, {}, &nm);
      });
  Meta bm = MakeMeta("transpose(jvp(model))", "loss/cross_entropy", kHeadFile, 57);
  Val dlogits =
      Fusion(c, "kLoop", {logits, tokens, mx, lse}, bm, [&](Comp& f, const std::vector<Val>& p) {
        Val eq = onehot(f, p[1]);
        Val sub = f.Add("subtract", mbsv, {Cvt(f, p[0], "f32"), Bcast(f, p[2], mbsv, {0, 1, 2})},
                        {}, &bm);
        Val ex = f.Add("exponential", mbsv, {sub}, {}, &bm);
        Val sm = f.Add("divide", mbsv, {ex, Bcast(f, p[3], mbsv, {0, 1, 2})}, {}, &bm);
        Val oh = f.Add("convert", mbsv, {eq});
        Val d = f.Add("subtract", mbsv, {sm, oh}, {}, &bm);
        Val k = ConstB(f, "f32", fmt::format("{}", 1.0 / static_cast<double>(M * B * S)), mbsv);
        return Cvt(f, f.Add("multiply", mbsv, {d, k}, {}, &bm), t_);
      });
  Meta hb = MakeMeta("transpose(jvp(model))", "head/logits/dot_general", kHeadFile, 40);
  Head h;
  h.loss = loss;
  h.d_out = Dot(c, dlogits, table, ModelArray({M, B, S, H}), {}, {3}, {}, {0}, hb);
  h.d_table = Dot(c, dlogits, y, ModelArray({V, H}), {}, {0, 1, 2}, {}, {0, 1, 2}, hb);
  return h;
}

Val Gen::EmbedGrad(Comp& c, const Val& tokens, const Val& d_in) {
  Meta m = MakeMeta("transpose(jvp(model))", "embed/gather", kHeadFile, 21);
  Val oh = Fusion(c, "kLoop", {tokens}, m, [&](Comp& f, const std::vector<Val>& p) {
    Val iota = f.Add("iota", S32({M, B, S, V}), {}, "iota_dimension=3");
    Val tb = Bcast(f, p[0], S32({M, B, S, V}), {0, 1, 2});
    Val eq = f.Add("compare", Pred({M, B, S, V}), {iota, tb}, "direction=EQ", &m);
    return f.Add("convert", ModelArray({M, B, S, V}), {eq}, {}, &m);
  });
  return Dot(c, oh, d_in, ModelArray({V, H}), {}, {0, 1, 2}, {}, {0, 1, 2}, m);
}

GenStats Gen::Run() {
  const std::string module_name =
      spmd_ ? std::string("jit_train_step") : fmt::format("jit_train_step_stage_{}", stage_);
  e_.sink().Write(
      fmt::format("HloModule {}{}\n\n", module_name, o_.scheduled ? ", is_scheduled=true" : ""));
  const bool first = spmd_ || stage_ == 0;
  const bool last = spmd_ || stage_ == P - 1;
  Comp entry(e_, e_.Name("main"), /*is_entry=*/true);
  int arg = 0;
  auto param = [&](const GShape& s) { return entry.Param(s, fmt::format("Arg_{}", arg++)); };
  std::optional<Val> tokens, table;
  if (first || last) {
    tokens = param(S32({M, B, S}));
    table = param(ModelArray({V, H}));
  }
  std::optional<Val> acts_in, grads_in;
  if (!first) acts_in = param(ModelArray({M, B, S, H}));
  if (!last) grads_in = param(ModelArray({M, B, S, H}));
  State fwd;
  for (int64_t j = 0; j < Lps; ++j) {
    for (const GShape& ws : WeightShapes()) fwd.weights.push_back(param(ws));
  }
  Val zero = entry.Constant("s32", "0");
  Meta im = MakeMeta("jvp(model)", "pipeline/broadcast_in_dim", kPipelineFile, 400);
  Val fzero = entry.Constant(t_, "0");
  Val zeros_act = Bcast(entry, fzero, ModelArray({M, B, S, H}), {});
  Val zeros_x = Bcast(entry, fzero, ModelArray({B, S, H}), {});
  for (int64_t j = 0; j < Lps; ++j) {
    for (size_t k = 0; k < stashed_.size(); ++k) {
      fwd.stashes.push_back(entry.Add("broadcast", StashBuf(), {fzero}, "dimensions={}", &im));
    }
  }
  fwd.idx = zero;
  fwd.x = zeros_x;
  fwd.in = first ? Embed(entry, *tokens, *table) : *acts_in;
  fwd.out = zeros_act;
  State f =
      Loop(entry, fwd, false, [&](Comp& c, const State& s) { return ForwardIteration(c, s); });

  std::vector<Val> results;
  State bwd;
  bwd.idx = zero;
  std::optional<Head> head;
  if (last) {
    head = HeadAndLoss(entry, f.out, *tokens, *table);
    results.push_back(head->loss);
    bwd.in = head->d_out;
  } else {
    results.push_back(f.out);  // sent to the next stage
    bwd.in = *grads_in;
  }
  // Fresh zeros for the backward loop: two loops that took the same init value would share
  // one state buffer, which XLA's copy insertion never leaves in its output.
  bwd.x = Bcast(entry, fzero, ModelArray({B, S, H}), {});
  bwd.out = Bcast(entry, fzero, ModelArray({M, B, S, H}), {});
  bwd.weights = f.weights;
  bwd.stashes = f.stashes;
  for (int64_t j = 0; j < Lps; ++j) {
    for (const GShape& ws : WeightShapes()) bwd.grads.push_back(Bcast(entry, fzero, ws, {}));
  }
  State b =
      Loop(entry, bwd, true, [&](Comp& c, const State& s) { return BackwardIteration(c, s); });
  if (first) {
    Val d_table = EmbedGrad(entry, *tokens, b.out);
    if (head.has_value()) {
      d_table = AddFusion(entry, {d_table, head->d_table},
                          MakeMeta("transpose(jvp(model))", "embed/add_any", kHeadFile, 21));
    }
    results.push_back(d_table);
  } else {
    if (head.has_value()) results.push_back(head->d_table);
    results.push_back(b.out);  // sent to the previous stage
  }
  results.insert(results.end(), b.grads.begin(), b.grads.end());
  Tuple(entry, results);
  entry.Finish();
  return {e_.instruction_count(), e_.sink().bytes()};
}

}  // namespace

GenStats GenerateModule(const Options& options, int stage, Sink& sink) {
  Gen gen(options, stage, sink);
  return gen.Run();
}

}  // namespace hloscope::gen
