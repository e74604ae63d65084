// Parsing a group of hlo-opt's flags in-process, through a table of that group alone.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "tools/common/flag_table.h"

namespace hloscope::testing {

// A table worded as hlo-opt's; the caller adds a group's rows.
inline FlagTable HloOptWordedTable() {
  return FlagTable({
      .unknown = [](std::string_view arg,
                    std::string_view) { return fmt::format("unknown option '{}'", arg); },
      .takes_no_value =
          [](std::string_view name) { return fmt::format("option '{}' takes no value", name); },
  });
}

// Parses `args` (without the program name) with `table`.
inline absl::Status ParseArgs(const FlagTable& table, const std::vector<std::string>& args) {
  std::vector<const char*> argv = {"tool"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  return table.Parse(static_cast<int>(argv.size()), argv.data());
}

// One flag as `name=value`, or `name` alone when `value` is nullopt.
inline absl::Status ParseFlag(const FlagTable& table, std::string_view name,
                              std::optional<std::string_view> value) {
  return ParseArgs(table, {value ? fmt::format("{}={}", name, *value) : std::string(name)});
}

}  // namespace hloscope::testing
