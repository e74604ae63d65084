#include "tools/hlo_opt_memory.h"

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>

#include "pipeline/generators.h"
#include "fmt/format.h"
#include "google/protobuf/util/json_util.h"
#include "hlo/parser.h"
#include "hlo/verifier.h"
#include "memory_report.pb.h"
#include "passes/flatten_call_graph.h"
#include "passes/pass_pipeline.h"
#include "re2/re2.h"
#include "tools/error_line.h"
#include "tools/file_io.h"
#include "tools/report_util.h"

namespace hloscope {

const char kMemoryFlagsHelp[] =
    "  --memory-report[=FILE] Print the memory profile instead of the module (to FILE when\n"
    "                         given): peak bytes, the instruction at the peak, the buffers live\n"
    "                         there, and per pipeline stage the activation bytes per microbatch,\n"
    "                         the peak activation bytes and the peak bytes. With --passes: before\n"
    "                         and after the passes side by side, with the saving.\n"
    "  --format=text|json|csv|html\n"
    "                         The report's form. json follows analysis/memory/memory_report.proto\n"
    "                         (and analysis/dataflow_report.proto for the two printers above);\n"
    "                         csv is the live bytes after each entry instruction; html is a\n"
    "                         self-contained page plotting them (csv and html: memory only).\n"
    "  --stage-by=module|attr:NAME\n"
    "                         Stages: one per input module (several FILEs, or the parts of\n"
    "                         --split-input-file), or the frontend attribute NAME.\n"
    "  --stage-regex=RE       Stages from metadata op_name: RE (RE2) with one capture group.\n"
    "  --forward-regex=RE     op_name of the forward pass (default 'jvp\\(').\n"
    "  --backward-regex=RE    op_name of the backward pass (default 'transpose\\('); wins.\n"
    "  --dim-value=N          Size dynamic dimensions at N (capped by their bound) instead of\n"
    "                         at the bound.\n"
    "  --top=N                Buffers listed as live at the peak (default 10).\n"
    "  --count-tuple-tables   Count tuples' pointer tables (8 bytes per element) as memory.\n"
    "  --memory-model=liveness|xla\n"
    "                         xla (default): as XLA's heap simulator counts - constants are\n"
    "                         their own allocations, a result may take over an operand's\n"
    "                         buffer that dies there; liveness: every buffer from definition\n"
    "                         to last use. Both report the best-fit heap and its layout.\n"
    "  --schedule=text|dfs|list|post-order|min\n"
    "                         The order of modules that are not is_scheduled=true: text order\n"
    "                         made topological (default), or one of XLA's memory schedulers;\n"
    "                         min runs list, dfs and post-order and keeps the lowest peak.\n"
    "  --timeline=entry|whole-program\n"
    "                         csv/html points: one per entry instruction (default), or also\n"
    "                         per instruction of while/conditional/call callees, before\n"
    "                         their calling instruction (XLA's live-range order).\n"
    "  --buffer-assignment    With the memory report (implies --memory-report): the entry's\n"
    "                         memory in XLA's BufferAssignment stats categories.\n"
    "  --pipeline-schedule=NAME --microbatches=M\n"
    "                         With the memory report (text, json, html): run the report's stages\n"
    "                         under hlo-pipeline's schedule NAME (as its --schedule, e.g.\n"
    "                         1f1b, interleaved:2) with M microbatches, as many stages per rank\n"
    "                         as NAME places: per rank the microbatches in flight at its peak\n"
    "                         and their activation bytes.\n";

namespace {

bool ParseInt(std::string_view text, int64_t* out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size();
}

}  // namespace

MemoryFlagResult ParseMemoryFlag(std::string_view name, std::optional<std::string_view> value,
                                 MemoryFlags& flags, AnalysisFlags& analysis, std::string* error) {
  auto bad = [&](std::string message) {
    *error = std::move(message);
    return MemoryFlagResult::kBadValue;
  };
  auto needs_value = [&]() -> bool {
    if (value && !value->empty()) return true;
    *error = fmt::format("option '{}' needs a value", name);
    return false;
  };
  MemoryOptions& o = flags.options;
  if (name == "--memory-report") {
    flags.enabled = true;
    if (value) {
      if (value->empty()) return bad("option '--memory-report=' needs a file name");
      flags.output = std::string(*value);
    }
    return MemoryFlagResult::kTaken;
  }
  if (name == "--format") {
    if (value == "text" || value == "json") {
      flags.format = value == "text" ? MemoryFormat::kText : MemoryFormat::kJson;
      analysis.print.format = value == "text" ? ReportFormat::kText : ReportFormat::kJson;
      flags.format_is_memory_only = false;
    } else if (value == "csv" || value == "html") {
      flags.format = value == "csv" ? MemoryFormat::kCsv : MemoryFormat::kHtml;
      flags.format_is_memory_only = true;
    } else {
      return bad("option '--format' needs 'text', 'json', 'csv' or 'html'");
    }
    return MemoryFlagResult::kTaken;
  }
  if (name == "--stage-by") {
    if (!needs_value()) return MemoryFlagResult::kBadValue;
    if (value == "module") {
      o.stage_by = MemoryOptions::StageBy::kModule;
    } else if (value->starts_with("attr:") && value->size() > 5) {
      o.stage_by = MemoryOptions::StageBy::kFrontendAttribute;
      o.stage_attr = std::string(value->substr(5));
    } else {
      return bad(
          fmt::format("option '--stage-by' needs 'module' or 'attr:NAME', not '{}'", *value));
    }
    return MemoryFlagResult::kTaken;
  }
  // A pattern is checked here so that a bad one is a usage error (exit 2) like any other bad
  // flag value, before any input is read.
  auto bad_pattern = [&](int capture_groups) -> std::optional<std::string> {
    RE2 re(*value, RE2::Quiet);
    if (!re.ok()) {
      return fmt::format("{} '{}' is not a valid regular expression: {}", name, *value, re.error());
    }
    if (capture_groups >= 0 && re.NumberOfCapturingGroups() != capture_groups) {
      return fmt::format("{} '{}' needs exactly one capture group (it has {})", name, *value,
                         re.NumberOfCapturingGroups());
    }
    return std::nullopt;
  };
  if (name == "--stage-regex") {
    if (!needs_value()) return MemoryFlagResult::kBadValue;
    if (std::optional<std::string> e = bad_pattern(1)) return bad(*e);
    o.stage_by = MemoryOptions::StageBy::kOpNameRegex;
    o.stage_regex = std::string(*value);
    return MemoryFlagResult::kTaken;
  }
  if (name == "--forward-regex" || name == "--backward-regex") {
    if (!needs_value()) return MemoryFlagResult::kBadValue;
    if (std::optional<std::string> e = bad_pattern(-1)) return bad(*e);
    (name == "--forward-regex" ? o.forward_regex : o.backward_regex) = std::string(*value);
    return MemoryFlagResult::kTaken;
  }
  if (name == "--dim-value" || name == "--top") {
    int64_t n = 0;
    if (!value || !ParseInt(*value, &n) || n < 0) {
      return bad(fmt::format("option '{}' needs a non-negative integer", name));
    }
    if (name == "--top") {
      o.top_buffers = static_cast<int>(std::min<int64_t>(n, 1 << 20));
    } else {
      o.dim_value = n;
    }
    return MemoryFlagResult::kTaken;
  }
  if (name == "--memory-model") {
    if (value == "xla") {
      o.model = MemoryOptions::Model::kXla;
    } else if (value == "liveness") {
      o.model = MemoryOptions::Model::kLiveness;
    } else {
      return bad("option '--memory-model' needs 'liveness' or 'xla'");
    }
    return MemoryFlagResult::kTaken;
  }
  if (name == "--schedule") {
    std::optional<ScheduleKind> kind =
        value ? ParseScheduleKind(*value) : std::optional<ScheduleKind>();
    if (!kind) return bad("option '--schedule' needs 'text', 'dfs', 'list', 'post-order' or 'min'");
    o.schedule = *kind;
    return MemoryFlagResult::kTaken;
  }
  if (name == "--timeline") {
    if (value == "entry" || value == "whole-program") {
      o.whole_program_timeline = value == "whole-program";
      return MemoryFlagResult::kTaken;
    }
    return bad("option '--timeline' needs 'entry' or 'whole-program'");
  }
  if (name == "--buffer-assignment") {
    if (value) return bad("option '--buffer-assignment' takes no value");
    flags.enabled = true;
    flags.buffer_assignment = true;
    return MemoryFlagResult::kTaken;
  }
  if (name == "--pipeline-schedule") {
    if (!needs_value()) return MemoryFlagResult::kBadValue;
    absl::StatusOr<pipeline::ScheduleSpec> spec = pipeline::ParseScheduleSpec(*value);
    if (!spec.ok()) {
      return bad(fmt::format(
          "option '--pipeline-schedule': {}",
          std::string_view(spec.status().message().data(), spec.status().message().size())));
    }
    flags.pipeline_schedule = std::string(*value);
    return MemoryFlagResult::kTaken;
  }
  if (name == "--microbatches") {
    int64_t n = 0;
    if (!value || !ParseInt(*value, &n) || n < 1 || n > (1 << 20)) {
      return bad("option '--microbatches' needs an integer from 1 to 1048576");
    }
    flags.microbatches = static_cast<int32_t>(n);
    return MemoryFlagResult::kTaken;
  }
  if (name == "--count-tuple-tables") {
    if (value) return bad("option '--count-tuple-tables' takes no value");
    o.count_tuple_tables = true;
    return MemoryFlagResult::kTaken;
  }
  return MemoryFlagResult::kNotMemoryFlag;
}

std::string CheckMemoryFlags(const MemoryFlags& flags, const AnalysisFlags& analysis, bool stats,
                             size_t input_files) {
  if (flags.enabled && (analysis.any() || stats)) {
    return "--memory-report cannot be combined with --print-dataflow, --print-buffers or --stats";
  }
  if (!flags.enabled && flags.format_is_memory_only) {
    return "--format=csv and --format=html need --memory-report";
  }
  if (flags.pipeline_schedule.empty() != (flags.microbatches == 0)) {
    return "--pipeline-schedule and --microbatches go together";
  }
  if (!flags.pipeline_schedule.empty() && (!flags.enabled || flags.format == MemoryFormat::kCsv)) {
    return "--pipeline-schedule needs --memory-report with --format=text, json or html";
  }
  if (input_files > 1 &&
      !(flags.enabled && flags.options.stage_by == MemoryOptions::StageBy::kModule)) {
    return "more than one input file: several files are read only with --memory-report "
           "--stage-by=module (one module per stage)";
  }
  return "";
}

namespace {

double Percent(int64_t saving, int64_t before) {
  return before == 0 ? 0.0 : 100.0 * static_cast<double>(saving) / static_cast<double>(before);
}

std::string DynamicSizes(const MemoryReport& r) {
  return r.dim_value ? fmt::format("dim_value={}", *r.dim_value) : "bound";
}

// Bytes as text; a saturated sum is no size, so it prints as what it is.
std::string BytesText(int64_t bytes) {
  if (bytes == std::numeric_limits<int64_t>::max()) return "overflow (past int64)";
  return fmt::format("{} bytes ({})", bytes, HumanBytes(bytes));
}

void AppendText(const MemoryReport& r, bool buffer_assignment, std::string& out) {
  for (const ModuleMemory& m : r.modules) {
    out += fmt::format("module {}: peak {} at {}{}\n", m.module, BytesText(m.peak_bytes),
                       m.peak_instruction,
                       m.peak_op_name.empty() ? "" : fmt::format(" ({})", m.peak_op_name));
    out += fmt::format("  schedule: {}, {} entry instructions\n", m.schedule, m.instructions);
    out += fmt::format("  heap ({} model, best fit): {} for {} live at the peak\n", m.model,
                       BytesText(m.heap_bytes), BytesText(m.peak_bytes));
    for (const MemorySpacePeak& sp : m.memory_spaces) {
      out += fmt::format("  memory space S({}): peak {} at {}\n", sp.space,
                         BytesText(sp.peak_bytes), sp.peak_instruction);
    }
    if (!m.top_buffers.empty()) out += "  live at the peak:\n";
    for (const LiveBuffer& b : m.top_buffers) {
      out += fmt::format("    {:>14} {:<10} {}{}{}{}\n", b.bytes, b.kind, b.instruction,
                         b.shape.empty() ? "" : " " + b.shape,
                         b.stage.empty() ? "" : " stage=" + b.stage,
                         b.op_name.empty() ? "" : " (" + b.op_name + ")");
    }
    if (!m.peak_layout.empty()) out += "  heap layout at the peak (offset, bytes, buffer):\n";
    for (const HeapSlot& h : m.peak_layout) {
      out += fmt::format("    {:>14} {:>14} {}\n", h.offset, h.bytes, h.name);
    }
    if (buffer_assignment) {
      // XLA's words, so the numbers can be held against an out-of-memory message.
      const AllocationSummary& a = m.allocations;
      out += "  BufferAssignment stats:\n";
      out += fmt::format("    {:>33}: {}\n", "parameter allocation", BytesText(a.parameter_bytes));
      out += fmt::format("    {:>33}: {}\n", "constant allocation", BytesText(a.constant_bytes));
      out += fmt::format("    {:>33}: {}\n", "maybe_live_out allocation",
                         BytesText(a.maybe_live_out_bytes));
      out +=
          fmt::format("    {:>33}: {}\n", "preallocated temp allocation", BytesText(a.temp_bytes));
      out += fmt::format("    {:>33}: {}\n", "total allocation", BytesText(a.total_bytes));
    }
  }
  if (r.modules.size() > 1) {
    out += fmt::format("peak: {} in {} at {}\n", BytesText(r.peak_bytes), r.peak_module,
                       r.peak_instruction);
  }
  if (r.saturated) {
    out += fmt::format("sizes past int64: numbers shown as {} are lower bounds\n",
                       std::numeric_limits<int64_t>::max());
  }
  if (r.has_dynamic_dims) {
    out += fmt::format("dynamic dimensions sized at: {}\n", DynamicSizes(r));
  }
  if (!r.stages.empty()) {
    out += fmt::format("{:<10} {:>14} {:>16} {:>16} {:>6} {:>7}  {}\n", "stage", "peak_bytes",
                       "act_bytes/mb", "peak_act_bytes", "slots", "source", "peak at");
    for (const StageMemory& s : r.stages) {
      out += fmt::format("{:<10} {:>14} {:>16} {:>16} {:>6} {:>7}  {}\n", s.stage, s.peak_bytes,
                         s.activation_bytes_per_microbatch, s.peak_activation_bytes,
                         s.microbatch_slots, s.activation_source, s.peak_instruction);
    }
  }
}

void FillPipeline(const PipelineFigures& f, report::PipelineFigures* p) {
  p->set_schedule(f.schedule);
  p->set_ranks(f.ranks);
  p->set_microbatches(f.microbatches);
  for (const StagePipelineRow& s : f.stages) {
    report::PipelineStage* o = p->add_stages();
    o->set_stage(s.stage);
    o->set_rank(s.rank);
    o->set_activation_bytes_per_microbatch(s.activation_bytes_per_microbatch);
  }
  for (const RankPipelineRow& r : f.ranks_peak) {
    report::PipelineRank* o = p->add_ranks_peak();
    o->set_rank(r.rank);
    o->set_peak_in_flight(r.peak_in_flight);
    o->set_peak_activation_bytes(r.peak_activation_bytes);
  }
  p->set_hlo_pipeline_command(f.hlo_pipeline_command);
}

void FillReport(const MemoryReport& r, report::MemoryReport* p) {
  auto fill_buffer = [](const LiveBuffer& b, report::MemoryLiveBuffer* o) {
    o->set_bytes(b.bytes);
    o->set_instruction(b.instruction);
    o->set_op_name(b.op_name);
    o->set_shape(b.shape);
    o->set_stage(b.stage);
    o->set_kind(b.kind);
    o->set_category(b.category);
  };
  p->set_peak_bytes(r.peak_bytes);
  p->set_peak_instruction(r.peak_instruction);
  p->set_peak_op_name(r.peak_op_name);
  p->set_peak_module(r.peak_module);
  for (const LiveBuffer& b : r.top_buffers) fill_buffer(b, p->add_top_buffers());
  for (const StageMemory& s : r.stages) {
    report::StageMemory* o = p->add_stages();
    o->set_stage(s.stage);
    o->set_module(s.module);
    o->set_peak_bytes(s.peak_bytes);
    o->set_peak_instruction(s.peak_instruction);
    o->set_activation_bytes_per_microbatch(s.activation_bytes_per_microbatch);
    o->set_peak_activation_bytes(s.peak_activation_bytes);
    o->set_microbatch_slots(s.microbatch_slots);
    o->set_stash_buffers(s.stash_buffers);
    o->set_activation_source(s.activation_source);
  }
  for (const ModuleMemory& m : r.modules) {
    report::ModuleMemory* o = p->add_modules();
    o->set_module(m.module);
    o->set_scheduled(m.scheduled);
    o->set_peak_bytes(m.peak_bytes);
    o->set_peak_instruction(m.peak_instruction);
    o->set_peak_op_name(m.peak_op_name);
    o->set_instructions(m.instructions);
    o->set_saturated(m.saturated);
    o->set_memory_model(m.model);
    o->set_schedule(m.schedule);
    for (const MemorySpacePeak& sp : m.memory_spaces) {
      report::MemorySpacePeak* q = o->add_memory_spaces();
      q->set_space(sp.space);
      q->set_peak_bytes(sp.peak_bytes);
      q->set_peak_instruction(sp.peak_instruction);
    }
    o->set_heap_bytes(m.heap_bytes);
    for (const HeapSlot& h : m.peak_layout) {
      report::HeapSlot* slot = o->add_peak_layout();
      slot->set_offset(h.offset);
      slot->set_bytes(h.bytes);
      slot->set_name(h.name);
    }
    report::AllocationSummary* a = o->mutable_allocations();
    a->set_parameter_bytes(m.allocations.parameter_bytes);
    a->set_constant_bytes(m.allocations.constant_bytes);
    a->set_maybe_live_out_bytes(m.allocations.maybe_live_out_bytes);
    a->set_preallocated_temp_bytes(m.allocations.temp_bytes);
    a->set_total_bytes(m.allocations.total_bytes);
    for (const LiveBuffer& b : m.top_buffers) fill_buffer(b, o->add_top_buffers());
    for (const PeakGroup& g : m.peak_groups) {
      report::PeakGroup* q = o->add_peak_groups();
      q->set_category(g.category);
      q->set_scope(g.scope);
      q->set_bytes(g.bytes);
      q->set_buffers(g.buffers);
      for (const LiveBuffer& b : g.largest) fill_buffer(b, q->add_largest());
    }
  }
  p->set_has_dynamic_dims(r.has_dynamic_dims);
  p->set_dynamic_sizes(DynamicSizes(r));
  p->set_saturated(r.saturated);
}

// The stage saving rows: stages matched by name (modules by position).
template <typename Fn>
void ForEachStagePair(const MemoryReport& before, const MemoryReport& after, Fn fn) {
  for (const StageMemory& b : before.stages) {
    for (const StageMemory& a : after.stages) {
      if (a.stage == b.stage && a.module_index == b.module_index) {
        fn(b, a);
        break;
      }
    }
  }
}

}  // namespace

std::string MemoryReportText(const MemoryReport& report, const MemoryReport* after,
                             std::string_view passes, bool buffer_assignment) {
  std::string out;
  if (after == nullptr) {
    AppendText(report, buffer_assignment, out);
    return out;
  }
  const int64_t saving = report.peak_bytes - after->peak_bytes;
  out += fmt::format("memory before and after --passes={}\n", passes);
  out += fmt::format("{:<28} {:>14} {:>14} {:>14} {:>8}\n", "", "before", "after", "saving", "%");
  out += fmt::format("{:<28} {:>14} {:>14} {:>14} {:>7.2f}%\n", "peak bytes", report.peak_bytes,
                     after->peak_bytes, saving, Percent(saving, report.peak_bytes));
  out += fmt::format("{:<28} {:>14} {:>14}\n", "peak at", report.peak_instruction,
                     after->peak_instruction);
  ForEachStagePair(report, *after, [&](const StageMemory& b, const StageMemory& a) {
    const int64_t s = b.peak_bytes - a.peak_bytes;
    out += fmt::format("{:<28} {:>14} {:>14} {:>14} {:>7.2f}%\n",
                       fmt::format("stage {} peak bytes", b.stage), b.peak_bytes, a.peak_bytes, s,
                       Percent(s, b.peak_bytes));
    out += fmt::format("{:<28} {:>14} {:>14}\n", fmt::format("stage {} act bytes/mb", b.stage),
                       b.activation_bytes_per_microbatch, a.activation_bytes_per_microbatch);
  });
  out += "\n--- before\n";
  AppendText(report, buffer_assignment, out);
  out += "\n--- after\n";
  AppendText(*after, buffer_assignment, out);
  return out;
}

absl::StatusOr<std::string> MemoryReportJson(const MemoryReport& report, const MemoryReport* after,
                                             std::string_view passes,
                                             const PipelineFigures* pipeline) {
  report::MemoryReport before_proto;
  FillReport(report, &before_proto);
  if (pipeline != nullptr) FillPipeline(*pipeline, before_proto.mutable_pipeline());
  if (after == nullptr) return ProtoToJson(before_proto);
  {
    report::MemoryComparison c;
    c.set_passes(std::string(passes));
    *c.mutable_before() = before_proto;
    FillReport(*after, c.mutable_after());
    c.set_saving_bytes(report.peak_bytes - after->peak_bytes);
    c.set_saving_percent(Percent(report.peak_bytes - after->peak_bytes, report.peak_bytes));
    ForEachStagePair(report, *after, [&](const StageMemory& b, const StageMemory& a) {
      report::StageSaving* s = c.add_stages();
      s->set_stage(b.stage);
      s->set_before_peak_bytes(b.peak_bytes);
      s->set_after_peak_bytes(a.peak_bytes);
      s->set_saving_bytes(b.peak_bytes - a.peak_bytes);
      s->set_saving_percent(Percent(b.peak_bytes - a.peak_bytes, b.peak_bytes));
    });
    return ProtoToJson(c);
  }
}

namespace {

// A CSV field (RFC 4180): quoted, with quotes doubled, when it holds a comma, a quote or a line
// break. Module, instruction and stage names may hold any of them.
std::string CsvField(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

}  // namespace

std::string MemoryReportCsv(const MemoryReport& report, const MemoryReport* after) {
  std::string out = after == nullptr ? "module,step,instruction,stage,live_bytes\n"
                                     : "phase,module,step,instruction,stage,live_bytes\n";
  auto rows = [&](const MemoryReport& r, std::string_view phase) {
    for (const ModuleMemory& m : r.modules) {
      for (size_t t = 0; t < m.timeline.size(); ++t) {
        const TimelinePoint& p = m.timeline[t];
        std::string_view stage = p.stage >= 0 && static_cast<size_t>(p.stage) < r.stage_names.size()
                                     ? std::string_view(r.stage_names[p.stage])
                                     : std::string_view();
        if (!phase.empty()) fmt::format_to(std::back_inserter(out), "{},", phase);
        fmt::format_to(std::back_inserter(out), "{},{},{},{},{}\n", CsvField(m.module), t,
                       CsvField(p.instruction->name()), CsvField(stage), p.live_bytes);
      }
    }
  };
  rows(report, after == nullptr ? "" : "before");
  if (after != nullptr) rows(*after, "after");
  return out;
}

namespace {

struct ParsedModules {
  std::vector<std::unique_ptr<Module>> modules;
  bool all_ok = true;
};

// Every module of every input (every part with split_input_file), parsed, verified and
// flattened; errors are printed and the module left out.
ParsedModules ParseAll(const std::vector<MemoryInput>& inputs, bool split_input_file) {
  ParsedModules out;
  for (const MemoryInput& input : inputs) {
    std::vector<InputChunk> chunks;
    if (split_input_file) {
      for (const InputChunk& c : SplitInputFile(input.text)) {
        if (c.text.find_first_not_of(" \t\r\n") != std::string_view::npos) chunks.push_back(c);
      }
    } else {
      chunks.push_back({input.text, 1});
    }
    for (const InputChunk& c : chunks) {
      absl::StatusOr<std::unique_ptr<Module>> m =
          ParseModule(c.text, {.filename = input.filename, .first_line = c.first_line});
      VerifierOptions verifier_options;
      verifier_options.source_text = c.text;  // errors then point into the file
      absl::Status s = m.ok() ? VerifyModule(**m, verifier_options) : m.status();
      // The analyses need one call site per control-flow callee; cloning shared callees
      // changes no buffer's size or lifetime.
      if (s.ok()) s = FlattenCallGraph().Run(**m).status();
      if (!s.ok()) {
        fmt::print(stderr, "{}",
                   ErrorLine("hlo-opt", std::string_view(s.message().data(), s.message().size())));
        out.all_ok = false;
        continue;
      }
      out.modules.push_back(*std::move(m));
    }
  }
  return out;
}

std::vector<const Module*> Pointers(const std::vector<std::unique_ptr<Module>>& modules) {
  std::vector<const Module*> out;
  for (const auto& m : modules) out.push_back(m.get());
  return out;
}

void PrintStatus(const absl::Status& s) {
  fmt::print(stderr, "{}",
             ErrorLine("hlo-opt", std::string_view(s.message().data(), s.message().size())));
}

}  // namespace

int RunMemoryReport(const std::vector<MemoryInput>& inputs, bool split_input_file,
                    PassPipeline* pipeline, std::string_view passes, const MemoryFlags& flags,
                    const std::function<void(const Module&)>& after_passes) {
  ParsedModules before = ParseAll(inputs, split_input_file);
  if (!before.all_ok) return 1;
  // The passes change modules in place and the report points into them: a second copy.
  ParsedModules after;
  if (pipeline != nullptr) {
    after = ParseAll(inputs, split_input_file);
    for (const auto& m : after.modules) {
      absl::StatusOr<bool> changed = pipeline->Run(*m);
      if (!changed.ok()) {
        PrintStatus(changed.status());
        return 1;
      }
      if (after_passes) after_passes(*m);
    }
  }
  absl::StatusOr<MemoryReport> report = ProfileModules(Pointers(before.modules), flags.options);
  if (!report.ok()) {
    PrintStatus(report.status());
    return 1;
  }
  std::optional<MemoryReport> after_report;
  if (pipeline != nullptr) {
    absl::StatusOr<MemoryReport> r = ProfileModules(Pointers(after.modules), flags.options);
    if (!r.ok()) {
      PrintStatus(r.status());
      return 1;
    }
    after_report = *std::move(r);
  }
  const MemoryReport* a = after_report ? &*after_report : nullptr;
  // Per stage under a pipeline schedule: of the modules as given (before any passes).
  std::optional<PipelineFigures> figures;
  if (!flags.pipeline_schedule.empty()) {
    absl::StatusOr<PipelineFigures> f =
        SimulateStagePipeline(*report, flags.pipeline_schedule, flags.microbatches);
    if (!f.ok()) {
      PrintStatus(f.status());
      return 1;
    }
    figures = *std::move(f);
  }
  std::string text;
  switch (flags.format) {
    case MemoryFormat::kText:
      text = MemoryReportText(*report, a, passes, flags.buffer_assignment);
      if (figures) text += PipelineFiguresText(*figures);
      break;
    case MemoryFormat::kJson: {
      absl::StatusOr<std::string> json =
          MemoryReportJson(*report, a, passes, figures ? &*figures : nullptr);
      if (!json.ok()) {
        PrintStatus(json.status());
        return 1;
      }
      text = *std::move(json);
      break;
    }
    case MemoryFormat::kCsv:
      text = MemoryReportCsv(*report, a);
      break;
    case MemoryFormat::kHtml:
      text = MemoryReportHtml(*report, a, passes, figures ? &*figures : nullptr);
      break;
  }
  std::string error;
  if (!WriteOutput(flags.output, text, &error)) {
    fmt::print(stderr, "hlo-opt: error: {}\n", error);
    return 2;
  }
  // The report is written (it says which numbers saturated), but it is no success.
  if (report->saturated || (a != nullptr && a->saturated)) {
    fmt::print(stderr,
               "hlo-opt: error: memory sizes past int64 bytes; the saturated numbers are lower "
               "bounds\n");
    return 1;
  }
  return 0;
}

}  // namespace hloscope
