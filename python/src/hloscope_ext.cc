// hloscope._hloscope: the C++ libraries as Python objects (docs/python.md). This file keeps to
// what Python needs that the libraries do not do: owning a module with the text it points into,
// turning statuses into hloscope.HloError, releasing the GIL around parsing and analyses, and
// the tools' flag tables for options (so options and their errors are the CLI's). The Python
// side (python/hloscope/__init__.py) wraps the dicts in objects.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_split.h"
#include "analysis/analysis_cache.h"
#include "analysis/dataflow_report.h"
#include "analysis/dataflow_report.pb.h"
#include "analysis/memory/memory_comparison.h"
#include "analysis/memory/memory_context.h"
#include "analysis/memory/memory_diff.h"
#include "analysis/memory/memory_diff.pb.h"
#include "analysis/memory/memory_report.pb.h"
#include "analysis/memory/memory_report_printers.h"
#include "analysis/memory/xla_buffer_assignment.h"
#include "analysis/ordering_query.h"
#include "eval/evaluator.h"
#include "eval/host_io.h"
#include "eval/literal.h"
#include "eval/replicas.h"
#include "fmt/format.h"
#include "hlo/computation.h"
#include "hlo/instruction.h"
#include "hlo/module.h"
#include "hlo/opcode.h"
#include "hlo/printer.h"
#include "hlo/proto_reader.h"
#include "hlo/verifier.h"
#include "passes/assumed_donation.h"
#include "passes/copy_elision_report.pb.h"
#include "passes/copy_report_opportunities.h"
#include "passes/flatten_call_graph.h"
#include "passes/pass_pipeline.h"
#include "passes/pass_registry.h"
#include "passes/pass_report.h"
#include "pipeline/report.h"
#include "pipeline/schedule.h"
#include "pipeline/schedule_csv.h"
#include "pipeline/trace_json.h"
#include "python/src/literal_to_python.h"
#include "python/src/proto_to_python.h"
#include "support/option_error.h"
#include "support/status_text.h"
#include "tools/common/file_io.h"
#include "tools/common/flag_table.h"
#include "tools/common/load_input.h"
#include "tools/common/load_module.h"
#include "tools/common/xla_dump_files.h"
#include "tools/hlo-opt/hlo_opt_analysis.h"
#include "tools/hlo-opt/hlo_opt_memory.h"
#include "tools/hlo-pipeline/hlo_pipeline_flags.h"
#include "tools/hlo-pipeline/hlo_pipeline_run.h"
#include "tools/hlo-run/hlo_run_flags.h"

namespace py = pybind11;

