// XLA's peak (its ComputePeakMemory, xla/service/buffer_assignment.cc at ROCm/xla 183fa00cb5)
// counted on our model of XLA's buffer assignment (analysis/memory/xla_model_peak.h): the
// model's heap trace as XLA's HeapSimulator would write it, hand-worked on small modules, and
// the figure on the seven real dumps, pinned to XLA's own figure from its dumped traces, from
// the HloProto (with XLA's instruction ids) and from the text dumps.
#include "analysis/memory/xla_model_peak.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_join.h"
#include "analysis/memory/memory_comparison.h"
#include "analysis/memory/memory_profile.h"
#include "analysis/memory/xla_assignment_model.h"
#include "analysis/memory/xla_buffer_assignment.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/parser.h"
#include "hlo/proto_reader.h"
#include "tests/analysis/memory/xla_dump_checks.h"

namespace hloscope {
namespace {

using ::testing::HasSubstr;
using Kind = XlaModelHeapEvent::Kind;

std::unique_ptr<Module> Parse(std::string_view text) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *std::move(m) : nullptr;
}

// p (1 KiB) is read by a; b (negate) takes over a's chunk as a dies at b (an elementwise
// user may share its operand's buffer); the root, a slice, lives out in an allocation of its
// own (512 bytes), too small for a or b, which are temporaries of the heap.
constexpr std::string_view kShare = R"(
HloModule share, is_scheduled=true

ENTRY e {
  p = f32[256]{0} parameter(0)
  a = f32[256]{0} exponential(p)
  b = f32[256]{0} negate(a)
  ROOT c = f32[128]{0} slice(b), slice={[0:128]}
}
)";

std::string Name(const XlaModelAssignment& a, int64_t id) {
  for (const XlaModelAllocation& alloc : a.allocations) {
    for (const XlaModelValue& v : alloc.values) {
      if (v.id == id) return v.name;
    }
  }
  return "?";
}

TEST(XlaModelPeak, TraceIsXlasCallsAndTheSharedChunkCountsOnce) {
  std::unique_ptr<Module> m = Parse(kShare);
  ASSERT_NE(m, nullptr);
  absl::StatusOr<XlaModelAssignment> a = AssignLikeXla(*m);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_EQ(a->heap_traces.size(), 1u);
  std::vector<std::string> events;
  for (const XlaModelHeapEvent& e : a->heap_traces[0]) {
    switch (e.kind) {
      case Kind::kAlloc:
        events.push_back("ALLOC " + Name(*a, e.value));
        break;
      case Kind::kFree:
        events.push_back("FREE " + Name(*a, e.value));
        break;
      case Kind::kShareWith:
        events.push_back("SHARE_WITH " + Name(*a, e.value) + " " + Name(*a, e.shared_with));
        break;
    }
  }
  // HeapSimulator::RunComputation: the operand is freed right before the result shares it.
  EXPECT_EQ(events, (std::vector<std::string>{"ALLOC a", "FREE a", "SHARE_WITH b a", "FREE b"}));
  absl::StatusOr<XlaModelPeak> peak = XlaModelPeakMemory(*a);
  ASSERT_TRUE(peak.ok()) << peak.status();
  // Static: p's parameter allocation (1024) and c's live-out one (512). Then a (1024) once:
  // b's SHARE_WITH of a's chunk, given back a moment before, brings back the same 1024 bytes.
  EXPECT_EQ(peak->static_bytes, 1536);
  EXPECT_EQ(peak->peak_bytes, 2560);
}

// A value of a buffer whose first value was freed takes that value's chunk again (SHARE_WITH
// of a buffer no longer live): XLA's replay counts the root's bytes anew, once.
TEST(XlaModelPeak, WhileLoopStateSharesItsBuffersChunk) {
  std::unique_ptr<Module> m = Parse(R"(
HloModule loop, is_scheduled=true

body {
  s = f32[256]{0} parameter(0)
  ROOT n = f32[256]{0} negate(s)
}

cond {
  s = f32[256]{0} parameter(0)
  ROOT f = pred[] constant(false)
}

ENTRY e {
  p = f32[256]{0} parameter(0)
  x = f32[256]{0} exponential(p)
  w = f32[256]{0} while(x), condition=cond, body=body
  ROOT r = f32[64]{0} slice(w), slice={[0:64]}
}
)");
  ASSERT_NE(m, nullptr);
  absl::StatusOr<XlaModelAssignment> a = AssignLikeXla(*m);
  ASSERT_TRUE(a.ok()) << a.status();
  absl::StatusOr<XlaModelPeak> peak = XlaModelPeakMemory(*a);
  ASSERT_TRUE(peak.ok()) << peak.status();
  // p (1024), r's live-out allocation (256) and the condition's constant (its own constant
  // allocation, 1 byte) throughout; the loop's one buffer (x, the loop state, n, w: 1024)
  // counted once however many of its values share the chunk.
  EXPECT_EQ(peak->static_bytes, 1281);
  EXPECT_EQ(peak->peak_bytes, 2305);
}

