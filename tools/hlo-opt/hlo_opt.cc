// hlo-opt: parse, verify, transform and print HLO text modules.
//
//   hlo-opt model.hlo --passes=dce,tuple-simplify -o out.hlo
//   hlo-opt out.hlo --stats
//
// Exit status: 0 success, 1 bad input (parse, verify or pass error; the message on stderr),
// 2 bad usage (unknown option, unreadable file, unknown pass).
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
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
#include "analysis/memory/xla_buffer_assignment.h"
#include "fmt/core.h"
#include "hlo/module.h"
#include "hlo/parser.h"
#include "hlo/printer.h"
#include "passes/assumed_donation.h"
#include "passes/pass_pipeline.h"
#include "passes/pass_registry.h"
#include "support/bytes.h"
#include "support/checked_int.h"
#include "support/status_text.h"
#include "support/str_util.h"
#include "tools/common/error_line.h"
#include "tools/common/file_io.h"
#include "tools/common/load_input.h"
#include "tools/common/load_module.h"
#include "tools/common/output_paths.h"
#include "tools/common/parallel_modules.h"
#include "tools/hlo-opt/hlo_opt_flags.h"
#include "tools/hlo-opt/hlo_opt_output_format.h"
#include "tools/hlo-opt/hlo_opt_split_proto.h"

