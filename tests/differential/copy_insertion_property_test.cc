// The property copy-insertion exists for (issue 19): whatever module it is given, the result is
// buffer-safe — run with storage shared as the alias analysis says (buffer mode), it computes
// what the module means (value mode). Checked on the random modules with all their copies
// taken out (so that buffer sharing breaks them) and on hlo-gen MPMD stage modules without
// XLA's copies, each alone and followed by copy-elision. A copy-insertion that skips one of
// its rules must fail the same check on some module (proof that the check can fail).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "eval/evaluator.h"
#include "eval/literal.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "hlo/parser.h"
#include "hlo/printer.h"
#include "hlo/verifier.h"
#include "passes/copy_elision.h"
#include "passes/copy_insertion.h"
#include "support/status_text.h"
#include "tests/differential/random_module.h"
#include "tools/hlo-gen/model.h"
#include "tools/hlo-gen/options.h"

namespace hloscope::differential {
namespace {

// The module with every copy that keeps its operand's shape taken out (its users read the
// operand): what a module looks like before copy insertion. nullopt when the text does not
// parse or the result does not verify.
std::optional<std::string> WithoutCopies(const std::string& text) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text, {});
  if (!m.ok()) return std::nullopt;
  for (Computation* c : (*m)->computations()) {
    std::vector<Instruction*> copies;
    for (Instruction* i : c->instructions()) {
      if (i->opcode() == Opcode::kCopy && i->operand(0)->shape() == i->shape()) copies.push_back(i);
    }
    for (Instruction* copy : copies) {
      copy->ReplaceAllUsesWith(copy->operand(0));
      if (!c->RemoveInstruction(copy)) return std::nullopt;
    }
    c->CompactInstructions();
  }
  if (!VerifyModule(**m).ok()) return std::nullopt;
  return PrintModule(**m);
}

struct Check {
  bool judged = false;  // false: the interpreter cannot run the module (skipped)
  std::string before;   // buffer mode vs value mode on the module as given
  std::string after;    // ... after the passes; empty when they agree
};

// Runs `text` in value mode (the expected results) and in buffer mode, then copy-insertion
// (and copy-elision when `elide`) on a fresh parse and the result in buffer mode.
Check CheckSafety(const std::string& text, const CopyInsertionOptions& options, bool elide,
                  int seeds = 2, const CopyElisionOptions& elision_options = {}) {
  Check out;
  absl::StatusOr<std::unique_ptr<Module>> original = ParseModule(text, {});
  if (!original.ok()) return out;
  eval::EvalOptions value_mode;
  value_mode.max_bytes = int64_t{64} << 20;
  eval::EvalOptions buffer_mode = value_mode;
  buffer_mode.mode = eval::EvalMode::kBuffer;
  if (!eval::CheckRunnable(**original, buffer_mode).ok()) return out;

  absl::StatusOr<std::unique_ptr<Module>> changed = ParseModule(text, {});
  EXPECT_TRUE(changed.ok());
  if (!changed.ok()) return out;
  CopyInsertion insertion(options);
  absl::StatusOr<bool> ran = insertion.Run(**changed);
  if (!ran.ok()) {
    out.judged = true;
    out.after = "copy-insertion failed: " + StatusText(ran.status());
    return out;
  }
  if (elide) {
    CopyElision elision(elision_options);
    if (absl::StatusOr<bool> e = elision.Run(**changed); !e.ok()) {
      out.judged = true;
      out.after = "copy-elision failed: " + StatusText(e.status());
      return out;
    }
  }
  if (absl::Status v = VerifyModule(**changed); !v.ok()) {
    out.judged = true;
    out.after = "does not verify: " + StatusText(v);
    return out;
  }
  for (int seed = 1; seed <= seeds; ++seed) {
    std::vector<eval::Literal> args = eval::RandomArguments(**original, seed);
    absl::StatusOr<eval::Literal> expected = eval::Evaluate(**original, args, value_mode);
    if (!expected.ok()) return out;  // e.g. too many steps: not judged
    out.judged = true;
    absl::StatusOr<eval::Literal> as_given = eval::Evaluate(**original, args, buffer_mode);
    if (out.before.empty()) {
      if (!as_given.ok()) {
        out.before = StatusText(as_given.status());
      } else if (auto d = eval::FirstDifference(*expected, *as_given)) {
        out.before = *d;
      }
    }
    absl::StatusOr<eval::Literal> result = eval::Evaluate(**changed, args, buffer_mode);
    if (!result.ok()) {
      out.after = fmt::format("seed {}: {}", seed, StatusText(result.status()));
    } else if (auto d = eval::FirstDifference(*expected, *result)) {
      out.after = fmt::format("seed {}: {}", seed, *d);
    }
    if (!out.after.empty()) break;
  }
  return out;
}