// The replay's error reaches the caller: a trace naming a value no allocation holds.
TEST(XlaModelPeak, TraceNamingNoValueIsAnError) {
  XlaModelAssignment a;
  a.heap_traces.push_back({{Kind::kAlloc, 99, -1}});
  absl::StatusOr<XlaModelPeak> peak = XlaModelPeakMemory(a);
  ASSERT_FALSE(peak.ok());
  EXPECT_EQ(peak.status().message(),
            "a heap-simulator event names logical buffer 99, which the buffer assignment does "
            "not define");
}

MemoryOptions Options(MemoryOptions::Model model, ScheduleKind schedule = ScheduleKind::kText) {
  MemoryOptions o;
  o.model = model;
  o.schedule = schedule;
  o.modeled_xla_peak = true;
  return o;
}

// Asked for (MemoryOptions::modeled_xla_peak, hlo-opt --xla-peak), the memory report under the
// xla model gives the figure beside the timeline's peak; under liveness it gives none, and on
// an unscheduled module laid out by another schedule than the model's topological order it
// says why not. Not asked for, it gives nothing and says nothing.
TEST(XlaModelPeak, TheReportGivesItUnderTheXlaModelOnly) {
  std::unique_ptr<Module> m = Parse(kShare);
  ASSERT_NE(m, nullptr);
  MemoryOptions unasked = Options(MemoryOptions::Model::kXla);
  unasked.modeled_xla_peak = false;
  absl::StatusOr<MemoryReport> plain = ProfileModule(*m, unasked);
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_FALSE(plain->modules[0].modeled_xla_peak_bytes.has_value());
  EXPECT_EQ(plain->modules[0].modeled_xla_peak_unknown, "");
  absl::StatusOr<MemoryReport> xla = ProfileModule(*m, Options(MemoryOptions::Model::kXla));
  ASSERT_TRUE(xla.ok()) << xla.status();
  ASSERT_TRUE(xla->modules[0].modeled_xla_peak_bytes.has_value());
  EXPECT_EQ(*xla->modules[0].modeled_xla_peak_bytes, 2560);
  EXPECT_EQ(xla->modules[0].modeled_xla_peak_static_bytes, 1536);
  absl::StatusOr<MemoryReport> liveness =
      ProfileModule(*m, Options(MemoryOptions::Model::kLiveness));
  ASSERT_TRUE(liveness.ok()) << liveness.status();
  EXPECT_FALSE(liveness->modules[0].modeled_xla_peak_bytes.has_value());
  EXPECT_EQ(liveness->modules[0].modeled_xla_peak_unknown, "");

  std::unique_ptr<Module> unscheduled = Parse(R"(
HloModule u

ENTRY e {
  p = f32[256]{0} parameter(0)
  a = f32[256]{0} exponential(p)
  ROOT c = f32[128]{0} slice(a), slice={[0:128]}
}
)");
  ASSERT_NE(unscheduled, nullptr);
  absl::StatusOr<MemoryReport> listed =
      ProfileModule(*unscheduled, Options(MemoryOptions::Model::kXla, ScheduleKind::kList));
  ASSERT_TRUE(listed.ok()) << listed.status();
  EXPECT_FALSE(listed->modules[0].modeled_xla_peak_bytes.has_value());
  EXPECT_THAT(listed->modules[0].modeled_xla_peak_unknown,
              HasSubstr("modeled on the topological order of an unscheduled module, not on the "
                        "list schedule"));
  absl::StatusOr<MemoryReport> topological =
      ProfileModule(*unscheduled, Options(MemoryOptions::Model::kXla));
  ASSERT_TRUE(topological.ok()) << topological.status();
  EXPECT_TRUE(topological->modules[0].modeled_xla_peak_bytes.has_value());
}

