// Inputs the pipeline fuzzer (scripts/fuzz --fuzzer=pipeline) found to crash copy-elision, each
// kept as a regression test (issue 35: bad input gets a clear error, never a crash). Labelled
// robustness, so scripts/test runs them under ASan+UBSan as well: the read past a vector's end
// below shows only there.
#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "hlo/parser.h"
#include "hlo/verifier.h"
#include "passes/copy_elision.h"
#include "passes/pass_pipeline.h"
#include "passes/pass_registry.h"
#include "support/status_text.h"

namespace hloscope {
namespace {

// testdata/passes/copy_elision/relocation_then_ordering.hlo: after copy-insertion, read-only
// %a is copied where it is defined (a relocation copy, added to the run's copies) before
// region-analysis=true looks for copies to move to their operand. That search read each copy's
// "cannot write over its operand" note from a list that the relocation copies had not grown:
// past its end (ASan: heap-buffer-overflow in FindOperandCopy; found on a tfcompile module
// with a conditional and a loop of dynamic arrays).
TEST(CopyElisionFuzzRegressions, RegionAnalysisAfterARelocationCopy) {
  constexpr char kText[] = R"(
HloModule both, input_output_alias={ {0}: (0, {}, may-alias), {1}: (1, {}, may-alias) }

branch_0 {
  p0 = (s32[2]) parameter(0)
  g0 = s32[2] get-tuple-element(p0), index=0
  negate = s32[2] negate(g0)
  ROOT t0 = (s32[2]) tuple(negate)
}

branch_1 {
  p1 = (s32[2]) parameter(0)
  g1 = s32[2] get-tuple-element(p1), index=0
  ROOT t1 = (s32[2]) tuple(g1)
}

ENTRY entry {
  x = f32[3] parameter(0)
  y = f32[3] parameter(1)
  sel = s32[] parameter(2)
  a = s32[2] parameter(3)
  b = s32[2] parameter(4)
  add = f32[3] add(x, y)
  mul = f32[3] multiply(x, y)
  ta = (s32[2]) tuple(b)
  tb = (s32[2]) tuple(a)
  cond = (s32[2]) conditional(sel, ta, tb), branch_computations={branch_0, branch_1}
  gc = s32[2] get-tuple-element(cond), index=0
  ROOT result = (f32[3], f32[3], s32[2], s32[2]) tuple(add, mul, gc, gc)
}
)";
  absl::StatusOr<std::unique_ptr<Module>> module = ParseModule(kText);
  ASSERT_TRUE(module.ok()) << StatusText(module.status());
  std::unique_ptr<Pass> insertion = PassRegistry::Global().Create("copy-insertion").value();
  ASSERT_TRUE(insertion->Run(**module).ok());

  absl::StatusOr<std::unique_ptr<Pass>> pass =
      CreatePass("copy-elision{region-analysis=true}", PassRegistry::Global());
  ASSERT_TRUE(pass.ok()) << StatusText(pass.status());
  absl::StatusOr<bool> changed = (*pass)->Run(**module);
  ASSERT_TRUE(changed.ok()) << StatusText(changed.status());
  EXPECT_TRUE(*changed);
  absl::Status verified = VerifyModule(**module);
  EXPECT_TRUE(verified.ok()) << StatusText(verified);

  // The relocation copy was there when the search ran: the case this test is about.
  const auto& elision = dynamic_cast<const CopyElision&>(**pass);
  int relocations = 0;
  for (const CopyDecision& d : elision.report().copies) {
    relocations += d.reason.starts_with("added: read-only %a");
  }
  EXPECT_EQ(relocations, 1);
}

}  // namespace
}  // namespace hloscope
