// The memory report's printers (analysis/memory/memory_report_printers.h) and the before/after
// comparison (memory_comparison.h): text, JSON, CSV and HTML, alone and before/after; the JSON
// mapping sets every field of its schema (memory_report.proto).
#include "analysis/memory/memory_report_printers.h"

#include <algorithm>
#include <string>
#include <vector>

#include "analysis/memory/memory_comparison.h"
#include "analysis/memory/memory_report.pb.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "support/bytes.h"
#include "support/status_text.h"
#include "support/str_util.h"
#include "tests/test_util.h"

namespace hloscope {
namespace {

using testing::Parse;

constexpr char kModule[] = R"(
HloModule straight, is_scheduled=true
ENTRY e {
  p = f32[256] parameter(0)
  b = f32[4,256] broadcast(p), dimensions={1}, metadata={op_name="jit(f)/s<1>/b"}
  c = f32[4,256] exponential(b), metadata={op_name="jit(f)/s<1>/c"}
  ROOT d = f32[1,256] slice(c), slice={[0:1], [0:256]}
})";

constexpr char kSmaller[] = R"(
HloModule straight, is_scheduled=true
ENTRY e {
  p = f32[256] parameter(0)
  b = f32[4,256] broadcast(p), dimensions={1}, metadata={op_name="jit(f)/s<1>/b"}
  ROOT d = f32[1,256] slice(b), slice={[0:1], [0:256]}
})";

// The printers' expected numbers are the liveness model's (issue 7's hand computations).
MemoryReport Profile(const Module& m, MemoryOptions o = {}) {
  o.model = MemoryOptions::Model::kLiveness;
  absl::StatusOr<MemoryReport> r = ProfileModule(m, o);
  EXPECT_TRUE(r.ok()) << StatusText(r.status());
  return r.ok() ? *std::move(r) : MemoryReport{};
}

TEST(HloOptMemoryPrinters, Text) {
  auto m = Parse(kModule);
  ASSERT_NE(m, nullptr);
  const std::string text = MemoryReportText(Profile(*m));
  EXPECT_NE(text.find("module straight: peak 9216 bytes (9.0 KiB) at c (jit(f)/s<1>/c)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("schedule: text order (is_scheduled), 4 entry instructions"),
            std::string::npos);
  EXPECT_NE(text.find("4096 buffer     b f32[4,256]"), std::string::npos) << text;
}

TEST(HloOptMemoryPrinters, Json) {
  auto m = Parse(kModule);
  ASSERT_NE(m, nullptr);
  absl::StatusOr<std::string> json = MemoryReportJson(Profile(*m));
  ASSERT_TRUE(json.ok());
  EXPECT_NE(json->find("\"peak_bytes\": \"9216\""), std::string::npos) << *json;
  EXPECT_NE(json->find("\"peak_instruction\": \"c\""), std::string::npos);
  EXPECT_NE(json->find("\"activation_bytes_per_microbatch\": \"0\""), std::string::npos);
  EXPECT_NE(json->find("\"peak_activation_bytes\""), std::string::npos);
  EXPECT_NE(json->find("\"stage\": \"0\""), std::string::npos);
  EXPECT_NE(json->find("\"dynamic_sizes\": \"bound\""), std::string::npos);
}

TEST(HloOptMemoryPrinters, Csv) {
  auto m = Parse(kModule);
  ASSERT_NE(m, nullptr);
  MemoryOptions o;
  o.stage_by = MemoryOptions::StageBy::kOpNameRegex;
  o.stage_regex = "/s<(\\d)>/";
  EXPECT_EQ(MemoryReportCsv(Profile(*m, o)),
            "module,step,instruction,stage,live_bytes\n"
            "straight,0,p,,1024\n"
            "straight,1,b,1,5120\n"
            "straight,2,c,1,9216\n"
            "straight,3,d,,6144\n");
}

TEST(HloOptMemoryPrinters, BeforeAndAfter) {
  auto a = Parse(kModule);
  auto b = Parse(kSmaller);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  MemoryReport before = Profile(*a), after = Profile(*b);
  const std::string text = MemoryReportText(before, &after, "dce");
  // The option as the API names it, or as the caller spells it (a tool: its flag; issue 31).
  EXPECT_NE(text.find("memory before and after passes=dce\n"), std::string::npos) << text;
  const OptionSpelling as_flags = [](std::string_view option) {
    return "--" + std::string(option);
  };
  EXPECT_NE(MemoryReportText(before, &after, "dce", false, nullptr, as_flags)
                .find("memory before and after --passes=dce\n"),
            std::string::npos);
  EXPECT_NE(MemoryReportHtml(before, &after, "dce", nullptr, nullptr, std::nullopt, {}, as_flags)
                .find("; after --passes=dce: "),
            std::string::npos);
  // 9216 -> 6144: 3072 bytes, a third.
  const size_t line = text.find("\npeak bytes ");
  ASSERT_NE(line, std::string::npos) << text;
  const std::string peak_line = text.substr(line + 1, text.find('\n', line + 1) - line - 1);
  for (const char* token : {" 9216 ", " 6144 ", " 3072 ", " 33.33%"}) {
    EXPECT_NE(peak_line.find(token), std::string::npos) << token << " in: " << peak_line;
  }
  absl::StatusOr<std::string> json = MemoryReportJson(before, &after, "dce");
  ASSERT_TRUE(json.ok());
  EXPECT_NE(json->find("\"saving_bytes\": \"3072\""), std::string::npos) << *json;
  EXPECT_NE(json->find("\"passes\": \"dce\""), std::string::npos);
  EXPECT_NE(json->find("\"before\""), std::string::npos);
  const std::string csv = MemoryReportCsv(before, &after);
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "phase,module,step,instruction,stage,live_bytes");
  EXPECT_NE(csv.find("after,straight,2,d,,6144\n"), std::string::npos) << csv;
  const std::string html = MemoryReportHtml(before, &after, "dce");
  EXPECT_NE(html.find("saving 3072 bytes (33.33%)"), std::string::npos);
  EXPECT_NE(html.find("after: all buffers"), std::string::npos);
}

