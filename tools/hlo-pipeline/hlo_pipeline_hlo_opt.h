// hlo-pipeline --from-hlo: the per-stage costs of HLO modules, measured by hlo-opt
// --stage-costs in a child process, so that hlo-pipeline links no HLO library (docs/pipeline.md,
// "What links what"). hlo-opt is the one beside the running hlo-pipeline (both sit in build/tools
// and in an install's bin/), or $HLOSCOPE_HLO_OPT.
//
// The messages are today's: a file that cannot be read is named by --from-hlo (checked here,
// before hlo-opt runs); hlo-opt's own errors (file:line:col from the parser and verifier, a bad
// --backward-regex) come back as hlo-pipeline's error with hlo-opt's "hlo-opt: error: " and
// usage hint taken off. What hlo-opt prints on stderr when it succeeds is passed through. One
// difference from when hlo-pipeline parsed HLO itself: a parse error in standard input
// (--from-hlo=-) names it "<stdin>", as hlo-opt does, where it used to say "-".
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "pipeline/stage_costs.h"

namespace hloscope::pipeline {

// The hlo-opt --from-hlo runs: $HLOSCOPE_HLO_OPT when set and not empty, else "hlo-opt" in the
// directory of /proc/self/exe. An error when /proc/self/exe cannot be read.
absl::StatusOr<std::string> HloOptPath();

// Runs `hlo-opt --stage-costs=- --tflops=T --backward-regex=RE -- FILES` (no shell) and reads
// its JSON. Every error is one hlo-pipeline reports as bad input.
absl::StatusOr<StageCosts> StageCostsFromHlo(const std::vector<std::string>& files,
                                             double device_tflops,
                                             const std::string& backward_regex);

}  // namespace hloscope::pipeline
