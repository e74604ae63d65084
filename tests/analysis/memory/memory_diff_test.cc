// The memory diff of two modules (analysis/memory/memory_diff.h): the matching rules of the
// buffers at the peak on hand-made lists, and DiffModules on small modules whose peaks, copies
// and opcode counts are worked out by hand (liveness model: every buffer from definition to last
// use; an instruction's result and operands count at its step); then the three printers.
#include "analysis/memory/memory_diff.h"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "analysis/memory/memory_diff.pb.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "support/status_text.h"
#include "tests/test_util.h"

namespace hloscope {
namespace {

using testing::Parse;

LiveBuffer Buffer(int64_t bytes, std::string name, std::string op_name, std::string shape,
                  LiveBufferKind kind = LiveBufferKind::kBuffer) {
  LiveBuffer b;
  b.bytes = bytes;
  b.instruction = std::move(name);
  b.op_name = std::move(op_name);
  b.shape = std::move(shape);
  b.kind = kind;
  return b;
}

MemoryDiff DiffBuffers(const std::vector<LiveBuffer>& before, const std::vector<LiveBuffer>& after,
                       int top = 10) {
  MemoryDiff d;
  DiffPeakBuffers(before, after, top, &d);
  return d;
}

// A pass renamed the instruction but kept its metadata: the same buffer, not one gone and one new.
TEST(DiffPeakBuffers, MatchesByOpNameAndShapeAcrossARename) {
  const MemoryDiff d = DiffBuffers({Buffer(1024, "n", "jit(f)/neg", "f32[256]")},
                                   {Buffer(1024, "neg.2", "jit(f)/neg", "f32[256]")});
  EXPECT_EQ(d.unchanged_buffers, 1);
  EXPECT_EQ(d.new_total.buffers + d.gone_total.buffers, 0);
}

// Another shape under the same op_name is no op_name match; the name then pairs them.
TEST(DiffPeakBuffers, FallsBackToTheNameWhenTheShapeChanged) {
  const MemoryDiff d = DiffBuffers({Buffer(1024, "t", "jit(f)/add", "f32[256]")},
                                   {Buffer(4096, "t", "jit(f)/add", "f32[1024]")});
  ASSERT_EQ(d.grown_buffers.size(), 1u);
  EXPECT_EQ(d.grown_buffers[0].matched_by, "name");
  EXPECT_EQ(d.grown_buffers[0].delta_bytes(), 3072);
  EXPECT_EQ(d.grown_buffers[0].before.shape, "f32[256]");
  EXPECT_EQ(d.grown_buffers[0].after.shape, "f32[1024]");
  EXPECT_EQ(d.grown_total.buffers, 1);
  EXPECT_EQ(d.grown_total.delta_bytes, 3072);
}

TEST(DiffPeakBuffers, ShrunkByName) {
  const MemoryDiff d =
      DiffBuffers({Buffer(4096, "loop", "jit(f)/while", "", LiveBufferKind::kCallee)},
                  {Buffer(512, "loop", "", "", LiveBufferKind::kCallee)});
  ASSERT_EQ(d.shrunk_buffers.size(), 1u);
  EXPECT_EQ(d.shrunk_buffers[0].change, PeakBufferChange::kShrunk);
  EXPECT_EQ(d.shrunk_buffers[0].matched_by, "name");
  EXPECT_EQ(d.shrunk_total.delta_bytes, -3584);
}

// Buffers without an op_name are never paired by shape alone: two parameters of one shape are
// not each other.
TEST(DiffPeakBuffers, EmptyOpNamesDoNotMatch) {
  const MemoryDiff d =
      DiffBuffers({Buffer(1024, "p", "", "f32[256]")}, {Buffer(1024, "q", "", "f32[256]")});
  ASSERT_EQ(d.gone_buffers.size(), 1u);
  ASSERT_EQ(d.new_buffers.size(), 1u);
  EXPECT_EQ(d.gone_buffers[0].before.instruction, "p");
  EXPECT_EQ(d.gone_buffers[0].delta_bytes(), -1024);
  EXPECT_EQ(d.new_buffers[0].after.instruction, "q");
  EXPECT_EQ(d.new_buffers[0].delta_bytes(), 1024);
  EXPECT_EQ(d.unchanged_buffers, 0);
}

// The second copy of a same-buffer copy is not the buffer of the same name.
TEST(DiffPeakBuffers, KindsMustAgree) {
  const MemoryDiff d =
      DiffBuffers({Buffer(1024, "c", "jit(f)/c", "f32[256]", LiveBufferKind::kCopy)},
                  {Buffer(1024, "c", "jit(f)/c", "f32[256]")});
  EXPECT_EQ(d.gone_total.buffers, 1);
  EXPECT_EQ(d.new_total.buffers, 1);
  EXPECT_EQ(d.gone_buffers[0].before.kind, LiveBufferKind::kCopy);
}

// In a group of one op_name and shape, buffers of the same name pair first, whatever their
// order: here pairing in order would report one grown and one shrunk.
TEST(DiffPeakBuffers, SameNamePairsFirstInsideAGroup) {
  const MemoryDiff d = DiffBuffers(
      {Buffer(100, "x1", "jit(f)/x", "f32[<=64]"), Buffer(200, "x2", "jit(f)/x", "f32[<=64]")},
      {Buffer(200, "x2", "jit(f)/x", "f32[<=64]"), Buffer(100, "x1", "jit(f)/x", "f32[<=64]")});
  EXPECT_EQ(d.unchanged_buffers, 2);
  EXPECT_EQ(d.grown_total.buffers + d.shrunk_total.buffers, 0);
}

// Pairing is one to one: a third buffer of a group has no partner left.
TEST(DiffPeakBuffers, OneToOne) {
  const MemoryDiff d =
      DiffBuffers({Buffer(64, "a", "jit(f)/x", "f32[16]")},
                  {Buffer(64, "b", "jit(f)/x", "f32[16]"), Buffer(64, "c", "jit(f)/x", "f32[16]")});
  EXPECT_EQ(d.unchanged_buffers, 1);
  ASSERT_EQ(d.new_buffers.size(), 1u);
  EXPECT_EQ(d.new_buffers[0].after.instruction, "c");
  EXPECT_EQ(d.peak_buffers_before, 1);
  EXPECT_EQ(d.peak_buffers_after, 2);
}

// --top bounds each list, largest change first; the totals still count every buffer.
TEST(DiffPeakBuffers, TopBoundsTheListsNotTheTotals) {
  const MemoryDiff d =
      DiffBuffers({},
                  {Buffer(10, "small", "", "f32[2]"), Buffer(300, "big", "", "f32[75]"),
                   Buffer(20, "mid", "", "f32[5]")},
                  /*top=*/2);
  ASSERT_EQ(d.new_buffers.size(), 2u);
  EXPECT_EQ(d.new_buffers[0].after.instruction, "big");
  EXPECT_EQ(d.new_buffers[1].after.instruction, "mid");
  EXPECT_EQ(d.new_total.buffers, 3);
  EXPECT_EQ(d.new_total.delta_bytes, 330);
}

// Saturated sizes (INT64_MAX, the profile's bound) sum to a clamped total, never a wrapped one.
TEST(DiffPeakBuffers, TotalsClampInsteadOfWrapping) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  const std::vector<LiveBuffer> huge = {Buffer(kMax, "a", "", "f32[1]"),
                                        Buffer(kMax, "b", "", "f32[1]")};
  const MemoryDiff grew = DiffBuffers({}, huge);
  EXPECT_EQ(grew.new_total.delta_bytes, kMax);
  const MemoryDiff went = DiffBuffers(huge, {});
  EXPECT_EQ(went.gone_total.delta_bytes, std::numeric_limits<int64_t>::min());
}

MemoryOptions Liveness() {
  MemoryOptions o;
  o.model = MemoryOptions::Model::kLiveness;
  return o;
}

constexpr char kSmall[] = R"(
HloModule small
ENTRY e {
  p = f32[256] parameter(0)
  n = f32[256] negate(p), metadata={op_name="jit(f)/neg"}
  ROOT t = f32[256] add(n, n), metadata={op_name="jit(f)/add"}
}
)";

