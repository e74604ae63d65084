#include "tools/hlo_gen/options.h"

#include <initializer_list>
#include <optional>

#include "fmt/core.h"
#include "hlo/checked_int.h"
#include "hlo/str_util.h"

namespace hloscope::gen {

const std::string_view kHelpText =
    R"(OVERVIEW: generate a pipelined transformer training step as optimized HLO text

USAGE: hlo-gen [options]

Writes a module shaped like what XLA emits after fusion for a pipeline-parallel transformer
training step (forward and backward while loops, loop fusions, dots, stashed activations),
at any size. The same options and seed always give byte-identical output.

OPTIONS:
  --layout=L             'spmd-circular' (default): one module as GSPMD pipelining produces
                         it (praxis/paxml): a forward while loop of M+P-1 iterations whose body
                         holds one stage's layers and stashes activations into loop-carried
                         [M+P-1,1,B,S,A,H/A] buffers with a dynamic-update-slice between
                         bitcasts inside a loop fusion, then a backward while loop that reads
                         them with dynamic-slice.
                         'mpmd': one module per pipeline stage, as each rank runs it with
                         per-rank pipelining: forward and backward loops over M microbatches
                         for that stage's layers; the embedding only on stage 0, the head and
                         loss only on the last stage.
  --stage=K              mpmd only: write only stage K (0-based). Default: every stage.
  --layers=N             Transformer layers in the whole model (default 8). Must be a multiple
                         of --stages.
  --hidden=H             Hidden size (default 1024). The MLP is 4*H wide.
  --heads=A              Attention heads (default 16). Must divide --hidden.
  --seq=S                Sequence length (default 2048).
  --microbatch=B         Microbatch size (default 2).
  --microbatches=M       Microbatches per step (default 8).
  --stages=P             Pipeline stages (default 4).
  --dtype=T              'bf16' (default) or 'f32': activations and weights. Reductions are
                         done in f32 either way.
  --remat=R              What the forward loop stashes for the backward loop, per layer:
                         'none': the layer input and every [B,S,H]-sized activation (9);
                         'out-proj' (default): the input, q, k, v and the attention output
                         projection (5, like paxml's SAVE_OUT_PROJ); 'full': the input only,
                         the backward loop recomputes the rest.
  --xla-copies=on|off    'on' (default): each stash output goes through get-tuple-element and
                         copy before the loop body's ROOT tuple, as XLA's copy insertion emits
                         when it cannot prove the update in place. 'off': no copies.
  --scheduled            Mark the module is_scheduled=true (text order is the schedule).
  --unroll               Unroll both while loops into the entry computation: the way to reach
                         millions of instructions (layers x trip count x ~1000 lines).
  --seed=N               Unsigned integer (default 0). The seed chooses where instruction ids
                         start (names like fusion.4711) and offsets the source_line numbers;
                         the graph itself (opcodes, shapes, edges) is the same for every seed.
  -o OUT                 Output ('-', the default, is standard output). With --layout=mpmd
                         and no --stage: if OUT is a directory (or ends in '/') the modules are
                         written to OUT/stage_K.hlo, otherwise to OUT.stage_K.hlo; on standard
                         output they are separated by '// -----' lines (hlo-opt
                         --split-input-file reads them). With --stage=K, OUT is the file.
  -h, --help             Show this help, then exit.

EXIT STATUS:
  0  success
  1  the output could not be written completely (for example, the disk is full, or
     memory ran out)
  2  bad usage: unknown option, bad value, sizes that do not fit, unopenable output
)";

namespace {

// The product of `factors`, or nullopt past int64.
std::optional<int64_t> Product(std::initializer_list<int64_t> factors) {
  int64_t p = 1;
  for (int64_t f : factors) {
    std::optional<int64_t> next = CheckedMul(p, f);
    if (!next) return std::nullopt;
    p = *next;
  }
  return p;
}

// The most instructions a generated module may have (about 100 bytes of text and of memory
// each): past it the run would exhaust memory or disk long before finishing.
constexpr int64_t kMaxInstructions = 200'000'000;

// Every array the model declares must fit in int64 bytes (f32, the widest element type it
// uses), or the text would hold wrapped, negative dimensions; and the module must be of a
// size that can be written.
std::string CheckSizes(const Options& o) {
  const int64_t trip =
      o.layout == Layout::kSpmdCircular ? o.microbatches + o.stages - 1 : o.microbatches;
  struct Array {
    const char* what;
    std::optional<int64_t> bytes;
  };
  const int64_t B = o.microbatch, S = o.seq, H = o.hidden, A = o.heads, M = o.microbatches;
  const Array arrays[] = {
      {"the MLP weights [H,4H]", Product({H, 4, H, 4})},
      {"the attention scores [B,A,S,S]", Product({B, A, S, S, 4})},
      {"the MLP activations [B,S,4H]", Product({B, S, 4, H, 4})},
      {"the logits [M,B,S,vocab]", Product({M, B, S, o.vocab(), 4})},
      {"the embedding table [vocab,H]", Product({o.vocab(), H, 4})},
      {"the loop's inputs [M,B,S,H]", Product({M, B, S, H, 4})},
      {"the stash [trips,B,S,H]", trip < 0 ? std::nullopt : Product({trip, B, S, H, 4})},
  };
  for (const Array& a : arrays) {
    if (!a.bytes) {
      return fmt::format(
          "the sizes do not fit: {} would need more than 2^63 bytes (--microbatch={} --seq={} "
          "--hidden={} --heads={} --microbatches={} --stages={})",
          a.what, B, S, H, A, M, o.stages);
    }
  }
  // About 1,000 instructions per layer, per loop trip when unrolled (see --help).
  std::optional<int64_t> instructions = Product({o.layers, 1000, o.unroll ? trip : 1});
  if (!instructions || *instructions > kMaxInstructions) {
    return fmt::format(
        "--layers={}{} would generate about {} instructions, more than the {} hlo-gen writes",
        o.layers, o.unroll ? " with --unroll" : "",
        instructions ? fmt::format("{}", *instructions) : std::string("2^63 or more"),
        kMaxInstructions);
  }
  return {};
}

}  // namespace

std::string ParseOptions(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    std::string_view name = arg;
    std::string_view value;
    bool has_value = false;
    if (size_t eq = arg.find('='); eq != std::string_view::npos && arg.starts_with("--")) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      has_value = true;
    }
    auto flag = [&](bool* out) -> std::string {
      if (has_value) return fmt::format("option '{}' takes no value", name);
      *out = true;
      return {};
    };
    auto positive = [&](int64_t* out) -> std::string {
      int64_t v;
      if (!has_value) return fmt::format("option '{}' needs a value ({}=N)", name, name);
      if (!ParseInteger(value, &v) || v <= 0) {
        return fmt::format("option '{}' needs a positive integer, got '{}'", name, value);
      }
      *out = v;
      return {};
    };
    std::string error;
    if (name == "-o") {
      if (i + 1 >= argc) return "option '-o' needs a file name";
      o->output = argv[++i];
    } else if (name == "--help" || name == "-h") {
      error = flag(&o->help);
    } else if (name == "--scheduled") {
      error = flag(&o->scheduled);
    } else if (name == "--unroll") {
      error = flag(&o->unroll);
    } else if (name == "--layout") {
      if (value == "spmd-circular") {
        o->layout = Layout::kSpmdCircular;
      } else if (value == "mpmd") {
        o->layout = Layout::kMpmd;
      } else {
        return fmt::format("unknown layout '{}' (expected 'spmd-circular' or 'mpmd')", value);
      }
    } else if (name == "--remat") {
      if (value == "none") {
        o->remat = Remat::kNone;
      } else if (value == "out-proj") {
        o->remat = Remat::kOutProj;
      } else if (value == "full") {
        o->remat = Remat::kFull;
      } else {
        return fmt::format("unknown remat '{}' (expected 'none', 'out-proj' or 'full')", value);
      }
    } else if (name == "--xla-copies") {
      if (value != "on" && value != "off") {
        return fmt::format("unknown --xla-copies value '{}' (expected 'on' or 'off')", value);
      }
      o->xla_copies = value == "on";
    } else if (name == "--dtype") {
      if (value != "bf16" && value != "f32") {
        return fmt::format("unknown dtype '{}' (expected 'bf16' or 'f32')", value);
      }
      o->dtype = std::string(value);
    } else if (name == "--stage") {
      int64_t v;
      // The upper bound only keeps the int conversion exact; --stages checks the real range.
      if (!has_value || !ParseInteger(value, &v) || v < 0 || v > (1 << 30)) {
        return fmt::format("option '--stage' needs a stage number >= 0, got '{}'", value);
      }
      o->stage = static_cast<int>(v);
    } else if (name == "--seed") {
      int64_t v;
      if (!has_value || !ParseInteger(value, &v) || v < 0) {
        return fmt::format("option '--seed' needs an unsigned integer, got '{}'", value);
      }
      o->seed = static_cast<uint64_t>(v);
    } else if (name == "--layers") {
      error = positive(&o->layers);
    } else if (name == "--hidden") {
      error = positive(&o->hidden);
    } else if (name == "--heads") {
      error = positive(&o->heads);
    } else if (name == "--seq") {
      error = positive(&o->seq);
    } else if (name == "--microbatch") {
      error = positive(&o->microbatch);
    } else if (name == "--microbatches") {
      error = positive(&o->microbatches);
    } else if (name == "--stages") {
      error = positive(&o->stages);
    } else {
      return fmt::format("unknown option '{}'", arg);
    }
    if (!error.empty()) return error;
  }
  if (o->help) return {};
  if (o->hidden % o->heads != 0) {
    return fmt::format("--heads={} does not divide --hidden={}", o->heads, o->hidden);
  }
  if (o->layers % o->stages != 0) {
    return fmt::format("--layers={} is not a multiple of --stages={}", o->layers, o->stages);
  }
  if (o->stage >= 0 && o->layout != Layout::kMpmd) {
    return "option '--stage' needs --layout=mpmd";
  }
  if (o->stage >= o->stages) {
    return fmt::format("--stage={} is out of range for --stages={}", o->stage, o->stages);
  }
  return CheckSizes(*o);
}

}  // namespace hloscope::gen
