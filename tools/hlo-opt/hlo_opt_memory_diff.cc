#include "tools/hlo-opt/hlo_opt_memory_diff.h"

#include <cstdio>
#include <utility>

#include "fmt/format.h"
#include "passes/flatten_call_graph.h"
#include "support/status_text.h"
#include "tools/common/error_line.h"
#include "tools/common/load_module.h"
#include "tools/hlo-opt/hlo_opt_option_flags.h"

namespace hloscope {

void AddMemoryDiffFlags(FlagTable& table, MemoryDiffFlags& flags) {
  table.Add({.names = {"--memory-diff"},
             .value = FlagValue::kOptional,
             .placeholder = "ID1,ID2",
             .help = "Compare the memory of two modules (e.g. before and after a change)\n"
                     "instead of printing one: the peak of each and the difference; the\n"
                     "buffers live at the peak that are new, gone, grown or shrunk\n"
                     "(matched by op_name and shape, then by instruction name); the copy\n"
                     "instructions added and removed; the instruction count per opcode\n"
                     "where it changed. --format=text (default), json (schema:\n"
                     "analysis/memory/memory_diff.proto) or html; the memory report's\n"
                     "--memory-model, --schedule, --top (rows per list), --dim-value,\n"
                     "--count-tuple-tables apply to both. Written to -o FILE or\n"
                     "--memory-report=FILE, and only when both modules were read and\n"
                     "profiled; when sizes pass int64 bytes (exit 1), FILE is left as it\n"
                     "was and the diff goes to FILE.partial.",
             .handler =
                 [&flags](std::optional<std::string_view> value) {
                   flags.enabled = true;
                   if (!value) return absl::OkStatus();
                   const size_t comma = value->find(',');
                   if (comma == std::string_view::npos || comma == 0 ||
                       comma + 1 == value->size() ||
                       value->find(',', comma + 1) != std::string_view::npos) {
                     return FlagError(fmt::format(
                         "option '--memory-diff=' needs two modules of a dump directory as "
                         "ID1,ID2, not '{}' (to compare two files: --memory-diff A B)",
                         *value));
                   }
                   flags.dump_modules = {std::string(value->substr(0, comma)),
                                         std::string(value->substr(comma + 1))};
                   return absl::OkStatus();
                 },
             .label = "--memory-diff A B"});
}

std::string CheckMemoryDiffFlags(const MemoryDiffFlags& flags, const MemoryFlags& memory,
                                 const MemoryDiffContext& context) {
  if (!flags.enabled) return "";
  if (!context.other_mode_flag.empty()) {
    return fmt::format("--memory-diff cannot be combined with {}", context.other_mode_flag);
  }
  if (memory.format == MemoryFormat::kCsv) {
    return "--memory-diff prints text, json or html, not csv";
  }
  if (memory.options.stage_by == MemoryOptions::StageBy::kModule) {
    return "--memory-diff cannot be combined with --stage-by=module (its two files are the "
           "modules to compare)";
  }
  if (!memory.pipeline_schedule.empty()) {
    return "--memory-diff cannot be combined with --pipeline-schedule";
  }
  if (memory.buffer_assignment) {
    return "--memory-diff cannot be combined with --buffer-assignment";
  }
  if (memory.output != "-" && context.output != "-") {
    return "--memory-diff writes one output: give -o FILE or --memory-report=FILE, not both";
  }
  if (!flags.dump_modules.empty()) {
    if (!context.xla_dump) {
      return "--memory-diff=ID1,ID2 names two modules of a dump directory and needs "
             "--xla-dump=DIR (to compare two files: --memory-diff A B)";
    }
    if (!context.files.empty()) {
      return fmt::format(
          "--memory-diff=ID1,ID2 reads its modules from --xla-dump=DIR, not from '{}'",
          context.files.front());
    }
    return "";
  }
  if (context.xla_dump) {
    return "--memory-diff with --xla-dump=DIR needs the two modules as --memory-diff=ID1,ID2";
  }
  if (context.files.size() < 2) {
    return "--memory-diff needs two module files: hlo-opt --memory-diff A B";
  }
  if (context.files.size() > 2) {
    return fmt::format("--memory-diff compares two files; a third was given: '{}'",
                       context.files[2]);
  }
  if (context.files[0] == "-" && context.files[1] == "-") {
    return "--memory-diff: only one of A and B can be standard input ('-')";
  }
  return "";
}

absl::StatusOr<DiffInput> LoadModuleFile(const std::string& path) {
  absl::StatusOr<LoadedModule> loaded = LoadModule(path);  // tools/common/load_module.h
  if (!loaded.ok()) return loaded.status();
  // The profiler needs one call site per control-flow callee; cloning a shared callee changes
  // no buffer's size or lifetime.
  if (absl::Status s = FlattenCallGraph().Run(*loaded->module).status(); !s.ok()) return s;
  return DiffInput{.label = std::move(loaded->label),
                   .file = std::move(loaded->file),
                   .module = std::move(loaded->module)};
}

namespace {

// A file that cannot be read is a usage error, reported as hlo-opt reports its own.
int ReportLoadError(const absl::Status& s) {
  if (absl::IsNotFound(s)) {
    fmt::print(stderr, "hlo-opt: error: {}\nRun 'hlo-opt --help' for usage.\n", StatusText(s));
    return 2;
  }
  fmt::print(stderr, "{}", ErrorLine("hlo-opt", StatusText(s)));
  return 1;
}

}  // namespace

int WriteMemoryDiff(const DiffInput& before, const DiffInput& after, const MemoryFlags& memory,
                    const std::string& output) {
  absl::StatusOr<MemoryDiff> diff =
      DiffModules(*before.module, *after.module, memory.options, before.label, after.label);
  if (!diff.ok()) {
    fmt::print(stderr, "{}", ErrorLine("hlo-opt", StatusText(WithHloOptFlag(diff.status()))));
    return 1;
  }
  absl::StatusOr<std::string> text = PrintMemoryDiff(*diff, {.format = memory.format,
                                                             .before_label = before.label,
                                                             .after_label = after.label,
                                                             .option_spelling = HloOptFlagOf});
  if (!text.ok()) {
    fmt::print(stderr, "{}", ErrorLine("hlo-opt", StatusText(text.status())));
    return 1;
  }
  // Written (it says which numbers saturated), but no success: as --memory-report, a file goes
  // to FILE.partial and FILE stays as it was.
  return WriteMemoryReport(output, diff->saturated(), *text);
}

int RunMemoryDiff(const MemoryDiffFlags& flags, const MemoryFlags& memory,
                  const MemoryDiffContext& context) {
  if (!flags.dump_modules.empty() || context.files.size() != 2) {
    // CheckMemoryDiffFlags refuses these; the dump directory's modules are read elsewhere.
    fmt::print(stderr, "hlo-opt: error: --memory-diff needs two module files\n");
    return 2;
  }
  std::vector<DiffInput> modules;
  for (const std::string& path : context.files) {
    absl::StatusOr<DiffInput> m = LoadModuleFile(path);
    if (!m.ok()) return ReportLoadError(m.status());
    modules.push_back(*std::move(m));
  }
  return WriteMemoryDiff(modules[0], modules[1], memory,
                         memory.output != "-" ? memory.output : context.output);
}

}  // namespace hloscope
