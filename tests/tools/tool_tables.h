// Every tool's flag table, built fresh over fresh flags, for the tests that read the tables
// (tests/tools/common/flag_tables_test.cc, tests/robustness/hostile_cli_test.cc). A test that
// includes this defines HLO_OPT_PATH, HLO_RUN_PATH, HLO_GEN_PATH and HLO_PIPELINE_PATH and links
// the four tools' flag libraries.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tools/common/flag_table.h"
#include "tools/hlo-gen/options.h"
#include "tools/hlo-opt/hlo_opt_flags.h"
#include "tools/hlo-pipeline/hlo_pipeline_flags.h"
#include "tools/hlo-run/hlo_run_flags.h"

namespace hloscope::testing {

struct Tool {
  std::string name;
  std::string path;  // the binary
  // A fresh table over fresh flags: `keep` holds the flags while the table is used.
  std::function<FlagTable(std::shared_ptr<void>& keep)> table;
};

inline std::vector<Tool> Tools() {
  return {
      {"hlo-opt", HLO_OPT_PATH,
       [](std::shared_ptr<void>& keep) {
         auto flags = std::make_shared<HloOptFlags>();
         keep = flags;
         return HloOptFlagTable(*flags);
       }},
      {"hlo-run", HLO_RUN_PATH,
       [](std::shared_ptr<void>& keep) {
         auto flags = std::make_shared<RunFlags>();
         keep = flags;
         return RunFlagTable(*flags);
       }},
      {"hlo-gen", HLO_GEN_PATH,
       [](std::shared_ptr<void>& keep) {
         auto options = std::make_shared<gen::Options>();
         keep = options;
         return gen::OptionsTable(*options);
       }},
      {"hlo-pipeline", HLO_PIPELINE_PATH,
       [](std::shared_ptr<void>& keep) {
         auto flags = std::make_shared<pipeline::PipelineFlags>();
         keep = flags;
         return pipeline::PipelineFlagTable(*flags);
       }},
  };
}

}  // namespace hloscope::testing
