// hlo-opt: parse, verify, transform and print HLO text modules.
//
//   hlo-opt model.hlo --passes=dce,tuple-simplify -o out.hlo
//   hlo-opt out.hlo --stats
//
// Exit status: 0 success, 1 bad input (parse, verify or pass error; the message on stderr),
// 2 bad usage (unknown option, unreadable file, unknown pass).
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "analysis/analysis_cache.h"
#include "analysis/in_place_hazards.h"
#include "fmt/core.h"
#include "hlo/checked_int.h"
#include "hlo/module.h"
#include "hlo/parser.h"
#include "hlo/printer.h"
#include "hlo/str_util.h"
#include "hlo/verifier.h"
#include "passes/pass_pipeline.h"
#include "passes/pass_registry.h"
#include "tools/error_line.h"
#include "tools/file_io.h"
#include "tools/hlo_opt_analysis.h"
#include "tools/hlo_opt_copy_report.h"
#include "tools/hlo_opt_memory.h"
#include "tools/hlo_opt_memory_diff.h"
#include "tools/hlo_opt_stage_costs.h"
#include "tools/parallel_modules.h"

namespace hloscope {
namespace {

enum ExitCode { kExitOk = 0, kExitBadInput = 1, kExitBadUsage = 2 };

constexpr std::string_view kHelp = R"(OVERVIEW: parse, verify, transform and print HLO text modules

USAGE: hlo-opt [options] [FILE|-]
       hlo-opt --memory-report --stage-by=module [options] FILE...
       hlo-opt --stage-costs[=OUT] [--tflops=X] [--backward-regex=RE] FILE...
       hlo-opt --memory-diff [--format=text|json|html] [-o OUT] A B

Reads one HLO module from FILE, or from standard input when FILE is '-' or absent, checks it
with the verifier, runs the requested passes and prints the result in canonical HLO text.

OPTIONS:
  -o OUT                 Write the output to OUT ('-' is standard output, the default). The
                         file is only written when every module succeeded.
  --passes=A,B,...       Run these passes in order (see --list-passes). A pass may repeat
                         and take options in braces: 'copy-elision{bitcast-defines-value=true}'.
  --list-passes          List the available passes with a description and their options
                         (type, default, help), then exit.
  --split-input-file     Treat each part of the input between lines '// -----' as its own
                         module: each is processed on its own, errors name lines of the whole
                         file, and the outputs are printed separated by '// -----' lines. A
                         failing part does not stop the others.
  --jobs=N               Process up to N modules at once: the parts of --split-input-file,
                         and the FILEs of --memory-report --stage-by=module (default: the
                         number of cores). Output and messages come in input order, the same
                         as with --jobs=1.
  --verify-each          Verify the module after every pass and name the pass that broke it.
                         (The input is always verified after parsing.)
  --print-style=STYLE    'canonical' (default): XLA's current short form. 'legacy': '%'-prefixed
                         names, operand shapes and computation signatures.
  --no-metadata          Leave metadata={...} out of the printed module.
  --stats                Print statistics instead of the module: instructions per opcode,
                         computations, total bytes of all instruction results, parse and
                         verify time, and the in-memory size of the IR per instruction.
  --check-in-place       List in-place fusions (dynamic-update-slice or scatter roots,
                         output_to_operand_aliasing) that also read the operand they update
                         where the update may already have written (a slice, gather or
                         dynamic-slice at another offset; not the same-index
                         read-modify-write), naming fusion, parameter and reader, instead of
                         printing the module (after --passes). Exit status 0 either way.
%ANALYSIS%%MEMORY%%MEMORYDIFF%%COPYREPORT%%STAGECOSTS%  -h, --help             Show this help, then exit.

EXIT STATUS:
  0  success
  1  bad input: a parse, verifier or pass error (the message is written to stderr)
  2  bad usage: unknown option, unreadable input or output file, unknown pass
)";

struct Flags {
  std::string input = "-";
  std::string output = "-";
  std::string passes;
  bool list_passes = false;
  bool split_input_file = false;
  bool verify_each = false;
  bool no_metadata = false;
  bool stats = false;
  bool check_in_place = false;
  bool help = false;
  int jobs = 0;  // 0: one per core
  PrintStyle style = PrintStyle::kCanonical;
  AnalysisFlags analysis;                // --print-dataflow, --print-buffers and their options
  MemoryFlags memory;                    // --memory-report and its options
  MemoryDiffFlags memory_diff;           // --memory-diff A B (tools/hlo_opt_memory_diff.h)
  CopyReportFlags copy_report;           // --report[=FILE.json] of copy-elision
  StageCostsFlags stage_costs;           // --stage-costs[=FILE] and --tflops
  std::vector<std::string> more_inputs;  // --memory-report --stage-by=module: one per stage
};

std::string_view MessageOf(const absl::Status& s) {
  return std::string_view(s.message().data(), s.message().size());
}

// Reports a usage error and returns the exit code for it.
int UsageError(std::string_view message) {
  fmt::print(stderr, "hlo-opt: error: {}\nRun 'hlo-opt --help' for usage.\n", message);
  return kExitBadUsage;
}

// What --memory-diff is checked against and reads: the positional files, -o, and a flag that
// asks for another output of hlo-opt.
MemoryDiffContext MemoryDiffContextOf(const Flags& f, bool input_seen) {
  MemoryDiffContext c;
  if (input_seen) c.files.push_back(f.input);
  c.files.insert(c.files.end(), f.more_inputs.begin(), f.more_inputs.end());
  c.output = f.output;
  c.other_mode_flag = !f.passes.empty()           ? "--passes"
                      : f.split_input_file        ? "--split-input-file"
                      : f.stats                   ? "--stats"
                      : f.check_in_place          ? "--check-in-place"
                      : f.analysis.print_dataflow ? "--print-dataflow"
                      : f.analysis.print_buffers  ? "--print-buffers"
                      : f.analysis.print_ordering ? "--print-ordering"
                      : f.analysis.print_sharing  ? "--print-sharing"
                      : f.stage_costs.enabled     ? "--stage-costs"
                      : f.copy_report.report      ? "--report"
                                                  : "";
  return c;
}

// Parses argv into *flags. Returns an exit code when the program should stop (usage error),
// or -1 to go on. Options take their value as `--opt=V` or as the next argument `--opt V`.
int ParseFlags(int argc, char** argv, Flags* flags) {
  bool input_seen = false;
  bool options_done = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (options_done || arg == "-" || !arg.starts_with("-")) {
      if (input_seen) {  // allowed for --stage-by=module only (CheckMemoryFlags)
        flags->more_inputs.push_back(std::string(arg));
        continue;
      }
      flags->input = std::string(arg);
      input_seen = true;
      continue;
    }
    if (arg == "--") {
      options_done = true;
      continue;
    }
    std::string_view name = arg;
    std::string_view value;
    bool has_value = false;
    if (size_t eq = arg.find('='); eq != std::string_view::npos) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      has_value = true;
    }
    auto take_value = [&](std::string* out) -> bool {
      if (!has_value) {
        if (i + 1 >= argc) return false;
        value = argv[++i];
      }
      *out = std::string(value);
      return true;
    };
    auto no_value = [&](bool* out) -> bool {
      if (has_value) return false;
      *out = true;
      return true;
    };
    bool ok = true;
    if (name == "-o") {
      ok = take_value(&flags->output);
      if (!ok) return UsageError("option '-o' needs a file name");
    } else if (name == "--passes") {
      ok = take_value(&flags->passes);
      if (!ok) return UsageError("option '--passes' needs a list of passes");
    } else if (name == "--print-style") {
      std::string style;
      if (!take_value(&style)) return UsageError("option '--print-style' needs a value");
      if (style == "canonical") {
        flags->style = PrintStyle::kCanonical;
      } else if (style == "legacy") {
        flags->style = PrintStyle::kLegacy;
      } else {
        return UsageError(
            fmt::format("unknown print style '{}' (expected 'canonical' or 'legacy')", style));
      }
    } else if (name == "--jobs") {
      std::string jobs;
      if (!take_value(&jobs)) return UsageError("option '--jobs' needs a number");
      int n = 0;
      if (!ParseInteger(jobs, &n) || n < 1 || n > 1024) {
        return UsageError(fmt::format(
            "bad value '{}' for --jobs (expected a whole number from 1 to 1024)", jobs));
      }
      flags->jobs = n;
    } else if (name == "--list-passes") {
      ok = no_value(&flags->list_passes);
    } else if (name == "--split-input-file") {
      ok = no_value(&flags->split_input_file);
    } else if (name == "--verify-each") {
      ok = no_value(&flags->verify_each);
    } else if (name == "--no-metadata") {
      ok = no_value(&flags->no_metadata);
    } else if (name == "--stats") {
      ok = no_value(&flags->stats);
    } else if (name == "--check-in-place") {
      ok = no_value(&flags->check_in_place);
    } else if (name == "--help" || name == "-h") {
      ok = no_value(&flags->help);
    } else {
      std::string error;
      std::optional<std::string_view> analysis_value;
      if (has_value) analysis_value = value;
      if (auto r = ParseMemoryDiffFlag(name, analysis_value, flags->memory_diff, &error);
          r != MemoryDiffFlagResult::kNotMemoryDiffFlag) {
        if (r == MemoryDiffFlagResult::kBadValue) return UsageError(error);
        continue;
      }
      switch (ParseStageCostsFlag(name, analysis_value, flags->stage_costs, &error)) {
        case StageCostsFlagResult::kTaken:
          continue;
        case StageCostsFlagResult::kBadValue:
          return UsageError(error);
        case StageCostsFlagResult::kNotStageCostsFlag:
          break;
      }
      switch (ParseCopyReportFlag(name, analysis_value, flags->copy_report, &error)) {
        case CopyReportFlagResult::kTaken:
          continue;
        case CopyReportFlagResult::kBadValue:
          return UsageError(error);
        case CopyReportFlagResult::kNotCopyReportFlag:
          break;
      }
      switch (ParseMemoryFlag(name, analysis_value, flags->memory, flags->analysis, &error)) {
        case MemoryFlagResult::kTaken:
          continue;
        case MemoryFlagResult::kBadValue:
          return UsageError(error);
        case MemoryFlagResult::kNotMemoryFlag:
          break;
      }
      switch (ParseAnalysisFlag(name, analysis_value, flags->analysis, &error)) {
        case AnalysisFlagResult::kTaken:
          continue;
        case AnalysisFlagResult::kBadValue:
          return UsageError(error);
        case AnalysisFlagResult::kNotAnalysisFlag:
          return UsageError(fmt::format("unknown option '{}'", arg));
      }
    }
    if (!ok) return UsageError(fmt::format("option '{}' takes no value", name));
  }
  if (flags->memory_diff.enabled) {  // its own checks: two files, the memory flags
    const std::string error = CheckMemoryDiffFlags(flags->memory_diff, flags->memory,
                                                   MemoryDiffContextOf(*flags, input_seen));
    return error.empty() ? -1 : UsageError(error);
  }
  // --stage-costs reads one file per stage.
  const size_t files = flags->stage_costs.enabled ? 1 : 1 + flags->more_inputs.size();
  if (std::string error = CheckStageCostsFlags(
          flags->stage_costs, flags->output != "-" || !flags->passes.empty() ||
                                  flags->split_input_file || flags->stats ||
                                  flags->check_in_place || flags->analysis.any() ||
                                  flags->memory.enabled || flags->copy_report.report);
      !error.empty()) {
    return UsageError(error);
  }
  if (std::string error = CheckMemoryFlags(flags->memory, flags->analysis, flags->stats, files);
      !error.empty()) {
    if (!flags->more_inputs.empty() && !flags->memory.enabled) {
      error = fmt::format("more than one input file ('{}' and '{}')", flags->input,
                          flags->more_inputs.front());
    }
    return UsageError(error);
  }
  return -1;
}

