// Errors about one option of a library call, which each caller names its own way: the library
// spells the option as its C++ API does (`stage_regex`, `dim_value`), a tool as its flag
// (`--stage-regex`), Python as its keyword argument. So no layer names another's options.
//
//   // library
//   return InvalidOptionError("", "stage_regex", fmt::format(" '{}' has no capture group", re));
//   // tool
//   PrintError(RespellOption(status, [](std::string_view option) { return FlagOf(option); }));
//
// The status records the option and where its name stands, counted from the message's end, so
// a prefix added on the way up ("FILE: ...", PrefixError) keeps it; the name is replaced there
// and only there, never in user text (a pattern, a module name) that happens to contain it.
//
// A refusal that an option would lift (a run past max_steps, rng without rng_seed) names the
// option without spelling it in its message: the caller appends its own spelling.
//
//   return LiftedByOption(absl::ResourceExhaustedError("the run took too many steps"),
//   "max_steps");
//   // hlo-run: "the run took too many steps (--max-steps)"
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace hloscope {

// "`before``option``after`" as an InvalidArgument error about `option`.
absl::Status InvalidOptionError(std::string_view before, std::string_view option,
                                std::string_view after);

// The option an error is about; "" when it names none.
std::string ErrorOption(const absl::Status& status);

// `status`, recording that raising `option` would lift it; its message stays as it is.
absl::Status LiftedByOption(absl::Status status, std::string_view option);

// The option that would lift `status` (LiftedByOption); "" when none.
std::string LiftingOption(const absl::Status& status);

// `status` with `prefix` before its message, its code and the option it names or that lifts
// it kept.
absl::Status PrefixError(const absl::Status& status, std::string_view prefix);

// `status` with the option's name replaced by `spelling(option)`, or, for an option that would
// lift it, with " (SPELLING)" appended; unchanged when it names no option or `spelling` gives "".
// The result names no option any more.
absl::Status RespellOption(const absl::Status& status,
                           const std::function<std::string(std::string_view option)>& spelling);

}  // namespace hloscope