// The page stands alone: inline SVG and one inline script (the buffer table's sorting and
// tooltips), no script files, links or external resources; names are escaped.
TEST(HloOptMemoryPrinters, HtmlIsSelfContained) {
  auto m = Parse(kModule);
  ASSERT_NE(m, nullptr);
  MemoryOptions o;
  o.stage_by = MemoryOptions::StageBy::kOpNameRegex;
  o.stage_regex = "/s<(\\d)>/";
  const std::string html = MemoryReportHtml(Profile(*m, o));
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("<polyline class=\"series\""), std::string::npos);
  EXPECT_NE(html.find("stage 1"), std::string::npos);
  const size_t script = html.find("<script");
  ASSERT_NE(script, std::string::npos);
  EXPECT_EQ(html.compare(script, 9, "<script>\n"), 0) << "an inline script, no attributes";
  EXPECT_EQ(html.find("<script", script + 1), std::string::npos) << "one script";
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("url("), std::string::npos);
  EXPECT_NE(html.find("jit(f)/s&lt;1&gt;/c"), std::string::npos);
  EXPECT_EQ(html.find("s<1>"), std::string::npos);
}

TEST(HloOptMemoryPrinters, HumanBytes) {
  EXPECT_EQ(HumanBytes(1023), "1023 B");
  EXPECT_EQ(HumanBytes(1536), "1.5 KiB");
  EXPECT_EQ(HumanBytes(3 * 1024 * 1024), "3.0 MiB");
  EXPECT_EQ(HumanBytes(-2048), "-2.0 KiB");  // savings can be negative
}

// ProfileBeforeAfter profiles both sets and PrintMemoryComparison prints what the printers
// print for them; a bad schedule is the schedule's error.
TEST(MemoryComparison, ProfilesBothAndPrintsAsThePrinters) {
  auto a = Parse(kModule);
  auto b = Parse(kSmaller);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  MemoryOptions o;
  o.model = MemoryOptions::Model::kLiveness;
  const std::vector<const Module*> before = {a.get()}, after = {b.get()};
  absl::StatusOr<MemoryComparison> c = ProfileBeforeAfter(before, &after, "dce", o);
  ASSERT_TRUE(c.ok()) << StatusText(c.status());
  ASSERT_NE(c->after_or_null(), nullptr);
  EXPECT_EQ(c->before.peak_bytes, 9216);
  EXPECT_EQ(c->after->peak_bytes, 6144);
  EXPECT_FALSE(c->saturated());
  EXPECT_FALSE(c->pipeline.has_value());
  const MemoryReport before_report = Profile(*a), after_report = Profile(*b);
  absl::StatusOr<std::string> text = PrintMemoryComparison(*c, {.format = MemoryFormat::kText});
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, MemoryReportText(before_report, &after_report, "dce"));
  absl::StatusOr<std::string> json = PrintMemoryComparison(*c, {.format = MemoryFormat::kJson});
  ASSERT_TRUE(json.ok());
  EXPECT_EQ(*json, *MemoryReportJson(before_report, &after_report, "dce"));
  absl::StatusOr<std::string> csv = PrintMemoryComparison(*c, {.format = MemoryFormat::kCsv});
  ASSERT_TRUE(csv.ok());
  EXPECT_EQ(*csv, MemoryReportCsv(before_report, &after_report));
  absl::StatusOr<std::string> html = PrintMemoryComparison(*c, {.format = MemoryFormat::kHtml});
  ASSERT_TRUE(html.ok());
  EXPECT_EQ(*html, MemoryReportHtml(before_report, &after_report, "dce"));

  // Without `after`, no comparison; a schedule the report's one stage cannot fill fails.
  absl::StatusOr<MemoryComparison> alone = ProfileBeforeAfter(before, nullptr, "", o);
  ASSERT_TRUE(alone.ok());
  EXPECT_EQ(alone->after_or_null(), nullptr);
  absl::StatusOr<MemoryComparison> bad = ProfileBeforeAfter(before, nullptr, "", o, "zb-v", 4);
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(StatusText(bad.status()).find("zb-v"), std::string::npos) << StatusText(bad.status());
}

