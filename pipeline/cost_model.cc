#include "pipeline/cost_model.h"

#include <algorithm>
#include <string_view>

#include "support/option_error.h"
#include "support/status_text.h"
#include "support/str_util.h"

namespace hloscope::pipeline {

double CostModel::Duration(const Action& a) const {
  double base = 0;
  switch (a.kind) {
    case ActionKind::kIdle:
      return 0;
    case ActionKind::kForward:
      base = forward_time[a.stage];
      break;
    case ActionKind::kBackward:
      base = backward_time[a.stage];
      break;
    case ActionKind::kBackwardInput:
      base = backward_input_time[a.stage];
      break;
    case ActionKind::kBackwardWeight:
      base = backward_weight_time[a.stage];
      break;
    case ActionKind::kSendForward:
    case ActionKind::kSendBackward:
      return send_time;
    case ActionKind::kRecvForward:
    case ActionKind::kRecvBackward:
      return recv_time;
    case ActionKind::kUnshard:
      return unshard_time;
    case ActionKind::kReshard:
      return reshard_time;
    case ActionKind::kReduceGrad:
      return reduce_grad_time;
  }
  return microbatch_scale.empty() ? base : base * microbatch_scale[a.microbatch];
}

double CostModel::Bytes(int32_t stage, int32_t mb) const {
  const double base = activation_bytes[stage];
  return microbatch_scale.empty() ? base : base * microbatch_scale[mb];
}

absl::Status CostModel::CheckCovers(const Schedule& s) const {
  const size_t stages = static_cast<size_t>(s.num_stages);
  for (const auto* v : {&forward_time, &backward_time, &backward_input_time, &backward_weight_time,
                        &activation_bytes}) {
    if (v->size() < stages) {
      return absl::InvalidArgumentError(
          StrCat("cost model has ", v->size(), " stages, schedule '", s.name, "' has ", stages));
    }
  }
  if (!microbatch_scale.empty() &&
      microbatch_scale.size() < static_cast<size_t>(s.num_microbatches)) {
    return absl::InvalidArgumentError(StrCat("cost model has ", microbatch_scale.size(),
                                             " microbatch sizes, schedule '", s.name, "' has ",
                                             s.num_microbatches, " microbatches"));
  }
  return absl::OkStatus();
}

CostModel CostModel::UnitSteps(const Schedule& s) {
  CostModel c;
  const std::vector<double> ones(s.num_stages, 1.0);
  c.forward_time = c.backward_time = c.backward_input_time = c.backward_weight_time = ones;
  c.activation_bytes = ones;
  c.send_time = c.recv_time = 1;
  c.unshard_time = c.reshard_time = c.reduce_grad_time = 1;
  return c;
}

absl::StatusOr<std::vector<double>> SpreadOverStages(std::span<const double> per_part,
                                                     int32_t ranks, int32_t stages) {
  if (per_part.empty()) return absl::InvalidArgumentError("no values to spread over stages");
  std::vector<double> out(stages);
  const int32_t parts = static_cast<int32_t>(per_part.size());
  if (parts == 1) {
    const double total = per_part[0] * ranks;
    std::fill(out.begin(), out.end(), total / stages);
  } else if (stages % parts == 0) {
    const int32_t k = stages / parts;
    for (int32_t s = 0; s < stages; ++s) out[s] = per_part[s / k] / k;
  } else if (parts % stages == 0) {
    const int32_t k = parts / stages;
    for (int32_t s = 0; s < stages; ++s) {
      for (int32_t j = 0; j < k; ++j) out[s] += per_part[s * k + j];
    }
  } else {
    return absl::InvalidArgumentError(
        StrCat(parts, " per-part values cannot be spread over ", stages,
               " stages: one count must divide the other (give one value per stage, or per rank)"));
  }
  return out;
}

absl::StatusOr<CostModel> BuildCostModel(const CostInputs& in, const Schedule& schedule) {
  const int32_t ranks = schedule.num_ranks(), stages = schedule.num_stages;
  if (!(in.comm_time >= 0)) return absl::InvalidArgumentError("comm time must be >= 0");
  CostModel c;
  c.comm_time = in.comm_time;
  c.unshard_time = in.unshard_time;
  c.reshard_time = in.reshard_time;
  c.reduce_grad_time = in.reduce_grad_time;
  struct Field {
    std::string_view name;
    const std::vector<double>* in;
    std::vector<double>* out;
  };
  std::vector<double> backward = in.backward_time;
  if (backward.empty()) {
    if (in.backward_input_time.size() != in.backward_weight_time.size() &&
        in.backward_input_time.size() != 1 && in.backward_weight_time.size() != 1) {
      return InvalidOptionError(
          "backward-input and backward-weight times have different part counts; give ",
          "backward_time", " explicitly");
    }
    const size_t n = std::max(in.backward_input_time.size(), in.backward_weight_time.size());
    backward.resize(n);
    for (size_t j = 0; j < n; ++j) {
      backward[j] = in.backward_input_time[std::min(j, in.backward_input_time.size() - 1)] +
                    in.backward_weight_time[std::min(j, in.backward_weight_time.size() - 1)];
    }
  }
  const Field fields[] = {
      {"forward time", &in.forward_time, &c.forward_time},
      {"backward time", &backward, &c.backward_time},
      {"backward-input time", &in.backward_input_time, &c.backward_input_time},
      {"backward-weight time", &in.backward_weight_time, &c.backward_weight_time},
      {"activation bytes", &in.activation_bytes, &c.activation_bytes},
  };
  for (const Field& f : fields) {
    for (double x : *f.in) {
      if (!(x >= 0)) return absl::InvalidArgumentError(StrCat(f.name, " must be >= 0"));
    }
    absl::StatusOr<std::vector<double>> spread = SpreadOverStages(*f.in, ranks, stages);
    if (!spread.ok()) {
      return absl::InvalidArgumentError(StrCat(f.name, ": ", StatusText(spread.status())));
    }
    *f.out = *std::move(spread);
  }
  if (!in.microbatch_tokens.empty()) {
    if (static_cast<int32_t>(in.microbatch_tokens.size()) != schedule.num_microbatches) {
      return absl::InvalidArgumentError(StrCat("microbatch tokens: got ",
                                               in.microbatch_tokens.size(), " values for ",
                                               schedule.num_microbatches, " microbatches"));
    }
    const int64_t largest =
        *std::max_element(in.microbatch_tokens.begin(), in.microbatch_tokens.end());
    for (int64_t t : in.microbatch_tokens) {
      if (t <= 0) return absl::InvalidArgumentError("microbatch tokens must be positive");
      c.microbatch_scale.push_back(static_cast<double>(t) / static_cast<double>(largest));
    }
  }
  return c;
}

}  // namespace hloscope::pipeline
