#include "tools/hlo-gen/options.h"

#include <functional>
#include <initializer_list>
#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "fmt/core.h"
#include "support/bytes.h"
#include "support/checked_int.h"
#include "support/status_text.h"
#include "support/str_util.h"

namespace hloscope::gen {

namespace {

// The parts of --help around the OPTIONS section that the table writes.
constexpr std::string_view kHelpHead =
    R"(OVERVIEW: generate a pipelined transformer training step as optimized HLO text

USAGE: hlo-gen [options]

Writes a module shaped like what XLA emits after fusion for a pipeline-parallel transformer
training step (forward and backward while loops, loop fusions, dots, stashed activations),
at any size. The same options and seed always give byte-identical output.

)";

constexpr std::string_view kHelpTail = R"(
EXIT STATUS:
  0  success
  1  the output could not be written completely (for example, the disk is full, or
     memory ran out)
  2  bad usage: unknown option, bad value, sizes that do not fit, unopenable output
)";

// A flag with a value, parsed by `parse` from the value (empty when none was given).
Flag Valued(std::string name, std::string placeholder, std::string help,
            std::function<absl::Status(std::string_view value)> parse) {
  return {.names = {std::move(name)},
          .value = FlagValue::kRequired,
          .placeholder = std::move(placeholder),
          .help = std::move(help),
          .handler = [parse = std::move(parse)](std::optional<std::string_view> value) {
            return parse(value.value_or(""));
          }};
}

// A size: a positive integer.
Flag Positive(std::string name, std::string placeholder, std::string help, int64_t* out) {
  Flag flag = Valued(name, std::move(placeholder), std::move(help), nullptr);
  flag.handler = [name, out](std::optional<std::string_view> value) {
    int64_t v;
    if (!value) return FlagError(fmt::format("option '{}' needs a value ({}=N)", name, name));
    if (!ParseInteger(*value, &v) || v <= 0) {
      return FlagError(fmt::format("option '{}' needs a positive integer, got '{}'", name, *value));
    }
    *out = v;
    return absl::OkStatus();
  };
  return flag;
}

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
        o.layers, o.unroll ? " with --unroll" : "", FormatCount(instructions.value_or(kInt64Max)),
        kMaxInstructions);
  }
  return {};
}

}  // namespace

