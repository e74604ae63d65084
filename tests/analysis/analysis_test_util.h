// Helpers for the analysis tests: parse HLO text, find instructions, and print value sets and
// buffers as short comparable strings ("p{}, add{} (phi)").
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "analysis/alias.h"
#include "analysis/dataflow.h"
#include "gtest/gtest.h"
#include "hlo/module.h"
#include "hlo/parser.h"
#include "tests/test_util.h"

namespace hloscope::analysis_testing {

using testing::Find;
using testing::MessageOf;
using testing::Parse;

inline std::unique_ptr<DataflowAnalysis> RunDataflow(const Module& m,
                                                     DataflowAnalysis::Options options = {}) {
  absl::StatusOr<std::unique_ptr<DataflowAnalysis>> df = DataflowAnalysis::Run(m, options);
  EXPECT_TRUE(df.ok()) << MessageOf(df.status());
  if (!df.ok()) return nullptr;
  return *std::move(df);
}

inline std::unique_ptr<AliasAnalysis> RunAlias(const Module& m,
                                               DataflowAnalysis::Options options = {}) {
  absl::StatusOr<std::unique_ptr<AliasAnalysis>> aa = AliasAnalysis::Run(m, options);
  EXPECT_TRUE(aa.ok()) << MessageOf(aa.status());
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

}  // namespace hloscope::analysis_testing
