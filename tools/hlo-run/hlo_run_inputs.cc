#include "tools/hlo-run/hlo_run_inputs.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "absl/status/status.h"
#include "eval/evaluator.h"
#include "fmt/format.h"
#include "hlo/computation.h"
#include "support/status_text.h"

namespace hloscope {

absl::StatusOr<std::vector<eval::Literal>> ParseInputs(std::string_view text,
                                                       std::string_view filename,
                                                       const Module& module) {
  const Computation& entry = *module.entry();
  std::vector<eval::Literal> args;
  int line_number = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_number;
    size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string_view::npos || line.substr(first).starts_with("//")) continue;
    if (static_cast<int64_t>(args.size()) >= entry.parameter_count()) {
      return absl::InvalidArgumentError(
          fmt::format("{}:{}: more inputs than the {} entry parameters", filename, line_number,
                      entry.parameter_count()));
    }
    const Instruction& p = *entry.parameter(static_cast<int64_t>(args.size()));
    absl::StatusOr<eval::Literal> lit = eval::ParseLiteral(line, p.shape());
    if (!lit.ok()) {
      return absl::InvalidArgumentError(
          fmt::format("{}:{}: parameter {} ({}): {}", filename, line_number, args.size(),
                      p.shape().ToString(false), StatusText(lit.status())));
    }
    args.push_back(std::move(*lit));
  }
  if (static_cast<int64_t>(args.size()) != entry.parameter_count()) {
    return absl::InvalidArgumentError(fmt::format("{}:{}: {} inputs for {} entry parameters",
                                                  filename, line_number, args.size(),
                                                  entry.parameter_count()));
  }
  return args;
}

}  // namespace hloscope