// The seven real dumps: XLA's own peak (from its traces, xla_peak_memory_test.cc pins it too)
// and its static part (docs/xla_memory_tests.md's table).
struct RealDump {
  std::filesystem::path proto;
  std::filesystem::path text;  // empty: no text dump of it
  int64_t peak;
  int64_t static_part;
  // Whether the model's trace is XLA's in XLA's order too (TraceIsXlasEventForEvent).
  bool trace_in_xla_order = true;
};

std::vector<RealDump> RealDumps() {
  const std::filesystem::path corpus = std::filesystem::path(HLOSCOPE_CORPUS_DIR) / "xla_dumps";
  const std::filesystem::path jax =
      std::filesystem::path(HLOSCOPE_SOURCE_DIR) / "testdata/dumps/Inputs/jax_pipeline";
  const std::string cpu18 = "cpu/module_0018.jit_pipelined_train_step.cpu_after_optimizations";
  const std::string cpu20 =
      "cpu/module_0020.jit_pipelined_train_step_remat.cpu_after_optimizations";
  const std::string gpu51630 =
      "gpu_h200/module_51630.jit_pipelined_train_step_remat.sm_9.0a_gpu_after_optimizations";
  const std::string gpu5967 =
      "gpu_h200/module_5967.jit_pipelined_train_step.sm_9.0a_gpu_after_optimizations";
  return {
      {corpus / "NVIDIA_JAX-Toolbox__maxtext_fsdp4__module_0003.jit__unnamed_wrapped_function_."
                "sm_9.0_gpu_after_optimizations.hlo.pb",
       {},
       2007644668,
       2007644456},
      {corpus / "NVIDIA_JAX-Toolbox__maxtext_fsdp4__module_0016.jit_train_step.sm_9.0_gpu_after_"
                "optimizations.hlo.pb",
       {},
       5817895532,
       2007726436},
      {corpus / "NVIDIA_JAX-Toolbox__pax_fsdp4_proc0__module_0040.pjit__wrapped_step_fn.sm_8.0_"
                "gpu_after_optimizations.hlo.pb",
       {},
       16761141382,
       377064582},
      {jax / (cpu18 + ".hlo.pb"), jax / (cpu18 + ".txt"), 12189812, 4325433},
      {jax / (cpu20 + ".hlo.pb"), jax / (cpu20 + ".txt"), 10125428, 4325433},
      {jax / (gpu51630 + ".hlo.pb"), jax / (gpu51630 + ".txt"), 9076827, 4325408, false},
      {jax / (gpu5967 + ".hlo.pb"), jax / (gpu5967 + ".txt"), 12222555, 4325408, false},
  };
}

TEST(XlaModelPeakRealDumps, EqualsXlasPeakFromTheHloProto) {
  for (const RealDump& d : RealDumps()) {
    SCOPED_TRACE(d.proto.filename().string());
    DumpAndModel dm;
    ASSERT_NO_FATAL_FAILURE(LoadDumpAndModel(d.proto, std::nullopt, &dm));
    ASSERT_TRUE(dm.xla->peak_bytes.has_value());
    EXPECT_EQ(*dm.xla->peak_bytes, d.peak);
    absl::StatusOr<XlaModelPeak> peak = XlaModelPeakMemory(*dm.ours);
    ASSERT_TRUE(peak.ok()) << peak.status();
    EXPECT_EQ(peak->peak_bytes, d.peak);
    EXPECT_EQ(peak->static_bytes, d.static_part);
  }
}

// From the text dumps XLA wrote beside the HloProtos: no XLA ids (the model's call-site order
// is the text's), the same figure.
TEST(XlaModelPeakRealDumps, EqualsXlasPeakFromTheTextDump) {
  for (const RealDump& d : RealDumps()) {
    if (d.text.empty()) continue;
    SCOPED_TRACE(d.text.filename().string());
    absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(ReadAll(d.text));
    ASSERT_TRUE(m.ok()) << m.status();
    absl::StatusOr<XlaModelAssignment> a = AssignLikeXla(**m);
    ASSERT_TRUE(a.ok()) << a.status();
    absl::StatusOr<XlaModelPeak> peak = XlaModelPeakMemory(*a);
    ASSERT_TRUE(peak.ok()) << peak.status();
    EXPECT_EQ(peak->peak_bytes, d.peak);
    EXPECT_EQ(peak->static_bytes, d.static_part);
  }
}