// kSmall with `n` renamed, and a 2 KiB broadcast that the result keeps alive.
constexpr char kSmallPlusBroadcast[] = R"(
HloModule small_plus
ENTRY e {
  p = f32[256] parameter(0)
  neg.2 = f32[256] negate(p), metadata={op_name="jit(f)/neg"}
  w = f32[2,256] broadcast(neg.2), dimensions={1}, metadata={op_name="jit(f)/bcast"}
  t = f32[256] add(neg.2, neg.2), metadata={op_name="jit(f)/add"}
  ROOT r = (f32[256], f32[2,256]) tuple(t, w)
}
)";

TEST(DiffModules, PeaksNewBufferAndOpcodeCounts) {
  auto a = Parse(kSmall);
  auto b = Parse(kSmallPlusBroadcast);
  ASSERT_TRUE(a && b);
  absl::StatusOr<MemoryDiff> d = DiffModules(*a, *b, Liveness());
  ASSERT_TRUE(d.ok()) << StatusText(d.status());
  // Before: p, n and t at t's step. After: p, neg.2, w and t at t's step.
  EXPECT_EQ(d->before.peak_bytes, 3072);
  EXPECT_EQ(d->before.peak_instruction, "t");
  EXPECT_EQ(d->after.peak_bytes, 5120);
  EXPECT_EQ(d->after.peak_instruction, "t");
  EXPECT_EQ(d->peak_delta_bytes(), 2048);
  EXPECT_EQ(d->peak_buffers_before, 3);
  EXPECT_EQ(d->peak_buffers_after, 4);
  ASSERT_EQ(d->new_buffers.size(), 1u);
  EXPECT_EQ(d->new_buffers[0].after.instruction, "w");
  EXPECT_EQ(d->new_buffers[0].after.bytes, 2048);
  EXPECT_EQ(d->unchanged_buffers, 3);  // p by name, n = neg.2 and t by op_name and shape
  EXPECT_EQ(d->gone_total.buffers + d->grown_total.buffers + d->shrunk_total.buffers, 0);
  EXPECT_EQ(d->instructions_before, 3);
  EXPECT_EQ(d->instructions_after, 5);
  ASSERT_EQ(d->opcodes.size(), 2u);  // by opcode name
  EXPECT_EQ(d->opcodes[0].opcode, "broadcast");
  EXPECT_EQ(d->opcodes[0].before, 0);
  EXPECT_EQ(d->opcodes[0].after, 1);
  EXPECT_EQ(d->opcodes[1].opcode, "tuple");
  EXPECT_TRUE(d->copies_added.empty());
  EXPECT_TRUE(d->copies_removed.empty());
}

