// Our simulated buffer assignment beside XLA's (analysis/memory/xla_assignment_comparison.h)
// on testdata/analysis/memory/Inputs/xla/small.hlo, with XLA's assignment of it as a text dump
// and as an HloProto with a heap-simulator trace (small.hlo.pb, from small.hlo.pb.textproto).
//
// small.hlo: p0, p1 (1024 bytes each), the constant c (4), b = broadcast(c), a = p0 + b,
// m = a * p1, n = -m (the root), at steps 0..6. Our xla model lets a, m and n each take over
// their operand's buffer as it dies, so b, a and m are three temporaries at offset 0 of a
// 1024-byte temp heap, and n is the live-out allocation. XLA's text dump puts `a` into the
// output allocation and b and m side by side in a 2048-byte temp heap: `a` is placed
// elsewhere. The HloProto keeps `a` in the temp heap (at 1024; b and m at 0), and its trace
// has b live at 3-4 (freed after a is allocated, before m) and a from 4 to 5 or 6 (freed after
// m is allocated): both live shorter in ours.
#include "analysis/memory/xla_assignment_comparison.h"

#include <fstream>
#include <sstream>
#include <string>

#include "analysis/memory/memory_comparison.h"
#include "analysis/memory/memory_report_printers.h"
#include "analysis/memory/xla_buffer_assignment.pb.h"
#include "gtest/gtest.h"
#include "hlo/parser.h"
#include "support/status_text.h"

namespace hloscope {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

const std::string kFixtures =
    std::string(HLOSCOPE_SOURCE_DIR) + "/testdata/analysis/memory/Inputs/xla/";

class XlaAssignmentComparisonTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(ReadFile(kFixtures + "small.hlo"));
    ASSERT_TRUE(m.ok()) << m.status();
    module_ = *std::move(m);
    MemoryOptions options;
    options.list_allocations = true;
    absl::StatusOr<MemoryReport> r = ProfileModule(*module_, options);
    ASSERT_TRUE(r.ok()) << r.status();
    ours_ = *std::move(r);
  }

  XlaBufferAssignment Read(const std::string& name) {
    absl::StatusOr<XlaBufferAssignment> ba =
        ParseXlaBufferAssignment(ReadFile(kFixtures + name), name);
    EXPECT_TRUE(ba.ok()) << ba.status();
    return ba.ok() ? *std::move(ba) : XlaBufferAssignment();
  }

  std::unique_ptr<Module> module_;
  MemoryReport ours_;
};

TEST_F(XlaAssignmentComparisonTest, OurSimulatedAllocationsInXlasKinds) {
  const std::vector<SimulatedAllocation>& a = ours_.modules[0].simulated_allocations;
  ASSERT_EQ(a.size(), 5u);
  EXPECT_EQ(a[0].KindText(), "parameter 0 {}");
  EXPECT_EQ(a[1].KindText(), "parameter 1 {}");
  EXPECT_EQ(a[2].KindText(), "constant");
  EXPECT_EQ(a[2].bytes, 4);  // its size, although the xla model counts it outside the heap
  EXPECT_EQ(a[3].KindText(), "maybe-live-out");
  ASSERT_EQ(a[3].values.size(), 1u);
  EXPECT_EQ(a[3].values[0].instruction, "n");
  EXPECT_EQ(a[4].KindText(), "preallocated-temp");
  EXPECT_EQ(a[4].bytes, 1024);
  ASSERT_EQ(a[4].values.size(), 3u);
  EXPECT_EQ(a[4].values[0].instruction, "b");
  EXPECT_EQ(a[4].values[0].first, 3);
  EXPECT_EQ(a[4].values[0].last, 3);
  // Without the option nothing is listed.
  absl::StatusOr<MemoryReport> plain = ProfileModule(*module_, MemoryOptions());
  ASSERT_TRUE(plain.ok());
  EXPECT_TRUE(plain->modules[0].simulated_allocations.empty());
}

