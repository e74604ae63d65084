// Helpers for the analysis tests: parse HLO text, find instructions, and print value sets and
// buffers as short comparable strings ("p{}, add{} (phi)").
#pragma once

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>

#include "analysis/alias.h"
#include "analysis/dataflow.h"
#include "gtest/gtest.h"
#include "hlo/module.h"
#include "hlo/parser.h"
#include "support/status_text.h"
#include "tests/test_util.h"

namespace hloscope::analysis_testing {

using testing::Find;
using testing::Parse;

inline std::unique_ptr<DataflowAnalysis> RunDataflow(const Module& m,
                                                     DataflowAnalysis::Options options = {}) {
  absl::StatusOr<std::unique_ptr<DataflowAnalysis>> df = DataflowAnalysis::Run(m, options);
  EXPECT_TRUE(df.ok()) << StatusText(df.status());
  if (!df.ok()) return nullptr;
  return *std::move(df);
}

inline std::unique_ptr<AliasAnalysis> RunAlias(const Module& m,
                                               DataflowAnalysis::Options options = {}) {
  absl::StatusOr<std::unique_ptr<AliasAnalysis>> aa = AliasAnalysis::Run(m, options);
  EXPECT_TRUE(aa.ok()) << StatusText(aa.status());
  if (!aa.ok()) return nullptr;
  return *std::move(aa);
}

inline std::string Join(const DataflowAnalysis& df, absl::Span<const ValueId> ids) {
  std::string out;
  for (ValueId v : ids) {
    if (!out.empty()) out += ", ";
    out += df.value(v).ToString();
  }
  return out;
}

// The values at (comp.name, index), e.g. "p{}, add{} (phi)"; "<missing>" for a bad name.
inline std::string ValuesAt(const DataflowAnalysis& df, std::string_view comp,
                            std::string_view name, const ShapeIndex& index = {}) {
  const Instruction* i = Find(df.module(), comp, name);
  if (i == nullptr) return "<missing>";
  return Join(df, df.ValuesAt(*i, index));
}

// The values of the buffer(s) at (comp.name, index), e.g. "p{}, dus{}".
inline std::string BufferAt(const AliasAnalysis& aa, std::string_view comp, std::string_view name,
                            const ShapeIndex& index = {}) {
  const Instruction* i = Find(aa.dataflow().module(), comp, name);
  if (i == nullptr) return "<missing>";
  std::string out;
  for (BufferId b : aa.BuffersAt(*i, index)) {
    if (!out.empty()) out += " | ";
    out += Join(aa.dataflow(), aa.buffers()[b].values);
  }
  return out;
}

// Calls fn(path, module) for every module of every .hlo file in `dir` (each chunk of a file
// split by `// -----`), failing the test on one that does not parse. Returns the files read.
template <typename Fn>
int ForEachCorpusModule(const std::string& dir, Fn fn) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".hlo") continue;
    ++files;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    const std::string content = text.str();
    for (const InputChunk& chunk : SplitInputFile(content)) {
      ParseOptions options;
      options.first_line = chunk.first_line;
      absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(chunk.text, options);
      EXPECT_TRUE(m.ok()) << entry.path() << ": " << StatusText(m.status());
      if (m.ok()) fn(entry.path().string(), **m);
    }
  }
  return files;
}

}  // namespace hloscope::analysis_testing
