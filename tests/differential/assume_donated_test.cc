// --assume-donated (issue 33) under the interpreter: with the assumption declared (the module's
// input_output_alias carries it, so buffer mode gives each donated parameter's storage to its
// output), what copy-elision then removes must leave the outputs in buffer mode equal to value
// mode, on modules whose callers would donate: a KV-cache step as vLLM's, a training loop that
// updates its weights, and random modules taken through copy-insertion first (XLA declares
// donation before copy insertion). The broken variant: a pass that removes copies as if the
// parameters were donated but leaves the module saying they are not, so the caller still owns
// and may read them after the call; the harness must catch it (a read-only parameter now
// shares a buffer the module writes).
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "gtest/gtest.h"
#include "hlo/parser.h"
#include "hlo/printer.h"
#include "hlo/verifier.h"
#include "passes/assumed_donation.h"
#include "passes/copy_elision.h"
#include "passes/copy_insertion.h"
#include "tests/differential/harness.h"
#include "tests/differential/random_module.h"

namespace hloscope::differential {
namespace {

// vLLM's pattern: each KV cache is copied, then updated in place at a row. `old` reads the third
// cache, unordered with its update (the module is not scheduled): with the caches donated, the
// first two copies can go, and the third only with a control edge ordering `old` first.
constexpr char kKvCacheStep[] = R"(
HloModule kv_cache_step
ENTRY e {
  k0 = f32[4,8] parameter(0)
  k1 = f32[4,8] parameter(1)
  k2 = f32[4,8] parameter(2)
  row = f32[1,8] parameter(3)
  at = s32[] parameter(4)
  zero = s32[] constant(0)
  old = f32[4,8] negate(k2)
  c0 = f32[4,8] copy(k0)
  c1 = f32[4,8] copy(k1)
  c2 = f32[4,8] copy(k2)
  d0 = f32[4,8] dynamic-update-slice(c0, row, at, zero)
  d1 = f32[4,8] dynamic-update-slice(c1, row, at, zero)
  d2 = f32[4,8] dynamic-update-slice(c2, row, at, zero)
  ROOT t = (f32[4,8], f32[4,8], f32[4,8], f32[4,8]) tuple(d0, d1, d2, old)
}
)";

// The same step with the third cache read after its update: donated, the module as given
// overwrites k2 while `old` still needs it, so (as XLA does, donation being declared before copy
// insertion) copy-insertion runs first and copy-elision then keeps what protects `old`.
constexpr char kKvCacheReadAfter[] = R"(
HloModule kv_cache_read_after
ENTRY e {
  k0 = f32[4,8] parameter(0)
  k1 = f32[4,8] parameter(1)
  k2 = f32[4,8] parameter(2)
  row = f32[1,8] parameter(3)
  at = s32[] parameter(4)
  zero = s32[] constant(0)
  c0 = f32[4,8] copy(k0)
  c1 = f32[4,8] copy(k1)
  c2 = f32[4,8] copy(k2)
  d0 = f32[4,8] dynamic-update-slice(c0, row, at, zero)
  d1 = f32[4,8] dynamic-update-slice(c1, row, at, zero)
  d2 = f32[4,8] dynamic-update-slice(c2, row, at, zero)
  old = f32[4,8] negate(k2)
  ROOT t = (f32[4,8], f32[4,8], f32[4,8], f32[4,8]) tuple(d0, d1, d2, old)
}
)";

// A training loop: the weights are copied into the loop state and updated in place each step.
constexpr char kTrainingLoop[] = R"(
HloModule training_loop
body {
  s = (f32[8], f32[8], s32[]) parameter(0)
  w = f32[8] get-tuple-element(s), index=0
  g = f32[8] get-tuple-element(s), index=1
  i = s32[] get-tuple-element(s), index=2
  w1 = f32[8] subtract(w, g)
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ROOT t = (f32[8], f32[8], s32[]) tuple(w1, g, i1)
}
cond {
  s = (f32[8], f32[8], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=2
  three = s32[] constant(3)
  ROOT lt = pred[] compare(i, three), direction=LT
}
ENTRY e {
  w = f32[8] parameter(0)
  g = f32[8] parameter(1)
  cw = f32[8] copy(w)
  zero = s32[] constant(0)
  init = (f32[8], f32[8], s32[]) tuple(cw, g, zero)
  loop = (f32[8], f32[8], s32[]) while(init), condition=cond, body=body
  ROOT w2 = f32[8] get-tuple-element(loop), index=0
}
)";

const DonationAssumption kAll{.all = true, .parameters = {}};

