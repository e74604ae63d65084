#include "tools/hlo_pipeline_flags.h"

#include <charconv>
#include <cmath>
#include <functional>
#include <string_view>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "hlo/str_util.h"
#include "pipeline/generators.h"
#include "pipeline/string_pieces.h"
#include "pipeline/units.h"

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
  if (!v.ok()) return Bad(flag, StdView(v.status().message()));
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

}  // namespace

absl::StatusOr<PipelineFlags> ParsePipelineFlags(int argc, const char* const* argv) {
  PipelineFlags f;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      f.help = true;
      continue;
    }
    if (arg.substr(0, 2) != "--") {
      return absl::InvalidArgumentError(StrCat("unexpected argument '", arg, "'"));
    }
    arg.remove_prefix(2);
    const size_t eq = arg.find('=');
    const std::string_view name = arg.substr(0, eq);
    const bool has_value = eq != std::string_view::npos;
    const std::string_view value = has_value ? arg.substr(eq + 1) : std::string_view();
    auto need_value = [&]() -> absl::Status {
      if (!has_value || value.empty()) return Bad(name, "needs a value (--name=value)");
      return absl::OkStatus();
    };
    auto no_value = [&]() -> absl::Status {
      if (has_value) return Bad(name, "takes no value");
      return absl::OkStatus();
    };
    absl::Status st;
    if (name == "grid" || name == "no-comms" || name == "json" || name == "fsdp-actions") {
      st = no_value();
      if (st.ok()) {
        (name == "grid"           ? f.grid
         : name == "json"         ? f.json
         : name == "fsdp-actions" ? f.fsdp_actions
                                  : f.no_comms) = true;
      }
    } else {
      st = need_value();
      if (!st.ok()) return st;
      auto store_list = [&](std::optional<std::vector<double>>* out, auto one) -> absl::Status {
        absl::StatusOr<std::vector<double>> v = List<double>(name, value, one);
        if (!v.ok()) return v.status();
        *out = *std::move(v);
        return absl::OkStatus();
      };
      if (name == "schedule") {
        f.schedule = std::string(value);
      } else if (name == "compare") {
        for (std::string_view item : Split(value, ',')) {
          if (StripWhitespace(item).empty()) return Bad(name, "empty schedule name in the list");
          f.compare.emplace_back(StripWhitespace(item));
        }
      } else if (name == "ranks" || name == "microbatches") {
        absl::StatusOr<int32_t> v = PositiveInt(name, value);
        if (!v.ok()) return v.status();
        (name == "ranks" ? f.ranks : f.microbatches) = *v;
      } else if (name == "activation-bytes") {
        st = store_list(&f.activation_bytes, Bytes);
      } else if (name == "forward-time") {
        st = store_list(&f.forward_time, Time);
      } else if (name == "backward-time") {
        st = store_list(&f.backward_time, Time);
      } else if (name == "backward-input-time") {
        st = store_list(&f.backward_input_time, Time);
      } else if (name == "backward-weight-time") {
        st = store_list(&f.backward_weight_time, Time);
      } else if (name == "microbatch-tokens") {
        absl::StatusOr<std::vector<int64_t>> v = List<int64_t>(name, value, Tokens);
        if (!v.ok()) return v.status();
        f.microbatch_tokens = *std::move(v);
      } else if (name == "comm-time" || name == "unshard-time" || name == "reshard-time" ||
                 name == "reduce-grad-time") {
        absl::StatusOr<double> v = Time(name, value);
        if (!v.ok()) return v.status();
        (name == "comm-time"      ? f.comm_time
         : name == "unshard-time" ? f.unshard_time
         : name == "reshard-time" ? f.reshard_time
                                  : f.reduce_grad_time) = *v;
      } else if (name == "grid-style") {
        if (value != "ours" && value != "pytorch") return Bad(name, "expected ours or pytorch");
        f.grid_pytorch = value == "pytorch";
      } else if (name == "recv") {
        if (value != "before-use" && value != "eager") {
          return Bad(name, "expected before-use or eager");
        }
        f.recv_eager = value == "eager";
      } else if (name == "static-bytes") {
        absl::StatusOr<std::vector<double>> v = List<double>(name, value, Bytes);
        if (!v.ok()) return v.status();
        f.static_bytes = *std::move(v);
      } else if (name == "memory-limit") {
        absl::StatusOr<double> v = Bytes(name, value);
        if (!v.ok()) return v.status();
        f.memory_limit = *v;
      } else if (name == "format") {
        if (value != "text" && value != "json") return Bad(name, "expected text or json");
        f.json = value == "json";
      } else if (name == "from-hlo") {
        for (std::string_view item : Split(value, ',')) {
          if (StripWhitespace(item).empty()) return Bad(name, "empty file name in the list");
          f.from_hlo.emplace_back(StripWhitespace(item));
        }
      } else if (name == "device-tflops") {
        double v = 0;
        if (!ParseNumber(value, &v) || !(v > 0) || !std::isfinite(v)) {
          return Bad(name, StrCat("expected a positive number of TFLOP/s, got '", value, "'"));
        }
        f.device_tflops = v;
        f.hlo_measure_flags_given = true;
      } else if (name == "backward-regex") {
        f.backward_regex = std::string(value);
        f.hlo_measure_flags_given = true;
      } else if (name == "stage-costs") {
        f.stage_costs_path = std::string(value);
      } else if (name == "trace") {
        f.trace_path = std::string(value);
      } else if (name == "dump-csv") {
        f.dump_csv_path = std::string(value);
      } else {
        return absl::InvalidArgumentError(StrCat("unknown flag '--", name, "'"));
      }
    }
    if (!st.ok()) return st;
  }
  return f;
}

