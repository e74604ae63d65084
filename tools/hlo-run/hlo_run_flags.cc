#include "tools/hlo-run/hlo_run_flags.h"

#include <string_view>
#include <utility>

#include "fmt/format.h"
#include "hlo/computation.h"
#include "hlo/module.h"
#include "support/status_text.h"
#include "support/str_util.h"

namespace hloscope {
namespace {

// The parts of --help around the OPTIONS section that the table writes.
constexpr std::string_view kHelpHead =
    R"(OVERVIEW: run an HLO module on the reference interpreter and print its outputs

USAGE: hlo-run [options] FILE
       hlo-run --compare [options] A.hlo B.hlo
       hlo-run --compare --split-input-file [--jobs=N] [options] A.hlo B.hlo

Parses and verifies FILE, runs its entry computation on seeded pseudo-random arguments (or the
literals of --inputs) and prints the outputs. Small arrays are printed in full, larger ones as a
summary (shape, min/max/mean, first elements).

Bounded dynamic shapes (f32[<=8]) run: an argument of a dynamic parameter is at its bound, and
set-dimension-size or SliceToDynamic set smaller sizes. A dynamic output prints as XLA prints
it, its sizes after the shape and only the elements inside them: 's32[<=9](7) {1, 2, ...}'.

With --compare, runs A and B on the same arguments (their entry parameter shapes must match)
and compares the outputs bit for bit: A in --mode-a, B in --mode-b. Prints 'outputs match (N
elements)', or the first differing output index and element.

With --compare --split-input-file, A and B are each split at lines '// -----' (as hlo-opt
--split-input-file does) and part K of A is compared with part K of B, each line starting 'part
K: '; both files must have as many parts. Pairs are compared --jobs=N at a time (default: one
per core) and printed in order, the same as with --jobs=1. A pair that cannot run does not stop
the others; the exit status is the most severe of all pairs' (3, then 2, then 1).

Modes: 'value' gives every instruction a fresh array (the meaning of the program); 'buffer'
stores values as the alias analysis assigns buffers (one allocation per buffer, in-place ops
write into it, loop state lives in its buffers, bitcasts reinterpret the same bytes), so a copy
that was wrongly removed changes the result.

Collectives run as replica 0 of partition 0, the other participants of its group taken to hold
the same operands (a group of one: XLA's one-participant meaning). Async pairs, copy-start/done
and send/recv on one channel_id within the module run; custom-calls run only for targets with a
documented meaning (Sharding, ShardBarrierFrom/To, MoveToHost, MoveToDevice, AllocateBuffer,
SPMDFullToShardShape, SPMDShardToFullShape, Pin, Unpin, CreateBuffer, TopK, __cublas$gemm,
__cublas$lt$matmul, the __cudnn$conv* convolutions, ...), others are refused by name, or run as
opaque functions of their operands with --custom-calls=opaque (for differential checks). Buffers
b(T) hold an array that Pin takes in, Unpin gives back and dynamic-update-slice (or, with
--custom-calls=opaque, an unknown custom-call) updates in place; reading a CreateBuffer buffer
that nothing wrote is refused.
With --replicas=N, N replicas run in lockstep and collectives are computed from all of them;
send and recv with _xla_send_recv_source_target_pairs carry data between replicas (a replica
that no pair targets receives zeros; a deadlock is reported naming the waiting instructions).
Ops that mix floating-point types, rng-bit-generator's rng_default and rng_uniform with low >=
high are refused, as by XLA's evaluator, or run as XLA's CPU and GPU backends run them with
--mixed-precision=convert, --rng-default=philox and --rng-empty-range=backend.

)";

constexpr std::string_view kHelpTail = R"(
EXIT STATUS:
  0  success; with --compare, the outputs are equal
  1  --compare: the outputs differ (or, with --host-io=seeded, the writes to outside)
  2  bad usage: unknown option, bad value, missing or unreadable file
  3  cannot run: parse or verifier error, unsupported opcode, module too large (past
     --max-bytes, or more memory than this process may use), bad --inputs, more than
     --max-steps evaluations or 256 nested computations
)";

std::optional<eval::EvalMode> ParseMode(std::string_view v) {
  if (v == "value") return eval::EvalMode::kValue;
  if (v == "buffer") return eval::EvalMode::kBuffer;
  return std::nullopt;
}

