// copy-elision's order_loop_readers (XLA's region analysis in while bodies, issue 30): a kept
// pair of loop state copies goes when the body's readers of the old element are ordered before
// the writer of the new one with control edges. The harness property: every edge it adds
// keeps the module acyclic (it verifies) and buffer mode equal to value mode; the variant that
// adds the edges without the buffer-safety check must be caught. Also the operand copy of
// copy-elision{region-analysis=true}, with its unchecked variant.
#include <memory>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "gtest/gtest.h"
#include "hlo/parser.h"
#include "hlo/printer.h"
#include "hlo/verifier.h"
#include "passes/copy_elision.h"
#include "tests/differential/harness.h"

namespace hloscope::differential {
namespace {

std::string Failures(const ModuleResult& r) {
  std::string out = std::string(VerdictName(r.verdict)) + " " + r.reason;
  for (const PassFailure& f : r.failures) out += "\n" + f.pass + ": " + f.message;
  return out;
}

// The body reads loop state {1} (through the parameter copy) and computes its next value
// from other data: the read can run first, so both copies go.
constexpr char kOrderable[] = R"(HloModule orderable
body {
  s = (s32[], f32[4], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  g = f32[4] get-tuple-element(s), index=1
  pc = f32[4] copy(g)
  h = f32[4] get-tuple-element(s), index=2
  r = f32[4] add(pc, h)
  k = f32[4] broadcast(one2), dimensions={}
  one2 = f32[] constant(2)
  rc = f32[4] copy(k), control-predecessors={pc}
  ROOT t = (s32[], f32[4], f32[4]) tuple(i1, rc, r)
}
cond {
  s = (s32[], f32[4], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY e {
  p = f32[4] parameter(0)
  z = s32[] constant(0)
  x = f32[4] negate(p)
  y = f32[4] exponential(p)
  init = (s32[], f32[4], f32[4]) tuple(z, x, y)
  w = (s32[], f32[4], f32[4]) while(init), condition=cond, body=body
  ROOT o = f32[4] get-tuple-element(w), index=2
})";

// The same pair, but %late reads the old element (not through the copy) after the new value
// is computed: ordering the copy's readers is not enough, and the safety check refuses.
constexpr char kNotOrderable[] = R"(HloModule not_orderable
body {
  s = (s32[], f32[4], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  g = f32[4] get-tuple-element(s), index=1
  pc = f32[4] copy(g)
  r = f32[4] negate(pc)
  nw = f32[4] multiply(r, r)
  late = f32[4] add(g, nw)
  rc = f32[4] copy(nw), control-predecessors={pc}
  ROOT t = (s32[], f32[4], f32[4]) tuple(i1, rc, late)
}
cond {
  s = (s32[], f32[4], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY e {
  p = f32[4] parameter(0)
  z = s32[] constant(0)
  x = f32[4] negate(p)
  y = f32[4] exponential(p)
  init = (s32[], f32[4], f32[4]) tuple(z, x, y)
  w = (s32[], f32[4], f32[4]) while(init), condition=cond, body=body
  ROOT o = f32[4] get-tuple-element(w), index=2
})";

PassUnderTest Elision(std::string name, CopyElisionOptions options) {
  return PassUnderTest(std::move(name),
                       [options] { return std::make_unique<CopyElision>(options); });
}

TEST(LoopReaderOrder, OrderableReadersLoseBothCopiesWithAnEdge) {
  auto m = ParseModule(kOrderable);
  ASSERT_TRUE(m.ok());
  CopyElision pass;
  ASSERT_TRUE(pass.Run(**m).ok());
  ASSERT_EQ(pass.report().added_edges.size(), 1u);
  EXPECT_EQ(pass.report().added_edges[0].substr(0, 20), "%r -> %k in body: re");
  EXPECT_EQ(pass.report().removed, 2);
  EXPECT_TRUE(VerifyModule(**m).ok());  // acyclic, and a valid module
  ModuleResult r = CheckModule(kOrderable, {Elision("copy-elision", {})}, {});
  EXPECT_EQ(r.verdict, Verdict::kPass) << Failures(r);
  // Off: the pair stays.
  CopyElisionOptions off;
  off.order_loop_readers = false;
  auto m2 = ParseModule(kOrderable);
  ASSERT_TRUE(m2.ok());
  CopyElision kept(off);
  ASSERT_TRUE(kept.Run(**m2).ok());
  EXPECT_TRUE(kept.report().added_edges.empty());
  EXPECT_EQ(kept.report().removed, 0);
}

TEST(LoopReaderOrder, UncheckedOrderingIsCaught) {
  auto m = ParseModule(kNotOrderable);
  ASSERT_TRUE(m.ok());
  CopyElision pass;
  ASSERT_TRUE(pass.Run(**m).ok());
  EXPECT_TRUE(pass.report().added_edges.empty());
  EXPECT_EQ(pass.report().removed, 0);
  ModuleResult ok = CheckModule(kNotOrderable, {Elision("copy-elision", {})}, {});
  EXPECT_EQ(ok.verdict, Verdict::kPass) << Failures(ok);
  CopyElisionOptions broken;
  broken.skip_order_check = true;
  ModuleResult r =
      CheckModule(kNotOrderable, {Elision("copy-elision-unchecked-order", broken)}, {});
  EXPECT_EQ(r.verdict, Verdict::kFail) << Failures(r);
}

// A family of loop bodies around one parameter/root copy pair: the copy's reader before or
// after the new value's writer in the text, the writer computed from the reader or not, and an
// extra read of the old element (not through the copy) before or after the writer, or none.
// On every variant copy-elision (edges added or not) verifies and computes what the module
// means; the unchecked variant fails on some.
std::string Variant(bool reader_first, bool writer_uses_reader, int extra_read) {
  std::string body =
      "body {\n  s = (s32[], f32[4], f32[4]) parameter(0)\n"
      "  i = s32[] get-tuple-element(s), index=0\n  one = s32[] constant(1)\n"
      "  i1 = s32[] add(i, one)\n  g = f32[4] get-tuple-element(s), index=1\n"
      "  pc = f32[4] copy(g)\n  h = f32[4] get-tuple-element(s), index=2\n";
  const std::string reader = "  r = f32[4] add(pc, h)\n";
  const std::string writer =
      writer_uses_reader ? "  nw = f32[4] multiply(r, h)\n" : "  nw = f32[4] multiply(h, h)\n";
  body += reader_first || writer_uses_reader ? reader + writer : writer + reader;
  std::string third = "r";
  if (extra_read == 1) {
    body += "  late = f32[4] add(g, r)\n";  // unordered with nw; after it in the text
    third = "late";
  } else if (extra_read == 2) {
    body += "  late = f32[4] add(g, nw)\n";  // must follow nw
    third = "late";
  }
  body += "  rc = f32[4] copy(nw), control-predecessors={pc}\n";
  // The new element {2}, written last, after every read of the old one.
  body += fmt::format("  h2 = f32[4] add(h, {})\n", third);
  body += "  ROOT t = (s32[], f32[4], f32[4]) tuple(i1, rc, h2)\n}\n";
  return "HloModule reader_order\n" + body +
         "cond {\n  s = (s32[], f32[4], f32[4]) parameter(0)\n"
         "  i = s32[] get-tuple-element(s), index=0\n  n = s32[] constant(3)\n"
         "  ROOT lt = pred[] compare(i, n), direction=LT\n}\n"
         "ENTRY e {\n  p = f32[4] parameter(0)\n  z = s32[] constant(0)\n"
         "  x = f32[4] negate(p)\n  y = f32[4] exponential(p)\n"
         "  init = (s32[], f32[4], f32[4]) tuple(z, x, y)\n"
         "  w = (s32[], f32[4], f32[4]) while(init), condition=cond, body=body\n"
         "  ROOT o = f32[4] get-tuple-element(w), index=2\n}\n";
}

TEST(LoopReaderOrder, VariantsStayCorrectAndTheUncheckedOrderIsCaught) {
  CopyElisionOptions broken;
  broken.skip_order_check = true;
  int with_edges = 0, broken_failed = 0, judged = 0;
  for (bool reader_first : {false, true}) {
    for (bool writer_uses_reader : {false, true}) {
      for (int extra_read : {0, 1, 2}) {
        const std::string text = Variant(reader_first, writer_uses_reader, extra_read);
        SCOPED_TRACE(text);
        auto m = ParseModule(text);
        ASSERT_TRUE(m.ok()) << m.status();
        CopyElision pass;
        ASSERT_TRUE(pass.Run(**m).ok());
        EXPECT_TRUE(VerifyModule(**m).ok());
        with_edges += !pass.report().added_edges.empty();
        ModuleResult r = CheckModule(text, {Elision("copy-elision", {})}, {});
        if (r.verdict == Verdict::kNotBaseline) continue;  // not safe as given: left alone
        ASSERT_NE(r.verdict, Verdict::kSkipped) << r.reason;
        ++judged;
        EXPECT_EQ(r.verdict, Verdict::kPass) << Failures(r);
        ModuleResult b = CheckModule(text, {Elision("copy-elision-unchecked-order", broken)}, {});
        broken_failed += b.verdict == Verdict::kFail;
      }
    }
  }
  fmt::print("reader-order variants: {} judged, {} with edges, {} failing unchecked\n", judged,
             with_edges, broken_failed);
  EXPECT_GE(with_edges, 2);
  EXPECT_GE(broken_failed, 1);
}

// copy-elision{region-analysis=true} moves the body root's copy of %r to %r's operand only if
// that is buffer-safe. Here %g2 reads the old loop state {1} after %r, which would then write
// that buffer: the move is refused, and the variant that moves without the check is caught.
constexpr char kLateReader[] = R"(HloModule late_reader
body {
  s = (s32[], f32[4], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  a = f32[4] get-tuple-element(s), index=1
  r = f32[4] reverse(a), dimensions={0}
  g2 = f32[4] get-tuple-element(s), index=1
  late = f32[4] add(g2, r)
  c = f32[4] copy(r)
  ROOT t = (s32[], f32[4], f32[4]) tuple(i1, c, late)
}
cond {
  s = (s32[], f32[4], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY e {
  p = f32[4] parameter(0)
  z = s32[] constant(0)
  x = f32[4] negate(p)
  y = f32[4] exponential(p)
  init = (s32[], f32[4], f32[4]) tuple(z, x, y)
  w = (s32[], f32[4], f32[4]) while(init), condition=cond, body=body
  ROOT o = f32[4] get-tuple-element(w), index=2
})";

TEST(RegionAnalysisOperandCopy, UncheckedMoveIsCaught) {
  CopyElisionOptions region;
  region.xla_region_analysis = true;
  auto m = ParseModule(kLateReader);
  ASSERT_TRUE(m.ok());
  CopyElision pass(region);
  ASSERT_TRUE(pass.Run(**m).ok());
  EXPECT_EQ(pass.report().removed, 0);
  ModuleResult ok = CheckModule(kLateReader, {Elision("copy-elision-region", region)}, {});
  EXPECT_EQ(ok.verdict, Verdict::kPass) << Failures(ok);
  CopyElisionOptions broken = region;
  broken.skip_order_check = true;
  ModuleResult r = CheckModule(kLateReader, {Elision("copy-elision-region-unchecked", broken)}, {});
  EXPECT_EQ(r.verdict, Verdict::kFail) << Failures(r);
}

}  // namespace
}  // namespace hloscope::differential