// Why the figures agree: the model's trace is XLA's, event for event. Each event as "KIND value
// [shared]" by value name (XLA's ids named on our module by MapXlaBufferAssignmentOntoModule,
// ours by XlaModelValue::name), the traces concatenated in order. On five dumps (the MaxText
// and Pax ones included) the two are the same sequence. On the two XLA:GPU
// pipeline dumps they are the same events, in another order around each async fusion-start:
// XLA allocates the start's {2} (its u32[] context, 4 bytes) after the frees of the start's
// step, where ours allocates it before its {1} (so ours holds those 4 bytes across the step's
// frees), and where two starts share a step their {1} and {2} come the other way round. Neither
// moves these dumps' peak; a peak at such a step would be at most 4 bytes per start above XLA's.
std::vector<std::string> XlaTraceText(const XlaBufferAssignment& xla) {
  absl::flat_hash_map<int64_t, std::string> name;
  for (const XlaAllocation& a : xla.allocations) {
    for (const XlaAssignedValue& v : a.values) {
      std::string n = v.instruction;
      if (!v.index.empty()) n += "{" + absl::StrJoin(v.index, ",") + "}";
      name[v.id] = n;
    }
  }
  std::vector<std::string> out;
  for (const XlaHeapTrace& t : xla.heap_traces) {
    for (const XlaHeapEvent& e : t.events) {
      const char* kind = e.kind == XlaHeapEvent::Kind::kAlloc  ? "ALLOC"
                         : e.kind == XlaHeapEvent::Kind::kFree ? "FREE"
                                                               : "SHARE_WITH";
      out.push_back(std::string(kind) + " " + name[e.value_id] +
                    (e.kind == XlaHeapEvent::Kind::kShareWith ? " " + name[e.share_with] : ""));
    }
  }
  return out;
}

std::vector<std::string> ModelTraceText(const XlaModelAssignment& a) {
  std::vector<std::string> out;
  for (const std::vector<XlaModelHeapEvent>& trace : a.heap_traces) {
    for (const XlaModelHeapEvent& e : trace) {
      const char* kind = e.kind == Kind::kAlloc  ? "ALLOC"
                         : e.kind == Kind::kFree ? "FREE"
                                                 : "SHARE_WITH";
      out.push_back(std::string(kind) + " " + Name(a, e.value) +
                    (e.kind == Kind::kShareWith ? " " + Name(a, e.shared_with) : ""));
    }
  }
  return out;
}

TEST(XlaModelPeakRealDumps, TraceIsXlasEventForEvent) {
  for (const RealDump& d : RealDumps()) {
    SCOPED_TRACE(d.proto.filename().string());
    DumpAndModel dm;
    ASSERT_NO_FATAL_FAILURE(LoadDumpAndModel(d.proto, std::nullopt, &dm));
    absl::StatusOr<XlaBufferAssignment> named =
        MapXlaBufferAssignmentOntoModule(*dm.xla, *dm.module);
    ASSERT_TRUE(named.ok()) << named.status();
    const std::vector<std::string> xla = XlaTraceText(*named);
    const std::vector<std::string> ours = ModelTraceText(*dm.ours);
    std::vector<std::string> ours_sorted = ours, xla_sorted = xla;
    std::sort(ours_sorted.begin(), ours_sorted.end());
    std::sort(xla_sorted.begin(), xla_sorted.end());
    EXPECT_EQ(ours_sorted, xla_sorted);
    if (!d.trace_in_xla_order) {
      EXPECT_NE(ours, xla);  // so that a change that brings it in order shows here
      continue;
    }
    size_t first = 0;
    while (first < ours.size() && first < xla.size() && ours[first] == xla[first]) ++first;
    EXPECT_EQ(first, std::min(ours.size(), xla.size()))
        << "first difference at event " << first << ": ours "
        << (first < ours.size() ? ours[first] : "-") << ", XLA's "
        << (first < xla.size() ? xla[first] : "-");
  }
}

}  // namespace
}  // namespace hloscope