TEST_F(XlaAssignmentComparisonTest, TotalsAllocationsAndDifferencesFromTheTextDump) {
  const XlaBufferAssignment xla = Read("small.after_optimizations-buffer-assignment.txt");
  absl::StatusOr<XlaAssignmentComparison> c = CompareWithXla(*module_, ours_.modules[0], xla, 10);
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->totals.size(), 6u);
  EXPECT_EQ(c->totals[0].kind, "parameter");
  EXPECT_EQ(c->totals[0].difference(), 0);
  EXPECT_EQ(c->totals[4].kind, "preallocated-temp");
  EXPECT_EQ(c->totals[4].ours, 1024);
  EXPECT_EQ(c->totals[4].xla, 2048);
  EXPECT_EQ(c->totals[5].kind, "total");
  EXPECT_EQ(c->totals[5].ours, 4100);
  EXPECT_EQ(c->totals[5].xla, 5124);
  EXPECT_EQ(c->totals[5].difference(), -1024);
  ASSERT_EQ(c->allocations.size(), 5u);
  EXPECT_EQ(c->allocations[3].xla_kind, "maybe-live-out");
  EXPECT_EQ(c->allocations[3].xla_values, 2);
  EXPECT_EQ(c->allocations[3].ours_index, 3);
  EXPECT_EQ(c->allocations[3].ours_values, 1);
  EXPECT_EQ(c->allocations[3].example_value, "n");
  EXPECT_EQ(c->allocations[4].ours_index, 4);
  // Without a trace only placement and size are compared: `a` is the one difference.
  EXPECT_FALSE(c->has_heap_trace);
  ASSERT_EQ(c->differing_values, 1);
  EXPECT_EQ(c->differing_bytes, 1024);
  ASSERT_EQ(c->differences.size(), 1u);
  EXPECT_EQ(c->differences[0].kind, XlaValueDifferenceKind::kPlacedElsewhere);
  EXPECT_EQ(c->differences[0].value, "a");
  EXPECT_EQ(c->differences[0].xla, "allocation 3 (maybe-live-out) at 0");
  EXPECT_EQ(c->differences[0].ours, "preallocated-temp at 0, steps 4-4");
}

TEST_F(XlaAssignmentComparisonTest, LiveRangesAndHeapFromTheTrace) {
  const XlaBufferAssignment xla = Read("small.hlo.pb");
  absl::StatusOr<XlaAssignmentComparison> c = CompareWithXla(*module_, ours_.modules[0], xla, 10);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->has_heap_trace);
  ASSERT_EQ(c->differences.size(), 2u);
  EXPECT_EQ(c->differences[0].kind, XlaValueDifferenceKind::kLivesShorter);
  EXPECT_EQ(c->differences[0].value, "b");
  EXPECT_EQ(c->differences[0].xla, "allocation 4 (preallocated-temp) at 0, steps 3-4");
  EXPECT_EQ(c->differences[0].ours, "preallocated-temp at 0, steps 3-3");
  // a's free comes after m's allocation (step 5) with nothing allocated after it: 5 or 6.
  EXPECT_EQ(c->differences[1].kind, XlaValueDifferenceKind::kLivesShorter);
  EXPECT_EQ(c->differences[1].value, "a");
  EXPECT_EQ(c->differences[1].xla, "allocation 4 (preallocated-temp) at 1024, steps 4-5..6");
  // m (XLA: 5 to 5 or 6; ours 5-5) may live as long in both: not listed.
  // XLA's heap over its trace's three allocation times (b, a, m).
  EXPECT_EQ(c->xla_heap_steps, 3);
  EXPECT_EQ(c->xla_heap_bytes, 2048);
  ASSERT_EQ(c->xla_heap.size(), 3u);
  for (const XlaHeapBox& b : c->xla_heap) {
    SCOPED_TRACE(b.name);
    const std::pair<int32_t, int32_t> span(b.first, b.last);
    if (b.name == "b") {
      EXPECT_EQ(span, std::make_pair(0, 1));
      EXPECT_EQ(b.offset, 0);
    } else if (b.name == "a") {
      EXPECT_EQ(span, std::make_pair(1, 2));
      EXPECT_EQ(b.offset, 1024);
    } else {
      EXPECT_EQ(b.name, "m");
      EXPECT_EQ(span, std::make_pair(2, 2));
      EXPECT_EQ(b.offset, 0);
    }
  }
  // --top limits the list, not the count.
  c = CompareWithXla(*module_, ours_.modules[0], xla, 1);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->differences.size(), 1u);
  EXPECT_EQ(c->differing_values, 2);
  EXPECT_EQ(c->differing_bytes, 2048);
}