std::string Describe(const ModuleResult& r) {
  std::string out = fmt::format("{} {}", VerdictName(r.verdict), r.reason);
  for (const PassFailure& f : r.failures) out += "\n" + f.pass + ": " + f.message;
  return out;
}

// `text` with every entry parameter taken as donated, printed (the header carries the aliases);
// with `insert_copies`, copy-insertion then adds what the donation needs.
std::string Donated(std::string_view text, bool insert_copies = false) {
  auto module = ParseModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return "";
  absl::StatusOr<DonationResult> r = AssumeDonated(**module, kAll);
  EXPECT_TRUE(r.ok()) << r.status();
  if (insert_copies) {
    CopyInsertion insertion;
    absl::StatusOr<bool> ran = insertion.Run(**module);
    EXPECT_TRUE(ran.ok()) << ran.status();
  }
  return PrintModule(**module);
}

int RemovedBy(std::string_view text, CopyElisionOptions options = {}) {
  auto module = ParseModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return -1;
  CopyElision pass(options);
  EXPECT_TRUE(pass.Run(**module).ok());
  int removed = 0;
  for (const CopyDecision& d : pass.report().copies) removed += d.removed;
  return removed;
}

PassUnderTest CopyElisionUnderTest() {
  return {"copy-elision", [] { return std::make_unique<CopyElision>(); }, false, true};
}

bool Changed(const ModuleResult& r, std::string_view pass) {
  return std::find(r.changed_by.begin(), r.changed_by.end(), pass) != r.changed_by.end();
}

// Wrong on purpose: removes copies as if every parameter were donated, then puts the module's
// input_output_alias back as it was, so the caller is not told and keeps reading its buffers.
class DonationNotDeclared : public Pass {
 public:
  std::string_view name() const override { return "donation-not-declared"; }
  std::string_view description() const override {
    return "copy-elision under --assume-donated=all, with the donation left undeclared (wrong "
           "on purpose).";
  }
  absl::StatusOr<bool> RunOnModule(Module& module, AnalysisCache& /*analyses*/) override {
    const std::vector<InputOutputAlias> declared(module.input_output_aliases().begin(),
                                                 module.input_output_aliases().end());
    absl::StatusOr<DonationResult> donated = AssumeDonated(module, kAll);
    if (!donated.ok()) return donated.status();
    CopyElision elision;
    absl::StatusOr<bool> changed = elision.Run(module);
    if (!changed.ok()) return changed.status();
    module.set_input_output_aliases(declared);
    module.SetAttribute("input_output_alias", InputOutputAliasText(declared));
    return *changed;
  }
};

TEST(AssumeDonated, PairsEachDonatedParameterWithTheFirstOutputOfItsShape) {
  auto module = ParseModule(kKvCacheStep);
  ASSERT_TRUE(module.ok());
  absl::StatusOr<DonationResult> r = AssumeDonated(**module, kAll);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(InputOutputAliasText((*module)->input_output_aliases()),
            "{ {0}: (0, {}, may-alias), {1}: (1, {}, may-alias), {2}: (2, {}, may-alias) }");
  EXPECT_EQ(r->unused, (std::vector<std::string>{"parameter 3{} f32[1,8]", "parameter 4{} s32[]"}));
  EXPECT_EQ((*module)->FindAttribute("input_output_alias"),
            InputOutputAliasText((*module)->input_output_aliases()));
}

// A tuple parameter donated by element, beside an alias the module already declares: the
// declared pair stays, the named element takes the first free output of its shape, and an
// element no output can take is reported.
TEST(AssumeDonated, TupleElementsAndDeclaredAliases) {
  constexpr char kText[] = R"(
HloModule tuple_donor, input_output_alias={ {1}: (1, {}, may-alias) }
ENTRY e {
  t = (f32[4], (f32[4], s32[2])) parameter(0)
  q = f32[4] parameter(1)
  a = f32[4] get-tuple-element(t), index=0
  n = f32[4] negate(a)
  m = f32[4] negate(q)
  ROOT r = (f32[4], f32[4]) tuple(n, m)
}
)";
  auto module = ParseModule(kText);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<DonationAssumption> a = ParseDonationAssumption("0{1},1");
  ASSERT_TRUE(a.ok()) << a.status();
  absl::StatusOr<DonationResult> r = AssumeDonated(**module, *a);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(InputOutputAliasText((*module)->input_output_aliases()),
            "{ {1}: (1, {}, may-alias), {0}: (0, {1,0}, may-alias) }");
  EXPECT_EQ(r->unused, (std::vector<std::string>{"parameter 0{1,1} s32[2]"}));
  // What the verifier holds input_output_alias to, the result meets.
  EXPECT_TRUE(VerifyModule(**module).ok()) << VerifyModule(**module);
  // Parsed back from its printed text, the module has the same aliases.
  auto again = ParseModule(PrintModule(**module));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(InputOutputAliasText((*again)->input_output_aliases()),
            InputOutputAliasText((*module)->input_output_aliases()));
}