// The same module twice: nothing changed.
TEST(DiffModules, IdenticalModulesHaveNoChanges) {
  auto a = Parse(kSmallPlusBroadcast);
  auto b = Parse(kSmallPlusBroadcast);
  ASSERT_TRUE(a && b);
  absl::StatusOr<MemoryDiff> d = DiffModules(*a, *b, {});
  ASSERT_TRUE(d.ok()) << StatusText(d.status());
  EXPECT_EQ(d->peak_delta_bytes(), 0);
  EXPECT_EQ(d->unchanged_buffers, d->peak_buffers_before);
  EXPECT_EQ(d->new_total.buffers + d->gone_total.buffers + d->grown_total.buffers +
                d->shrunk_total.buffers,
            0);
  EXPECT_TRUE(d->opcodes.empty());
}

// The loop body's copy goes and a copy outside the loop comes: the copy count stays, the lists
// say which. A copy inside a fusion is no copy of its own in either.
constexpr char kLoopWithCopy[] = R"(
HloModule loop_copy
fused_copy {
  fp = f32[256] parameter(0)
  ROOT fcopy = f32[256] copy(fp)
}
cond {
  cs = (s32[], f32[256]) parameter(0)
  ci = s32[] get-tuple-element(cs), index=0
  n = s32[] constant(4)
  ROOT lt = pred[] compare(ci, n), direction=LT
}
body {
  bs = (s32[], f32[256]) parameter(0)
  bi = s32[] get-tuple-element(bs), index=0
  one = s32[] constant(1)
  next = s32[] add(bi, one)
  v = f32[256] get-tuple-element(bs), index=1
  v2 = f32[256] copy(v), metadata={op_name="jit(f)/while/body/copy"}
  ROOT r = (s32[], f32[256]) tuple(next, v2)
}
ENTRY e {
  p = f32[256] parameter(0)
  f = f32[256] fusion(p), kind=kLoop, calls=fused_copy
  zero = s32[] constant(0)
  init = (s32[], f32[256]) tuple(zero, f)
  ROOT w = (s32[], f32[256]) while(init), condition=cond, body=body
}
)";