TEST_F(XlaAssignmentComparisonTest, AnotherModulesAssignmentIsRefused) {
  const XlaBufferAssignment xla = Read("other_module-buffer-assignment.txt");
  absl::StatusOr<XlaAssignmentComparison> c = CompareWithXla(*module_, ours_.modules[0], xla, 10);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(StatusText(c.status()),
            "other_module-buffer-assignment.txt: error: buffer assignment does not match module "
            "'small': no instruction 'm.other' (allocation 4)");
}

TEST_F(XlaAssignmentComparisonTest, AddedToTheReportAndPrintedInEveryFormat) {
  MemoryOptions options;
  options.list_allocations = true;
  absl::StatusOr<MemoryComparison> mc = ProfileBeforeAfter({module_.get()}, nullptr, "", options);
  ASSERT_TRUE(mc.ok()) << mc.status();
  const std::string pb = ReadFile(kFixtures + "small.hlo.pb");
  ASSERT_TRUE(AddXlaBufferAssignment(*mc, *module_, pb, "small.hlo.pb", 10).ok());
  ASSERT_EQ(mc->xla.size(), 1u);

  absl::StatusOr<std::string> text =
      PrintMemoryComparison(*mc, {.format = MemoryFormat::kText, .buffer_assignment = false});
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("XLA's buffer assignment (small.hlo.pb) beside ours: module small"),
            std::string::npos)
      << *text;
  EXPECT_NE(text->find("lives shorter     b: XLA's allocation 4"), std::string::npos) << *text;
  absl::StatusOr<std::string> json =
      PrintMemoryComparison(*mc, {.format = MemoryFormat::kJson, .buffer_assignment = false});
  ASSERT_TRUE(json.ok());
  EXPECT_NE(json->find("\"xla_buffer_assignment\""), std::string::npos);
  EXPECT_NE(json->find("\"kind\": \"lives shorter\""), std::string::npos) << *json;
  absl::StatusOr<std::string> csv =
      PrintMemoryComparison(*mc, {.format = MemoryFormat::kCsv, .buffer_assignment = false});
  ASSERT_TRUE(csv.ok());
  EXPECT_NE(csv->find("\nmodule,kind,ours_bytes,xla_bytes,difference_bytes\n"
                      "small,parameter,2048,2048,0\n"),
            std::string::npos)
      << *csv;
  absl::StatusOr<std::string> html =
      PrintMemoryComparison(*mc, {.format = MemoryFormat::kHtml, .buffer_assignment = false});
  ASSERT_TRUE(html.ok());
  EXPECT_NE(html->find("<svg id=\"xla-heap\""), std::string::npos);
  EXPECT_NE(html->find("<svg id=\"our-heap\""), std::string::npos);
  EXPECT_NE(html->find("<title>a 1024 bytes at offset 1024</title>"), std::string::npos);

  // XLA's peak from the trace and its one memory space, in the text and the JSON.
  EXPECT_NE(text->find("  XLA's peak (from its heap-simulator traces): 5124 bytes padded, 5124 "
                       "bytes unpadded\n  XLA's memory space S(0): 5124 bytes in 5 allocations, "
                       "3076 bytes live throughout\n"),
            std::string::npos)
      << *text;
  EXPECT_NE(json->find("\"xla_peak_unpadded_bytes\": \"5124\""), std::string::npos) << *json;

  // Errors: the reader's, the module's, and a module the report does not have.
  absl::Status s = AddXlaBufferAssignment(*mc, *module_, "", "e.pb", 10);
  EXPECT_EQ(StatusText(s), "e.pb: error: empty file: no buffer assignment");
  const std::string other = ReadFile(kFixtures + "other_module-buffer-assignment.txt");
  s = AddXlaBufferAssignment(*mc, *module_, other, "o.txt", 10);
  EXPECT_EQ(StatusText(s),
            "o.txt: error: buffer assignment does not match module 'small': no instruction "
            "'m.other' (allocation 4)");
  Module stranger("stranger");
  s = AddXlaBufferAssignment(*mc, stranger, pb, "small.hlo.pb", 10);
  EXPECT_EQ(StatusText(s), "module 'stranger' is not in the memory report");
  EXPECT_EQ(mc->xla.size(), 1u);
}

