#include "tools/hlo_opt_memory.h"

#include <sys/stat.h>

#include <cstdio>
#include <memory>

#include "fmt/format.h"
#include "hlo/parser.h"
#include "hlo/str_util.h"
#include "hlo/verifier.h"
#include "passes/flatten_call_graph.h"
#include "passes/pass_pipeline.h"
#include "pipeline/generators.h"
#include "re2/re2.h"
#include "tools/error_line.h"
#include "tools/file_io.h"
#include "tools/parallel_modules.h"

namespace hloscope {

const char kMemoryFlagsHelp[] =
    "  --memory-report[=FILE] Print the memory profile instead of the module (to FILE when\n"
    "                         given): peak bytes, the instruction at the peak, the buffers live\n"
    "                         there, and per pipeline stage the activation bytes per microbatch,\n"
    "                         the peak activation bytes and the peak bytes. With --passes: before\n"
    "                         and after the passes side by side, with the saving. When sizes\n"
    "                         pass int64 bytes (exit 1), FILE is left as it was and the report,\n"
    "                         whose saturated numbers are lower bounds, goes to FILE.partial.\n"
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
    if (!value || !ParseInteger(*value, &n) || n < 0) {
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
    if (!value || !ParseInteger(*value, &n) || n < 1 || n > (1 << 20)) {
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

struct ParsedModules {
  std::vector<std::unique_ptr<Module>> modules;
  bool all_ok = true;
};

// Every module of every input (every part with split_input_file), parsed, verified and
// flattened; errors are printed and the module left out.
ParsedModules ParseAll(const std::vector<MemoryInput>& inputs, bool split_input_file) {
  ParsedModules out;
  std::vector<ModuleSource> sources;
  for (const MemoryInput& input : inputs) {
    std::vector<InputChunk> chunks;
    if (split_input_file) {
      for (const InputChunk& c : SplitInputFile(input.text)) {
        if (c.text.find_first_not_of(" \t\r\n") != std::string_view::npos) chunks.push_back(c);
      }
    } else {
      chunks.push_back({input.text, 1});
    }
    for (const InputChunk& c : chunks) sources.push_back({c.text, c.first_line, input.filename});
  }
  // Every file and part at once, --jobs at a time (tools/parallel_modules.h); errors in order.
  ParseModulesInOrder(
      sources, ProcessJobs(),
      // The analyses need one call site per control-flow callee; cloning shared callees
      // changes no buffer's size or lifetime.
      [](Module& m) { return FlattenCallGraph().Run(m).status(); },
      [&](size_t, absl::StatusOr<std::unique_ptr<Module>> m) {
        if (!m.ok()) {
          const absl::Status& s = m.status();
          fmt::print(
              stderr, "{}",
              ErrorLine("hlo-opt", std::string_view(s.message().data(), s.message().size())));
          out.all_ok = false;
          return;
        }
        out.modules.push_back(*std::move(m));
      });
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

std::string PartialMemoryReportPath(const std::string& output) { return output + ".partial"; }

namespace {

// A device, FIFO or terminal (/dev/stdout) is a stream, not a file to keep: a report whose
// sizes saturated is written to it as to standard output.
bool IsStream(const std::string& path) {
  struct stat info;
  return path == "-" || (::stat(path.c_str(), &info) == 0 && !S_ISREG(info.st_mode));
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
  const std::vector<const Module*> after_modules = Pointers(after.modules);
  absl::StatusOr<MemoryComparison> comparison =
      ProfileBeforeAfter(Pointers(before.modules), pipeline != nullptr ? &after_modules : nullptr,
                         passes, flags.options, flags.pipeline_schedule, flags.microbatches);
  if (!comparison.ok()) {
    PrintStatus(comparison.status());
    return 1;
  }
  absl::StatusOr<std::string> text = PrintMemoryComparison(
      *comparison, {.format = flags.format, .buffer_assignment = flags.buffer_assignment});
  if (!text.ok()) {
    PrintStatus(text.status());
    return 1;
  }
  // The report says which numbers saturated, so it is written, but it is no success: a file
  // goes to a name that says so (PartialMemoryReportPath) and FILE stays as it was.
  const bool saturated = comparison->saturated();
  const std::string path =
      saturated && !IsStream(flags.output) ? PartialMemoryReportPath(flags.output) : flags.output;
  std::string error;
  if (!WriteOutput(path, *text, &error)) {
    fmt::print(stderr, "{}", ErrorLine("hlo-opt", error));
    return 2;
  }
  if (saturated) {
    std::string message = "memory sizes past int64 bytes; the saturated numbers are lower bounds";
    if (path != flags.output) message += fmt::format(" (report written to '{}')", path);
    fmt::print(stderr, "{}", ErrorLine("hlo-opt", message));
    return 1;
  }
  return 0;
}

}  // namespace hloscope