constexpr char kCopyOutsideLoop[] = R"(
HloModule copy_outside
fused_copy {
  fp = f32[256] parameter(0)
  ROOT fcopy = f32[256] copy(fp)
}
cond {
  cs = (s32[], f32[256]) parameter(0)
  ci = s32[] get-tuple-element(cs), index=0
  n = s32[] constant(4)
  ROOT lt = pred[] compare(ci, n), direction=LT
}
body {
  bs = (s32[], f32[256]) parameter(0)
  bi = s32[] get-tuple-element(bs), index=0
  one = s32[] constant(1)
  next = s32[] add(bi, one)
  v = f32[256] get-tuple-element(bs), index=1
  ROOT r = (s32[], f32[256]) tuple(next, v)
}
ENTRY e {
  p = f32[256] parameter(0)
  f = f32[256] fusion(p), kind=kLoop, calls=fused_copy
  pc = f32[256] copy(f)
  zero = s32[] constant(0)
  init = (s32[], f32[256]) tuple(zero, pc)
  ROOT w = (s32[], f32[256]) while(init), condition=cond, body=body
}
)";

TEST(DiffModules, CopiesAddedAndRemoved) {
  auto a = Parse(kLoopWithCopy);
  auto b = Parse(kCopyOutsideLoop);
  ASSERT_TRUE(a && b);
  absl::StatusOr<MemoryDiff> d = DiffModules(*a, *b, {});
  ASSERT_TRUE(d.ok()) << StatusText(d.status());
  EXPECT_EQ(d->copies_before, 1);
  EXPECT_EQ(d->copies_after, 1);
  ASSERT_EQ(d->copies_removed.size(), 1u);
  EXPECT_EQ(d->copies_removed[0].instruction, "v2");
  EXPECT_EQ(d->copies_removed[0].computation, "body");
  EXPECT_EQ(d->copies_removed[0].shape, "f32[256]");
  EXPECT_EQ(d->copies_removed[0].op_name, "jit(f)/while/body/copy");
  EXPECT_EQ(d->copies_removed[0].bytes, 1024);
  EXPECT_TRUE(d->copies_removed[0].in_loop);
  ASSERT_EQ(d->copies_added.size(), 1u);
  EXPECT_EQ(d->copies_added[0].instruction, "pc");
  EXPECT_EQ(d->copies_added[0].computation, "e");
  EXPECT_FALSE(d->copies_added[0].in_loop);
  EXPECT_EQ(d->copies_added_total.copies, 1);
  EXPECT_EQ(d->copies_added_total.bytes, 1024);
  EXPECT_EQ(d->copies_removed_total.copies, 1);
  EXPECT_EQ(d->copies_removed_total.bytes, 1024);
  // Both have two copy instructions (one in the fusion): no opcode changed.
  EXPECT_TRUE(d->opcodes.empty()) << d->opcodes[0].opcode;
}

// Copies pair by op_name and shape too: a renamed copy is not added and removed.
TEST(DiffModules, RenamedCopyIsTheSameCopy) {
  auto a = Parse(kLoopWithCopy);
  std::string renamed = kLoopWithCopy;
  for (size_t at = renamed.find("v2"); at != std::string::npos; at = renamed.find("v2", at)) {
    renamed.replace(at, 2, "copy.9");
  }
  auto b = Parse(renamed);
  ASSERT_TRUE(a && b);
  absl::StatusOr<MemoryDiff> d = DiffModules(*a, *b, {});
  ASSERT_TRUE(d.ok()) << StatusText(d.status());
  EXPECT_TRUE(d->copies_added.empty());
  EXPECT_TRUE(d->copies_removed.empty());
}