// The same HloProto with its module's shapes taken out (a hand-made dump): the padded peak
// stays, and the side-by-side says what keeps the unpadded one from being known.
TEST_F(XlaAssignmentComparisonTest, UnpaddedPeakNotKnownWithoutShapes) {
  xla_ba::HloProtoBufferAssignment proto;
  ASSERT_TRUE(proto.ParseFromString(ReadFile(kFixtures + "small.hlo.pb")));
  for (xla_ba::ComputationNameView& c : *proto.mutable_hlo_module()->mutable_computations()) {
    for (xla_ba::InstructionNameView& i : *c.mutable_instructions()) i.clear_shape();
  }
  MemoryOptions options;
  options.list_allocations = true;
  absl::StatusOr<MemoryComparison> mc = ProfileBeforeAfter({module_.get()}, nullptr, "", options);
  ASSERT_TRUE(mc.ok()) << mc.status();
  ASSERT_TRUE(AddXlaBufferAssignment(*mc, *module_, proto.SerializeAsString(), "bare.pb", 10).ok());
  absl::StatusOr<std::string> text =
      PrintMemoryComparison(*mc, {.format = MemoryFormat::kText, .buffer_assignment = false});
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("  XLA's peak (from its heap-simulator traces): 5124 bytes padded, "
                       "unpadded not known (logical buffer 0: the shape of instruction 'p0' (id "
                       "1): malformed shape: no element type)\n"),
            std::string::npos)
      << *text;
  absl::StatusOr<std::string> json =
      PrintMemoryComparison(*mc, {.format = MemoryFormat::kJson, .buffer_assignment = false});
  ASSERT_TRUE(json.ok());
  EXPECT_NE(json->find("\"has_xla_peak_unpadded\": false"), std::string::npos) << *json;
  EXPECT_NE(json->find("\"xla_peak_unpadded_unknown\": \"logical buffer 0: the shape"),
            std::string::npos)
      << *json;
}

}  // namespace
}  // namespace hloscope

namespace hloscope {
namespace {

// XlaAlignmentOf: the largest power of two up to 256 (current XLA:GPU's) dividing every offset
// in XLA's temp allocations; 1 without any.
TEST(XlaAlignmentOf, ReadsTheAlignmentFromXlasTempOffsets) {
  auto at = [](int64_t offset) {
    XlaAssignedValue v;
    v.offset = offset;
    return v;
  };
  XlaBufferAssignment xla;
  EXPECT_EQ(XlaAlignmentOf(xla), 1);
  XlaAllocation temp;
  temp.values = {at(0), at(1024)};
  xla.allocations = {temp};
  EXPECT_EQ(XlaAlignmentOf(xla), 256);
  xla.allocations[0].values.push_back(at(384));
  EXPECT_EQ(XlaAlignmentOf(xla), 128);
  xla.allocations[0].values.push_back(at(192));
  EXPECT_EQ(XlaAlignmentOf(xla), 64);
  xla.allocations[0].values.push_back(at(4));
  EXPECT_EQ(XlaAlignmentOf(xla), 4);
  // Offsets in other kinds of allocation say nothing about the heap's alignment.
  XlaAllocation out;
  out.maybe_live_out = true;
  out.values = {at(3)};
  xla.allocations.push_back(out);
  EXPECT_EQ(XlaAlignmentOf(xla), 4);
}

// The side-by-side with the model (what --memory-model=xla compares): small.hlo's model puts b,
// a, m and n into n's output allocation (XLA's rule 2), so against XLA's text dump b and m are
// placed elsewhere, and our allocations are the model's (the output first).
TEST_F(XlaAssignmentComparisonTest, TheModelAsOurSide) {
  const XlaBufferAssignment xla = Read("small.after_optimizations-buffer-assignment.txt");
  absl::StatusOr<XlaModelAssignment> model = AssignLikeXla(*module_, {.alignment = 128});
  ASSERT_TRUE(model.ok()) << model.status();
  absl::StatusOr<XlaAssignmentComparison> c = CompareModelWithXla(*module_, *model, xla, 10);
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->totals.size(), 6u);
  EXPECT_EQ(c->totals[4].ours, 0);  // no temp allocation
  EXPECT_EQ(c->totals[5].ours, 3076);
  ASSERT_EQ(c->allocations.size(), 5u);
  EXPECT_EQ(c->allocations[3].ours_index, 0);
  EXPECT_EQ(c->allocations[3].ours_kind, "maybe-live-out");
  EXPECT_EQ(c->allocations[3].ours_values, 4);
  ASSERT_EQ(c->differences.size(), 2u);
  EXPECT_EQ(c->differences[0].value, "b");
  EXPECT_EQ(c->differences[0].ours, "maybe-live-out at 0, steps 3-4");
  EXPECT_EQ(c->differences[1].value, "m");
  // Through the report: with_model, the alignment read from XLA's offsets (0 and 1024: 128).
  MemoryOptions options;
  options.list_allocations = true;
  absl::StatusOr<MemoryComparison> mc = ProfileBeforeAfter({module_.get()}, nullptr, "", options);
  ASSERT_TRUE(mc.ok());
  ASSERT_TRUE(AddXlaBufferAssignment(*mc, *module_,
                                     ReadFile(kFixtures + "small.after_optimizations-buffer-"
                                                          "assignment.txt"),
                                     "small.txt", 10, /*with_model=*/true)
                  .ok());
  ASSERT_EQ(mc->xla.size(), 1u);
  EXPECT_EQ(mc->xla[0].differing_values, 2);
}

}  // namespace
}  // namespace hloscope

