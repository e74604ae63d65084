// Modules the fuzzers (scripts/fuzz, fuzz round 10) found to crash the verifier, each at its
// smallest (issue 35: bad input gets a clear error, never a crash). Labelled robustness:
// scripts/test runs it again under ASan+UBSan, where an out-of-range read fails too.
#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "hlo/module.h"
#include "hlo/parser.h"
#include "hlo/verifier.h"
#include "support/status_text.h"

namespace hloscope {
namespace {

std::string VerifyText(const char* text) {
  absl::StatusOr<std::unique_ptr<Module>> module = ParseModule(text);
  if (!module.ok()) return "parse: " + StatusText(module.status());
  absl::Status s = VerifyModule(**module);
  return s.ok() ? "ok" : StatusText(s);
}

// pipeline_fuzzer mutated XLA's export_async test (all-gather-start of f32[128,32] along
// dimension 1) into a result f32[1270128]: the rule read dimension 1 of the rank-1 result
// (absl::InlinedVector's bounds assertion: the fuzzer's abort; a plain build reads past the
// dims). The result's rank is now compared first.
TEST(VerifierFuzzRegressions, AllGatherStartResultOfAnotherRank) {
  const std::string message = VerifyText(R"(HloModule m
ENTRY e {
  input = f32[128,32] parameter(0)
  ag-start = (f32[128,32], f32[1270128]) all-gather-start(input), channel_id=1, replica_groups={{0,2,4,6},{1,3,5,7}}, dimensions={1}, use_global_device_ids=true
  ROOT ag-done = f32[128,128] all-gather-done(ag-start)
})");
  EXPECT_NE(message.find("instruction 'ag-start': all-gather-start element 1 shape f32[1270128] "
                         "has rank 1, but operand 0 'input' shape f32[128,32] has rank 2"),
            std::string::npos)
      << message;
}

// The same in the other rules that share it: all-gather and reduce-scatter (one operand, an
// array result), and all-gather with two operands (a tuple result, the second element of
// another rank).
TEST(VerifierFuzzRegressions, GatherAndScatterResultsOfAnotherRank) {
  std::string message = VerifyText(R"(HloModule m
ENTRY e {
  p = f32[4,4] parameter(0)
  ROOT g = f32[16] all-gather(p), replica_groups={{0,1}}, dimensions={1}
})");
  EXPECT_NE(
      message.find("all-gather shape f32[16] has rank 1, but operand 0 'p' shape f32[4,4] has "
                   "rank 2"),
      std::string::npos)
      << message;
  message = VerifyText(R"(HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  p = f32[4,4] parameter(0)
  ROOT r = f32[2] reduce-scatter(p), replica_groups={{0,1}}, dimensions={1}, to_apply=add
})");
  EXPECT_NE(message.find("reduce-scatter shape f32[2] has rank 1, but operand 0 'p' shape f32[4,4] "
                         "has rank 2"),
            std::string::npos)
      << message;
  message = VerifyText(R"(HloModule m
ENTRY e {
  p = f32[4,4] parameter(0)
  q = f32[4,4] parameter(1)
  ROOT g = (f32[4,8], f32[4,8,1]) all-gather(p, q), replica_groups={{0,1}}, dimensions={1}
})");
  EXPECT_NE(message.find("all-gather element 1 shape f32[4,8,1] does not match f32[4,8]"),
            std::string::npos)
      << message;
}

}  // namespace
}  // namespace hloscope