namespace hloscope {
namespace {

enum ExitCode { kExitOk = 0, kExitBadInput = 1, kExitBadUsage = 2 };

using Flags = HloOptFlags;

// Reports a usage error and returns the exit code for it.
int UsageError(std::string_view message) {
  fmt::print(stderr, "hlo-opt: error: {}\nRun 'hlo-opt --help' for usage.\n",
             TerminalSafe(message));
  return kExitBadUsage;
}

void AppendStats(const Module& module, const LoadTimes& t, std::string& out) {
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
    out += fmt::format("  total array bytes     {}\n", kSaturatedText);
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

// One module of the input, processed: what it prints, or the error to report. The pipeline
// that ran on it stays with it until its copy report is read (CopyReportCollector::Collect).
struct ModuleRun {
  absl::Status status;
  std::unique_ptr<PassPipeline> pipeline;
  std::unique_ptr<Module> module;
  std::optional<CopyOpportunities> opportunities;  // for the copy report (--report)
  std::string out;
};

// Parses, verifies, transforms and prints one module. Returns the error to report, if any.
absl::Status ProcessModule(const InputChunk& chunk, std::string_view filename, const Flags& flags,
                           PassPipeline* pipeline, std::unique_ptr<Module>& kept,
                           std::optional<CopyOpportunities>& opportunities, std::string& out) {
  LoadTimes timings;
  absl::StatusOr<std::unique_ptr<Module>> module =
      ParseAndVerify({chunk.text, chunk.first_line, filename}, &timings);
  if (!module.ok()) return module.status();
  // --assume-donated: the caller's donation, declared before the passes judge any copy; the
  // printed module carries it in its input_output_alias.
  if (flags.memory.assume_donated) {
    absl::StatusOr<DonationResult> donated = AssumeDonated(**module, *flags.memory.assume_donated);
    if (!donated.ok()) {
      return absl::InvalidArgumentError(fmt::format(
          "option '--assume-donated': {}",
          std::string_view(donated.status().message().data(), donated.status().message().size())));
    }
    PrintUnusedDonations(*flags.memory.assume_donated, *donated);
  }
  // One set of analyses for the passes and the reports after them: a report whose options
  // match what the last passes used, on a module they left unchanged, builds nothing again.
  AnalysisCache analyses(**module);
  if (pipeline != nullptr) {
    if (absl::StatusOr<bool> changed = pipeline->Run(**module, analyses); !changed.ok()) {
      return changed.status();
    }
    // The copy report's opportunities: copy-elision again on the module as given, parsed anew
    // (the passes changed this one), only when its decisions leave one to find.
    if (flags.copy_report.report) {
      opportunities = FindCopyReportOpportunities(
          pipeline, **module, [&]() -> absl::StatusOr<std::unique_ptr<Module>> {
            absl::StatusOr<std::unique_ptr<Module>> again =
                ParseAndVerify({chunk.text, chunk.first_line, filename}, nullptr);
            if (again.ok() && flags.memory.assume_donated) {
              if (absl::Status s = AssumeDonated(**again, *flags.memory.assume_donated).status();
                  !s.ok()) {
                return s;
              }
            }
            return again;
          });
    }
  }
  if (flags.stats) {
    AppendStats(**module, timings, out);
  } else if (flags.check_in_place) {
    AppendInPlaceHazards(**module, out);
  } else if (flags.analysis.any()) {
    if (absl::Status s = AppendAnalysisReports(analyses, flags.analysis, out); !s.ok()) return s;
  } else if (OutputFormat format = ChooseOutputFormat(flags.output_format, flags.output);
             format != OutputFormat::kHloText) {
    if (absl::Status s = AppendModuleProto(**module, format, out); !s.ok()) return s;
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
// Every file this run may write, with the flag that names it.
std::vector<OutputPath> OutputsOf(const Flags& flags) {
  std::vector<OutputPath> outputs = {{"-o", flags.output}};
  if (!flags.copy_report.file.empty()) outputs.push_back({"--report", flags.copy_report.file});
  if (flags.memory.enabled) {
    outputs.push_back({"--memory-report", flags.memory.output});
    // Where the report goes instead when its sizes saturate (hlo_opt_memory.h).
    if (flags.memory.output != "-") {
      outputs.push_back({"--memory-report", PartialMemoryReportPath(flags.memory.output)});
    }
  }
  // The memory diff's FILE.partial, the same rule (hlo_opt_memory_diff.h).
  if (flags.memory_diff.enabled && flags.output != "-") {
    outputs.push_back({"-o", PartialMemoryReportPath(flags.output)});
  }
  if (flags.stage_costs.enabled) outputs.push_back({"--stage-costs", flags.stage_costs.output});
  return outputs;
}

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
  fmt::print(stderr, "{}", ErrorLine("hlo-opt", StatusText(status)));
}

bool IsBlank(std::string_view text) {
  return text.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

// --list-passes: every registered pass with its description and options.
int ListPasses(const PassRegistry& registry) {
  size_t width = 0;
  for (const PassRegistry::Entry* e : registry.Entries()) width = std::max(width, e->name.size());
  fmt::print("Available passes:\n");
  for (const PassRegistry::Entry* e : registry.Entries()) {
    fmt::print("  {:<{}}  {}\n", e->name, width, e->description);
    fmt::print("{}", PassOptionsListing(e->factory()->pass_options(), width + 4));
  }
  return kExitOk;
}

// Every file the run reads: the inputs named and, with --xla-dump, the dump directory's files.
std::vector<std::string> InputPathsOf(const Flags& flags) {
  std::vector<std::string> inputs = {flags.input};
  inputs.insert(inputs.end(), flags.more_inputs.begin(), flags.more_inputs.end());
  if (flags.xla_dump.enabled()) {
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(flags.xla_dump.dir, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_regular_file(ec)) inputs.push_back(it->path().string());
    }
  }
  return inputs;
}

// --stage-costs: one JSON of per-stage costs from the input modules (hlo_opt_stage_costs.h).
int RunStageCosts(Flags& flags) {
  std::string error;
  std::vector<StageCostsInput> inputs;
  flags.more_inputs.insert(flags.more_inputs.begin(), flags.input);
  for (const std::string& path : flags.more_inputs) {
    StageCostsInput& in = inputs.emplace_back();
    in.path = path == "-" ? "<stdin>" : path;
    if (!ReadInput(path, &in.text, &error)) return UsageError(error);
    std::string converted;  // a proto input's HLO text (tools/common/load_input.h)
    absl::StatusOr<HloTextInput> text =
        InputAsHloText(in.path, in.text, flags.input_format, &converted);
    if (!text.ok()) {
      PrintError(text.status());
      return kExitBadInput;
    }
    if (text->text.data() == converted.data()) in.text = std::move(converted);
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

// --memory-report: the memory profile of the input modules, after the passes if any.
int RunMemoryReportOfInputs(Flags& flags, PassPipeline* pipeline,
                            CopyReportCollector& copy_reports) {
  std::string error;
  std::vector<MemoryInput> inputs;
  std::vector<std::unique_ptr<InputFile>> files;        // what inputs' texts point into
  std::vector<std::unique_ptr<std::string>> converted;  // or this, for proto inputs
  flags.more_inputs.insert(flags.more_inputs.begin(), flags.input);
  for (const std::string& path : flags.more_inputs) {
    MemoryInput& in = inputs.emplace_back();
    in.filename = path == "-" ? "<stdin>" : path;
    files.push_back(std::make_unique<InputFile>());
    if (!files.back()->Read(path, &error)) return UsageError(error);
    converted.push_back(std::make_unique<std::string>());
    absl::StatusOr<HloTextInput> text = InputAsHloText(in.filename, files.back()->text(),
                                                       flags.input_format, converted.back().get());
    if (!text.ok()) {
      PrintError(text.status());
      return kExitBadInput;
    }
    in.text = text->text;
    in.filename = std::move(text->filename);
  }
  flags.memory.options.dataflow = flags.analysis.print.dataflow;  // one setting for all
  // One module read from an HloProto that carries XLA's own buffer assignment (every
  // --xla_dump_hlo_as_proto dump after optimizations): the report shows it beside ours, as
  // --xla-buffer-assignment would.
  std::optional<XlaAssignmentSource> from_dump;
  if (inputs.size() == 1 && !flags.split_input_file && flags.memory.xla_buffer_assignment.empty() &&
      !converted.front()->empty() && HasXlaBufferAssignment(files.front()->text())) {
    from_dump = XlaAssignmentSource{
        .filename = flags.input, .contents = files.front()->text(), .from_module_dump = true};
  }
  const int code = RunMemoryReport(
      inputs, flags.split_input_file, pipeline, flags.passes, flags.memory,
      [&](const Module& m, const ModuleAsGiven& as_given) {
        std::optional<CopyOpportunities> found =
            flags.copy_report.report ? FindCopyReportOpportunities(pipeline, m, as_given)
                                     : std::nullopt;
        copy_reports.Collect(pipeline, m, found ? &*found : nullptr);
      },
      from_dump ? &*from_dump : nullptr);
  // A failed run writes no report: an existing --report=FILE stays as it was.
  if (code != kExitOk) return code;
  if (absl::Status s = copy_reports.Finish(); !s.ok()) return UsageError(StatusText(s));
  return code;
}

// The passes and printers on each module of the input, `--jobs` at a time, in input order.
int RunOnModules(const Flags& flags, CopyReportCollector& copy_reports) {
  std::string error;
  InputFile input;  // mapped, not copied (tools/common/file_io.h)
  if (!input.Read(flags.input, &error)) return UsageError(error);
  const std::string input_name = flags.input == "-" ? "<stdin>" : flags.input;
  std::string converted;  // the HLO text of a proto input (tools/common/load_input.h)
  std::vector<InputChunk> chunks;
  // With --split-input-file, a protobuf text-format input is split first and each part
  // converted, as XLA's hlo-translate reads its split lit tests of HloModuleProtos; a part that
  // does not convert fails alone (hlo_opt_split_proto.h).
  SplitProtoParts proto_parts;
  const bool split_proto =
      flags.split_input_file && flags.input_format.value_or(DetectInputFormat(
                                    input_name, input.text())) == InputFormat::kTextProto;
  absl::StatusOr<HloTextInput> input_text =
      split_proto ? absl::StatusOr<HloTextInput>(HloTextInput{input.text(), input_name})
                  : InputAsHloText(input_name, input.text(), flags.input_format, &converted);
  if (!input_text.ok()) {
    PrintError(input_text.status());
    return kExitBadInput;
  }
  const std::string_view text = input_text->text;
  std::string filename = std::move(input_text->filename);

  if (split_proto) {
    proto_parts = ConvertProtoParts(input_name, text);
    chunks = proto_parts.chunks;
    filename = input_name + " (as HLO text)";
  } else if (flags.split_input_file) {
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
        if (split_proto && !proto_parts.errors[k].ok()) {
          run.status = proto_parts.errors[k];
          return;
        }
        run.status = ProcessModule(chunks[k], filename, flags, run.pipeline.get(), run.module,
                                   run.opportunities, run.out);
      },
      [&](size_t k) {
        ModuleRun& run = runs[k];
        if (!run.status.ok()) {
          PrintError(run.status);
          all_ok = false;
          output.ModuleFailed();
          return;
        }
        if (run.pipeline != nullptr) {
          copy_reports.Collect(run.pipeline.get(), *run.module,
                               run.opportunities ? &*run.opportunities : nullptr);
        }
        output.Add(run.out);
      },
      [&](size_t k) {
        buffers.Give(std::move(runs[k].out));
        runs[k] = ModuleRun();
      });
  // A file is only written for a complete success, so a failed run never leaves a partial
  // output behind; standard output still shows the modules that worked. The same for
  // --report=FILE: written only when every module succeeded.
  if (all_ok) {
    if (absl::Status s = copy_reports.Finish(); !s.ok()) return UsageError(StatusText(s));
  }
  if (!output.Finish(all_ok, &error)) return UsageError(error);
  return all_ok ? kExitOk : kExitBadInput;
}

int Main(int argc, char** argv) {
  Flags flags;
  if (absl::Status s = ParseHloOptFlags(argc, argv, &flags); !s.ok()) {
    return UsageError(StatusText(s));
  }
  if (flags.jobs > 0) SetProcessJobs(flags.jobs);  // also for the reports' parallel parsing
  if (flags.help) {
    fmt::print("{}", HloOptHelp());
    return kExitOk;
  }
  const PassRegistry& registry = PassRegistry::Global();
  if (flags.list_passes) return ListPasses(registry);
  // An output that names an input, or two outputs one file, would lose data: refused before
  // anything is read or written (tools/common/output_paths.h). The files of an --xla-dump directory
  // are inputs too.
  const std::vector<std::string> inputs = InputPathsOf(flags);
  if (std::string e = CheckOutputPaths(OutputsOf(flags), inputs); !e.empty()) return UsageError(e);

  // Unknown passes are usage errors: report them before reading any input.
  absl::StatusOr<std::unique_ptr<PassPipeline>> made = MakePipeline(flags);
  if (!made.ok()) return UsageError(StatusText(made.status()));
  std::unique_ptr<PassPipeline> pipeline = *std::move(made);
  CopyReportCollector copy_reports(flags.copy_report);

  if (flags.xla_dump.enabled() && !flags.memory_diff.enabled) {
    flags.memory.options.dataflow = flags.analysis.print.dataflow;  // as --memory-report's
    return RunXlaDump(flags.xla_dump, flags.memory, flags.output);
  }
  if (flags.stage_costs.enabled) return RunStageCosts(flags);  // hlo_opt_stage_costs.h
  if (flags.memory_diff.enabled) {
    flags.memory.options.dataflow = flags.analysis.print.dataflow;  // as for --memory-report
    if (flags.xla_dump.enabled()) {
      return RunXlaDumpMemoryDiff(flags.xla_dump, flags.memory_diff.dump_modules, flags.memory,
                                  MemoryDiffContextOf(flags, true).output);
    }
    return RunMemoryDiff(flags.memory_diff, flags.memory, MemoryDiffContextOf(flags, true));
  }
  if (flags.memory.enabled) return RunMemoryReportOfInputs(flags, pipeline.get(), copy_reports);
  return RunOnModules(flags, copy_reports);
}

}  // namespace
}  // namespace hloscope

int main(int argc, char** argv) {
  return hloscope::RunToolMain("hlo-opt", hloscope::Main, argc, argv, hloscope::kExitBadUsage,
                               hloscope::kExitBadUsage);
}