// A module the profiler cannot size: the error says which side, by the name given.
TEST(DiffModules, ProfilerErrorNamesTheSide) {
  auto good = Parse(kSmall);
  auto unbounded = Parse(R"(
HloModule unbounded
ENTRY e {
  p = f32[?] parameter(0)
  ROOT n = f32[?] negate(p)
}
)");
  ASSERT_TRUE(good && unbounded);
  absl::StatusOr<MemoryDiff> d = DiffModules(*good, *unbounded, {});
  ASSERT_FALSE(d.ok());
  EXPECT_TRUE(StatusText(d.status()).starts_with("after: module 'unbounded': "))
      << StatusText(d.status());
  d = DiffModules(*unbounded, *good, {});
  ASSERT_FALSE(d.ok());
  EXPECT_TRUE(StatusText(d.status()).starts_with("before: module 'unbounded': "))
      << StatusText(d.status());
}

// --top bounds the lists of DiffModules too, not what is compared.
TEST(DiffModules, TopZeroListsNothingButCountsAll) {
  auto a = Parse(kSmall);
  auto b = Parse(kSmallPlusBroadcast);
  ASSERT_TRUE(a && b);
  MemoryOptions o = Liveness();
  o.top_buffers = 0;
  absl::StatusOr<MemoryDiff> d = DiffModules(*a, *b, o);
  ASSERT_TRUE(d.ok()) << StatusText(d.status());
  EXPECT_TRUE(d->new_buffers.empty());
  EXPECT_EQ(d->new_total.buffers, 1);
  EXPECT_EQ(d->unchanged_buffers, 3);
}

// --top bounds the copy lists as well, keeping the largest; the totals count every copy.
TEST(DiffModules, TopBoundsTheCopyLists) {
  auto a = Parse(R"(
HloModule three_copies
ENTRY e {
  p = f32[256] parameter(0)
  c1 = f32[256] copy(p)
  q = f32[1024] parameter(1)
  c2 = f32[1024] copy(q)
  r = f32[16] parameter(2)
  c3 = f32[16] copy(r)
  ROOT t = (f32[256], f32[1024], f32[16]) tuple(c1, c2, c3)
}
)");
  auto b = Parse(R"(
HloModule no_copies
ENTRY e {
  p = f32[256] parameter(0)
  q = f32[1024] parameter(1)
  r = f32[16] parameter(2)
  ROOT t = (f32[256], f32[1024], f32[16]) tuple(p, q, r)
}
)");
  ASSERT_TRUE(a && b);
  MemoryOptions o;
  o.top_buffers = 2;
  absl::StatusOr<MemoryDiff> d = DiffModules(*a, *b, o);
  ASSERT_TRUE(d.ok()) << StatusText(d.status());
  ASSERT_EQ(d->copies_removed.size(), 2u);
  EXPECT_EQ(d->copies_removed[0].instruction, "c2");
  EXPECT_EQ(d->copies_removed[1].instruction, "c1");
  EXPECT_EQ(d->copies_removed_total.copies, 3);
  EXPECT_EQ(d->copies_removed_total.bytes, 4096 + 1024 + 64);
  EXPECT_EQ(d->copies_added_total.copies, 0);
  absl::StatusOr<std::string> text = PrintMemoryDiff(*d, {});
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("copies removed (3, 5184 bytes):\n"), std::string::npos) << *text;
  // The library names the option as its API does; a tool spells it as its flag (issue 31).
  EXPECT_NE(text->find("  and 1 more (top=N lists more)\n\n"), std::string::npos) << *text;
  EXPECT_EQ(text->find("--top"), std::string::npos) << *text;
  EXPECT_NE(text->find("copies added: none\n"), std::string::npos) << *text;
  const OptionSpelling as_flags = [](std::string_view option) {
    return option == "top" ? std::string("--top") : std::string();
  };
  text = PrintMemoryDiff(*d, {.option_spelling = as_flags});
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("  and 1 more (--top=N lists more)\n\n"), std::string::npos) << *text;
  text = PrintMemoryDiff(*d, {.format = MemoryFormat::kHtml, .option_spelling = as_flags});
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("<tr><td colspan=\"6\">and 1 more (--top=N lists more)</td></tr>"),
            std::string::npos)
      << *text;
}

MemoryDiff SmallDiff() {
  auto a = Parse(kSmall);
  auto b = Parse(kSmallPlusBroadcast);
  absl::StatusOr<MemoryDiff> d = DiffModules(*a, *b, Liveness());
  EXPECT_TRUE(d.ok()) << StatusText(d.status());
  return d.ok() ? *std::move(d) : MemoryDiff{};
}

