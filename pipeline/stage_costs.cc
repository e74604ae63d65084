#include "pipeline/stage_costs.h"

#include <cmath>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "google/protobuf/util/json_util.h"
#include "pipeline/stage_costs.pb.h"
#include "pipeline/units.h"
#include "support/bytes.h"
#include "support/option_error.h"
#include "support/proto_json.h"

namespace hloscope::pipeline {
namespace {

namespace proto = ::hloscope::pipeline::costs;

absl::Status Bad(std::string_view source, std::string_view where, std::string_view why) {
  return absl::InvalidArgumentError(fmt::format("{}: {}{}", source, where, why));
}

// A required number: present, finite and >= 0 (JSON cannot write an infinity, but protobuf's
// parser reads "Infinity" and "NaN" strings into a double).
absl::Status Number(std::string_view source, std::string_view where, std::string_view name,
                    bool present, double value, double* out) {
  if (!present) return Bad(source, where, fmt::format("\"{}\" is missing", name));
  if (!std::isfinite(value) || value < 0) {
    return Bad(source, where,
               fmt::format("\"{}\" is {}; expected a finite number >= 0", name, value));
  }
  *out = value;
  return absl::OkStatus();
}

absl::StatusOr<StageCost> StageFromProto(std::string_view source, size_t index,
                                         const proto::StageCost& p) {
  const std::string where = fmt::format("stage {}: ", index);
  StageCost s;
  if (!p.has_path()) return Bad(source, where, "\"path\" is missing");
  s.path = p.path();
  if (!p.has_activation_source()) return Bad(source, where, "\"activation_source\" is missing");
  s.activation_source = p.activation_source();
  struct Field {
    std::string_view name;
    bool present;
    double value;
    double* out;
  };
  // dots and unknown_trip_counts are information only: absent reads as 0.
  const Field fields[] = {
      {"forward_flops", p.has_forward_flops(), p.forward_flops(), &s.forward_flops},
      {"backward_input_flops", p.has_backward_input_flops(), p.backward_input_flops(),
       &s.backward_input_flops},
      {"backward_weight_flops", p.has_backward_weight_flops(), p.backward_weight_flops(),
       &s.backward_weight_flops},
      {"dots", true, p.dots(), &s.dots},
      {"unknown_trip_counts", true, p.unknown_trip_counts(), &s.unknown_trip_counts},
      {"forward_us", p.has_forward_us(), p.forward_us(), &s.forward_us},
      {"backward_input_us", p.has_backward_input_us(), p.backward_input_us(), &s.backward_input_us},
      {"backward_weight_us", p.has_backward_weight_us(), p.backward_weight_us(),
       &s.backward_weight_us},
      {"activation_bytes", p.has_activation_bytes(), p.activation_bytes(), &s.activation_bytes},
  };
  for (const Field& f : fields) {
    if (absl::Status st = Number(source, where, f.name, f.present, f.value, f.out); !st.ok()) {
      return st;
    }
  }
  if (p.has_static_bytes()) {
    double bytes = 0;
    if (absl::Status st = Number(source, where, "static_bytes", true, p.static_bytes(), &bytes);
        !st.ok()) {
      return st;
    }
    s.static_bytes = bytes;
  }
  return s;
}

}  // namespace

std::string StageCostsJson(const StageCosts& costs) {
  proto::StageCosts out;
  out.set_device_tflops(costs.device_tflops);
  out.set_backward_regex(costs.backward_regex);
  for (const StageCost& s : costs.stages) {
    proto::StageCost* p = out.add_stages();
    p->set_path(s.path);
    p->set_forward_flops(s.forward_flops);
    p->set_backward_input_flops(s.backward_input_flops);
    p->set_backward_weight_flops(s.backward_weight_flops);
    p->set_dots(s.dots);
    p->set_unknown_trip_counts(s.unknown_trip_counts);
    p->set_forward_us(s.forward_us);
    p->set_backward_input_us(s.backward_input_us);
    p->set_backward_weight_us(s.backward_weight_us);
    p->set_activation_bytes(s.activation_bytes);
    p->set_activation_source(s.activation_source);
    if (s.static_bytes) p->set_static_bytes(*s.static_bytes);
  }
  return ProtoJsonLine(out);
}

absl::StatusOr<StageCosts> ParseStageCostsJson(std::string_view json, std::string_view source) {
  proto::StageCosts in;
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;  // a misspelt field is an error, not a silent zero
  if (auto status = google::protobuf::util::JsonStringToMessage(
          google::protobuf::StringPiece(json.data(), json.size()), &in, options);
      !status.ok()) {
    const auto message = status.message();
    return InvalidOptionError(
        fmt::format("{}: not stage costs JSON (", source), kStageCostsWriter,
        fmt::format(" writes them): {}", std::string_view(message.data(), message.size())));
  }
  StageCosts costs;
  if (!in.has_device_tflops()) return Bad(source, "", "\"device_tflops\" is missing");
  if (!std::isfinite(in.device_tflops()) || !(in.device_tflops() > 0)) {
    return Bad(
        source, "",
        fmt::format("\"device_tflops\" is {}; expected a finite number > 0", in.device_tflops()));
  }
  costs.device_tflops = in.device_tflops();
  costs.backward_regex = in.backward_regex();
  if (in.stages().empty()) return Bad(source, "", "no stages (\"stages\" is missing or empty)");
  for (int i = 0; i < in.stages_size(); ++i) {
    absl::StatusOr<StageCost> s = StageFromProto(source, static_cast<size_t>(i), in.stages(i));
    if (!s.ok()) return s.status();
    costs.stages.push_back(*std::move(s));
  }
  return costs;
}

std::string FormatStageCosts(const StageCosts& costs) {
  std::string out = fmt::format(
      "per-stage costs from HLO ({} TFLOP/s; one microbatch):\n"
      "  {:<5} {:>12} {:>12} {:>12} {:>12} {:>12} {:>12}  {:<8} {:>12}  {}\n",
      costs.device_tflops, "stage", "F GFLOP", "I GFLOP", "W GFLOP", "F us", "I+W us", "act/mb",
      "act from", "static", "file");
  for (size_t i = 0; i < costs.stages.size(); ++i) {
    const StageCost& s = costs.stages[i];
    out += fmt::format(
        "  {:<5} {:>12.3f} {:>12.3f} {:>12.3f} {:>12.2f} {:>12.2f} {:>12}  {:<8} {:>12}  {}\n", i,
        s.forward_flops / 1e9, s.backward_input_flops / 1e9, s.backward_weight_flops / 1e9,
        s.forward_us, s.backward_input_us + s.backward_weight_us, FormatBytes(s.activation_bytes),
        s.activation_source, s.static_bytes ? FormatBytes(*s.static_bytes) : "not known", s.path);
  }
  return out;
}

}  // namespace hloscope::pipeline