// Every field of `message` (recursively) is set: a populated report that leaves one at its
// default means the struct-to-proto mapping forgot it. `path` names the field in failures;
// `skip` lists fields (by path) that may be left unset.
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

LiveBuffer AnyBuffer(std::string name) {
  return {.bytes = 64,
          .instruction = name,
          .op_name = "jit(f)/" + name,
          .shape = "f32[16]",
          .stage = "1",
          .kind = LiveBufferKind::kStash,
          .category = "stashed activations",
          .opcode = "fusion",
          .source = "model.py:7",
          .start = 2,
          .end = 5};
}

// A report with every field the schema has away from its default, as no one module gives.
MemoryReport EveryFieldReport(int64_t peak) {
  MemoryReport r;
  r.peak_bytes = peak;
  r.peak_instruction = "c";
  r.peak_op_name = "jit(f)/c";
  r.peak_module = "m";
  r.top_buffers = {AnyBuffer("b")};
  ModuleMemory m;
  m.module = "m";
  m.scheduled = true;
  m.peak_bytes = peak;
  m.peak_instruction = "c";
  m.peak_op_name = "jit(f)/c";
  m.top_buffers = {AnyBuffer("b")};
  m.peak_groups = {{.category = "stashed activations",
                    .scope = "jit(f)",
                    .opcode = "fusion",
                    .shape = "f32[16]",
                    .bytes = 64,
                    .buffers = 1,
                    .largest = {AnyBuffer("b")}}};
  m.instructions = 4;
  m.saturated = true;
  m.model = "xla";
  m.schedule = "topological";
  m.heap_bytes = peak + 8;
  m.peak_layout = {{.offset = 8, .bytes = 64, .name = "b"}};
  m.allocations = {.parameter_bytes = 1,
                   .constant_bytes = 2,
                   .maybe_live_out_bytes = 3,
                   .temp_bytes = 4,
                   .total_bytes = 10};
  m.memory_spaces = {{.space = 1, .peak_bytes = 32, .peak_instruction = "c"}};
  m.device_peak_bytes = peak - 16;
  m.device_peak_instruction = "c";
  m.host_peak_bytes = 16;
  m.host_peak_instruction = "b";
  m.modeled_xla_peak_bytes = peak - 4;
  m.modeled_xla_peak_static_bytes = 8;
  // Set only when the figure is missing; here beside it, so that the field is exercised.
  m.modeled_xla_peak_unknown = "the model refused the module";
  m.callee_peaks = {{.computation = "body",
                     .caller = "w",
                     .peak_bytes = 48,
                     .peak_instruction = "d",
                     .top_buffers = {AnyBuffer("d")}}};
  r.modules = {m};
  r.stages = {{.stage = "1",
               .module = "m",
               .peak_bytes = peak,
               .peak_instruction = "c",
               .activation_bytes_per_microbatch = 64,
               .peak_activation_bytes = 128,
               .microbatch_slots = 2,
               .stash_buffers = 1,
               .activation_source = "stash",
               .module_index = 0,
               .timeline = {},
               .device_peak_bytes = peak - 16,
               .device_peak_instruction = "c",
               .host_peak_bytes = 16,
               .host_peak_instruction = "h"}};
  r.stage_names = {"1"};
  r.has_dynamic_dims = true;
  r.dim_value = 7;
  r.saturated = true;
  return r;
}

report::MemoryComparison ParseComparison(const std::string& json) {
  report::MemoryComparison out;
  EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(json, &out).ok()) << json;
  return out;
}