TEST(AssumeDonated, KvCacheStepKeepsItsResultsInBufferMode) {
  const std::string text = Donated(kKvCacheStep);
  ModuleResult r = CheckModule(text, {CopyElisionUnderTest()}, {});
  EXPECT_EQ(r.verdict, Verdict::kPass) << Describe(r);
  EXPECT_TRUE(Changed(r, "copy-elision")) << text;
  // The third goes too when `old` is ordered before the third update with a control edge
  // (order_unordered_readers, XLA's copy removal); without that order it must stay.
  EXPECT_EQ(RemovedBy(text), 3);
  CopyElisionOptions unordered;
  unordered.order_unordered_readers = false;
  EXPECT_EQ(RemovedBy(text, unordered), 2);
  // Not donated, every copy protects a cache the caller keeps.
  EXPECT_EQ(RemovedBy(kKvCacheStep), 0);
}

TEST(AssumeDonated, KvCacheReadAfterItsUpdateKeepsItsResultsInBufferMode) {
  // Donated without the copies it needs, the module is no baseline: buffer mode differs.
  ModuleResult unsafe = CheckModule(Donated(kKvCacheReadAfter), {}, {});
  EXPECT_EQ(unsafe.verdict, Verdict::kNotBaseline) << Describe(unsafe);
  const std::string text = Donated(kKvCacheReadAfter, /*insert_copies=*/true);
  ModuleResult r = CheckModule(text, {CopyElisionUnderTest()}, {});
  EXPECT_EQ(r.verdict, Verdict::kPass) << Describe(r);
  EXPECT_TRUE(Changed(r, "copy-elision")) << text;
}

TEST(AssumeDonated, TrainingLoopKeepsItsResultsInBufferMode) {
  const std::string text = Donated(kTrainingLoop);
  ModuleResult r = CheckModule(text, {CopyElisionUnderTest()}, {});
  EXPECT_EQ(r.verdict, Verdict::kPass) << Describe(r);
  EXPECT_TRUE(Changed(r, "copy-elision")) << text;
  // Not donated, the copy protects the caller's weights and stays.
  ModuleResult as_given = CheckModule(kTrainingLoop, {CopyElisionUnderTest()}, {});
  EXPECT_EQ(as_given.verdict, Verdict::kPass) << Describe(as_given);
  EXPECT_FALSE(Changed(as_given, "copy-elision"));
}

TEST(AssumeDonated, RandomModulesThroughCopyInsertionKeepTheirResults) {
  int judged = 0, changed = 0;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    auto module = ParseModule(RandomModuleText(seed));
    ASSERT_TRUE(module.ok()) << seed;
    ASSERT_TRUE(AssumeDonated(**module, kAll).ok()) << seed;
    CopyInsertion insertion;
    ASSERT_TRUE(insertion.Run(**module).ok()) << seed;
    const std::string text = PrintModule(**module);
    SCOPED_TRACE(text);
    ModuleResult r = CheckModule(text, {CopyElisionUnderTest()}, {});
    ASSERT_NE(r.verdict, Verdict::kFail) << Describe(r);
    ASSERT_NE(r.verdict, Verdict::kNotBaseline) << Describe(r);
    judged += r.verdict == Verdict::kPass;
    changed += Changed(r, "copy-elision");
  }
  EXPECT_GE(judged, 40);
  EXPECT_GE(changed, 5);
}

TEST(AssumeDonated, UndeclaredDonationIsCaught) {
  const PassUnderTest broken{"donation-not-declared",
                             [] { return std::make_unique<DonationNotDeclared>(); }};
  for (const char* text : {kKvCacheStep, kTrainingLoop}) {
    SCOPED_TRACE(text);
    ModuleResult r = CheckModule(text, {broken}, {});
    ASSERT_EQ(r.verdict, Verdict::kFail) << Describe(r);
    EXPECT_NE(r.failures[0].message.find("read-only %"), std::string::npos)
        << r.failures[0].message;
  }
}

}  // namespace
}  // namespace hloscope::differential