absl::Status NeedsValue(std::string_view name) {
  return FlagError(fmt::format("option '{}' needs a value", name));
}

absl::Status BadValue(std::string_view name, std::string_view value) {
  return FlagError(fmt::format("bad value '{}' for {}", value, name));
}

// A flag whose value `parse` stores; a missing value is the same error for all of them.
Flag Valued(std::string name, std::string placeholder, std::string help,
            std::function<absl::Status(std::string_view name, std::string_view value)> parse) {
  return {.names = {name},
          .value = FlagValue::kRequired,
          .placeholder = std::move(placeholder),
          .help = std::move(help),
          .handler = [name, parse = std::move(parse)](std::optional<std::string_view> value) {
            if (!value) return NeedsValue(name);
            return parse(name, *value);
          }};
}

Flag Mode(std::string name, std::string placeholder, std::string help, eval::EvalMode* out) {
  return Valued(std::move(name), std::move(placeholder), std::move(help),
                [out](std::string_view name, std::string_view value) {
                  std::optional<eval::EvalMode> m = ParseMode(value);
                  if (!m) {
                    return FlagError(fmt::format(
                        "bad value '{}' for {} (expected 'value' or 'buffer')", value, name));
                  }
                  *out = *m;
                  return absl::OkStatus();
                });
}

// --max-bytes and --max-steps: a non-negative integer.
Flag Limit(std::string name, std::string help, int64_t* out) {
  return Valued(std::move(name), "N", std::move(help),
                [out](std::string_view name, std::string_view value) {
                  if (!ParseInteger(value, out) || *out < 0) return BadValue(name, value);
                  return absl::OkStatus();
                });
}

}  // namespace