struct Timings {
  double parse_seconds = 0;
  double verify_seconds = 0;
};

void AppendStats(const Module& module, const Timings& t, std::string& out) {
  absl::flat_hash_map<std::string, int64_t> per_opcode;
  int64_t instructions = 0;
  int64_t array_bytes = 0;
  for (const Computation* c : module.computations()) {
    for (const Instruction* instr : c->instructions()) {
      ++per_opcode[instr->PrintedOpcode()];
      ++instructions;
      // Saturating: a module of a few huge shapes must not print a wrapped total.
      array_bytes = SaturatingAdd(array_bytes, instr->shape().TotalArrayBytes());
    }
  }
  const Module::MemoryStats mem = module.ComputeMemoryStats();
  const int64_t ir_bytes =
      mem.instruction_bytes + mem.shape_bytes + mem.string_bytes + mem.other_bytes;
  auto per_instr = [&](int64_t bytes) {
    return mem.instructions == 0
               ? 0.0
               : static_cast<double>(bytes) / static_cast<double>(mem.instructions);
  };
  out += fmt::format("module {}\n", module.name());
  out += fmt::format("  computations          {}\n", module.computations().size());
  out += fmt::format("  instructions          {}\n", instructions);
  if (array_bytes == kInt64Max) {
    out += "  total array bytes     overflow (2^63 or more)\n";
  } else {
    out += fmt::format("  total array bytes     {} ({})\n", array_bytes, HumanBytes(array_bytes));
  }
  out += fmt::format("  parse time            {:.3f} ms\n", t.parse_seconds * 1e3);
  out += fmt::format("  verify time           {:.3f} ms\n", t.verify_seconds * 1e3);
  out += fmt::format("  IR memory             {} ({})\n", ir_bytes, HumanBytes(ir_bytes));
  out += fmt::format("    per instruction     {:.1f} bytes, {:.1f} without metadata strings\n",
                     per_instr(ir_bytes), per_instr(ir_bytes - mem.metadata_string_bytes));
  out += fmt::format("    instructions        {}\n", HumanBytes(mem.instruction_bytes));
  out += fmt::format("    shapes              {}\n", HumanBytes(mem.shape_bytes));
  out += fmt::format("    strings             {} (metadata {})\n", HumanBytes(mem.string_bytes),
                     HumanBytes(mem.metadata_string_bytes));
  out += fmt::format("    other               {}\n", HumanBytes(mem.other_bytes));
  std::vector<std::pair<std::string_view, int64_t>> sorted(per_opcode.begin(), per_opcode.end());
  // Most frequent first; equal counts by name so the output is stable.
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  out += "instructions per opcode\n";
  for (const auto& [name, count] : sorted) out += fmt::format("  {:<28}{:>8}\n", name, count);
}