FlagTable OptionsTable(Options& options) {
  Options* o = &options;
  FlagTable table({
      .unknown = [](std::string_view arg,
                    std::string_view) { return fmt::format("unknown option '{}'", arg); },
      .takes_no_value =
          [](std::string_view name) { return fmt::format("option '{}' takes no value", name); },
  });
  table.Section("OPTIONS:", 25);
  table.Add(Valued("--layout", "L",
                   "'spmd-circular' (default): one module as GSPMD pipelining produces\n"
                   "it (praxis/paxml): a forward while loop of M+P-1 iterations whose body\n"
                   "holds one stage's layers and stashes activations into loop-carried\n"
                   "[M+P-1,1,B,S,A,H/A] buffers with a dynamic-update-slice between\n"
                   "bitcasts inside a loop fusion, then a backward while loop that reads\n"
                   "them with dynamic-slice.\n"
                   "'mpmd': one module per pipeline stage, as each rank runs it with\n"
                   "per-rank pipelining: forward and backward loops over M microbatches\n"
                   "for that stage's layers; the embedding only on stage 0, the head and\n"
                   "loss only on the last stage.",
                   [o](std::string_view value) {
                     if (value == "spmd-circular") {
                       o->layout = Layout::kSpmdCircular;
                     } else if (value == "mpmd") {
                       o->layout = Layout::kMpmd;
                     } else {
                       return FlagError(fmt::format(
                           "unknown layout '{}' (expected 'spmd-circular' or 'mpmd')", value));
                     }
                     return absl::OkStatus();
                   }));
  table.Add(Valued("--stage", "K", "mpmd only: write only stage K (0-based). Default: every stage.",
                   [o](std::string_view value) {
                     int64_t v;
                     // The upper bound only keeps the int conversion exact; --stages checks the
                     // real range.
                     if (!ParseInteger(value, &v) || v < 0 || v > (1 << 30)) {
                       return FlagError(fmt::format(
                           "option '--stage' needs a stage number >= 0, got '{}'", value));
                     }
                     o->stage = static_cast<int>(v);
                     return absl::OkStatus();
                   }));
  table.Add(Positive("--layers", "N",
                     "Transformer layers in the whole model (default 8). Must be a multiple\n"
                     "of --stages.",
                     &o->layers));
  table.Add(
      Positive("--hidden", "H", "Hidden size (default 1024). The MLP is 4*H wide.", &o->hidden));
  table.Add(
      Positive("--heads", "A", "Attention heads (default 16). Must divide --hidden.", &o->heads));
  table.Add(Positive("--seq", "S", "Sequence length (default 2048).", &o->seq));
  table.Add(Positive("--microbatch", "B", "Microbatch size (default 2).", &o->microbatch));
  table.Add(
      Positive("--microbatches", "M", "Microbatches per step (default 8).", &o->microbatches));
  table.Add(Positive("--stages", "P", "Pipeline stages (default 4).", &o->stages));
  table.Add(Valued("--dtype", "T",
                   "'bf16' (default) or 'f32': activations and weights. Reductions are\n"
                   "done in f32 either way.",
                   [o](std::string_view value) {
                     if (value != "bf16" && value != "f32") {
                       return FlagError(
                           fmt::format("unknown dtype '{}' (expected 'bf16' or 'f32')", value));
                     }
                     o->dtype = std::string(value);
                     return absl::OkStatus();
                   }));
  table.Add(Valued("--remat", "R",
                   "What the forward loop stashes for the backward loop, per layer:\n"
                   "'none': the layer input and every [B,S,H]-sized activation (9);\n"
                   "'out-proj' (default): the input, q, k, v and the attention output\n"
                   "projection (5, like paxml's SAVE_OUT_PROJ); 'full': the input only,\n"
                   "the backward loop recomputes the rest.",
                   [o](std::string_view value) {
                     if (value == "none") {
                       o->remat = Remat::kNone;
                     } else if (value == "out-proj") {
                       o->remat = Remat::kOutProj;
                     } else if (value == "full") {
                       o->remat = Remat::kFull;
                     } else {
                       return FlagError(fmt::format(
                           "unknown remat '{}' (expected 'none', 'out-proj' or 'full')", value));
                     }
                     return absl::OkStatus();
                   }));
  table.Add(Valued("--xla-copies", "on|off",
                   "'on' (default): each stash output goes through get-tuple-element and\n"
                   "copy before the loop body's ROOT tuple, as XLA's copy insertion emits\n"
                   "when it cannot prove the update in place. 'off': no copies.",
                   [o](std::string_view value) {
                     if (value != "on" && value != "off") {
                       return FlagError(fmt::format(
                           "unknown --xla-copies value '{}' (expected 'on' or 'off')", value));
                     }
                     o->xla_copies = value == "on";
                     return absl::OkStatus();
                   }));
  table.Add(SwitchFlag({"--scheduled"}, &o->scheduled,
                       "Mark the module is_scheduled=true (text order is the schedule)."));
  table.Add(SwitchFlag({"--unroll"}, &o->unroll,
                       "Unroll both while loops into the entry computation: the way to reach\n"
                       "millions of instructions (layers x trip count x ~1000 lines)."));
  table.Add(Valued("--seed", "N",
                   "Unsigned integer (default 0). The seed chooses where instruction ids\n"
                   "start (names like fusion.4711) and offsets the source_line numbers;\n"
                   "the graph itself (opcodes, shapes, edges) is the same for every seed.",
                   [o](std::string_view value) {
                     int64_t v;
                     if (!ParseInteger(value, &v) || v < 0) {
                       return FlagError(fmt::format(
                           "option '--seed' needs an unsigned integer, got '{}'", value));
                     }
                     o->seed = static_cast<uint64_t>(v);
                     return absl::OkStatus();
                   }));
  table.Add({.names = {"-o"},
             .value = FlagValue::kRequired,
             .placeholder = "OUT",
             .output_file = true,
             .help = "Output ('-', the default, is standard output). With --layout=mpmd\n"
                     "and no --stage: if OUT is a directory (or ends in '/') the modules are\n"
                     "written to OUT/stage_K.hlo, otherwise to OUT.stage_K.hlo; on standard\n"
                     "output they are separated by '// -----' lines (hlo-opt\n"
                     "--split-input-file reads them). With --stage=K, OUT is the file.",
             .handler = [o](std::optional<std::string_view> value) {
               if (!value) return FlagError("option '-o' needs a file name");
               o->output = std::string(*value);
               return absl::OkStatus();
             }});
  table.Add(SwitchFlag({"-h", "--help"}, &o->help, "Show this help, then exit."));
  // hlo-gen reads nothing: an argument that is not a flag is refused as it always was.
  table.Positional(
      [](std::string_view arg) { return FlagError(fmt::format("unknown option '{}'", arg)); });
  return table;
}

std::string HelpText() {
  Options unused;
  return fmt::format("{}{}{}", kHelpHead, OptionsTable(unused).Help(), kHelpTail);
}

std::string ParseOptions(int argc, char** argv, Options* o) {
  if (absl::Status s = OptionsTable(*o).Parse(argc, argv); !s.ok()) {
    return StatusText(s);
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