namespace hloscope {
namespace {

// A value in an allocation of the same kind on both sides, but not in the one beside XLA's
// (issue 29): XLA's (hand-made) assignment of small.hlo gives the output n an allocation of its
// own beside the one holding b, a and m; the model puts all four into one output allocation,
// which is beside XLA's 3 (3072 of its bytes). n is in allocation 0 here, 4 in XLA's. The pair
// (XLA's 4, our 0) is not a placement difference of its own: b, a and m are in the allocation
// beside theirs.
TEST_F(XlaAssignmentComparisonTest, AValueInAnotherAllocationOfTheSameKind) {
  constexpr std::string_view kAssignment =
      "BufferAssignment:\n"
      "allocation 0: size 1024, parameter 0, shape |f32[256]| at ShapeIndex {}:\n"
      " value: <0 p0 @0> (size=1024,offset=0): f32[256]{0}\n"
      "allocation 1: size 1024, parameter 1, shape |f32[256]| at ShapeIndex {}:\n"
      " value: <1 p1 @0> (size=1024,offset=0): f32[256]{0}\n"
      "allocation 2: size 4, constant:\n"
      " value: <2 c @0> (size=4,offset=0): f32[]\n"
      "allocation 3: size 1024, maybe-live-out:\n"
      " value: <3 b @0> (size=1024,offset=0): f32[256]{0}\n"
      " value: <4 a @0> (size=1024,offset=0): f32[256]{0}\n"
      " value: <5 m @0> (size=1024,offset=0): f32[256]{0}\n"
      "allocation 4: size 1024, output shape is |f32[256]|, maybe-live-out:\n"
      " value: <6 n @0> (size=1024,offset=0): f32[256]{0}\n"
      "\nTotal bytes used: 4100 (4.00KiB)\n";
  absl::StatusOr<XlaBufferAssignment> xla = ParseXlaBufferAssignment(kAssignment, "two_outs.txt");
  ASSERT_TRUE(xla.ok()) << xla.status();
  absl::StatusOr<XlaModelAssignment> model = AssignLikeXla(*module_, {.alignment = 128});
  ASSERT_TRUE(model.ok()) << model.status();
  absl::StatusOr<XlaAssignmentComparison> c = CompareModelWithXla(*module_, *model, *xla, 10);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->ours_model, "xla");
  ASSERT_EQ(c->allocations.size(), 5u);
  EXPECT_EQ(c->allocations[3].ours_index, 0);
  EXPECT_EQ(c->allocations[4].ours_index, 0);
  ASSERT_EQ(c->differences.size(), 1u) << c->differences[1].value;
  const XlaValueDifference& d = c->differences[0];
  EXPECT_EQ(d.kind, XlaValueDifferenceKind::kOtherAllocation);
  EXPECT_EQ(XlaValueDifferenceName(d.kind), "other allocation");
  EXPECT_EQ(d.value, "n");
  EXPECT_EQ(d.bytes, 1024);
  EXPECT_EQ(d.xla, "allocation 4 (maybe-live-out) at 0");
  EXPECT_TRUE(d.ours.starts_with("allocation 0 (maybe-live-out) at 0, steps ")) << d.ours;
  EXPECT_TRUE(d.ours.ends_with(" (in allocation 0 here, 4 in XLA's; our 0 is beside XLA's 3)"))
      << d.ours;

