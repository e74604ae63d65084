#include "tools/hlo-opt/hlo_opt_flags.h"

#include <filesystem>
#include <optional>
#include <string_view>
#include <system_error>

#include "fmt/format.h"
#include "support/str_util.h"
#include "tools/common/output_paths.h"

namespace hloscope {
namespace {

// The parts of --help around the OPTIONS section that the table writes.
constexpr std::string_view kHelpHead =
    R"(OVERVIEW: parse, verify, transform and print HLO text modules

USAGE: hlo-opt [options] [FILE|-]
       hlo-opt --xla-dump=DIR [--module=ID|NAME] [--format=text|json|csv|html] [-o OUT]
       hlo-opt --memory-report --stage-by=module [options] FILE...
       hlo-opt --stage-costs[=OUT] [--tflops=X] [--backward-regex=RE] FILE...
       hlo-opt --memory-diff [--format=text|json|html] [-o OUT] A B

From an XLA dump directory (XLA_FLAGS=--xla_dump_to=DIR), lists every compiled module with
our memory figures beside XLA's, or opens one (--xla-dump below). Otherwise reads one HLO
module from FILE, or from standard input when FILE is '-' or absent, checks it with the
verifier, runs the requested passes and prints the result in canonical HLO text.

)";

constexpr std::string_view kHelpTail = R"(
EXIT STATUS:
  0  success
  1  bad input: a parse, verifier or pass error (the message is written to stderr)
  2  bad usage: unknown option, unreadable input or output file, an output that names an
     input or another output, unknown pass, a directory with no XLA dump in it, a --module
     that names no module of the dump; also running out of memory
)";

}  // namespace