namespace hloscope::python {
namespace {

// How the reports' hints name an option here (support/option_spelling.h): as the keyword of
// memory_report() or memory_diff() that sets it, or the result field that holds what it lists;
// an option Python has no keyword for keeps the library's name.
std::string PythonKeywordOf(std::string_view option) {
  if (option == "opportunities") return "copy_report.opportunities";
  return std::string(option);  // top=, passes=, memory_model= are the keywords themselves
}

// Text from the input (names, metadata, an error quoting a line of a binary file) need not be
// UTF-8: undecodable bytes become U+FFFD rather than failing the call.
py::str Str(std::string_view text) {
  PyObject* o = PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "replace");
  if (o == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(o);
}

// Raises hloscope.HloError(message, kind): the Python class reads file, line and column (or a
// proto's byte offset) from the message, which is what the CLI prints after its prefix.
[[noreturn]] void Raise(const absl::Status& s, std::string_view kind) {
  py::object error_class = py::module_::import("hloscope._errors").attr("HloError");
  PyErr_SetObject(error_class.ptr(), error_class(Str(StatusText(s)), Str(kind)).ptr());
  throw py::error_already_set();
}

[[noreturn]] void RaiseUsage(const std::string& message) {
  py::object error_class = py::module_::import("hloscope._errors").attr("UsageError");
  PyErr_SetObject(error_class.ptr(), error_class(Str(message)).ptr());
  throw py::error_already_set();
}

// A parsed and verified module with the HLO text its names point into, and the input's bytes
// when it was a proto (an HloProto may carry XLA's own buffer assignment).
struct PyModule {
  std::string label;  // for messages: a proto's is "NAME (as HLO text)"
  std::string input;  // the input's name as given (a path, "<bytes>")
  std::string text;   // HLO text (a proto's converted text)
  std::string proto;  // the proto's bytes, or empty
  std::unique_ptr<Module> module;
};

// Reads `bytes` named `label` the way hlo-opt reads a file (tools/common/load_input.h), then parses
// and verifies it with the GIL released.
std::shared_ptr<PyModule> LoadBytes(std::string bytes, std::string label,
                                    std::optional<std::string> input_format) {
  std::optional<InputFormat> forced;
  if (input_format) {
    forced = ParseInputFormatName(*input_format);
    if (!forced) RaiseUsage("unknown input format '" + *input_format + "' (hlo, pb or pbtxt)");
  }
  auto m = std::make_shared<PyModule>();
  m->label = label;
  m->input = std::move(label);
  absl::Status error;
  {
    py::gil_scoped_release release;
    std::string converted;
    absl::StatusOr<HloTextInput> text = InputAsHloText(m->label, bytes, forced, &converted);
    if (!text.ok()) {
      error = text.status();
    } else {
      std::string filename = text->filename;
      if (converted.empty()) {
        m->text = std::move(bytes);
      } else {
        m->text = std::move(converted);
        m->proto = std::move(bytes);
      }
      absl::StatusOr<std::unique_ptr<Module>> parsed =
          ParseAndVerify({.text = m->text, .filename = filename});
      if (parsed.ok()) {
        m->module = *std::move(parsed);
        // The module's name() views the text; label is only for messages.
        m->label = filename;
      } else {
        error = parsed.status();
      }
    }
  }
  if (!error.ok()) Raise(error, "parse");
  return m;
}

std::shared_ptr<PyModule> LoadFile(const std::string& path,
                                   std::optional<std::string> input_format) {
  std::string bytes, read_error;
  if (!ReadInput(path, &bytes, &read_error)) Raise(absl::NotFoundError(read_error), "read");
  return LoadBytes(std::move(bytes), path, std::move(input_format));
}

// A fresh copy of the module (the passes and flatten-call-graph change modules in place; the
// Python Module stays as loaded).
absl::StatusOr<std::unique_ptr<Module>> Reparse(const PyModule& m) {
  return ParseAndVerify({.text = m.text, .filename = m.label});
}

py::dict InstructionToPython(const Instruction& i) {
  py::dict d;
  d["name"] = Str(i.name());
  d["opcode"] = Str(OpcodeName(i.opcode()));
  d["shape"] = Str(i.shape().ToString());
  py::list operands;
  for (const Instruction* o : i.operands()) operands.append(Str(o->name()));
  d["operands"] = operands;
  const Metadata* md = i.metadata();
  d["op_name"] = Str(md != nullptr ? md->op_name : std::string_view());
  d["source_file"] = Str(md != nullptr ? md->source_file : std::string_view());
  d["source_line"] = md != nullptr && md->source_line >= 0 ? py::object(py::int_(md->source_line))
                                                           : py::object(py::none());
  d["text"] = Str(PrintInstruction(i));
  return d;
}

py::list Computations(const PyModule& m) {
  py::list out;
  for (const Computation* c : m.module->computations()) {
    py::dict d;
    d["name"] = Str(c->name());
    d["is_entry"] = c == m.module->entry();
    py::list instructions;
    for (const Instruction* i : c->instructions()) instructions.append(InstructionToPython(*i));
    d["instructions"] = instructions;
    out.append(d);
  }
  return out;
}

void Verify(const PyModule& m) {
  absl::Status s;
  {
    py::gil_scoped_release release;
    VerifierOptions options;
    options.source_text = m.text;
    s = VerifyModule(*m.module, options);
  }
  if (!s.ok()) Raise(s, "verify");
}

// hlo-opt's memory flags parsed from `args` ("--memory-model=xla", ...), checked together as
// hlo-opt checks them: a bad option is the CLI's usage message.
struct ParsedMemoryFlags {
  MemoryFlags memory;
  AnalysisFlags analysis;
};

ParsedMemoryFlags ParseMemoryArgs(const std::vector<std::string>& args) {
  ParsedMemoryFlags f;
  FlagTable table({
      .unknown = [](std::string_view arg,
                    std::string_view) { return "unknown option '" + std::string(arg) + "'"; },
      .takes_no_value =
          [](std::string_view name) { return "option '" + std::string(name) + "' takes no value"; },
  });
  AddAnalysisFlags(table, f.analysis);
  AddMemoryFlags(table, f.memory, f.analysis);
  std::vector<const char*> argv = {"hloscope", "--memory-report", "--format=json"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  if (absl::Status s = table.Parse(static_cast<int>(argv.size()), argv.data()); !s.ok()) {
    RaiseUsage(StatusText(s));
  }
  if (std::string e = CheckMemoryFlags(f.memory, f.analysis, false, 1); !e.empty()) RaiseUsage(e);
  f.memory.options.dataflow = f.analysis.print.dataflow;
  return f;
}

// The comparison behind a report, kept for its HTML page (printed only when asked for).
struct ReportHandle {
  // The timeline points at instructions of the profiled modules, whose names view the text.
  std::shared_ptr<const PyModule> source;
  std::unique_ptr<Module> before, after;
  MemoryComparison comparison;
  std::string Html() const {
    const MemoryComparison& c = comparison;
    return MemoryReportHtml(c.before, c.after_or_null(), c.passes,
                            c.pipeline ? &*c.pipeline : nullptr, &c.xla, std::nullopt, {},
                            PythonKeywordOf);
  }
};

// What hlo-opt --memory-report --format=json prints (`json`), and the comparison it printed.
struct MemoryReportResult {
  std::string json;
  bool comparison = false;  // with passes: a report::MemoryComparison
  std::shared_ptr<ReportHandle> handle;
};

MemoryReportResult MemoryReportOf(const std::shared_ptr<PyModule>& module,
                                  const std::vector<std::string>& args, const std::string& passes) {
  const PyModule& m = *module;
  ParsedMemoryFlags f = ParseMemoryArgs(args);
  std::unique_ptr<PassPipeline> pipeline;
  if (!passes.empty()) {
    PassRegistry registry;
    if (absl::Status s = RegisterBuiltinPasses(registry); !s.ok()) Raise(s, "passes");
    absl::StatusOr<std::unique_ptr<PassPipeline>> built = BuildPipeline(passes, registry);
    if (!built.ok()) RaiseUsage(StatusText(built.status()));
    pipeline = *std::move(built);
  }
  // XLA's own assignment: --xla-buffer-assignment=FILE, or the one in an HloProto input.
  std::string xla_contents, xla_filename;
  bool xla_from_dump = false;
  if (!f.memory.xla_buffer_assignment.empty()) {
    std::string error;
    if (!ReadInput(f.memory.xla_buffer_assignment, &xla_contents, &error)) {
      Raise(absl::NotFoundError(error), "read");
    }
    xla_filename = f.memory.xla_buffer_assignment;
  } else if (!m.proto.empty() && HasXlaBufferAssignment(m.proto)) {
    xla_contents = m.proto;
    xla_filename = m.input;  // as hlo-opt names it: the file, not its HLO text
    xla_from_dump = true;
  }
  absl::Status error;
  std::string json, warning;
  auto handle = std::make_shared<ReportHandle>();
  handle->source = module;
  {
    py::gil_scoped_release release;
    error = [&]() -> absl::Status {
      // As hlo-opt: the analyses need one call site per control-flow callee.
      absl::StatusOr<std::unique_ptr<Module>> before = Reparse(m);
      if (!before.ok()) return before.status();
      if (absl::Status s = FlattenCallGraph().Run(**before).status(); !s.ok()) return s;
      std::unique_ptr<Module> after;
      // As hlo-opt: with assume_donated, `after` is the donated module (then the passes).
      if (pipeline != nullptr || f.memory.assume_donated) {
        absl::StatusOr<std::unique_ptr<Module>> copy = Reparse(m);
        if (!copy.ok()) return copy.status();
        after = *std::move(copy);
        if (absl::Status s = FlattenCallGraph().Run(*after).status(); !s.ok()) return s;
        if (f.memory.assume_donated) {
          absl::StatusOr<DonationResult> d = AssumeDonated(*after, *f.memory.assume_donated);
          if (!d.ok()) {
            return absl::InvalidArgumentError("option '--assume-donated': " +
                                              StatusText(d.status()));
          }
        }
        if (pipeline != nullptr) {
          if (absl::Status s = pipeline->Run(*after).status(); !s.ok()) return s;
        }
      }
      MemoryOptions options = f.memory.options;
      options.list_allocations = !xla_contents.empty();
      // As hlo-opt: beside XLA's assignment or the listing of ours the model runs anyway.
      options.modeled_xla_peak =
          options.modeled_xla_peak || !xla_contents.empty() || f.memory.buffer_assignment;
      const std::vector<const Module*> after_modules = {after.get()};
      const std::string label = !f.memory.assume_donated
                                    ? passes
                                    : (passes.empty() ? "" : "--passes=" + passes + " ") +
                                          "--assume-donated=" + f.memory.assume_donated_text;
      absl::StatusOr<MemoryComparison> c =
          ProfileBeforeAfter({before->get()}, after ? &after_modules : nullptr, label, options,
                             f.memory.pipeline_schedule, f.memory.microbatches);
      if (!c.ok()) return c.status();
      if (!xla_contents.empty()) {
        // As hlo-opt: under the xla model ours is the modeled assignment, of the module as
        // given (unflattened, as XLA assigned it).
        const bool with_model = options.model == MemoryOptions::Model::kXla;
        std::unique_ptr<Module> given;
        if (with_model) {
          absl::StatusOr<std::unique_ptr<Module>> g = Reparse(m);
          if (!g.ok()) return g.status();
          given = *std::move(g);
        }
        absl::Status s = AddXlaBufferAssignment(*c, with_model ? *given : **before, xla_contents,
                                                xla_filename, options.top_buffers, with_model,
                                                f.memory.alignment_given ? f.memory.alignment : 0);
        if (!s.ok() && !xla_from_dump) return s;
        if (!s.ok()) warning = "XLA's buffer assignment in the dump is not shown: " + StatusText(s);
      }
      absl::StatusOr<std::string> j =
          PrintMemoryComparison(*c, {.format = MemoryFormat::kJson,
                                     .buffer_assignment = false,
                                     .memory_limit = f.memory.memory_limit,
                                     .warnings = MemoryContextWarnings(**before)});
      if (!j.ok()) return j.status();
      json = *std::move(j);
      handle->comparison = *std::move(c);
      handle->before = *std::move(before);
      handle->after = std::move(after);
      return absl::OkStatus();
    }();
  }
  if (!error.ok()) Raise(error, "memory_report");
  if (!warning.empty()) {
    PyErr_WarnEx(PyExc_RuntimeWarning, warning.c_str(), 1);
  }
  return {std::move(json), pipeline != nullptr, std::move(handle)};
}

// hlo-opt --memory-diff BEFORE AFTER --format=json with the memory flags in `args`: the JSON
// (analysis/memory/memory_diff.proto) and the HTML page of the same diff.
py::tuple MemoryDiffOf(const PyModule& before, const PyModule& after,
                       const std::vector<std::string>& args) {
  ParsedMemoryFlags f = ParseMemoryArgs(args);
  absl::Status error;
  std::string json, html;
  bool saturated = false;
  {
    py::gil_scoped_release release;
    error = [&]() -> absl::Status {
      // As hlo-opt: the profiler needs one call site per control-flow callee.
      absl::StatusOr<std::unique_ptr<Module>> b = Reparse(before);
      if (!b.ok()) return b.status();
      absl::StatusOr<std::unique_ptr<Module>> a = Reparse(after);
      if (!a.ok()) return a.status();
      for (Module* m : {b->get(), a->get()}) {
        if (absl::Status s = FlattenCallGraph().Run(*m).status(); !s.ok()) return s;
      }
      absl::StatusOr<MemoryDiff> diff =
          DiffModules(**b, **a, f.memory.options, before.label, after.label);
      if (!diff.ok()) return diff.status();
      saturated = diff->saturated();
      for (const MemoryFormat format : {MemoryFormat::kJson, MemoryFormat::kHtml}) {
        absl::StatusOr<std::string> text =
            PrintMemoryDiff(*diff, {.format = format,
                                    .before_label = before.label,
                                    .after_label = after.label,
                                    .option_spelling = PythonKeywordOf});
        if (!text.ok()) return text.status();
        (format == MemoryFormat::kJson ? json : html) = *std::move(text);
      }
      return absl::OkStatus();
    }();
  }
  if (!error.ok()) Raise(error, "memory_diff");
  if (saturated) {
    // As hlo-opt, which writes the diff but does not succeed: the JSON says which saturated.
    PyErr_WarnEx(PyExc_RuntimeWarning,
                 "a figure of the memory diff saturated at the int64 maximum (see saturated)", 1);
  }
  report::MemoryDiff message;
  return py::make_tuple(JsonReportToPython(json, message), html);
}

// Runs `passes` on a copy of the module: the module after them (HLO text), whether any changed
// it, and the copy reports of the passes that write one (passes/copy_elision_report.proto).
py::tuple RunPasses(const PyModule& m, const std::string& passes) {
  PassRegistry registry;
  if (absl::Status s = RegisterBuiltinPasses(registry); !s.ok()) Raise(s, "passes");
  absl::StatusOr<std::unique_ptr<PassPipeline>> pipeline = BuildPipeline(passes, registry);
  if (!pipeline.ok()) RaiseUsage(StatusText(pipeline.status()));
  absl::Status error;
  std::string text, summary;
  bool changed = false, any_report = false;
  report::CopyElisionReport document;
  {
    py::gil_scoped_release release;
    error = [&]() -> absl::Status {
      absl::StatusOr<std::unique_ptr<Module>> copy = Reparse(m);
      if (!copy.ok()) return copy.status();
      absl::StatusOr<bool> c = (*pipeline)->Run(**copy);
      if (!c.ok()) return c.status();
      changed = *c;
      for (size_t i = 0; i < (*pipeline)->size(); ++i) {
        if (std::unique_ptr<PassReport> r = (*pipeline)->pass(i)->LastReport()) {
          r->AddTo((*copy)->name(), document);
          summary += r->Summary((*copy)->name());
          any_report = true;
        }
      }
      // The copy opportunities, as hlo-opt --report has them (JSON: opportunities; the
      // summary: the one-line hint).
      if (std::optional<CopyOpportunities> found =
              FindCopyReportOpportunities(pipeline->get(), **copy, [&] { return Reparse(m); })) {
        AddCopyReportOpportunities((*copy)->name(), *found, document, PythonKeywordOf);
        summary +=
            CopyReportOpportunitiesText((*copy)->name(), *found, /*list=*/false, PythonKeywordOf);
      }
      text = PrintModule(**copy);
      return absl::OkStatus();
    }();
  }
  if (!error.ok()) Raise(error, "passes");
  return py::make_tuple(text, changed,
                        any_report ? py::object(MessageToPython(document)) : py::object(py::none()),
                        summary);
}

py::object AnalysisReport(const PyModule& m, bool buffers, bool bitcast_defines_value) {
  absl::Status error;
  std::string json;
  {
    py::gil_scoped_release release;
    AnalysisPrintOptions options{.format = ReportFormat::kJson};
    options.dataflow.bitcast_defines_value = bitcast_defines_value;
    absl::StatusOr<std::string> j =
        buffers ? PrintBuffers(*m.module, options) : PrintDataflow(*m.module, options);
    if (j.ok()) json = *std::move(j);
    error = j.status();
  }
  if (!error.ok()) Raise(error, "analysis");
  if (buffers) {
    report::BufferReport message;
    return JsonReportToPython(json, message);
  }
  report::DataflowReport message;
  return JsonReportToPython(json, message);
}

py::dict DumpFileToPython(const DumpFile& f) {
  py::dict d;
  d["path"] = f.path;
  d["relative"] = f.relative;
  d["kind"] = std::string(DumpFileKindName(f.name.kind));
  d["step"] = f.name.step;
  d["pipeline"] = f.name.pipeline;
  d["pass_name"] = f.name.pass;
  d["next_pass"] = f.name.next_pass;
  d["platform"] = f.name.platform;
  return d;
}

py::dict ScanDump(const std::string& dir) {
  absl::StatusOr<DumpDirectory> scanned;
  {
    py::gil_scoped_release release;
    scanned = ScanDumpDirectory(dir);
  }
  if (!scanned.ok()) Raise(scanned.status(), "dump");
  auto optional_file = [](const std::optional<DumpFile>& f) {
    return f ? py::object(DumpFileToPython(*f)) : py::object(py::none());
  };
  py::list modules;
  for (const DumpModule& m : scanned->modules) {
    py::dict d;
    d["id"] = m.id;
    d["name"] = m.name;
    d["source"] = m.source;
    d["timestamp"] = m.timestamp;
    d["origin"] = m.origin;
    d["before"] = optional_file(m.before);
    d["after"] = optional_file(m.after);
    d["buffer_assignment"] = optional_file(m.buffer_assignment);
    d["memory_usage_report"] = optional_file(m.memory_usage_report);
    py::list passes;
    for (const DumpFile& f : m.passes) passes.append(DumpFileToPython(f));
    d["passes"] = passes;
    d["other_files"] = m.other_files;
    modules.append(d);
  }
  py::dict out;
  out["path"] = scanned->path;
  out["modules"] = modules;
  out["collisions"] = scanned->collisions;
  out["recompiled"] = scanned->recompiled;
  out["other_module_files"] = scanned->other_module_files;
  out["unrecognized"] = scanned->unrecognized;
  return out;
}

// hlo-pipeline's flags in `args`, parsed by its flag table; flags that print or write
// something the Python side returns instead (grid, trace, dump_csv), or that read other
// inputs, are refused. `what` names the call in the message.
pipeline::PipelineFlags ParsePipelineArgs(const std::vector<std::string>& args,
                                          std::string_view what) {
  std::vector<const char*> argv = {"hloscope"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  absl::StatusOr<pipeline::PipelineFlags> parsed =
      pipeline::ParsePipelineFlags(static_cast<int>(argv.size()), argv.data());
  if (!parsed.ok()) RaiseUsage(StatusText(parsed.status()));
  const pipeline::PipelineFlags& f = *parsed;
  if (f.grid || f.grid_pytorch || f.help || !f.trace_path.empty() || !f.dump_csv_path.empty() ||
      !f.from_hlo.empty() || !f.stage_costs_path.empty()) {
    RaiseUsage(std::string(what) +
               " takes hlo-pipeline's schedule, cost and memory flags (not grid, grid_pytorch, "
               "trace, dump_csv, from_hlo or stage_costs: the result has the grid, the trace "
               "and the CSV)");
  }
  return *parsed;
}

// One simulated schedule as the Python side sees it: what --json prints, the CSV --dump-csv
// writes, the Chrome trace --trace writes, and the two grids (or why a grid cannot be drawn).
py::dict RunToPython(const pipeline::PipelineFlags& f, const pipeline::ScheduleRun& run) {
  const pipeline::ReportOptions report = pipeline::PipelineReportOptions(f, false);
  py::dict d;
  d["summary"] = pipeline::SummaryJson(run.schedule, run.sim, report);
  d["csv"] = pipeline::DumpScheduleCsv(pipeline::DropIdle(run.schedule));
  pipeline::TraceOptions trace;
  trace.size_unit = report.sizes_in_bytes ? "bytes" : "stage-equivalents";
  d["trace"] = pipeline::ChromeTraceJson(run.schedule, run.sim, trace);
  for (const bool pytorch : {false, true}) {
    absl::StatusOr<std::string> grid = pipeline::ScheduleGridText(run, pytorch);
    d[pytorch ? "grid_pytorch" : "grid"] = grid.ok() ? *grid : std::string();
    d[pytorch ? "grid_pytorch_error" : "grid_error"] =
        grid.ok() ? std::string() : StatusText(grid.status());
  }
  return d;
}

// hlo-pipeline --schedule=NAME --json with the flags in `args` (RunToPython's dict).
py::dict SimulatePipeline(const std::vector<std::string>& args) {
  const pipeline::PipelineFlags f = ParsePipelineArgs(args, "simulate_pipeline");
  if (f.schedule.empty() || !f.compare.empty()) {
    RaiseUsage("simulate_pipeline takes one schedule (compare_pipelines takes several)");
  }
  if (std::optional<std::string> bad = pipeline::CheckScheduleNames(f, {f.schedule})) {
    RaiseUsage(*bad);
  }
  absl::StatusOr<pipeline::ScheduleRun> run;
  {
    py::gil_scoped_release release;
    run = pipeline::SimulateSchedule(f, {}, f.schedule);
  }
  if (!run.ok()) Raise(run.status(), "pipeline");
  return RunToPython(f, *run);
}

// hlo-pipeline --compare=NAMES --json: the comparison's JSON, and each schedule that ran as
// RunToPython's dict (None where it failed; the JSON says why).
py::tuple ComparePipelines(const std::vector<std::string>& args) {
  const pipeline::PipelineFlags f = ParsePipelineArgs(args, "compare_pipelines");
  if (f.compare.empty() || !f.schedule.empty()) {
    RaiseUsage("compare_pipelines takes a list of schedules (simulate_pipeline takes one)");
  }
  if (std::optional<std::string> bad = pipeline::CheckScheduleNames(f, f.compare)) {
    RaiseUsage(*bad);
  }
  pipeline::ScheduleComparison c;
  {
    py::gil_scoped_release release;
    c = pipeline::CompareSchedules(f, {}, f.compare);
  }
  py::list runs;
  for (const std::optional<pipeline::ScheduleRun>& run : c.runs) {
    runs.append(run ? py::object(RunToPython(f, *run)) : py::object(py::none()));
  }
  return py::make_tuple(pipeline::CompareJson(c.entries, pipeline::PipelineReportOptions(f, false)),
                        runs);
}

// hlo-opt --ordering-query=Q for each query (analysis/ordering_query.h): the line each answer
// prints, in order. A malformed query is a UsageError; a name, index or operand the module
// lacks (or a position holding several values in the union form) an HloError. The library
// names the option ordering_query, which is the Python method's name too.
std::vector<std::string> OrderingQueries(const PyModule& m, const std::vector<std::string>& texts,
                                         bool ssa_form, bool bitcast_defines_value) {
  auto python_spelling = [](std::string_view option) { return std::string(option); };
  std::vector<OrderingQuery> queries;
  for (const std::string& text : texts) {
    absl::StatusOr<OrderingQuery> q = ParseOrderingQuery(text);
    if (!q.ok()) RaiseUsage(StatusText(RespellOption(q.status(), python_spelling)));
    queries.push_back(*std::move(q));
  }
  absl::Status error;
  std::string text;
  {
    py::gil_scoped_release release;
    error = [&]() -> absl::Status {
      AnalysisCache analyses(*m.module);
      DataflowOptions options;
      options.ssa_form = ssa_form;
      options.bitcast_defines_value = bitcast_defines_value;
      absl::StatusOr<const DataflowAnalysis*> flow = analyses.Dataflow(options);
      if (!flow.ok()) return flow.status();
      absl::StatusOr<const ExecutionOrdering*> ordering = analyses.Ordering();
      if (!ordering.ok()) return ordering.status();
      absl::StatusOr<std::string> answered = AnswerOrderingQueries(**flow, **ordering, queries);
      if (!answered.ok()) return RespellOption(answered.status(), python_spelling);
      text = *std::move(answered);
      return absl::OkStatus();
    }();
  }
  if (!error.ok()) Raise(error, "analysis");
  std::vector<std::string> lines;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    lines.emplace_back(line);
  }
  return lines;
}

// The keyword of Module.run that lifts an interpreter's refusal (the EvalOptions field it
// records, support/option_error.h), as hlo-run names its flag.
std::string RunKeywordOf(std::string_view option) {
  return option == "rng_seed"           ? "rng_seed=N"
         : option == "host_io"          ? "host_io=\"seeded\""
         : option == "max_bytes"        ? "max_bytes"
         : option == "max_steps"        ? "max_steps"
         : option == "elided_constants" ? "elided_constants=\"seeded\""
         : option == "custom_calls"     ? "custom_calls=\"opaque\""
         : option == "mixed_precision"  ? "mixed_precision=\"convert\""
         : option == "rng_default"      ? "rng_default=\"philox\""
         : option == "rng_empty_range"  ? "rng_empty_range=\"backend\""
                                        : "";
}

[[noreturn]] void RaiseCannotRun(const absl::Status& s) {
  Raise(RespellOption(s, RunKeywordOf), "run");
}

// hlo-run's flags in `args`, parsed by its own table; the ones about files and printing are
// the CLI's business (`what` names the call in the message).
RunFlags ParseRunArgs(const std::vector<std::string>& args, std::string_view what) {
  RunFlags f;
  std::vector<std::string> storage = {"hloscope"};
  for (const std::string& a : args) storage.push_back(a);
  std::vector<char*> argv;
  for (std::string& a : storage) argv.push_back(a.data());
  if (absl::Status s = RunFlagTable(f).Parse(static_cast<int>(argv.size()), argv.data()); !s.ok()) {
    RaiseUsage(StatusText(s));
  }
  if (f.compare || f.split_input_file || f.jobs != 0 || !f.inputs.empty() || f.print_all ||
      f.help || !f.files.empty()) {
    RaiseUsage(std::string(what) +
               " takes hlo-run's run options (not compare, split_input_file, jobs, inputs, "
               "print_all or help: the arguments are the call's, the outputs its result)");
  }
  return f;
}

// A fresh copy of the module with hlo-run's --assume-donated applied (the run's buffer mode
// gives a donated parameter's storage to its output); the Python Module stays as loaded.
std::unique_ptr<Module> RunnableCopy(const PyModule& m, const RunFlags& flags) {
  absl::StatusOr<std::unique_ptr<Module>> copy = Reparse(m);
  if (!copy.ok()) Raise(copy.status(), "parse");
  if (flags.assume_donated) {
    absl::StatusOr<DonationResult> d = AssumeDonated(**copy, *flags.assume_donated);
    if (!d.ok()) {
      RaiseUsage("option '--assume-donated': " + std::string(StatusText(d.status())));
    }
  }
  return *std::move(copy);
}

// The entry's arguments: `texts` parsed against the parameters' shapes (the literal syntax of
// hlo-run --inputs, one per parameter), or seeded random ones as hlo-run makes them.
std::vector<eval::Literal> RunArguments(const Module& module,
                                        const std::optional<std::vector<std::string>>& texts,
                                        uint64_t seed) {
  if (!texts) return eval::RandomArguments(module, seed);
  const Computation& entry = *module.entry();
  if (static_cast<int64_t>(texts->size()) != entry.parameter_count()) {
    RaiseUsage(fmt::format("{} arguments for {} entry parameters", texts->size(),
                           entry.parameter_count()));
  }
  std::vector<eval::Literal> args;
  for (size_t i = 0; i < texts->size(); ++i) {
    const Instruction& p = *entry.parameter(static_cast<int64_t>(i));
    absl::StatusOr<eval::Literal> lit = eval::ParseLiteral((*texts)[i], p.shape());
    if (!lit.ok()) {
      RaiseUsage(fmt::format("argument {} ({}): {}", i, p.shape().ToString(false),
                             StatusText(lit.status())));
    }
    args.push_back(*std::move(lit));
  }
  return args;
}

// One argument list per replica (seed + R, as hlo-run --replicas gives them; the same given
// arguments to each), or one without replicas.
std::vector<std::vector<eval::Literal>> ReplicaArguments(
    const Module& module, const std::optional<std::vector<std::string>>& texts,
    const RunFlags& flags) {
  std::vector<std::vector<eval::Literal>> args;
  for (int64_t r = 0; r < std::max<int64_t>(flags.replicas, 1); ++r) {
    args.push_back(RunArguments(module, texts, flags.seed + static_cast<uint64_t>(r)));
  }
  return args;
}

// Runs `module` as hlo-run does: each replica's output (one without replicas).
absl::StatusOr<std::vector<eval::Literal>> Execute(
    const Module& module, const std::vector<std::vector<eval::Literal>>& args,
    const RunFlags& flags, eval::EvalMode mode, std::vector<eval::OutsideWrite>* writes) {
  eval::EvalOptions options = EvalOptionsOf(flags, mode);
  options.outside_writes = writes;
  if (flags.replicas > 0) return eval::EvaluateReplicas(module, args, options);
  absl::StatusOr<eval::Literal> out = eval::Evaluate(module, args[0], options);
  if (!out.ok()) return out.status();
  std::vector<eval::Literal> outs;
  outs.push_back(*std::move(out));
  return outs;
}

// hlo-run FILE [--inputs] with the flags in `args`: the output as Python values, or with
// replicas a list of each replica's.
py::object RunModule(const PyModule& m, const std::vector<std::string>& args,
                     const std::optional<std::vector<std::string>>& arguments) {
  const RunFlags flags = ParseRunArgs(args, "run");
  std::unique_ptr<Module> module = RunnableCopy(m, flags);
  if (absl::Status s = eval::CheckRunnable(*module, EvalOptionsOf(flags, flags.mode)); !s.ok()) {
    RaiseCannotRun(s);
  }
  const std::vector<std::vector<eval::Literal>> inputs =
      ReplicaArguments(*module, arguments, flags);
  absl::StatusOr<std::vector<eval::Literal>> outs;
  {
    py::gil_scoped_release release;
    std::vector<eval::OutsideWrite> writes;  // host_io="seeded": not returned yet (docs/python.md)
    outs = Execute(*module, inputs, flags, flags.mode, &writes);
  }
  if (!outs.ok()) RaiseCannotRun(outs.status());
  if (flags.replicas == 0) return LiteralToPython(outs->front());
  py::list replicas;
  for (const eval::Literal& out : *outs) replicas.append(LiteralToPython(out));
  return replicas;
}

std::string_view ModeName(eval::EvalMode mode) {
  return mode == eval::EvalMode::kValue ? "value" : "buffer";
}

// hlo-run --compare A B with the flags in `args`: both modules on the same arguments (A's
// parameters must fit B's), A in mode_a and B in mode_b; a dict of whether they match, the
// first difference (hlo-run's words) and the elements compared.
py::dict CompareModules(const PyModule& a, const PyModule& b, const std::vector<std::string>& args,
                        const std::optional<std::vector<std::string>>& arguments) {
  const RunFlags flags = ParseRunArgs(args, "compare");
  std::unique_ptr<Module> ma = RunnableCopy(a, flags);
  std::unique_ptr<Module> mb = RunnableCopy(b, flags);
  for (const Module* m : {ma.get(), mb.get()}) {
    if (absl::Status s = eval::CheckRunnable(*m, EvalOptionsOf(flags, flags.mode_a)); !s.ok()) {
      RaiseCannotRun(s);
    }
  }
  if (absl::Status s = CheckComparableEntries(*ma, a.label, *mb, b.label); !s.ok()) {
    Raise(s, "run");
  }
  const std::vector<std::vector<eval::Literal>> inputs = ReplicaArguments(*ma, arguments, flags);
  absl::StatusOr<std::vector<eval::Literal>> out_a, out_b;
  // host_io="seeded": A and B read the same stream, and their writes to outside are compared.
  std::vector<eval::OutsideWrite> writes_a, writes_b;
  {
    py::gil_scoped_release release;
    out_a = Execute(*ma, inputs, flags, flags.mode_a, &writes_a);
    if (out_a.ok()) out_b = Execute(*mb, inputs, flags, flags.mode_b, &writes_b);
  }
  if (!out_a.ok()) RaiseCannotRun(out_a.status());
  if (!out_b.ok()) RaiseCannotRun(out_b.status());
  py::dict d;
  d["mode_a"] = std::string(ModeName(flags.mode_a));
  d["mode_b"] = std::string(ModeName(flags.mode_b));
  d["replicas"] = flags.replicas;
  int64_t elements = 0;
  std::optional<std::string> difference;
  for (size_t r = 0; r < out_a->size() && !difference; ++r) {
    difference = eval::FirstDifference((*out_a)[r], (*out_b)[r]);
    if (difference && flags.replicas > 0)
      *difference = fmt::format("replica {}: {}", r, *difference);
    elements += eval::TotalElementCount((*out_a)[r]);
  }
  if (!difference) {
    if (std::optional<std::string> w =
            eval::FirstOutsideWriteDifference(writes_a, writes_b, flags.replicas > 0)) {
      difference = "outside writes: " + *w;
    }
  }
  d["equal"] = !difference.has_value();
  d["difference"] = difference ? py::object(py::str(*difference)) : py::object(py::none());
  d["elements"] = difference ? py::object(py::none()) : py::object(py::int_(elements));
  return d;
}

}  // namespace

PYBIND11_MODULE(_hloscope, m) {
  m.doc() = "hloscope's C++ libraries; use the hloscope package, not this module.";
  py::class_<ReportHandle, std::shared_ptr<ReportHandle>>(m, "_MemoryComparison")
      .def("html",
           [](const ReportHandle& h) {
             py::gil_scoped_release release;
             return h.Html();
           })
      // The timeline as hlo-opt --format=csv prints it (one row per step).
      .def("csv", [](const ReportHandle& h) {
        absl::StatusOr<std::string> csv;
        {
          py::gil_scoped_release release;
          csv = PrintMemoryComparison(h.comparison, {.format = MemoryFormat::kCsv});
        }
        if (!csv.ok()) Raise(csv.status(), "memory_report");
        return *csv;
      });
  py::class_<PyModule, std::shared_ptr<PyModule>>(m, "_Module")
      .def_property_readonly("name", [](const PyModule& p) { return Str(p.module->name()); })
      .def_property_readonly("label", [](const PyModule& p) { return Str(p.label); })
      .def_property_readonly("from_proto", [](const PyModule& p) { return !p.proto.empty(); })
      .def("computations", &Computations)
      .def("verify", &Verify)
      .def("print", [](const PyModule& p) { return Str(PrintModule(*p.module)); })
      .def(
          "memory_report",
          [](const std::shared_ptr<PyModule>& p, const std::vector<std::string>& args,
             const std::string& passes) {
            MemoryReportResult r = MemoryReportOf(p, args, passes);
            py::object data;
            if (r.comparison) {
              report::MemoryComparison message;
              data = JsonReportToPython(r.json, message);
            } else {
              report::MemoryReport message;
              data = JsonReportToPython(r.json, message);
            }
            return py::make_tuple(data, r.handle);
          },
          py::arg("args"), py::arg("passes"))
      // The same work as memory_report with the JSON text as the CLI writes it and no Python
      // objects: bench/python_bench.py's in-process C++ reference.
      .def(
          "memory_report_json",
          [](const std::shared_ptr<PyModule>& p, const std::vector<std::string>& args,
             const std::string& passes) { return MemoryReportOf(p, args, passes).json; },
          py::arg("args"), py::arg("passes"))
      .def("run_passes", &RunPasses)
      .def(
          "dataflow",
          [](const PyModule& p, bool bitcast) { return AnalysisReport(p, false, bitcast); },
          py::arg("bitcast_defines_value"))
      .def(
          "buffers",
          [](const PyModule& p, bool bitcast) { return AnalysisReport(p, true, bitcast); },
          py::arg("bitcast_defines_value"))
      .def("ordering_queries", &OrderingQueries, py::arg("queries"), py::arg("ssa_form"),
           py::arg("bitcast_defines_value"))
      .def("run", &RunModule, py::arg("args"), py::arg("arguments"))
      .def("compare", &CompareModules, py::arg("other"), py::arg("args"), py::arg("arguments"));
  m.def(
      "load_bytes",
      [](py::bytes data, std::string label, std::optional<std::string> input_format) {
        return LoadBytes(std::string(data), std::move(label), std::move(input_format));
      },
      py::arg("data"), py::arg("label"), py::arg("input_format") = py::none());
  m.def("load_file", &LoadFile, py::arg("path"), py::arg("input_format") = py::none());
  m.def("scan_dump", &ScanDump);
  m.def("simulate_pipeline", &SimulatePipeline);
  m.def("compare_pipelines", &ComparePipelines);
  m.def("memory_diff", &MemoryDiffOf);
  // A dump's module file, text or .hlo.pb, read by content like any other file (a compressed
  // .hlo.pb.gz is not read from Python yet: docs/python.md).
  m.def("load_dump_file", [](const std::string& path) { return LoadFile(path, std::nullopt); });
}

}  // namespace hloscope::python