// XLA's assignment beside ours with every field away from its default.
std::vector<XlaAssignmentComparison> EveryFieldXlaComparison() {
  XlaAssignmentComparison c;
  c.module = "m";
  c.source = "m.hlo.pb";
  c.totals = {{.kind = "total", .ours = 10, .xla = 12}};
  c.allocations = {{.xla_index = 1,
                    .xla_kind = "preallocated-temp",
                    .xla_bytes = 12,
                    .xla_values = 2,
                    .ours_index = 3,
                    .ours_kind = "preallocated-temp",
                    .ours_bytes = 10,
                    .ours_values = 2,
                    .example_value = "b"}};
  c.differences = {{.kind = XlaValueDifferenceKind::kLivesLonger,
                    .value = "b",
                    .bytes = 64,
                    .xla = "allocation 1 (preallocated-temp) at 0, steps 1-2",
                    .ours = "preallocated-temp at 0, steps 1-3"}};
  c.differing_values = 1;
  c.differing_bytes = 64;
  c.has_heap_trace = true;
  c.xla_heap_bytes = 12;
  c.xla_heap_steps = 3;
  c.xla_peak_bytes = 20;
  c.xla_peak_unpadded_bytes = 18;
  // Never beside an unpadded figure in a real comparison; set here so that the field is held.
  c.xla_peak_unpadded_unknown = "logical buffer 3: no shape";
  c.modeled_xla_peak_bytes = 20;
  c.modeled_xla_peak_static_bytes = 12;
  c.xla_memory_spaces = {
      {.memory_space = 1, .total_bytes = 12, .indefinite_bytes = 4, .allocations = 2}};
  return {c};
}

TEST(MemoryReportJson, SetsEverySchemaField) {
  PipelineFigures figures{
      .schedule = "1f1b",
      .ranks = 1,
      .microbatches = 4,
      .stages = {{.stage = "1", .rank = 1, .activation_bytes_per_microbatch = 64}},
      .ranks_peak = {{.rank = 1, .peak_in_flight = 2, .peak_activation_bytes = 128}},
      .hlo_pipeline_command = "hlo-pipeline --schedule=1f1b"};
  const MemoryReport before = EveryFieldReport(1000);
  const std::vector<XlaAssignmentComparison> xla = EveryFieldXlaComparison();
  // The limit is held against the device's peak (the report's 16 host bytes aside): 984 is over
  // a limit of 900 by 84, and the after device peak of 734 fits with 166 to spare.
  const std::vector<std::string> warnings = {"m is not scheduled"};
  absl::StatusOr<std::string> json =
      MemoryReportJson(before, nullptr, "", &figures, &xla, 900, warnings);
  ASSERT_TRUE(json.ok());
  report::MemoryReport alone;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(*json, &alone).ok()) << *json;
  // A verdict row is a module's or a stage's, never both. The modeled XLA listing is added
  // after this printer (xla_model_json.h; its every-field test is
  // XlaModelJson.SetsEverySchemaField).
  ExpectEveryFieldSet(alone, "",
                      {"memory_limit.modules[0].stage", "memory_limit.stages[0].module",
                       "modules[0].xla_model_assignment"});
  EXPECT_EQ(alone.dynamic_sizes(), "dim_value=7");
  EXPECT_EQ(alone.memory_limit().bytes(), 900);
  EXPECT_EQ(alone.memory_limit().modules(0).verdict(), "over");
  EXPECT_EQ(alone.memory_limit().modules(0).margin_bytes(), 84);
  EXPECT_EQ(alone.memory_limit().modules(0).text(), "over by 84 bytes (84 B)");
  EXPECT_EQ(alone.warnings(0), "m is not scheduled");

  // The comparison: every field too, but `after` has no pipeline (the schedule runs on the
  // modules as given).
  const MemoryReport after = EveryFieldReport(750);
  json = MemoryReportJson(before, &after, "dce", &figures, &xla, 900, warnings);
  ASSERT_TRUE(json.ok());
  const report::MemoryComparison c = ParseComparison(*json);
  // XLA's assignment is of the modules as given, so it is beside `before` only; so are the
  // warnings (and at the top).
  ExpectEveryFieldSet(
      c, "",
      {"after.pipeline", "after.modules[0].xla_buffer_assignment", "after.warnings",
       "before.memory_limit.modules[0].stage", "before.memory_limit.stages[0].module",
       "after.memory_limit.modules[0].stage", "after.memory_limit.stages[0].module",
       "before.modules[0].xla_model_assignment", "after.modules[0].xla_model_assignment"});
  EXPECT_EQ(c.after().memory_limit().modules(0).verdict(), "fits");
  EXPECT_EQ(c.after().memory_limit().modules(0).margin_bytes(), 166);
  EXPECT_EQ(c.warnings(0), "m is not scheduled");
  EXPECT_EQ(c.saving_bytes(), 250);
  EXPECT_DOUBLE_EQ(c.saving_percent(), 25.0);
}

}  // namespace
}  // namespace hloscope