FlagTable HloOptFlagTable(HloOptFlags& flags) {
  FlagTable table({
      .unknown = [](std::string_view arg,
                    std::string_view) { return fmt::format("unknown option '{}'", arg); },
      .takes_no_value =
          [](std::string_view name) { return fmt::format("option '{}' takes no value", name); },
  });
  table.Section("OPTIONS:", 25);
  table.Add({.names = {"-o"},
             .value = FlagValue::kRequired,
             .placeholder = "OUT",
             .output_file = true,
             .help = "Write the output to OUT ('-' is standard output, the default). The\n"
                     "file is only written when every module succeeded. OUT ending in\n"
                     "'.pb' gets XLA's HloModuleProto (see --output-format).",
             .handler = [&flags](std::optional<std::string_view> value) {
               if (!value) return FlagError("option '-o' needs a file name");
               flags.output = std::string(*value);
               return absl::OkStatus();
             }});
  table.Add({.names = {"--output-format"},
             .value = FlagValue::kRequired,
             .placeholder = "FMT",
             .help = "How to write the module: 'hlo' (HLO text), 'pb' (XLA's\n"
                     "HloModuleProto, binary) or 'pbtxt' (the same in protobuf text\n"
                     "format). Default: from -o's extension ('.pb' binary, '.pbtxt' or\n"
                     "'.textproto' text format), else HLO text. A proto holds one module:\n"
                     "not with --split-input-file, --stats, --check-in-place or an\n"
                     "analysis report. A header with replica_count, num_partitions or\n"
                     "allow_spmd_sharding_propagation_* (XLA's module config) makes it\n"
                     "XLA's HloModuleProtoWithConfig. An attribute with no field is an\n"
                     "error (exit 1) naming the instruction and attribute.",
             .handler = [&flags](std::optional<std::string_view> value) {
               if (!value) return FlagError("option '--output-format' needs a value");
               flags.output_format = ParseOutputFormatName(*value);
               if (!flags.output_format) {
                 return FlagError(fmt::format(
                     "unknown output format '{}' (expected 'hlo', 'pb' or 'pbtxt')", *value));
               }
               return absl::OkStatus();
             }});
  table.Add({.names = {"--passes"},
             .value = FlagValue::kRequired,
             .placeholder = "A,B,...",
             .help = "Run these passes in order (see --list-passes). A pass may repeat\n"
                     "and take options in braces: 'copy-elision{bitcast-defines-value=true}'.",
             .handler = [&flags](std::optional<std::string_view> value) {
               if (!value) return FlagError("option '--passes' needs a list of passes");
               flags.passes = std::string(*value);
               return absl::OkStatus();
             }});
  table.Add(SwitchFlag({"--list-passes"}, &flags.list_passes,
                       "List the available passes with a description and their options\n"
                       "(type, default, help), then exit."));
  table.Add(SwitchFlag({"--split-input-file"}, &flags.split_input_file,
                       "Treat each part of the input between lines '// -----' as its own\n"
                       "module: each is processed on its own, errors name lines of the whole\n"
                       "file, and the outputs are printed separated by '// -----' lines. A\n"
                       "failing part does not stop the others. An input in protobuf text\n"
                       "format is split first, each part one HloModuleProto (as XLA's\n"
                       "hlo-translate reads its split importer tests)."));
  table.Add({.names = {"--jobs"},
             .value = FlagValue::kRequired,
             .placeholder = "N",
             .help = "Process up to N modules at once: the parts of --split-input-file,\n"
                     "and the FILEs of --memory-report --stage-by=module (default: the\n"
                     "number of cores). Output and messages come in input order, the same\n"
                     "as with --jobs=1.",
             .handler = [&flags](std::optional<std::string_view> value) {
               if (!value) return FlagError("option '--jobs' needs a number");
               int n = 0;
               if (!ParseInteger(*value, &n) || n < 1 || n > 1024) {
                 return FlagError(fmt::format(
                     "bad value '{}' for --jobs (expected a whole number from 1 to 1024)", *value));
               }
               flags.jobs = n;
               return absl::OkStatus();
             }});
  table.Add(SwitchFlag({"--verify-each"}, &flags.verify_each,
                       "Verify the module after every pass and name the pass that broke it.\n"
                       "(The input is always verified after parsing.)"));
  table.Add({.names = {"--print-style"},
             .value = FlagValue::kRequired,
             .placeholder = "STYLE",
             .help = "'canonical' (default): XLA's current short form. 'legacy': '%'-prefixed\n"
                     "names, operand shapes and computation signatures.",
             .handler = [&flags](std::optional<std::string_view> value) {
               if (!value) return FlagError("option '--print-style' needs a value");
               if (value == "canonical") {
                 flags.style = PrintStyle::kCanonical;
               } else if (value == "legacy") {
                 flags.style = PrintStyle::kLegacy;
               } else {
                 return FlagError(fmt::format(
                     "unknown print style '{}' (expected 'canonical' or 'legacy')", *value));
               }
               return absl::OkStatus();
             }});
  table.Add(SwitchFlag({"--no-metadata"}, &flags.no_metadata,
                       "Leave metadata={...} out of the printed module."));
  table.Add({.names = {"--input-format"},
             .value = FlagValue::kRequired,
             .placeholder = "FORMAT",
             .help = "'hlo' (HLO text), 'pb' (binary HloProto or HloModuleProto, as\n"
                     "--xla_dump_hlo_as_proto writes '*.hlo.pb') or 'pbtxt' (the same in\n"
                     "protobuf text format). Default: by content, then by extension ('.pb';\n"
                     "'.pbtxt', '.textproto'; anything else is HLO text). A proto is read as\n"
                     "the HLO text XLA prints for it.",
             .handler = [&flags](std::optional<std::string_view> value) {
               if (!value) return FlagError("option '--input-format' needs a value");
               flags.input_format = ParseInputFormatName(std::string(*value));
               if (!flags.input_format.has_value()) {
                 return FlagError(fmt::format(
                     "unknown input format '{}' (expected 'hlo', 'pb' or 'pbtxt')", *value));
               }
               return absl::OkStatus();
             }});
  table.Add(SwitchFlag({"--stats"}, &flags.stats,
                       "Print statistics instead of the module: instructions per opcode,\n"
                       "computations, total bytes of all instruction results, parse and\n"
                       "verify time, and the in-memory size of the IR per instruction."));
  table.Add(SwitchFlag({"--check-in-place"}, &flags.check_in_place,
                       "List in-place fusions (dynamic-update-slice or scatter roots,\n"
                       "output_to_operand_aliasing) that also read the operand they update\n"
                       "where the update may already have written (a slice, gather or\n"
                       "dynamic-slice at another offset; not the same-index\n"
                       "read-modify-write), naming fusion, parameter and reader, instead of\n"
                       "printing the module (after --passes). Exit status 0 either way."));
  AddAnalysisFlags(table, flags.analysis);
  AddMemoryFlags(table, flags.memory, flags.analysis);
  AddMemoryDiffFlags(table, flags.memory_diff);
  AddCopyReportFlags(table, flags.copy_report);
  AddStageCostsFlags(table, flags.stage_costs);
  AddXlaDumpFlags(table, flags.xla_dump);
  table.Add(SwitchFlag({"-h", "--help"}, &flags.help, "Show this help, then exit."));
  // The first FILE, then (--memory-report --stage-by=module, --stage-costs) one per stage.
  table.Positional([&flags](std::string_view arg) {
    if (flags.input_seen) {
      flags.more_inputs.push_back(std::string(arg));
    } else {
      flags.input = std::string(arg);
      flags.input_seen = true;
    }
    return absl::OkStatus();
  });
  return table;
}

