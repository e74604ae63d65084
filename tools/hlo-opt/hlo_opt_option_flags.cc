#include "tools/hlo-opt/hlo_opt_option_flags.h"

#include <string>

#include "support/option_error.h"

namespace hloscope {

const std::vector<OptionFlag>& HloOptOptionFlags() {
  static const std::vector<OptionFlag> kFlags = {
      {"stage_regex", "--stage-regex", "--stage-regex"},
      {"forward_regex", "--forward-regex", "--forward-regex"},
      {"backward_regex", "--backward-regex", "--backward-regex"},
      {"dim_value", "--dim-value", "--dim-value"},
      {"stage_attr", "--stage-by", "the NAME of --stage-by=attr:NAME"},
      {"pipeline_schedule", "--pipeline-schedule", "--pipeline-schedule"},
      // The options the reports' hints point at (support/option_spelling.h).
      {"top", "--top", "--top"},
      {"passes", "--passes", "--passes"},
      {"opportunities", "--opportunities", "--opportunities"},
      {"assume_donated", "--assume-donated", "--assume-donated"},
      {"memory_model", "--memory-model", "--memory-model"},
      {"ordering_query", "--ordering-query", "--ordering-query"},
  };
  return kFlags;
}

absl::Status WithHloOptFlag(const absl::Status& status) {
  return RespellOption(status, [](std::string_view option) {
    for (const OptionFlag& row : HloOptOptionFlags()) {
      if (row.option == option) return std::string(row.text);
    }
    return std::string();
  });
}

std::string HloOptFlagOf(std::string_view option) {
  for (const OptionFlag& row : HloOptOptionFlags()) {
    if (row.option == option) return std::string(row.flag);
  }
  return std::string();
}

}  // namespace hloscope