std::string PipelineHelp() {
  return fmt::format(
      R"(hlo-pipeline: simulate pipeline-parallel schedules: bubble, timing, activation memory.

usage:
  hlo-pipeline --schedule=NAME --ranks=P --microbatches=M [options]
  hlo-pipeline --compare=NAME,NAME,... --ranks=P --microbatches=M [options]

schedules (NAME):
  {}
  csv:PATH         a schedule in PyTorch's CSV form: one row per rank, cells like 0F0, 2I1,
                   1RECV_B0, 0UNSHARD, 0REDUCE_GRAD, (0F7;7B3)OVERLAP_F_B, empty = idle
                   (--ranks/--microbatches then come from the file); both of PyTorch's
                   _dump_csv formats (compute_only, compute_comms) load

what to run:
  --schedule=NAME  simulate one schedule and print a per-rank summary
  --compare=LIST   simulate several; one row each: bubble, peak per rank, fits --memory-limit?
  --ranks=P        pipeline ranks (devices)
  --microbatches=M microbatches per step

costs (a single value is each rank's share of the model; a list of L values describes the
model cut into L parts, split or merged evenly onto the schedule's stages):
  --forward-time=T[,T...]          forward time in microseconds (default 1000)
  --backward-time=T[,T...]         full backward B (default: input + weight backward)
  --backward-input-time=T[,T...]   backward for inputs I (default 1000)
  --backward-weight-time=T[,T...]  backward for weights W (default 1000)
  --comm-time=T                    time of one hop between ranks, microseconds (default 0)
  --unshard-time=T, --reshard-time=T, --reduce-grad-time=T
                                   rank time of PyTorch's UNSHARD, RESHARD and REDUCE_GRAD
                                   actions, microseconds (default 0)
  --activation-bytes=B[,B...]      activations one microbatch leaves alive per part, e.g. 2GiB;
                                   without it sizes are stage-equivalents (one rank's share)
  --microbatch-tokens=T,T,...      tokens of each microbatch; costs above are the largest one's,
                                   others scale linearly
  --from-hlo=S0.hlo,S1.hlo,...     per-stage costs from HLO, one module per stage (as MPMD
                                   pipelining compiles them): forward, input- and weight-backward
                                   times from the FLOPs of their dots and convolutions, and the
                                   activation bytes one microbatch leaves alive from the memory
                                   profiler; the flags above override what they give.
                                   hlo-pipeline reads no HLO itself: this runs hlo-opt
                                   --stage-costs (the hlo-opt beside hlo-pipeline, or
                                   $HLOSCOPE_HLO_OPT)
  --device-tflops=T                sustained TFLOP/s that turns --from-hlo FLOPs into time
                                   (default 400)
  --backward-regex=RE              op_name pattern of the backward pass (default 'transpose\(')
  --stage-costs=FILE.json          the same per-stage costs, measured beforehand by
                                   hlo-opt --stage-costs=FILE.json [--tflops=T] S0.hlo S1.hlo...

memory (plain numbers in stage-equivalents when --activation-bytes is not given):
  --memory-limit=B     device memory per rank, e.g. 80GiB; reports whether each schedule fits
  --static-bytes=B[,B] memory a rank holds besides activations (weights, optimizer), per rank
                       or one value for all; added to the peak for the fit check

output:
  --grid               print the step grid (Step 00: 0F0 1RECV_F0 ...) of each schedule
  --grid-style=ours|pytorch
                       ours (default): each action at the step it runs under unit costs;
                       pytorch: PyTorch's layouts - a compute-only schedule (--no-comms) as its
                       pipeline_order places idle steps, a lowered one as its lockstep
                       _simulate_comms_compute grid
  --format=text|json   report format (default text); --json is short for --format=json
  --trace=PATH         write a Chrome trace (chrome://tracing, ui.perfetto.dev) of --schedule
  --dump-csv=PATH      write the simulated schedule of --schedule as CSV without idle cells:
                       the compute_comms form PyTorch's _PipelineScheduleRuntime loads
  --no-comms           do not add SEND/RECV; simulate the compute-only schedule, with
                       --comm-time between stages on different ranks
  --recv=before-use|eager
                       where lowering puts a RECV: before-use (default) just before the action
                       that needs it; eager as PyTorch's _add_send_recv, when the sender's
                       action is placed
  --fsdp-actions       lower as PyTorch's runtime does: also UNSHARD/RESHARD (3 stages
                       prefetched) and REDUCE_GRAD after a stage's last backward
  --help               this text

exit codes: 0 ok, 1 bad input (invalid or deadlocking schedule, unreadable file, impossible
sizes, HLO that does not parse), 2 bad usage (unknown flag, malformed value, missing flag).
)",
      KnownScheduleNames());
}

}  // namespace hloscope::pipeline