MemoryDiffContext MemoryDiffContextOf(const HloOptFlags& f, bool input_seen) {
  MemoryDiffContext c;
  if (input_seen) c.files.push_back(f.input);
  c.files.insert(c.files.end(), f.more_inputs.begin(), f.more_inputs.end());
  c.output = f.output;
  c.xla_dump = f.xla_dump.enabled();
  c.other_mode_flag = !f.passes.empty()                      ? "--passes"
                      : f.split_input_file                   ? "--split-input-file"
                      : f.stats                              ? "--stats"
                      : f.check_in_place                     ? "--check-in-place"
                      : f.analysis.print_dataflow            ? "--print-dataflow"
                      : f.analysis.print_buffers             ? "--print-buffers"
                      : f.analysis.print_ordering            ? "--print-ordering"
                      : f.analysis.print_sharing             ? "--print-sharing"
                      : !f.analysis.ordering_queries.empty() ? "--ordering-query"
                      : f.stage_costs.enabled                ? "--stage-costs"
                      : f.copy_report.report                 ? "--report"
                                                             : "";
  return c;
}

absl::Status ParseHloOptFlags(int argc, char** argv, HloOptFlags* flags) {
  if (absl::Status s = HloOptFlagTable(*flags).Parse(argc, argv); !s.ok()) return s;
  // --opportunities goes to the copy report when one is asked for, else to the memory report.
  flags->copy_report.opportunities = flags->memory.opportunities;
  if (flags->memory.opportunities && !flags->copy_report.report) flags->memory.enabled = true;
  if (flags->memory_diff.enabled) {  // its own checks: two files, the memory flags
    if (flags->memory.assume_donated) {
      return FlagError("--assume-donated cannot be combined with --memory-diff");
    }
    const std::string error = CheckMemoryDiffFlags(flags->memory_diff, flags->memory,
                                                   MemoryDiffContextOf(*flags, flags->input_seen));
    return error.empty() ? absl::OkStatus() : FlagError(error);
  }
  // A directory where FILE goes is an XLA dump directory (tools/hlo-opt/hlo_opt_xla_dump.h), unless
  // the other flags ask for one module (then reading it fails as it always did).
  const bool one_module_modes = !flags->passes.empty() || flags->split_input_file || flags->stats ||
                                flags->check_in_place || flags->analysis.any() ||
                                flags->copy_report.report || flags->stage_costs.enabled ||
                                flags->memory.enabled;
  if (std::error_code ec; !flags->xla_dump.enabled() && !one_module_modes &&
                          flags->more_inputs.empty() && flags->input != "-" &&
                          std::filesystem::is_directory(flags->input, ec)) {
    flags->xla_dump.dir = flags->input;
    flags->xla_dump.from_input = true;
  }
  if (std::string error = CheckXlaDumpFlags(
          flags->xla_dump, flags->memory, one_module_modes,
          !flags->more_inputs.empty() || (!flags->xla_dump.from_input && flags->input_seen));
      !error.empty()) {
    return FlagError(error);
  }
  if (flags->memory.assume_donated && flags->xla_dump.enabled()) {
    return FlagError("--assume-donated reads one module: not with an XLA dump directory");
  }
  if (flags->xla_dump.enabled()) return absl::OkStatus();
  if (flags->memory.assume_donated && flags->passes.empty() && !flags->memory.enabled) {
    return FlagError("--assume-donated needs --passes or --memory-report");
  }
  if (ChooseOutputFormat(flags->output_format, flags->output) != OutputFormat::kHloText) {
    const char* other = flags->split_input_file                  ? "--split-input-file"
                        : flags->stats                           ? "--stats"
                        : flags->check_in_place                  ? "--check-in-place"
                        : flags->analysis.any()                  ? "an analysis report"
                        : flags->memory.enabled                  ? "--memory-report"
                        : flags->stage_costs.enabled             ? "--stage-costs"
                        : flags->no_metadata                     ? "--no-metadata"
                        : flags->style != PrintStyle::kCanonical ? "--print-style"
                                                                 : nullptr;
    if (other != nullptr) {
      return FlagError(fmt::format(
          "a proto output (--output-format or -o FILE.pb) holds one module as it is, and "
          "cannot be combined with {}",
          other));
    }
  }
  // --stage-costs reads one file per stage.
  const size_t files = flags->stage_costs.enabled ? 1 : 1 + flags->more_inputs.size();
  if (std::string error = CheckStageCostsFlags(
          flags->stage_costs, flags->output != "-" || !flags->passes.empty() ||
                                  flags->split_input_file || flags->stats ||
                                  flags->check_in_place || flags->analysis.any() ||
                                  flags->memory.enabled || flags->copy_report.report);
      !error.empty()) {
    return FlagError(error);
  }
  if (std::string error = CheckMemoryFlags(flags->memory, flags->analysis, flags->stats, files);
      !error.empty()) {
    if (!flags->more_inputs.empty() && !flags->memory.enabled) {
      error = fmt::format("more than one input file ('{}' and '{}')", flags->input,
                          flags->more_inputs.front());
    }
    return FlagError(error);
  }
  return absl::OkStatus();
}

std::string HloOptHelp() {
  HloOptFlags unused;
  return fmt::format("{}{}\n{}{}", kHelpHead, HloOptFlagTable(unused).Help(), kOutputPathsHelp,
                     kHelpTail);
}

}  // namespace hloscope