// --check-in-place: the hazards of analysis/in_place_hazards.h, one line each.
void AppendInPlaceHazards(const Module& module, std::string& out) {
  const InPlaceHazardReport r = FindInPlaceHazards(module);
  out += fmt::format("in-place hazards in {}: {} in {} in-place fusions\n", module.name(),
                     r.hazards.size(), r.in_place_fusions);
  for (const InPlaceHazard& h : r.hazards) out += fmt::format("  {}\n", h.message);
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// One module of the input, processed: what it prints, or the error to report. The pipeline
// that ran on it stays with it until its copy report is read (CopyReportCollector::Collect).
struct ModuleRun {
  absl::Status status;
  std::unique_ptr<PassPipeline> pipeline;
  std::unique_ptr<Module> module;
  std::string out;
};

// Parses, verifies, transforms and prints one module. Returns the error to report, if any.
absl::Status ProcessModule(const InputChunk& chunk, std::string_view filename, const Flags& flags,
                           PassPipeline* pipeline, std::unique_ptr<Module>& kept,
                           std::string& out) {
  Timings timings;
  auto start = std::chrono::steady_clock::now();
  ParseOptions parse_options;
  parse_options.filename = filename;
  parse_options.first_line = chunk.first_line;
  absl::StatusOr<std::unique_ptr<Module>> module = ParseModule(chunk.text, parse_options);
  timings.parse_seconds = SecondsSince(start);
  if (!module.ok()) return module.status();
  start = std::chrono::steady_clock::now();
  VerifierOptions verifier_options;
  verifier_options.source_text = chunk.text;  // errors then point into the file
  if (absl::Status s = VerifyModule(**module, verifier_options); !s.ok()) return s;
  timings.verify_seconds = SecondsSince(start);
  // One set of analyses for the passes and the reports after them: a report whose options
  // match what the last passes used, on a module they left unchanged, builds nothing again.
  AnalysisCache analyses(**module);
  if (pipeline != nullptr) {
    if (absl::StatusOr<bool> changed = pipeline->Run(**module, analyses); !changed.ok()) {
      return changed.status();
    }
  }
  if (flags.stats) {
    AppendStats(**module, timings, out);
  } else if (flags.check_in_place) {
    AppendInPlaceHazards(**module, out);
  } else if (flags.analysis.any()) {
    if (absl::Status s = AppendAnalysisReports(analyses, flags.analysis, out); !s.ok()) return s;
  } else {
    PrintOptions print_options;
    print_options.style = flags.style;
    print_options.print_metadata = !flags.no_metadata;
    // The printed module is about as long as its text: reserving that up front saves the
    // copies (and the page faults of each larger buffer) of growing a 100 MB string by
    // doubling. Reserved pages that are never written are never touched.
    out.reserve(out.size() + chunk.text.size() + chunk.text.size() / 4);
    AppendModule(**module, print_options, out);
  }
  kept = *std::move(module);
  return absl::OkStatus();
}

// The pipeline --passes names (nullptr for none), set up for copy-elision's flags. Main
// builds one to refuse bad flags before reading input; each module processed gets its own,
// since passes keep their last report until it is read.
absl::StatusOr<std::unique_ptr<PassPipeline>> MakePipeline(const Flags& flags) {
  std::unique_ptr<PassPipeline> pipeline;
  if (!flags.passes.empty()) {
    PipelineOptions options;
    options.verify_each = flags.verify_each;
    // --bitcast-defines-value is every pass's default for that option; a pass that sets it in
    // --passes keeps its own value.
    options.option_defaults = {
        {"bitcast-defines-value",
         flags.analysis.print.dataflow.bitcast_defines_value ? "true" : "false"}};
    absl::StatusOr<std::unique_ptr<PassPipeline>> built =
        BuildPipeline(flags.passes, PassRegistry::Global(), options);
    if (!built.ok()) return built.status();
    pipeline = *std::move(built);
  }
  // --report needs a pass that writes a report in the pipeline.
  if (std::string e = CheckCopyReportPasses(pipeline.get(), flags.copy_report); !e.empty()) {
    return absl::InvalidArgumentError(e);
  }
  return pipeline;
}

// The output, written module by module as each one's turn comes instead of joined into one
// string at the end: the main thread copies no large output, and writing overlaps the work on
// the modules after it. A file still only appears whole (AtomicFileWriter renames it into
// place at Commit) and only when every module succeeded; standard output shows the modules
// that worked. Errors wait for Finish, so messages come in the order they had when the output
// was written at the end: every module's errors and reports first, then the output's.
class ModuleOutput {
 public:
  // `hold`: keep standard output until Finish (a --report=FILE.json that fails to write
  // prints nothing else).
  ModuleOutput(std::string path, bool hold) : path_(std::move(path)), hold_(hold) {}

  void Add(std::string_view text) {
    if (dropped_ || !error_.empty()) return;
    if (!first_) Put("// -----\n");
    first_ = false;
    Put(text);
  }
  // A module failed: a file will not be written, so what it has so far goes.
  void ModuleFailed() {
    if (path_ == "-") return;
    dropped_ = true;
    writer_.reset();
  }
  // Ends the output: a file is committed when `commit`, standard output always (the modules
  // that worked). False with *error set when a write failed.
  bool Finish(bool commit, std::string* error) {
    if (path_ != "-" && !commit) return true;
    if (hold_ && error_.empty()) {
      hold_ = false;
      Put(held_);
    }
    if (error_.empty() && writer_ == nullptr) Open();  // nothing written yet: an empty file
    if (error_.empty() && !writer_->Commit(&error_)) writer_.reset();
    *error = error_;
    return error_.empty();
  }

 private:
  void Open() {
    writer_ = std::make_unique<AtomicFileWriter>();
    if (!writer_->Open(path_, &error_)) writer_.reset();
  }
  void Put(std::string_view text) {
    if (hold_) {
      held_ += text;
      return;
    }
    if (writer_ == nullptr) Open();
    if (writer_ != nullptr && !writer_->Write(text, &error_)) writer_.reset();
  }

  std::string path_;
  bool hold_;
  std::string held_;
  std::unique_ptr<AtomicFileWriter> writer_;  // opened at the first write
  std::string error_;                         // the first failure to open or write
  bool first_ = true;                         // no module written yet
  bool dropped_ = false;
};

void PrintError(const absl::Status& status) {
  fmt::print(stderr, "{}", ErrorLine("hlo-opt", MessageOf(status)));
}

bool IsBlank(std::string_view text) {
  return text.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

int Main(int argc, char** argv) {
  Flags flags;
  if (int code = ParseFlags(argc, argv, &flags); code >= 0) return code;
  if (flags.jobs > 0) SetProcessJobs(flags.jobs);  // also for the reports' parallel parsing
  if (flags.help) {
    std::string help(kHelp);
    help.replace(help.find("%ANALYSIS%"), 10, kAnalysisFlagsHelp);
    help.replace(help.find("%MEMORY%"), 8, kMemoryFlagsHelp);
    help.replace(help.find("%MEMORYDIFF%"), 12, kMemoryDiffFlagsHelp);
    help.replace(help.find("%COPYREPORT%"), 12, kCopyReportFlagsHelp);
    help.replace(help.find("%STAGECOSTS%"), 12, kStageCostsFlagsHelp);
    fmt::print("{}", help);
    return kExitOk;
  }
  const PassRegistry& registry = PassRegistry::Global();
  if (flags.list_passes) {
    size_t width = 0;
    for (const PassRegistry::Entry* e : registry.Entries()) width = std::max(width, e->name.size());
    fmt::print("Available passes:\n");
    for (const PassRegistry::Entry* e : registry.Entries()) {
      fmt::print("  {:<{}}  {}\n", e->name, width, e->description);
      fmt::print("{}", PassOptionsListing(e->factory()->pass_options(), width + 4));
    }
    return kExitOk;
  }

  // Unknown passes are usage errors: report them before reading any input.
  absl::StatusOr<std::unique_ptr<PassPipeline>> made = MakePipeline(flags);
  if (!made.ok()) return UsageError(MessageOf(made.status()));
  std::unique_ptr<PassPipeline> pipeline = *std::move(made);
  CopyReportCollector copy_reports(flags.copy_report);

  std::string error;
  if (flags.stage_costs.enabled) {  // tools/hlo_opt_stage_costs.h
    std::vector<StageCostsInput> inputs;
    flags.more_inputs.insert(flags.more_inputs.begin(), flags.input);
    for (const std::string& path : flags.more_inputs) {
      StageCostsInput& in = inputs.emplace_back();
      in.path = path == "-" ? "<stdin>" : path;
      if (!ReadInput(path, &in.text, &error)) return UsageError(error);
    }
    absl::StatusOr<std::string> json =
        StageCostsJsonOf(inputs, flags.stage_costs, flags.memory.options.backward_regex);
    if (!json.ok()) {
      PrintError(json.status());
      return kExitBadInput;
    }
    if (!WriteOutput(flags.stage_costs.output, *json, &error)) return UsageError(error);
    return kExitOk;
  }
  if (flags.memory_diff.enabled) {
    flags.memory.options.dataflow = flags.analysis.print.dataflow;  // as for --memory-report
    return RunMemoryDiff(flags.memory_diff, flags.memory, MemoryDiffContextOf(flags, true));
  }
  if (flags.memory.enabled) {
    std::vector<MemoryInput> inputs;
    std::vector<std::unique_ptr<InputFile>> files;  // what inputs' texts point into
    flags.more_inputs.insert(flags.more_inputs.begin(), flags.input);
    for (const std::string& path : flags.more_inputs) {
      MemoryInput& in = inputs.emplace_back();
      in.filename = path == "-" ? "<stdin>" : path;
      files.push_back(std::make_unique<InputFile>());
      if (!files.back()->Read(path, &error)) return UsageError(error);
      in.text = files.back()->text();
    }
    flags.memory.options.dataflow = flags.analysis.print.dataflow;  // one setting for all
    const int code =
        RunMemoryReport(inputs, flags.split_input_file, pipeline.get(), flags.passes, flags.memory,
                        [&](const Module& m) { copy_reports.Collect(pipeline.get(), m); });
    if (absl::Status s = copy_reports.Finish(); !s.ok()) return UsageError(MessageOf(s));
    return code;
  }
  InputFile input;  // mapped, not copied (tools/file_io.h)
  if (!input.Read(flags.input, &error)) return UsageError(error);
  const std::string_view text = input.text();
  const std::string filename = flags.input == "-" ? "<stdin>" : flags.input;

  std::vector<InputChunk> chunks;
  if (flags.split_input_file) {
    for (const InputChunk& chunk : SplitInputFile(text)) {
      if (!IsBlank(chunk.text)) chunks.push_back(chunk);  // e.g. after a trailing separator
    }
    // An input with no module at all is the parser's "empty input" error, as without the flag.
    if (chunks.empty()) chunks.push_back({text, 1});
  } else {
    chunks.push_back({text, 1});
  }

  const int jobs = flags.jobs > 0 ? flags.jobs : DefaultJobs();
  ModuleOutput output(flags.output, flags.output == "-" && !flags.copy_report.file.empty());
  bool all_ok = true;
  std::vector<ModuleRun> runs(chunks.size());
  OutputBuffers buffers;  // each module prints into one a module before it used
  // Modules are processed `jobs` at a time and reported in input order: errors, copy reports
  // and outputs read exactly as with one job. Each is written and freed as soon as it and all
  // before it are done; at most two per job are held at once.
  ForEachInOrder(
      chunks.size(), jobs, static_cast<size_t>(jobs) * 2,
      [&](size_t k) {
        ModuleRun& run = runs[k];
        run.out = buffers.Take();
        absl::StatusOr<std::unique_ptr<PassPipeline>> made = MakePipeline(flags);
        if (!made.ok()) {
          run.status = made.status();
          return;
        }
        run.pipeline = *std::move(made);
        run.status =
            ProcessModule(chunks[k], filename, flags, run.pipeline.get(), run.module, run.out);
      },
      [&](size_t k) {
        ModuleRun& run = runs[k];
        if (!run.status.ok()) {
          PrintError(run.status);
          all_ok = false;
          output.ModuleFailed();
          return;
        }
        if (run.pipeline != nullptr) copy_reports.Collect(run.pipeline.get(), *run.module);
        output.Add(run.out);
      },
      [&](size_t k) {
        buffers.Give(std::move(runs[k].out));
        runs[k] = ModuleRun();
      });
  // A file is only written for a complete success, so a failed run never leaves a partial
  // output behind; standard output still shows the modules that worked.
  if (absl::Status s = copy_reports.Finish(); !s.ok()) return UsageError(MessageOf(s));
  if (!output.Finish(all_ok, &error)) return UsageError(error);
  return all_ok ? kExitOk : kExitBadInput;
}

}  // namespace
}  // namespace hloscope

int main(int argc, char** argv) {
  return hloscope::RunToolMain("hlo-opt", hloscope::Main, argc, argv, hloscope::kExitBadUsage);
}