FlagTable RunFlagTable(RunFlags& flags) {
  FlagTable table({
      .unknown = [](std::string_view,
                    std::string_view name) { return fmt::format("unknown option '{}'", name); },
      .takes_no_value =
          [](std::string_view name) { return fmt::format("option '{}' takes no value", name); },
  });
  table.Section("OPTIONS:", 25);
  table.Add(Valued("--seed", "N",
                   "Seed of the random arguments (default 0). Floats are multiples of 1/8\n"
                   "in [-2,2), signed integers in [-8,8), unsigned in [0,16), pred 0/1.",
                   [&flags](std::string_view name, std::string_view value) {
                     if (!ParseInteger(value, &flags.seed)) return BadValue(name, value);
                     return absl::OkStatus();
                   }));
  table.Add(Valued("--rng-seed", "N",
                   "Run rng instructions, drawing from a std::minstd_rand0 seeded with N\n"
                   "(XLA's evaluator with module seed N, on libstdc++). Without it a module\n"
                   "with rng is refused: XLA then seeds from a random source.",
                   [&flags](std::string_view name, std::string_view value) {
                     uint64_t n = 0;
                     if (!ParseInteger(value, &n)) return BadValue(name, value);
                     flags.rng_seed = n;
                     return absl::OkStatus();
                   }));
  table.Add(Valued("--host-io", "refuse|seeded",
                   "Data from and to outside the program: infeed, outfeed, send/recv\n"
                   "with is_host_transfer=true, a recv whose channel has no send in FILE,\n"
                   "a send whose channel has no recv. 'refuse' (the default, as XLA's\n"
                   "evaluator) refuses infeed, outfeed and such recvs; 'seeded' gives each\n"
                   "read the next value of a stream seeded with --seed (+ R for replica R)\n"
                   "and prints each write after the outputs, in run order, as\n"
                   "'outfeed %NAME #K: LITERAL' or 'send %NAME #K: LITERAL' (K counts\n"
                   "that instruction's writes from 0; a tuple's elements follow on\n"
                   "indented lines). With --compare the writes are compared as well.",
                   [&flags](std::string_view name, std::string_view value) {
                     if (value == "refuse") {
                       flags.host_io = eval::HostIo::kRefuse;
                     } else if (value == "seeded") {
                       flags.host_io = eval::HostIo::kSeeded;
                     } else {
                       return FlagError(fmt::format(
                           "bad value '{}' for {} (expected 'refuse' or 'seeded')", value, name));
                     }
                     return absl::OkStatus();
                   }));
  table.Add(Valued("--elided-constants", "refuse|seeded",
                   "Constants whose contents were elided when the module was dumped\n"
                   "(constant({...}), XLA's dumps without --xla_dump_large_constants=true):\n"
                   "'refuse' (default) refuses the module, their values being unknown (XLA's\n"
                   "parser fills them from a counter that depends on what it parsed\n"
                   "before); 'seeded' gives each the values of a random argument, seeded\n"
                   "by --seed and the constant's name. An elided integer constant that\n"
                   "bounds a loop or indexes an array gets such a value too (in [-8,8)).",
                   [&flags](std::string_view name, std::string_view value) {
                     if (value != "refuse" && value != "seeded") {
                       return FlagError(fmt::format(
                           "bad value '{}' for {} (expected 'refuse' or 'seeded')", value, name));
                     }
                     flags.elided_constants = value == "seeded" ? eval::ElidedConstants::kSeeded
                                                                : eval::ElidedConstants::kRefuse;
                     return absl::OkStatus();
                   }));
  table.Add(Valued("--custom-calls", "refuse|opaque",
                   "Custom-calls whose target hlo-run does not know (their meaning is\n"
                   "not public: Neuron, Transformer Engine, Pallas kernels, ...):\n"
                   "'refuse' (default, as XLA's evaluator) refuses the module, naming the\n"
                   "target; 'opaque' fills each result with values hashed from the target,\n"
                   "its backend_config and attributes and its operands' values (not their\n"
                   "layout), the same in every run; a call with\n"
                   "custom_call_has_side_effect=true also mixes in how many such calls ran\n"
                   "before it and is printed after the outputs as a write,\n"
                   "\"custom-call 'TARGET' %NAME #K: u64[] HASH\". It is for\n"
                   "differential checks (--compare of a module and its transformed\n"
                   "version), never the call's real result. Called computations of such\n"
                   "a call are not run. A buffer b(T) operand is read as its array; a\n"
                   "buffer the call returns holds the new array, written in place into\n"
                   "the operand's storage that output_to_operand_aliasing names.",
                   [&flags](std::string_view name, std::string_view value) {
                     if (value != "refuse" && value != "opaque") {
                       return FlagError(fmt::format(
                           "bad value '{}' for {} (expected 'refuse' or 'opaque')", value, name));
                     }
                     flags.custom_calls = value == "opaque" ? eval::CustomCalls::kOpaque
                                                            : eval::CustomCalls::kRefuse;
                     return absl::OkStatus();
                   }));
  table.Add(Valued("--mixed-precision", "refuse|convert",
                   "Ops that mix floating-point types (add(f32, bf16), select of f32 and\n"
                   "bf16 branches, broadcast of f64 into f32), which XLA's verifier\n"
                   "allows under mixed precision: 'refuse' (default, as XLA's evaluator,\n"
                   "which reads every operand as one type) refuses the module; 'convert'\n"
                   "converts the operands to the widest of the op's types, computes there\n"
                   "and converts the result to its type, as XLA's FloatNormalization pass\n"
                   "makes the CPU and GPU backends do (ops that only move elements get\n"
                   "their operands in the result's type). For differential checks.",
                   [&flags](std::string_view name, std::string_view value) {
                     if (value != "refuse" && value != "convert") {
                       return FlagError(fmt::format(
                           "bad value '{}' for {} (expected 'refuse' or 'convert')", value, name));
                     }
                     flags.mixed_precision = value == "convert"
                                                 ? eval::MixedPrecision::kConvertOperands
                                                 : eval::MixedPrecision::kRefuse;
                     return absl::OkStatus();
                   }));
  table.Add(Valued("--rng-default", "philox|three_fry|refuse",
                   "rng-bit-generator with algorithm=rng_default, whose algorithm the\n"
                   "backend chooses: 'refuse' (default, as XLA's evaluator) refuses the\n"
                   "module; 'philox' runs it as Philox, as XLA's CPU and GPU compilers\n"
                   "expand it (RngBitGeneratorExpander); 'three_fry' as ThreeFry.",
                   [&flags](std::string_view name, std::string_view value) {
                     if (value == "philox") {
                       flags.rng_default = eval::RngDefault::kPhilox;
                     } else if (value == "three_fry") {
                       flags.rng_default = eval::RngDefault::kThreeFry;
                     } else if (value == "refuse") {
                       flags.rng_default = eval::RngDefault::kRefuse;
                     } else {
                       return FlagError(
                           fmt::format("bad value '{}' for {} (expected 'philox', 'three_fry' or "
                                       "'refuse')",
                                       value, name));
                     }
                     return absl::OkStatus();
                   }));
  table.Add(Valued("--rng-empty-range", "refuse|backend",
                   "rng_uniform whose low is not below its high: 'refuse' (default, as\n"
                   "XLA's evaluator, whose std:: distributions are undefined there)\n"
                   "refuses the module; 'backend' draws by the formula of XLA's CPU and\n"
                   "GPU backends (RngExpander: u * (high - low) + low for floats, low +\n"
                   "random word mod (high - low) for 32- and 64-bit integers), with random\n"
                   "words from the run's --rng-seed engine.",
                   [&flags](std::string_view name, std::string_view value) {
                     if (value != "refuse" && value != "backend") {
                       return FlagError(fmt::format(
                           "bad value '{}' for {} (expected 'refuse' or 'backend')", value, name));
                     }
                     flags.rng_empty_range = value == "backend"
                                                 ? eval::RngEmptyRange::kBackendFormula
                                                 : eval::RngEmptyRange::kRefuse;
                     return absl::OkStatus();
                   }));
  table.Add(Mode("--mode", "value|buffer", "How to run FILE (default value).", &flags.mode));
  Flag mode_a =
      Mode("--mode-a", "M", "With --compare: the modes of A and B (defaults value and buffer).",
           &flags.mode_a);
  mode_a.label = "--mode-a=M, --mode-b=M";
  table.Add(std::move(mode_a));
  table.Add(Mode("--mode-b", "M", "", &flags.mode_b));  // on --mode-a's row
  table.Add(Valued("--inputs", "FILE",
                   "Arguments from FILE instead of random ones: one line per entry\n"
                   "parameter, in HLO literal syntax as in constant(...), e.g.\n"
                   "'{{1, 2}, {3, 4}}' or '(1, {2, 3})' for a tuple; c64/c128 elements\n"
                   "as (re, im). Blank lines and lines starting with '//' are skipped.",
                   [&flags](std::string_view, std::string_view value) {
                     flags.inputs = std::string(value);
                     return absl::OkStatus();
                   }));
  table.Add(SwitchFlag({"--print-all"}, &flags.print_all, "Print every element of every output."));
  table.Add(SwitchFlag({"--compare"}, &flags.compare,
                       "Run A and B on the same arguments and compare their outputs (see above)."));
  table.Add(SwitchFlag({"--split-input-file"}, &flags.split_input_file,
                       "With --compare: compare the modules of A and B pairwise (see above)."));
  table.Add(
      Valued("--jobs", "N", "With --split-input-file: compare up to N pairs at once (1 to 1024).",
             [&flags](std::string_view, std::string_view value) {
               if (!ParseInteger(value, &flags.jobs) || flags.jobs < 1 || flags.jobs > 1024) {
                 return FlagError(fmt::format(
                     "bad value '{}' for --jobs (expected a whole number from 1 to 1024)", value));
               }
               return absl::OkStatus();
             }));
  table.Add(Limit("--max-bytes",
                  "Refuse modules needing more than N bytes of storage (default 2^30).",
                  &flags.max_bytes));
  table.Add(Limit("--max-steps",
                  "Stop after N instruction evaluations in all, counted across every\n"
                  "computation, loop iteration and call (default 100000000), so that\n"
                  "endless or exponentially nested loops and calls end with an error.\n"
                  "Computations nested more than 256 deep are refused as well.",
                  &flags.max_steps));
  table.Add(Valued("--replicas", "N",
                   "Run N replicas of FILE in lockstep (1 to 1024), one thread each:\n"
                   "collectives exchange the replicas' operands, replica-id gives each its\n"
                   "number. Replica R gets random arguments of seed --seed + R (or the\n"
                   "same --inputs); prints each replica's outputs after 'replica R:'.\n"
                   "With --compare, A and B each run as N replicas on those arguments\n"
                   "and every replica's outputs are compared.",
                   [&flags](std::string_view, std::string_view value) {
                     if (!ParseInteger(value, &flags.replicas) || flags.replicas < 1 ||
                         flags.replicas > 1024) {
                       return FlagError(fmt::format(
                           "bad value '{}' for --replicas (expected a whole number from 1 to "
                           "1024)",
                           value));
                     }
                     return absl::OkStatus();
                   }));
  table.Add(Valued("--bitcast-defines-value", "true|false",
                   "Buffer mode: whether a bitcast gets its own buffer (true) or\n"
                   "reinterprets its operand's (false, the default).",
                   [&flags](std::string_view name, std::string_view value) {
                     if (value != "true" && value != "false") {
                       return FlagError(fmt::format(
                           "bad value '{}' for {} (expected 'true' or 'false')", value, name));
                     }
                     flags.dataflow.bitcast_defines_value = value == "true";
                     return absl::OkStatus();
                   }));
  table.Add(Valued("--assume-donated", "all|LIST",
                   "Run as if the caller donated these entry parameters (as hlo-opt's\n"
                   "--assume-donated: all, or numbers such as 3,8): buffer mode gives\n"
                   "each one's storage to the output of its shape it is paired with.",
                   [&flags](std::string_view name, std::string_view value) {
                     absl::StatusOr<DonationAssumption> parsed = ParseDonationAssumption(value);
                     if (!parsed.ok()) {
                       return FlagError(
                           fmt::format("option '{}': {}", name,
                                       std::string_view(parsed.status().message().data(),
                                                        parsed.status().message().size())));
                     }
                     flags.assume_donated = *std::move(parsed);
                     return absl::OkStatus();
                   }));
  table.Add(SwitchFlag({"-h", "--help"}, &flags.help, "Show this help, then exit."));
  table.Positional([&flags](std::string_view arg) {
    flags.files.emplace_back(arg);
    return absl::OkStatus();
  });
  return table;
}