TEST(PrintMemoryDiff, Text) {
  absl::StatusOr<std::string> text =
      PrintMemoryDiff(SmallDiff(), {.before_label = "a.hlo", .after_label = "b.hlo"});
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("memory diff: a.hlo -> b.hlo\n"), std::string::npos) << *text;
  EXPECT_NE(text->find("peak bytes"), std::string::npos) << *text;
  EXPECT_NE(text->find("+2048 +66.67%"), std::string::npos) << *text;
  EXPECT_NE(text->find("buffers at the peak: 1 new, 0 gone, 0 grown, 0 shrunk, 3 unchanged"),
            std::string::npos)
      << *text;
  EXPECT_NE(text->find("+2048 buffer     w f32[2,256]"), std::string::npos) << *text;
  EXPECT_NE(text->find("  broadcast"), std::string::npos) << *text;
}

// The JSON reads back into its schema, with the numbers of the diff.
TEST(PrintMemoryDiff, JsonFollowsTheSchema) {
  absl::StatusOr<std::string> json = PrintMemoryDiff(
      SmallDiff(), {.format = MemoryFormat::kJson, .before_label = "a.hlo", .after_label = "b"});
  ASSERT_TRUE(json.ok());
  report::MemoryDiff p;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(*json, &p).ok()) << *json;
  EXPECT_EQ(p.before().file(), "a.hlo");
  EXPECT_EQ(p.before().module(), "small");
  EXPECT_EQ(p.after().module(), "small_plus");
  EXPECT_EQ(p.before().peak_bytes(), 3072);
  EXPECT_EQ(p.after().peak_bytes(), 5120);
  EXPECT_EQ(p.peak_delta_bytes(), 2048);
  EXPECT_EQ(p.memory_model(), "liveness");
  ASSERT_EQ(p.new_buffers_size(), 1);
  EXPECT_EQ(p.new_buffers(0).change(), "new");
  EXPECT_EQ(p.new_buffers(0).after().instruction(), "w");
  EXPECT_FALSE(p.new_buffers(0).has_before());
  EXPECT_EQ(p.new_total().buffers(), 1);
  EXPECT_EQ(p.unchanged_buffers(), 3);
  ASSERT_EQ(p.opcodes_size(), 2);
  EXPECT_EQ(p.opcodes(0).delta(), 1);
  EXPECT_EQ(p.copies_added_total().copies(), 0);
}

// One page, nothing fetched: no scripts, no links, no outside resources.
TEST(PrintMemoryDiff, HtmlIsSelfContained) {
  absl::StatusOr<std::string> html =
      PrintMemoryDiff(SmallDiff(), {.format = MemoryFormat::kHtml, .before_label = "<a>"});
  ASSERT_TRUE(html.ok());
  EXPECT_TRUE(html->starts_with("<!DOCTYPE html>"));
  EXPECT_TRUE(html->ends_with("</body></html>\n"));
  EXPECT_EQ(html->find("<script"), std::string::npos);
  EXPECT_EQ(html->find("<link"), std::string::npos);
  EXPECT_EQ(html->find("src="), std::string::npos);
  EXPECT_EQ(html->find("<a>"), std::string::npos);  // the label is escaped
  EXPECT_NE(html->find("&lt;a&gt;"), std::string::npos);
  EXPECT_NE(html->find("<polyline class=\"before\""), std::string::npos);
  EXPECT_NE(html->find("<polyline class=\"after\""), std::string::npos);
  EXPECT_NE(html->find("<td>w</td>"), std::string::npos);
}

// Fails on a field of `message` (recursively; repeated ones by their first element) left at
// its default: the struct-to-proto mapping (memory_diff_json.cc) forgot it. `skip` lists the
// fields (by path) that may be unset.
void ExpectEveryFieldSet(const google::protobuf::Message& message, const std::string& path,
                         const std::vector<std::string>& skip) {
  const google::protobuf::Descriptor* d = message.GetDescriptor();
  const google::protobuf::Reflection* r = message.GetReflection();
  for (int i = 0; i < d->field_count(); ++i) {
    const google::protobuf::FieldDescriptor* f = d->field(i);
    const std::string name = path + f->name();
    if (std::find(skip.begin(), skip.end(), name) != skip.end()) continue;
    if (f->is_repeated()) {
      ASSERT_GT(r->FieldSize(message, f), 0) << name << " is empty";
      if (f->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE) {
        ExpectEveryFieldSet(r->GetRepeatedMessage(message, f, 0), name + "[0].", skip);
      }
      continue;
    }
    EXPECT_TRUE(r->HasField(message, f)) << name << " is left at its default";
    if (f->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE &&
        r->HasField(message, f)) {
      ExpectEveryFieldSet(r->GetMessage(message, f), name + ".", skip);
    }
  }
}

