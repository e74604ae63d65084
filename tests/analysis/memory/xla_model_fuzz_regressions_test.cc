// Inputs the memory fuzzer (scripts/fuzz --fuzzer=memory, tests/fuzz/memory_fuzzer.cc) found to
// break our model of XLA's buffer assignment (analysis/memory/xla_assignment_model.h), each kept
// as a regression test (issue 35: bad input gets a clear error, never a crash; the model's
// figures are XLA's). Labelled robustness, so scripts/test runs them under ASan+UBSan as well:
// the signed overflow below shows only there.
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "analysis/memory/xla_assignment_model.h"
#include "gtest/gtest.h"
#include "hlo/parser.h"
#include "hlo/verifier.h"
#include "support/status_text.h"

namespace hloscope {
namespace {

std::unique_ptr<Module> ParseVerified(std::string_view text) {
  absl::StatusOr<std::unique_ptr<Module>> module = ParseModule(text);
  EXPECT_TRUE(module.ok()) << StatusText(module.status());
  if (!module.ok()) return nullptr;
  absl::Status verified = VerifyModule(**module);
  EXPECT_TRUE(verified.ok()) << StatusText(verified);
  return verified.ok() ? *std::move(module) : nullptr;
}

// testdata/analysis/memory/bugs/Inputs/past_int64.hlo: two parameters of 2^62 bytes each. Their
// sum wrapped to a negative parameter total (UBSan: signed integer overflow in the model's
// totals). The memory profile saturates such sums and says so; the model's offsets and sizes
// would mean nothing, so it refuses the module with an error that says why.
TEST(XlaModelFuzzRegressions, BuffersPastInt64AreRefused) {
  std::unique_ptr<Module> m = ParseVerified(R"(
HloModule past_int64, is_scheduled=true
ENTRY e {
  a = f32[1152921504606846976] parameter(0)
  b = f32[1152921504606846976] parameter(1)
  ROOT t = (f32[1152921504606846976], f32[1152921504606846976]) tuple(a, b)
})");
  ASSERT_NE(m, nullptr);
  absl::StatusOr<XlaModelAssignment> a = AssignLikeXla(*m);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(StatusText(a.status()),
            "module 'past_int64': XLA's buffer assignment cannot be modeled: its buffers (with "
            "alignment 1) add up past int64 bytes");
}

// Small buffers and an alignment near int64's end (hlo-opt --alignment takes any positive
// number): rounding a chunk up to it would wrap, so the module is refused the same way; a
// large alignment that does fit still assigns.
TEST(XlaModelFuzzRegressions, AlignmentPastInt64IsRefused) {
  std::unique_ptr<Module> m = ParseVerified(R"(
HloModule aligned, is_scheduled=true
ENTRY e {
  p = f32[4] parameter(0)
  x = f32[4] negate(p)
  y = f32[4] exponential(x)
  ROOT r = f32[4] add(x, y)
})");
  ASSERT_NE(m, nullptr);
  absl::StatusOr<XlaModelAssignment> a = AssignLikeXla(*m, {.alignment = int64_t{1} << 62});
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_NE(StatusText(a.status()).find("(with alignment 4611686018427387904)"), std::string::npos)
      << StatusText(a.status());
  absl::StatusOr<XlaModelAssignment> fits = AssignLikeXla(*m, {.alignment = int64_t{1} << 40});
  ASSERT_TRUE(fits.ok()) << StatusText(fits.status());
  EXPECT_EQ(fits->totals.preallocated_temp_bytes, 16);  // x alone in the heap: one chunk at 0
}

}  // namespace
}  // namespace hloscope