  // Text and HTML say it in the same words.
  MemoryOptions options;
  options.list_allocations = true;
  absl::StatusOr<MemoryComparison> mc = ProfileBeforeAfter({module_.get()}, nullptr, "", options);
  ASSERT_TRUE(mc.ok());
  ASSERT_TRUE(AddXlaBufferAssignment(*mc, *module_, kAssignment, "two_outs.txt", 10,
                                     /*with_model=*/true)
                  .ok());
  absl::StatusOr<std::string> text = PrintMemoryComparison(*mc, {.format = MemoryFormat::kText});
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("other allocation  n: XLA's allocation 4 (maybe-live-out) at 0; ours "
                       "allocation 0 (maybe-live-out) at 0"),
            std::string::npos)
      << *text;
  EXPECT_NE(text->find("(in allocation 0 here, 4 in XLA's; our 0 is beside XLA's 3)"),
            std::string::npos);
  absl::StatusOr<std::string> html = PrintMemoryComparison(*mc, {.format = MemoryFormat::kHtml});
  ASSERT_TRUE(html.ok());
  EXPECT_NE(
      html->find("<tr class=\"other-allocation\"><td>1024 (1.0 KiB)</td><td>other allocation</td>"
                 "<td>n</td>"),
      std::string::npos)
      << *html;
  EXPECT_NE(html->find("in allocation 0 here, 4 in XLA's"), std::string::npos);
  // The model's side is drawn: no temp allocation in it, said so, and both allocations of
  // XLA's beside our one in the bars.
  EXPECT_NE(html->find("ours: the xla model has no preallocated temp allocation"),
            std::string::npos);
  EXPECT_NE(html->find("<title>xla allocation 4: 1024 bytes (1.0 KiB), 1 value, "
                       "maybe-live-out</title>"),
            std::string::npos);
}

// Both sides' allocations pair up: nothing is in another allocation. Under liveness the page
// labels its drawing as the liveness profile's.
TEST_F(XlaAssignmentComparisonTest, PairedAllocationsAreNoDifferenceAndTheModelIsNamed) {
  const XlaBufferAssignment xla = Read("small.after_optimizations-buffer-assignment.txt");
  absl::StatusOr<XlaAssignmentComparison> c = CompareWithXla(*module_, ours_.modules[0], xla, 10);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->ours_model, "liveness");
  EXPECT_TRUE(c->ours_heap.empty());
  for (const XlaValueDifference& d : c->differences) {
    EXPECT_NE(d.kind, XlaValueDifferenceKind::kOtherAllocation) << d.value;
  }
  MemoryOptions options;
  options.list_allocations = true;
  absl::StatusOr<MemoryComparison> mc = ProfileBeforeAfter({module_.get()}, nullptr, "", options);
  ASSERT_TRUE(mc.ok());
  ASSERT_TRUE(AddXlaBufferAssignment(*mc, *module_,
                                     ReadFile(kFixtures + "small.after_optimizations-buffer-"
                                                          "assignment.txt"),
                                     "small.txt", 10, /*with_model=*/false)
                  .ok());
  absl::StatusOr<std::string> html = PrintMemoryComparison(*mc, {.format = MemoryFormat::kHtml});
  ASSERT_TRUE(html.ok());
  EXPECT_NE(html->find("<p class=\"ours-model\">ours: the liveness profile"), std::string::npos)
      << *html;
  EXPECT_NE(html->find("ours: the liveness profile's preallocated temp (simulated)"),
            std::string::npos);
}

}  // namespace
}  // namespace hloscope
