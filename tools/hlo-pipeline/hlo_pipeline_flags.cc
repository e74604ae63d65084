#include "tools/hlo-pipeline/hlo_pipeline_flags.h"

#include <charconv>
#include <cmath>
#include <functional>
#include <optional>
#include <string_view>
#include <tuple>
#include <utility>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "pipeline/generators.h"
#include "pipeline/units.h"
#include "support/status_text.h"
#include "support/str_util.h"

namespace hloscope::pipeline {
namespace {

absl::Status Bad(std::string_view flag, std::string_view why) {
  return absl::InvalidArgumentError(StrCat("--", flag, ": ", why));
}

template <typename T>
bool ParseNumber(std::string_view text, T* out) {
  text = StripWhitespace(text);
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size() && !text.empty();
}

absl::StatusOr<int32_t> PositiveInt(std::string_view flag, std::string_view text) {
  int32_t v = 0;
  if (!ParseNumber(text, &v) || v < 1)
    return Bad(flag, StrCat("expected a positive integer, got '", text, "'"));
  return v;
}

absl::StatusOr<double> Time(std::string_view flag, std::string_view text) {
  double v = 0;
  if (!ParseNumber(text, &v) || !(v >= 0) || !std::isfinite(v)) {
    return Bad(flag, StrCat("expected a time in microseconds >= 0, got '", text, "'"));
  }
  return v;
}

absl::StatusOr<double> Bytes(std::string_view flag, std::string_view text) {
  absl::StatusOr<double> v = ParseBytes(text);
  if (!v.ok()) return Bad(flag, StatusText(v.status()));
  return v;
}

// "a,b,c" through `one`.
template <typename T>
absl::StatusOr<std::vector<T>> List(
    std::string_view flag, std::string_view text,
    const std::function<absl::StatusOr<T>(std::string_view, std::string_view)>& one) {
  std::vector<T> out;
  for (std::string_view item : Split(text, ',')) {
    absl::StatusOr<T> v = one(flag, item);
    if (!v.ok()) return v.status();
    out.push_back(*v);
  }
  return out;
}

absl::StatusOr<int64_t> Tokens(std::string_view flag, std::string_view text) {
  int64_t v = 0;
  if (!ParseNumber(text, &v) || v < 1)
    return Bad(flag, StrCat("expected a positive token count, got '", text, "'"));
  return v;
}

// A flag that needs a value; `parse` gets the name without its dashes (the messages' "--NAME:"
// prefix, Bad) and the value, which is never empty.
Flag Valued(std::string name, std::string placeholder, std::string help,
            std::function<absl::Status(std::string_view flag, std::string_view value)> parse) {
  return {.names = {"--" + name},
          .value = FlagValue::kRequired,
          .placeholder = std::move(placeholder),
          .help = std::move(help),
          .handler = [name, parse = std::move(parse)](std::optional<std::string_view> value) {
            if (!value || value->empty()) return Bad(name, "needs a value (--name=value)");
            return parse(name, *value);
          }};
}

// A per-part list of times.
Flag Times(std::string name, std::string help, std::optional<std::vector<double>>* out) {
  return Valued(std::move(name), "T[,T...]", std::move(help),
                [out](std::string_view flag, std::string_view value) -> absl::Status {
                  absl::StatusOr<std::vector<double>> v = List<double>(flag, value, Time);
                  if (!v.ok()) return v.status();
                  *out = *std::move(v);
                  return absl::OkStatus();
                });
}

// One time.
Flag OneTime(std::string name, std::string help, double* out) {
  return Valued(std::move(name), "T", std::move(help),
                [out](std::string_view flag, std::string_view value) -> absl::Status {
                  absl::StatusOr<double> v = Time(flag, value);
                  if (!v.ok()) return v.status();
                  *out = *v;
                  return absl::OkStatus();
                });
}

// A comma-separated list of names, none empty (`what`: "schedule name", "file name").
Flag Names(std::string name, std::string placeholder, std::string help, std::string what,
           std::vector<std::string>* out) {
  return Valued(std::move(name), std::move(placeholder), std::move(help),
                [what, out](std::string_view flag, std::string_view value) -> absl::Status {
                  for (std::string_view item : Split(value, ',')) {
                    if (StripWhitespace(item).empty()) {
                      return Bad(flag, StrCat("empty ", what, " in the list"));
                    }
                    out->emplace_back(StripWhitespace(item));
                  }
                  return absl::OkStatus();
                });
}

// A value stored as given.
Flag Text(std::string name, std::string placeholder, std::string help, std::string* out) {
  return Valued(std::move(name), std::move(placeholder), std::move(help),
                [out](std::string_view, std::string_view value) {
                  *out = std::string(value);
                  return absl::OkStatus();
                });
}

// A flag documented by the row before it.
Flag OnRowBefore(Flag flag) {
  flag.help.clear();
  return flag;
}

// What to run: the schedules, the ranks and the microbatches.
void AddWhatToRunFlags(FlagTable& table, PipelineFlags& f) {
  table.Section("what to run:", 19);
  table.Add(
      Text("schedule", "NAME", "simulate one schedule and print a per-rank summary", &f.schedule));
  table.Add(Names("compare", "LIST",
                  "simulate several; one row each: bubble, peak per rank, fits --memory-limit?",
                  "schedule name", &f.compare));
  for (auto [name, placeholder, help, out] :
       {std::tuple("ranks", "P", "pipeline ranks (devices)", &f.ranks),
        std::tuple("microbatches", "M", "microbatches per step", &f.microbatches)}) {
    table.Add(Valued(name, placeholder, help,
                     [out](std::string_view flag, std::string_view value) -> absl::Status {
                       absl::StatusOr<int32_t> v = PositiveInt(flag, value);
                       if (!v.ok()) return v.status();
                       *out = *v;
                       return absl::OkStatus();
                     }));
  }
}

// Costs given as numbers: times per action and per hop, activation bytes, tokens.
void AddCostFlags(FlagTable& table, PipelineFlags& f) {
  table.Section(
      "costs (a single value is each rank's share of the model; a list of L values describes the\n"
      "model cut into L parts, split or merged evenly onto the schedule's stages):",
      35);
  table.Add(Times("forward-time", "forward time in microseconds (default 1000)", &f.forward_time));
  table.Add(Times("backward-time", "full backward B (default: input + weight backward)",
                  &f.backward_time));
  table.Add(
      Times("backward-input-time", "backward for inputs I (default 1000)", &f.backward_input_time));
  table.Add(Times("backward-weight-time", "backward for weights W (default 1000)",
                  &f.backward_weight_time));
  table.Add(OneTime("comm-time", "time of one hop between ranks, microseconds (default 0)",
                    &f.comm_time));
  Flag unshard = OneTime("unshard-time",
                         "rank time of PyTorch's UNSHARD, RESHARD and REDUCE_GRAD\n"
                         "actions, microseconds (default 0)",
                         &f.unshard_time);
  unshard.label = "--unshard-time=T, --reshard-time=T, --reduce-grad-time=T";
  table.Add(std::move(unshard));
  table.Add(OnRowBefore(OneTime("reshard-time", "", &f.reshard_time)));
  table.Add(OnRowBefore(OneTime("reduce-grad-time", "", &f.reduce_grad_time)));
  table.Add(Valued("activation-bytes", "B[,B...]",
                   "activations one microbatch leaves alive per part, e.g. 2GiB;\n"
                   "without it sizes are stage-equivalents (one rank's share)",
                   [&f](std::string_view flag, std::string_view value) -> absl::Status {
                     absl::StatusOr<std::vector<double>> v = List<double>(flag, value, Bytes);
                     if (!v.ok()) return v.status();
                     f.activation_bytes = *std::move(v);
                     return absl::OkStatus();
                   }));
  table.Add(Valued("microbatch-tokens", "T,T,...",
                   "tokens of each microbatch; costs above are the largest one's,\n"
                   "others scale linearly",
                   [&f](std::string_view flag, std::string_view value) -> absl::Status {
                     absl::StatusOr<std::vector<int64_t>> v = List<int64_t>(flag, value, Tokens);
                     if (!v.ok()) return v.status();
                     f.microbatch_tokens = *std::move(v);
                     return absl::OkStatus();
                   }));
}

// Costs measured from HLO: --from-hlo, or hlo-opt --stage-costs's JSON.
void AddMeasuredCostFlags(FlagTable& table, PipelineFlags& f) {
  table.Add(Names("from-hlo", "S0.hlo,S1.hlo,...",
                  "per-stage costs from HLO, one module per stage (as MPMD\n"
                  "pipelining compiles them): forward, input- and weight-backward\n"
                  "times from the FLOPs of their dots and convolutions, and the\n"
                  "activation bytes one microbatch leaves alive from the memory\n"
                  "profiler, and each stage's static memory (its module's entry\n"
                  "parameters: weights, optimizer state, inputs); the flags above\n"
                  "and --static-bytes override what they give.\n"
                  "hlo-pipeline reads no HLO itself: this runs hlo-opt\n"
                  "--stage-costs (the hlo-opt beside hlo-pipeline, or\n"
                  "$HLOSCOPE_HLO_OPT)",
                  "file name", &f.from_hlo));
  table.Add(Valued("device-tflops", "T",
                   "sustained TFLOP/s that turns --from-hlo FLOPs into time\n(default 400)",
                   [&f](std::string_view flag, std::string_view value) -> absl::Status {
                     double v = 0;
                     if (!ParseNumber(value, &v) || !(v > 0) || !std::isfinite(v)) {
                       return Bad(flag, StrCat("expected a positive number of TFLOP/s, got '",
                                               value, "'"));
                     }
                     f.device_tflops = v;
                     f.hlo_measure_flags_given = true;
                     return absl::OkStatus();
                   }));
  table.Add(Valued("backward-regex", "RE",
                   "op_name pattern of the backward pass (default 'transpose\\(')",
                   [&f](std::string_view, std::string_view value) {
                     f.backward_regex = std::string(value);
                     f.hlo_measure_flags_given = true;
                     return absl::OkStatus();
                   }));
  table.Add(Text("stage-costs", "FILE.json",
                 "the same per-stage costs, measured beforehand by\n"
                 "hlo-opt --stage-costs=FILE.json [--tflops=T] S0.hlo S1.hlo...",
                 &f.stage_costs_path));
}

// The device memory a schedule must fit in.
void AddMemoryFitFlags(FlagTable& table, PipelineFlags& f) {
  table.Section("memory (plain numbers in stage-equivalents when --activation-bytes is not given):",
                23);
  table.Add(Valued("memory-limit", "B",
                   "device memory per rank, e.g. 80GiB; reports whether each schedule fits",
                   [&f](std::string_view flag, std::string_view value) -> absl::Status {
                     absl::StatusOr<double> v = Bytes(flag, value);
                     if (!v.ok()) return v.status();
                     f.memory_limit = *v;
                     return absl::OkStatus();
                   }));
  table.Add(Valued("static-bytes", "B[,B]",
                   "memory a rank holds besides activations (weights, optimizer), per rank\n"
                   "or one value for all; added to the peak for the fit check. Without\n"
                   "it: --from-hlo's stage modules' entry parameters, or 'not known'",
                   [&f](std::string_view flag, std::string_view value) -> absl::Status {
                     absl::StatusOr<std::vector<double>> v = List<double>(flag, value, Bytes);
                     if (!v.ok()) return v.status();
                     f.static_bytes = *std::move(v);
                     return absl::OkStatus();
                   }));
}

// What is printed and written, and how schedules are lowered.
void AddOutputFlags(FlagTable& table, PipelineFlags& f) {
  table.Section("output:", 23);
  table.Add(SwitchFlag({"--grid"}, &f.grid,
                       "print the step grid (Step 00: 0F0 1RECV_F0 ...) of each schedule"));
  table.Add(Valued("grid-style", "ours|pytorch",
                   "ours (default): each action at the step it runs under unit costs;\n"
                   "pytorch: PyTorch's layouts - a compute-only schedule (--no-comms) as its\n"
                   "pipeline_order places idle steps, a lowered one as its lockstep\n"
                   "_simulate_comms_compute grid",
                   [&f](std::string_view flag, std::string_view value) {
                     if (value != "ours" && value != "pytorch") {
                       return Bad(flag, "expected ours or pytorch");
                     }
                     f.grid_pytorch = value == "pytorch";
                     return absl::OkStatus();
                   }));
  table.Add(Valued("format", "text|json",
                   "report format (default text); --json is short for --format=json",
                   [&f](std::string_view flag, std::string_view value) {
                     if (value != "text" && value != "json") {
                       return Bad(flag, "expected text or json");
                     }
                     f.json = value == "json";
                     return absl::OkStatus();
                   }));
  table.Add(OnRowBefore(SwitchFlag({"--json"}, &f.json, "")));
  table.Add(OutputFileFlag(Text(
      "trace", "PATH", "write a Chrome trace (chrome://tracing, ui.perfetto.dev) of --schedule",
      &f.trace_path)));
  table.Add(
      OutputFileFlag(Text("dump-csv", "PATH",
                          "write the simulated schedule of --schedule as CSV without idle cells:\n"
                          "the compute_comms form PyTorch's _PipelineScheduleRuntime loads",
                          &f.dump_csv_path)));
  table.Add(SwitchFlag({"--no-comms"}, &f.no_comms,
                       "do not add SEND/RECV; simulate the compute-only schedule, with\n"
                       "--comm-time between stages on different ranks"));
  table.Add(Valued("recv", "before-use|eager",
                   "where lowering puts a RECV: before-use (default) just before the action\n"
                   "that needs it; eager as PyTorch's _add_send_recv, when the sender's\n"
                   "action is placed",
                   [&f](std::string_view flag, std::string_view value) {
                     if (value != "before-use" && value != "eager") {
                       return Bad(flag, "expected before-use or eager");
                     }
                     f.recv_eager = value == "eager";
                     return absl::OkStatus();
                   }));
  table.Add(SwitchFlag({"--fsdp-actions"}, &f.fsdp_actions,
                       "lower as PyTorch's runtime does: also UNSHARD/RESHARD (3 stages\n"
                       "prefetched) and REDUCE_GRAD after a stage's last backward"));
  table.Add(SwitchFlag({"-h", "--help"}, &f.help, "this text"));
}

}  // namespace

FlagTable PipelineFlagTable(PipelineFlags& f) {
  FlagTable table({
      .unknown =
          [](std::string_view arg, std::string_view name) {
            return name.starts_with("--") ? StrCat("unknown flag '", name, "'")
                                          : StrCat("unexpected argument '", arg, "'");
          },
      .takes_no_value = [](std::string_view name) { return StrCat(name, ": takes no value"); },
  });
  AddWhatToRunFlags(table, f);
  AddCostFlags(table, f);
  AddMeasuredCostFlags(table, f);
  AddMemoryFitFlags(table, f);
  AddOutputFlags(table, f);
  return table;
}

absl::StatusOr<PipelineFlags> ParsePipelineFlags(int argc, const char* const* argv) {
  PipelineFlags f;
  if (absl::Status s = PipelineFlagTable(f).Parse(argc, argv); !s.ok()) return s;
  return f;
}

std::string PipelineHelp() {
  PipelineFlags unused;
  return StrCat(
      R"(hlo-pipeline: simulate pipeline-parallel schedules: bubble, timing, activation memory.

usage:
  hlo-pipeline --schedule=NAME --ranks=P --microbatches=M [options]
  hlo-pipeline --compare=NAME,NAME,... --ranks=P --microbatches=M [options]

schedules (NAME):
  )",
      KnownScheduleNames(), R"(
  csv:PATH         a schedule in PyTorch's CSV form: one row per rank, cells like 0F0, 2I1,
                   1RECV_B0, 0UNSHARD, 0REDUCE_GRAD, (0F7;7B3)OVERLAP_F_B, empty = idle
                   (--ranks/--microbatches then come from the file); both of PyTorch's
                   _dump_csv formats (compute_only, compute_comms) load

)",
      PipelineFlagTable(unused).Help(), R"(
exit codes: 0 ok, 1 bad input (invalid or deadlocking schedule, unreadable file, impossible
sizes, HLO that does not parse), 2 bad usage (unknown flag, malformed value, missing flag).
)");
}

}  // namespace hloscope::pipeline