std::string RunHelp() {
  RunFlags unused;
  return fmt::format("{}{}{}", kHelpHead, RunFlagTable(unused).Help(), kHelpTail);
}

std::optional<std::string> ParseRunFlags(int argc, char** argv, RunFlags* flags) {
  if (absl::Status s = RunFlagTable(*flags).Parse(argc, argv); !s.ok()) {
    return StatusText(s);
  }
  const std::vector<std::string>& files = flags->files;
  if (flags->help) return std::nullopt;
  if (flags->split_input_file && !flags->compare)
    return std::string("--split-input-file needs --compare");
  size_t want = flags->compare ? 2 : 1;
  if (files.size() != want) {
    return flags->compare  ? fmt::format("--compare needs two files, got {}", files.size())
           : files.empty() ? std::string("no input file")
                           : fmt::format("one input file expected, got {}", files.size());
  }
  flags->file = files[0];
  if (flags->compare) flags->file_b = files[1];
  return std::nullopt;
}

eval::EvalOptions EvalOptionsOf(const RunFlags& flags, eval::EvalMode mode) {
  eval::EvalOptions options;
  options.mode = mode;
  options.dataflow = flags.dataflow;
  options.max_bytes = flags.max_bytes;
  options.max_steps = flags.max_steps;
  options.rng_seed = flags.rng_seed;
  options.host_io = flags.host_io;
  options.host_io_seed = flags.seed;
  options.elided_constants = flags.elided_constants;
  options.elided_constants_seed = flags.seed;
  options.custom_calls = flags.custom_calls;
  options.mixed_precision = flags.mixed_precision;
  options.rng_default = flags.rng_default;
  options.rng_empty_range = flags.rng_empty_range;
  return options;
}

absl::Status CheckComparableEntries(const Module& a, std::string_view label_a, const Module& b,
                                    std::string_view label_b) {
  const Computation& ea = *a.entry();
  const Computation& eb = *b.entry();
  bool same = ea.parameter_count() == eb.parameter_count();
  for (int64_t i = 0; same && i < ea.parameter_count(); ++i) {
    same = ea.parameter(i)->shape().Compatible(eb.parameter(i)->shape());
  }
  if (same) return absl::OkStatus();
  std::string sa, sb;
  for (const Instruction* p : ea.parameters())
    sa += (sa.empty() ? "" : ", ") + p->shape().ToString(false);
  for (const Instruction* p : eb.parameters())
    sb += (sb.empty() ? "" : ", ") + p->shape().ToString(false);
  return absl::InvalidArgumentError(
      fmt::format("cannot compare: the entry parameters differ: {} takes ({}), {} takes ({})",
                  label_a, sa, label_b, sb));
}

}  // namespace hloscope
