#include "tools/hlo-opt/hlo_opt_memory.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <utility>

#include "analysis/memory/memory_comparison.h"
#include "analysis/memory/memory_context.h"
#include "analysis/memory/memory_limit.h"
#include "analysis/memory/xla_assignment_model.h"
#include "analysis/memory/xla_buffer_assignment.h"
#include "fmt/format.h"
#include "hlo/parser.h"
#include "hlo/verifier.h"
#include "passes/flatten_call_graph.h"
#include "passes/pass_pipeline.h"
#include "pipeline/generators.h"
#include "re2/re2.h"
#include "support/status_text.h"
#include "support/str_util.h"
#include "tools/common/error_line.h"
#include "tools/common/file_io.h"
#include "tools/common/parallel_modules.h"
#include "tools/hlo-opt/hlo_opt_memory_opportunities.h"
#include "tools/hlo-opt/hlo_opt_option_flags.h"

namespace hloscope {

namespace {

// The error for a value flag given nothing (or an empty value).
absl::Status NeedsValue(std::string_view name) {
  return FlagError(fmt::format("option '{}' needs a value", name));
}

// A pattern is checked when parsed so that a bad one is a usage error (exit 2) like any other
// bad flag value, before any input is read. `capture_groups` < 0: any number.
absl::Status CheckPattern(std::string_view name, std::string_view pattern, int capture_groups) {
  RE2 re(pattern, RE2::Quiet);
  if (!re.ok()) {
    return FlagError(
        fmt::format("{} '{}' is not a valid regular expression: {}", name, pattern, re.error()));
  }
  if (capture_groups >= 0 && re.NumberOfCapturingGroups() != capture_groups) {
    return FlagError(fmt::format("{} '{}' needs exactly one capture group (it has {})", name,
                                 pattern, re.NumberOfCapturingGroups()));
  }
  return absl::OkStatus();
}

// --dim-value and --top: a non-negative integer.
absl::Status NonNegative(std::string_view name, std::optional<std::string_view> value,
                         int64_t* out) {
  if (!value || !ParseInteger(*value, out) || *out < 0) {
    return FlagError(fmt::format("option '{}' needs a non-negative integer", name));
  }
  return absl::OkStatus();
}

// --memory-report and the form of the report.
void AddReportFlags(FlagTable& table, MemoryFlags& flags, AnalysisFlags& analysis) {
  table.Add({.names = {"--memory-report"},
             .value = FlagValue::kOptional,
             .placeholder = "FILE",
             .output_file = true,
             .help = "Print the memory profile instead of the module (to FILE when\n"
                     "given): peak bytes, the instruction at the peak, the buffers live\n"
                     "there, and per pipeline stage the activation bytes per microbatch,\n"
                     "the peak activation bytes and the peak bytes. With --passes: before\n"
                     "and after the passes side by side, with the saving. When sizes\n"
                     "pass int64 bytes (exit 1), FILE is left as it was and the report,\n"
                     "whose saturated numbers are lower bounds, goes to FILE.partial.",
             .handler = [&flags](std::optional<std::string_view> value) {
               flags.enabled = true;
               if (value) {
                 if (value->empty())
                   return FlagError("option '--memory-report=' needs a file name");
                 flags.output = std::string(*value);
               }
               return absl::OkStatus();
             }});
  table.Add({.names = {"--format"},
             .value = FlagValue::kRequired,
             .placeholder = "text|json|csv|html",
             .help = "The form of the memory report and of the two printers above\n"
                     "(default text). json follows analysis/memory/memory_report.proto\n"
                     "(and analysis/dataflow_report.proto for the two printers above);\n"
                     "csv is the live bytes after each entry instruction; html is a\n"
                     "self-contained page plotting them (csv and html: memory only).",
             .handler = [&flags, &analysis](std::optional<std::string_view> value) {
               if (value == "text" || value == "json") {
                 flags.format = value == "text" ? MemoryFormat::kText : MemoryFormat::kJson;
                 analysis.print.format =
                     value == "text" ? ReportFormat::kText : ReportFormat::kJson;
                 flags.format_is_memory_only = false;
               } else if (value == "csv" || value == "html") {
                 flags.format = value == "csv" ? MemoryFormat::kCsv : MemoryFormat::kHtml;
                 flags.format_is_memory_only = true;
               } else {
                 return FlagError("option '--format' needs 'text', 'json', 'csv' or 'html'");
               }
               return absl::OkStatus();
             }});
}

// How instructions are assigned to pipeline stages and to the forward and backward passes.
void AddStageFlags(FlagTable& table, MemoryFlags& flags) {
  MemoryOptions& o = flags.options;
  table.Add({.names = {"--stage-by"},
             .value = FlagValue::kRequired,
             .placeholder = "module|attr:NAME",
             .help = "Stages: one per input module (several FILEs, or the parts of\n"
                     "--split-input-file), or the frontend attribute NAME.",
             .handler = [&o](std::optional<std::string_view> value) {
               if (!value || value->empty()) return NeedsValue("--stage-by");
               if (value == "module") {
                 o.stage_by = MemoryOptions::StageBy::kModule;
               } else if (value->starts_with("attr:") && value->size() > 5) {
                 o.stage_by = MemoryOptions::StageBy::kFrontendAttribute;
                 o.stage_attr = std::string(value->substr(5));
               } else {
                 return FlagError(fmt::format(
                     "option '--stage-by' needs 'module' or 'attr:NAME', not '{}'", *value));
               }
               return absl::OkStatus();
             }});
  table.Add({.names = {"--stage-regex"},
             .value = FlagValue::kRequired,
             .placeholder = "RE",
             .help = "Stages from metadata op_name: RE (RE2) with one capture group.",
             .handler = [&o](std::optional<std::string_view> value) {
               if (!value || value->empty()) return NeedsValue("--stage-regex");
               if (absl::Status s = CheckPattern("--stage-regex", *value, 1); !s.ok()) return s;
               o.stage_by = MemoryOptions::StageBy::kOpNameRegex;
               o.stage_regex = std::string(*value);
               return absl::OkStatus();
             }});
  for (std::string_view name : {"--forward-regex", "--backward-regex"}) {
    const bool forward = name == "--forward-regex";
    table.Add({.names = {std::string(name)},
               .value = FlagValue::kRequired,
               .placeholder = "RE",
               .help = forward ? "op_name of the forward pass (default 'jvp\\(')."
                               : "op_name of the backward pass (default 'transpose\\('); wins.",
               .handler = [&o, name, forward](std::optional<std::string_view> value) {
                 if (!value || value->empty()) return NeedsValue(name);
                 if (absl::Status s = CheckPattern(name, *value, -1); !s.ok()) return s;
                 (forward ? o.forward_regex : o.backward_regex) = std::string(*value);
                 return absl::OkStatus();
               }});
  }
}

// What the report sizes and lists: dynamic dimensions, the top buffers, the device's limit,
// the opportunities, donated parameters.
void AddReportContentFlags(FlagTable& table, MemoryFlags& flags) {
  MemoryOptions& o = flags.options;
  table.Add({.names = {"--dim-value"},
             .value = FlagValue::kRequired,
             .placeholder = "N",
             .help = "Size dynamic dimensions at N (capped by their bound) instead of\n"
                     "at the bound.",
             .handler = [&o](std::optional<std::string_view> value) {
               int64_t n = 0;
               if (absl::Status s = NonNegative("--dim-value", value, &n); !s.ok()) return s;
               o.dim_value = n;
               return absl::OkStatus();
             }});
  table.Add({.names = {"--top"},
             .value = FlagValue::kRequired,
             .placeholder = "N",
             .help = "Buffers listed as live at the peak (default 10).",
             .handler = [&o](std::optional<std::string_view> value) {
               int64_t n = 0;
               if (absl::Status s = NonNegative("--top", value, &n); !s.ok()) return s;
               o.top_buffers = static_cast<int>(std::min<int64_t>(n, 1 << 20));
               return absl::OkStatus();
             }});
  table.Add({.names = {"--memory-limit"},
             .value = FlagValue::kRequired,
             .placeholder = "SIZE",
             .help = "With the memory report (text, json, html): the device's memory, e.g.\n"
                     "80GiB, 1.5GB or 4096 (bytes); per module and per stage the peak is\n"
                     "\"over by X\" or \"fits with X to spare\" (a module's or a stage's\n"
                     "device peak: host-offloaded buffers aside; json: memory_limit).",
             .handler = [&flags](std::optional<std::string_view> value) {
               if (!value || value->empty()) return NeedsValue("--memory-limit");
               absl::StatusOr<int64_t> size = ParseMemorySize(*value);
               if (!size.ok()) {
                 return FlagError(
                     fmt::format("option '--memory-limit': {}", StatusText(size.status())));
               }
               flags.memory_limit = *size;
               return absl::OkStatus();
             }});
  table.Add({.names = {"--opportunities"},
             .help = "With the memory report (text, no --passes; implies\n"
                     "--memory-report unless --report is given): end with what could lower\n"
                     "the peak - copies kept only because entry parameters are not donated\n"
                     "(and how to donate them), the bitcast-hidden stash copy, and the\n"
                     "largest temporaries with the op that made them. With --report: the\n"
                     "copy report lists the same copy opportunities (without the flag it\n"
                     "ends with a one-line hint when there are some; json: opportunities).",
             .handler = [&flags](std::optional<std::string_view>) {
               flags.opportunities = true;
               return absl::OkStatus();
             }});
  table.Add({.names = {"--assume-donated"},
             .value = FlagValue::kRequired,
             .placeholder = "all|LIST",
             .help = "With --passes or the memory report: take these entry parameters as\n"
                     "donated by the caller (JAX donate_argnums, PyTorch/XLA buffer\n"
                     "donation): all, or numbers such as 3,8 (3{0,1}: one element of a\n"
                     "tuple parameter). Each donated array takes the first output of its\n"
                     "shape that no input_output_alias names yet, as a may-alias entry;\n"
                     "the module printed after --passes carries them in its header. The\n"
                     "memory report compares the module as given (before) with the\n"
                     "donated one after any passes (after).",
             .handler = [&flags](std::optional<std::string_view> value) {
               if (!value || value->empty()) return NeedsValue("--assume-donated");
               absl::StatusOr<DonationAssumption> parsed = ParseDonationAssumption(*value);
               if (!parsed.ok()) {
                 return FlagError(fmt::format("option '--assume-donated': {}",
                                              std::string_view(parsed.status().message().data(),
                                                               parsed.status().message().size())));
               }
               flags.assume_donated = *std::move(parsed);
               flags.assume_donated_text = std::string(*value);
               return absl::OkStatus();
             }});
}

// The memory model: tuple tables, the liveness rule, the schedule, the timeline's points.
void AddModelFlags(FlagTable& table, MemoryFlags& flags) {
  MemoryOptions& o = flags.options;
  table.Add(SwitchFlag({"--count-tuple-tables"}, &o.count_tuple_tables,
                       "Count tuples' pointer tables (8 bytes per element) as memory."));
  table.Add({.names = {"--memory-model"},
             .value = FlagValue::kRequired,
             .placeholder = "liveness|xla",
             .help = "xla (default): as XLA's heap simulator counts - constants are\n"
                     "their own allocations, a result may take over an operand's\n"
                     "buffer that dies there; beside each module's timeline peak,\n"
                     "the peak as XLA counts it (its ComputePeakMemory on our model\n"
                     "of its buffer assignment; JSON modeled_xla_peak_bytes);\n"
                     "liveness: every buffer from definition to last use. Both\n"
                     "report the best-fit heap and its layout.",
             .handler = [&o](std::optional<std::string_view> value) {
               if (value == "xla") {
                 o.model = MemoryOptions::Model::kXla;
               } else if (value == "liveness") {
                 o.model = MemoryOptions::Model::kLiveness;
               } else {
                 return FlagError("option '--memory-model' needs 'liveness' or 'xla'");
               }
               return absl::OkStatus();
             }});
  table.Add({.names = {"--schedule"},
             .value = FlagValue::kRequired,
             .placeholder = "text|dfs|list|post-order|min",
             .help = "The order of modules that are not is_scheduled=true: text order\n"
                     "made topological (default), or one of XLA's memory schedulers;\n"
                     "min runs list, dfs and post-order and keeps the lowest peak.",
             .handler = [&o](std::optional<std::string_view> value) {
               std::optional<ScheduleKind> kind =
                   value ? ParseScheduleKind(*value) : std::optional<ScheduleKind>();
               if (!kind) {
                 return FlagError(
                     "option '--schedule' needs 'text', 'dfs', 'list', 'post-order' or 'min'");
               }
               o.schedule = *kind;
               return absl::OkStatus();
             }});
  table.Add({.names = {"--timeline"},
             .value = FlagValue::kRequired,
             .placeholder = "entry|whole-program",
             .help = "csv/html points: one per entry instruction (default), or also\n"
                     "per instruction of while/conditional/call callees, before\n"
                     "their calling instruction (XLA's live-range order).",
             .handler = [&o](std::optional<std::string_view> value) {
               if (value != "entry" && value != "whole-program") {
                 return FlagError("option '--timeline' needs 'entry' or 'whole-program'");
               }
               o.whole_program_timeline = value == "whole-program";
               return absl::OkStatus();
             }});
}

// Our model of XLA's buffer assignment.
void AddBufferAssignmentFlags(FlagTable& table, MemoryFlags& flags) {
  table.Add(SwitchFlag({"--xla-peak"}, &flags.options.modeled_xla_peak,
                       "With the memory report under --memory-model=xla: also the peak as\n"
                       "XLA counts it (its ComputePeakMemory on our model of its buffer\n"
                       "assignment), beside the timeline's. Automatic with --buffer-assignment\n"
                       "and beside XLA's own assignment; it lays the whole module out, several\n"
                       "times the profile's work on a large module."));
  table.Add({.names = {"--buffer-assignment"},
             .help = "With the memory report (implies --memory-report): the entry's\n"
                     "memory in XLA's BufferAssignment stats categories; in text, then\n"
                     "XLA's buffer assignment as modeled (xla_assignment_model.h), in the\n"
                     "layout of XLA's -buffer-assignment.txt dumps, each allocation's peak\n"
                     "buffers and XLA's stats with its fragmentation lines; in json, the\n"
                     "same in each module's xla_model_assignment.",
             .handler = [&flags](std::optional<std::string_view>) {
               flags.enabled = true;
               flags.buffer_assignment = true;
               return absl::OkStatus();
             }});
  table.Add({.names = {"--alignment"},
             .value = FlagValue::kRequired,
             .placeholder = "N",
             .help = "With --buffer-assignment: chunks of the modeled temp allocation\n"
                     "start at multiples of N bytes (default 1; XLA:GPU uses 256, older\n"
                     "versions 128). Beside XLA's assignment the default is the\n"
                     "alignment XLA's offsets show.",
             .handler = [&flags](std::optional<std::string_view> value) {
               int64_t n = 0;
               if (absl::Status s = NonNegative("--alignment", value, &n); !s.ok()) return s;
               if (n == 0) return FlagError("option '--alignment' needs a positive number");
               flags.alignment = n;
               flags.alignment_given = true;
               return absl::OkStatus();
             }});
  table.Add({.names = {"--multiheap-size-constraint-per-heap"},
             .value = FlagValue::kRequired,
             .placeholder = "N",
             .help = "With --buffer-assignment: the modeled assignment as XLA's\n"
                     "--xla_multiheap_size_constraint_per_heap=N makes it: temporaries\n"
                     "in heaps of at most N bytes each (a larger buffer alone in one), a\n"
                     "temp allocation per heap, combined while under N. -1 (the\n"
                     "default, as XLA's): one heap.",
             .handler = [&flags](std::optional<std::string_view> value) {
               if (value && *value == "-1") {
                 flags.multiheap_size_constraint_per_heap = -1;
                 return absl::OkStatus();
               }
               int64_t n = 0;
               if (!NonNegative("--multiheap-size-constraint-per-heap", value, &n).ok()) {
                 return FlagError(
                     "option '--multiheap-size-constraint-per-heap' needs -1 (no limit) or a "
                     "number of bytes");
               }
               flags.multiheap_size_constraint_per_heap = n;
               return absl::OkStatus();
             }});
}

// The report's stages run under one of hlo-pipeline's schedules.
void AddPipelineScheduleFlags(FlagTable& table, MemoryFlags& flags) {
  table.Add({.names = {"--pipeline-schedule"},
             .value = FlagValue::kRequired,
             .placeholder = "NAME",
             .help = "With the memory report (text, json, html): run the report's stages\n"
                     "under hlo-pipeline's schedule NAME (as its --schedule, e.g.\n"
                     "1f1b, interleaved:2) with M microbatches, as many stages per rank\n"
                     "as NAME places: per rank the microbatches in flight at its peak\n"
                     "and their activation bytes.",
             .handler =
                 [&flags](std::optional<std::string_view> value) {
                   if (!value || value->empty()) return NeedsValue("--pipeline-schedule");
                   absl::StatusOr<pipeline::ScheduleSpec> spec =
                       pipeline::ParseScheduleSpec(*value);
                   if (!spec.ok()) {
                     return FlagError(fmt::format("option '--pipeline-schedule': {}",
                                                  StatusText(spec.status())));
                   }
                   flags.pipeline_schedule = std::string(*value);
                   return absl::OkStatus();
                 },
             .label = "--pipeline-schedule=NAME --microbatches=M"});
  table.Add({.names = {"--microbatches"},
             .value = FlagValue::kRequired,
             .placeholder = "M",
             .handler = [&flags](std::optional<std::string_view> value) {
               int64_t n = 0;
               if (!value || !ParseInteger(*value, &n) || n < 1 || n > (1 << 20)) {
                 return FlagError("option '--microbatches' needs an integer from 1 to 1048576");
               }
               flags.microbatches = static_cast<int32_t>(n);
               return absl::OkStatus();
             }});
}

// XLA's own buffer assignment beside ours.
void AddXlaBufferAssignmentFlag(FlagTable& table, MemoryFlags& flags) {
  table.Add({.names = {"--xla-buffer-assignment"},
             .value = FlagValue::kRequired,
             .placeholder = "FILE",
             .help = "With the memory report (implies --memory-report; one module):\n"
                     "XLA's own buffer assignment of the same module beside ours, from\n"
                     "XLA's dump: its -buffer-assignment.txt or its .hlo.pb (an\n"
                     "HloProto). Ours is our model of XLA's assignment (the\n"
                     "--buffer-assignment listing) under --memory-model=xla, the profile's\n"
                     "allocations under liveness. Per kind the bytes, ours and XLA's, with\n"
                     "the difference; XLA's own peak from its heap-simulator traces (.hlo.pb:\n"
                     "padded and unpadded, as XLA computes it) and its bytes per memory\n"
                     "space; the allocations side by side; the values that differ\n"
                     "(missing, placed elsewhere, size, living longer or shorter),\n"
                     "largest first (--top); html draws XLA's heap beside ours. An\n"
                     "assignment of another module is refused (exit 1). A module read\n"
                     "from an .hlo.pb that carries XLA's assignment gets it without this.",
             .handler = [&flags](std::optional<std::string_view> value) {
               if (!value || value->empty()) {
                 return FlagError("option '--xla-buffer-assignment' needs a file name");
               }
               flags.enabled = true;
               flags.xla_buffer_assignment = std::string(*value);
               return absl::OkStatus();
             }});
}

}  // namespace

// Declaration order is --help's order.
void AddMemoryFlags(FlagTable& table, MemoryFlags& flags, AnalysisFlags& analysis) {
  AddReportFlags(table, flags, analysis);
  AddStageFlags(table, flags);
  AddReportContentFlags(table, flags);
  AddModelFlags(table, flags);
  AddBufferAssignmentFlags(table, flags);
  AddPipelineScheduleFlags(table, flags);
  AddXlaBufferAssignmentFlag(table, flags);
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
  if (flags.memory_limit && !flags.enabled) return "--memory-limit needs --memory-report";
  if (!flags.xla_buffer_assignment.empty() && input_files > 1) {
    return "--xla-buffer-assignment compares one module: give one input file";
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
// (unless `flatten` is false) flattened; errors are printed and the module left out.
ParsedModules ParseAll(const std::vector<MemoryInput>& inputs, bool split_input_file,
                       bool flatten = true) {
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
  // Every file and part at once, --jobs at a time (tools/common/parallel_modules.h); errors in
  // order.
  ParseModulesInOrder(
      sources, ProcessJobs(),
      // The analyses need one call site per control-flow callee; cloning shared callees
      // changes no buffer's size or lifetime.
      [flatten](Module& m) {
        return flatten ? FlattenCallGraph().Run(m).status() : absl::OkStatus();
      },
      [&](size_t, absl::StatusOr<std::unique_ptr<Module>> m) {
        if (!m.ok()) {
          const absl::Status& s = m.status();
          fmt::print(stderr, "{}", ErrorLine("hlo-opt", StatusText(s)));
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

// A library error that names an option names its flag here.
void PrintStatus(const absl::Status& s) {
  fmt::print(stderr, "{}", ErrorLine("hlo-opt", StatusText(WithHloOptFlag(s))));
}

}  // namespace

void PrintUnusedDonations(const DonationAssumption& assumption, const DonationResult& result) {
  // `all` donates every parameter, most of which no output could take: only a parameter the
  // user named is worth a warning (JAX warns about unusable donated buffers the same way).
  if (assumption.all) return;
  for (const std::string& unused : result.unused) {
    fmt::print(stderr,
               "hlo-opt: warning: --assume-donated: {} has no output of its shape left to "
               "take it; donating it frees nothing\n",
               unused);
  }
}

std::string PartialMemoryReportPath(const std::string& output) { return output + ".partial"; }

namespace {

// A device, FIFO or terminal (/dev/stdout) is a stream, not a file to keep: a report whose
// sizes saturated is written to it as to standard output.
bool IsStream(const std::string& path) {
  struct stat info;
  return path == "-" || (::stat(path.c_str(), &info) == 0 && !S_ISREG(info.st_mode));
}

}  // namespace

std::string ReportPathFor(const std::string& output, bool saturated) {
  return saturated && !IsStream(output) ? PartialMemoryReportPath(output) : output;
}

namespace {

using Modules = std::vector<std::unique_ptr<Module>>;

// The second copy of the modules: donated as --assume-donated says, then the passes. False when
// a step failed (its error printed).
bool DonateAndRunPasses(const std::vector<MemoryInput>& inputs, bool split_input_file,
                        const Modules& modules, PassPipeline* pipeline, const MemoryFlags& flags,
                        const AfterPasses& after_passes) {
  const bool donating = flags.assume_donated.has_value();
  for (size_t i = 0; i < modules.size(); ++i) {
    const std::unique_ptr<Module>& m = modules[i];
    if (donating) {
      absl::StatusOr<DonationResult> donated = AssumeDonated(*m, *flags.assume_donated);
      if (!donated.ok()) {
        PrintStatus(absl::InvalidArgumentError(fmt::format(
            "option '--assume-donated': {}", std::string_view(donated.status().message().data(),
                                                              donated.status().message().size()))));
        return false;
      }
      PrintUnusedDonations(*flags.assume_donated, *donated);
    }
    if (pipeline == nullptr) continue;
    absl::StatusOr<bool> changed = pipeline->Run(*m);
    if (!changed.ok()) {
      PrintStatus(changed.status());
      return false;
    }
    if (!after_passes) continue;
    // The module as given, parsed again on request (the copy report's opportunities compare
    // the passes' result with it).
    after_passes(*m, [&, i]() -> absl::StatusOr<std::unique_ptr<Module>> {
      ParsedModules again = ParseAll(inputs, split_input_file);
      if (i >= again.modules.size()) return absl::InternalError("the module parsed again");
      if (donating) {
        absl::Status s = AssumeDonated(*again.modules[i], *flags.assume_donated).status();
        if (!s.ok()) return s;
      }
      return std::move(again.modules[i]);
    });
  }
  return true;
}

// XLA's buffer assignment held against ours in `comparison`. A module that comes with XLA's
// assignment was assigned by XLA as it is: the model runs on it as given (`given`, parsed here
// when needed). Our flatten-call-graph would clone the reducer of each asynchronous collective
// (reduce-scatter-start's to_apply) per call site and so add thread-local allocations XLA never
// made. Sets the listing's alignment to the alignment XLA's offsets show unless --alignment
// was given, and its instruction ids to XLA's (the model's call-site order). False when the run
// must stop (exit 1; an error other than parsing is printed).
bool CompareWithXla(const std::vector<MemoryInput>& inputs, bool split_input_file,
                    const MemoryFlags& flags, const MemoryOptions& options,
                    const XlaAssignmentSource& xla, const Modules& before,
                    MemoryComparison& comparison, ParsedModules& given, XlaModelOptions& listing) {
  const bool with_model = options.model == MemoryOptions::Model::kXla;
  if (with_model || flags.buffer_assignment) {
    given = ParseAll(inputs, split_input_file, /*flatten=*/false);
    if (!given.all_ok || given.modules.size() != 1) return false;
  }
  // Under the xla model XLA's assignment is held against our model of it (AssignLikeXla);
  // under liveness against the profile's own simulated allocations.
  if (absl::Status s =
          AddXlaBufferAssignment(comparison, with_model ? *given.modules.front() : *before.front(),
                                 xla.contents, xla.filename, options.top_buffers, with_model,
                                 flags.alignment_given ? flags.alignment : 0);
      !s.ok()) {
    if (!xla.from_module_dump) {
      PrintStatus(s);
      return false;
    }
    fmt::print(stderr, "hlo-opt: warning: XLA's buffer assignment in the dump is not shown: {}\n",
               StatusText(s));
  }
  // The listing at the alignment XLA used and in XLA's call-site order, as the comparison
  // beside it.
  if (flags.buffer_assignment) {
    absl::StatusOr<XlaBufferAssignment> parsed =
        ParseXlaBufferAssignment(xla.contents, xla.filename);
    if (parsed.ok()) {
      if (!flags.alignment_given) listing.alignment = XlaAlignmentOf(*parsed);
      listing.instruction_ids = std::move(parsed->instruction_ids);
    }
  }
  return true;
}

// XLA's assignment as modeled for each module as given (with `listing`'s options) and after the
// passes (at --alignment), kept in `comparison`. False on an error (printed).
bool ModelXlaAssignments(const Modules& as_given, const Modules& after_passes,
                         const XlaModelOptions& listing, int64_t alignment,
                         MemoryComparison& comparison) {
  const XlaModelOptions after_options = {
      .alignment = alignment,
      .multiheap_size_constraint_per_heap = listing.multiheap_size_constraint_per_heap};
  for (const Modules* list : {&as_given, &after_passes}) {
    const XlaModelOptions& list_options = list == &as_given ? listing : after_options;
    const int64_t list_alignment = list_options.alignment;
    for (const auto& m : *list) {
      absl::StatusOr<XlaModelAssignment> xla = AssignLikeXla(*m, list_options);
      if (!xla.ok()) {
        PrintStatus(xla.status());
        return false;
      }
      (list == &after_passes ? comparison.xla_models_after : comparison.xla_models)
          .push_back({std::string(m->name()), *std::move(xla), list_alignment});
    }
  }
  return true;
}

// The text report's listings of XLA's assignment as modeled, in the layout of XLA's dumps.
void AppendModeledAssignments(const MemoryComparison& comparison, std::string& text) {
  for (const auto* list : {&comparison.xla_models, &comparison.xla_models_after}) {
    for (const XlaModelListing& l : *list) {
      text += fmt::format("\nXLA's buffer assignment of module {}{} (modeled):\n{}", l.module,
                          list == &comparison.xla_models_after ? " after the passes" : "",
                          XlaAssignmentToString(l.assignment));
      text += XlaPeakBuffersString(l.assignment) + XlaAssignmentStatsString(l.assignment.totals);
    }
  }
}

// What the user could change, from a fresh copy of the modules (copy-elision changes the
// module it runs on).
std::string OpportunitiesOf(const std::vector<MemoryInput>& inputs, bool split_input_file,
                            const MemoryComparison& comparison, const MemoryOptions& options) {
  ParsedModules scratch = ParseAll(inputs, split_input_file);
  std::string opportunities;
  for (size_t i = 0; i < scratch.modules.size() && i < comparison.before.modules.size(); ++i) {
    opportunities +=
        MemoryOpportunitiesText(*scratch.modules[i], comparison.before.modules[i], options);
  }
  return opportunities;
}

}  // namespace

int WriteMemoryReport(const std::string& output, bool saturated, const std::string& text) {
  const std::string path = ReportPathFor(output, saturated);
  std::string error;
  if (!WriteOutput(path, text, &error)) {
    fmt::print(stderr, "{}", ErrorLine("hlo-opt", error));
    return 2;
  }
  if (saturated) {
    std::string message = "memory sizes past int64 bytes; the saturated numbers are lower bounds";
    if (path != output) message += fmt::format(" (report written to '{}')", path);
    fmt::print(stderr, "{}", ErrorLine("hlo-opt", message));
    return 1;
  }
  return 0;
}

int RunMemoryReport(const std::vector<MemoryInput>& inputs, bool split_input_file,
                    PassPipeline* pipeline, std::string_view passes, const MemoryFlags& flags,
                    const AfterPasses& after_passes, const XlaAssignmentSource* xla) {
  // XLA's assignment first: a file that cannot be read is a usage error, before any work.
  InputFile xla_file;
  XlaAssignmentSource from_flag;
  if (xla == nullptr && !flags.xla_buffer_assignment.empty()) {
    std::string error;
    if (!xla_file.Read(flags.xla_buffer_assignment, &error)) {
      fmt::print(stderr, "hlo-opt: error: {}\n", error);
      return 2;
    }
    from_flag = {flags.xla_buffer_assignment, xla_file.text()};
    xla = &from_flag;
  }
  ParsedModules before = ParseAll(inputs, split_input_file);
  if (!before.all_ok) return 1;
  if (xla != nullptr && before.modules.size() != 1) {
    fmt::print(stderr,
               "hlo-opt: error: XLA's buffer assignment ({}) is of one module, and the input "
               "holds {}\n",
               xla->filename, before.modules.size());
    return 1;
  }
  MemoryOptions options = flags.options;
  options.list_allocations = xla != nullptr;
  // Beside XLA's assignment or the listing of ours the model runs anyway.
  options.modeled_xla_peak = options.modeled_xla_peak || xla != nullptr || flags.buffer_assignment;
  options.heap_boxes = flags.format == MemoryFormat::kHtml;  // only the page draws them
  // The passes change modules in place and the report points into them: a second copy. With
  // --assume-donated the second copy is the what-if (donated, then the passes), and the first
  // stays the module as given, so the comparison shows what donating would save.
  ParsedModules after;
  const bool donating = flags.assume_donated.has_value();
  if (pipeline != nullptr || donating) {
    after = ParseAll(inputs, split_input_file);
    if (!DonateAndRunPasses(inputs, split_input_file, after.modules, pipeline, flags,
                            after_passes)) {
      return 1;
    }
  }
  const std::vector<const Module*> after_modules = Pointers(after.modules);
  // The title names the assumption beside the passes ("memory before and after ...").
  const std::string label =
      !donating ? std::string(passes)
                : fmt::format("{}--assume-donated={}",
                              passes.empty() ? "" : fmt::format("--passes={} ", passes),
                              flags.assume_donated_text);
  absl::StatusOr<MemoryComparison> comparison = ProfileBeforeAfter(
      Pointers(before.modules), pipeline != nullptr || donating ? &after_modules : nullptr, label,
      options, flags.pipeline_schedule, flags.microbatches);
  if (!comparison.ok()) {
    PrintStatus(comparison.status());
    return 1;
  }
  ParsedModules given;  // as XLA assigned it: not flattened (CompareWithXla)
  XlaModelOptions listing = {
      .alignment = flags.alignment,
      .multiheap_size_constraint_per_heap = flags.multiheap_size_constraint_per_heap};
  if (xla != nullptr && !CompareWithXla(inputs, split_input_file, flags, options, *xla,
                                        before.modules, *comparison, given, listing)) {
    return 1;
  }
  // XLA's assignment as modeled, listed after the text report and carried in the JSON one.
  if (flags.buffer_assignment &&
      (flags.format == MemoryFormat::kText || flags.format == MemoryFormat::kJson)) {
    const Modules& as_given = given.modules.empty() ? before.modules : given.modules;
    if (!ModelXlaAssignments(as_given, after.modules, listing, flags.alignment, *comparison)) {
      return 1;
    }
  }
  std::vector<std::string> warnings;
  for (const auto& m : before.modules) {
    for (std::string& w : MemoryContextWarnings(*m)) warnings.push_back(std::move(w));
  }
  absl::StatusOr<std::string> text =
      PrintMemoryComparison(*comparison, {.format = flags.format,
                                          .buffer_assignment = flags.buffer_assignment,
                                          .memory_limit = flags.memory_limit,
                                          .warnings = std::move(warnings),
                                          .option_spelling = HloOptFlagOf});
  if (!text.ok()) {
    PrintStatus(text.status());
    return 1;
  }
  if (flags.format == MemoryFormat::kText) AppendModeledAssignments(*comparison, *text);
  // The text report ends with what the user could change. Only when asked: finding the copy
  // opportunities runs copy-elision on a fresh parse (twice with a bitcast), which costs
  // several times the profile itself (3.9x at 1M instructions), so the memory report gives no
  // hint line; the copy report, which runs copy-elision anyway, does.
  if (flags.opportunities && flags.format == MemoryFormat::kText && pipeline == nullptr) {
    *text += OpportunitiesOf(inputs, split_input_file, *comparison, options);
  }
  return WriteMemoryReport(flags.output, comparison->saturated(), *text);
}

}  // namespace hloscope