LiveBuffer EveryFieldBuffer(int64_t bytes, std::string name) {
  return {.bytes = bytes,
          .instruction = std::move(name),
          .op_name = "jit(f)/x",
          .shape = "f32[16]",
          .stage = "1",
          .kind = LiveBufferKind::kStash,
          .category = "stashed activations",
          .opcode = "fusion",
          .source = "model.py:7",
          .start = 1,
          .end = 3};
}

MemoryReport EveryFieldSide(int64_t peak, std::string module) {
  MemoryReport r;
  r.peak_bytes = peak;
  r.peak_instruction = "c";
  r.peak_op_name = "jit(f)/c";
  r.saturated = true;
  ModuleMemory m;
  m.module = std::move(module);
  m.model = "xla";
  m.schedule = "topological";
  r.modules = {m};
  return r;
}

// A diff with every field away from its default, as no one pair of modules gives.
TEST(PrintMemoryDiff, JsonSetsEverySchemaField) {
  MemoryDiff d;
  d.before = EveryFieldSide(1000, "a");
  d.after = EveryFieldSide(800, "b");
  const CopyChange copy{.instruction = "c",
                        .computation = "body",
                        .shape = "f32[16]",
                        .op_name = "jit(f)/c",
                        .bytes = 64,
                        .in_loop = true};
  d.new_buffers = {{PeakBufferChange::kNew, {}, EveryFieldBuffer(64, "n"), ""}};
  d.gone_buffers = {{PeakBufferChange::kGone, EveryFieldBuffer(64, "g"), {}, ""}};
  d.grown_buffers = {
      {PeakBufferChange::kGrown, EveryFieldBuffer(64, "u"), EveryFieldBuffer(128, "u"), "name"}};
  d.shrunk_buffers = {{PeakBufferChange::kShrunk, EveryFieldBuffer(64, "s"),
                       EveryFieldBuffer(32, "s"), "op_name and shape"}};
  d.new_total = {1, 64};
  d.gone_total = {1, -64};
  d.grown_total = {1, 64};
  d.shrunk_total = {1, -32};
  d.unchanged_buffers = 3;
  d.peak_buffers_before = 6;
  d.peak_buffers_after = 6;
  d.copies_before = 2;
  d.copies_after = 1;
  d.copies_added = {copy};
  d.copies_removed = {copy, copy};
  d.copies_added_total = {1, 64};
  d.copies_removed_total = {2, 128};
  d.instructions_before = 10;
  d.instructions_after = 9;
  d.opcodes = {{"copy", 2, 1}};
  absl::StatusOr<std::string> json = PrintMemoryDiff(
      d, {.format = MemoryFormat::kJson, .before_label = "a.hlo", .after_label = "b.hlo"});
  ASSERT_TRUE(json.ok());
  report::MemoryDiff p;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(*json, &p).ok()) << *json;
  // A new buffer has no before, a gone one no after, and neither was matched.
  ExpectEveryFieldSet(p, "",
                      {"new_buffers[0].before", "new_buffers[0].matched_by",
                       "gone_buffers[0].after", "gone_buffers[0].matched_by"});
  EXPECT_EQ(p.peak_delta_bytes(), -200);
  EXPECT_DOUBLE_EQ(p.peak_delta_percent(), -20.0);
  EXPECT_EQ(p.copies_removed_total().bytes(), 128);
}

TEST(PrintMemoryDiff, CsvIsRefused) {
  absl::StatusOr<std::string> csv = PrintMemoryDiff(SmallDiff(), {.format = MemoryFormat::kCsv});
  ASSERT_FALSE(csv.ok());
  EXPECT_EQ(StatusText(csv.status()), "the memory diff is printed as text, JSON or HTML, not CSV");
}

}  // namespace
}  // namespace hloscope