constexpr uint64_t kModules = 250;

TEST(CopyInsertionPropertyTest, RandomModulesWithoutCopiesBecomeBufferSafe) {
  int judged = 0, unsafe_before = 0;
  for (uint64_t seed = 0; seed < kModules; ++seed) {
    std::optional<std::string> text = WithoutCopies(RandomModuleText(seed));
    if (!text) continue;
    for (bool elide : {false, true}) {
      Check c = CheckSafety(*text, {}, elide);
      if (!c.judged) continue;
      EXPECT_EQ(c.after, "") << "random module seed " << seed
                             << (elide ? " after copy-insertion,copy-elision" : "") << "\n"
                             << *text;
      if (!elide) {
        ++judged;
        unsafe_before += !c.before.empty();
      }
    }
  }
  fmt::print("random modules without copies: {} judged, {} not buffer-safe before copy-insertion\n",
             judged, unsafe_before);
  EXPECT_GE(judged, 200);
  // The check has teeth only if taking the copies out breaks many modules.
  EXPECT_GE(unsafe_before, 40);
}

// copy-elision{region-analysis=true} (XLA's lists, the edges it forces for readers that are
// copies, a copy moved to the operand its source cannot write over) keeps the same property.
TEST(CopyInsertionPropertyTest, RandomModulesStayBufferSafeWithRegionAnalysis) {
  CopyElisionOptions region;
  region.xla_region_analysis = true;
  int judged = 0;
  for (uint64_t seed = 0; seed < kModules; ++seed) {
    std::optional<std::string> text = WithoutCopies(RandomModuleText(seed));
    if (!text) continue;
    Check c = CheckSafety(*text, {}, /*elide=*/true, 2, region);
    if (!c.judged) continue;
    ++judged;
    EXPECT_EQ(c.after, "") << "random module seed " << seed
                           << " after copy-insertion,copy-elision{region-analysis=true}\n"
                           << *text;
  }
  EXPECT_GE(judged, 200);
}

TEST(CopyInsertionPropertyTest, HloGenMpmdStagesBecomeBufferSafe) {
  gen::Options o;
  o.layers = 2;
  o.stages = 2;
  o.hidden = 8;
  o.heads = 2;
  o.seq = 4;
  o.microbatch = 1;
  o.microbatches = 3;
  o.xla_copies = false;
  o.layout = gen::Layout::kMpmd;
  for (int stage = 0; stage < o.stages; ++stage) {
    std::string text;
    gen::Sink sink(&text);
    gen::GenerateModule(o, stage, sink);
    for (bool elide : {false, true}) {
      Check c = CheckSafety(text, {}, elide, /*seeds=*/1);
      ASSERT_TRUE(c.judged) << "stage " << stage;
      EXPECT_EQ(c.after, "") << "hlo-gen mpmd stage " << stage
                             << (elide ? " after copy-insertion,copy-elision" : "");
    }
  }
}

// A copy insertion that skips one rule leaves some module unsafe, and the check says so. Only
// rules whose missing copies the interpreter can see: it keeps read-only data (constants,
// parameters not donated) intact as a device's copies would, so the entry-output rules are
// left out.
TEST(CopyInsertionPropertyTest, SkippingARuleIsCaught) {
  for (CopyRule rule : {CopyRule::kInPlaceOperand, CopyRule::kWhileInit,
                        CopyRule::kWhileBodyParameter, CopyRule::kWhileBodyRoot}) {
    int caught = 0;
    for (uint64_t seed = 0; seed < kModules && caught == 0; ++seed) {
      std::optional<std::string> text = WithoutCopies(RandomModuleText(seed));
      if (!text) continue;
      Check c = CheckSafety(*text, {.skip_rules = {rule}}, /*elide=*/false);
      caught += c.judged && !c.after.empty();
    }
    EXPECT_GT(caught, 0) << "skipping " << CopyRuleName(rule) << " went unnoticed";
  }
}

}  // namespace
}  // namespace hloscope::differential
