// hlo_bench: every registered stage (parse, verify, parse+verify, print, dce, ...) over one
// or more HLO text files (Google Benchmark). bench/run drives it, one child process per input
// file, and prints the Markdown table the README quotes; see `bench/run --help`.
//
//   hlo_bench [--stages=a,b] [--label=NAME] FILE... [--benchmark_* flags]
//   hlo_bench --list_stages
//   hlo_bench --make_concat=OUT [--corpus_dir=DIR] [--bulk_dir=DIR] [--concat_bytes=N]
//
// A file may hold several modules split by `// -----` lines; every stage runs over all of
// them, one after the other. Benchmarks are named `<stage>/<label>` (label: the file name).
//
// What each stage times, per iteration (the text is read into memory before; nothing below
// counts file I/O):
//   parse         ParseModule of every module of the text (destroying the modules included).
//   verify        VerifyModule of modules parsed before the timing.
//   parse+verify  ParseModule + VerifyModule (issue 2's throughput figure).
//   print         AppendModule (canonical style, metadata on) of modules parsed before, into
//                 a string reused across iterations.
//   dce           the `dce` pass from PassRegistry on freshly parsed modules (the parse and
//                 the destruction are outside the timing: PauseTiming).
//   copy-elision  the `copy-elision` pass with its analyses (dataflow, alias, ordering, live
//                 ranges) on freshly parsed modules, flatten-call-graph run before untimed.
//   memory-profile  ProfileModule (analysis/memory: alias analysis, live ranges, peak, stages,
//                 activations; liveness model, no heap) on modules flattened before, untimed.
//   xla-assignment   AssignLikeXla: XLA's buffer assignment as modeled (live ranges over the
//                    whole module, MaybeAssignBuffer, both XLA heap orders)
//   heap-simulation  ProfileModule with --memory-model=xla and the best-fit heap (layout,
//                 allocation summary): minus memory-profile, what the heap costs.
// Adding a stage is one line in kStages below (a pass: one line calling RunPassStage).
//
// Time: CPU time of the process (MeasureProcessCPUTime), so a shared machine does not
// inflate it. Counters on every benchmark:
//   instructions, modules, size_bytes   of the input (all modules together)
//   IR_bytes_per_instr                  Module::ComputeMemoryStats of the parsed modules:
//                                       every in-memory IR byte except metadata strings,
//                                       divided by the instruction count
//   peak_rss_bytes                      peak resident set size of this process during the
//                                       stage: /proc/self/clear_refs ("5") resets the peak
//                                       (after malloc_trim) before the stage's setup, VmHWM
//                                       is read after its last iteration. It includes the
//                                       input text and what the stage holds (the parsed
//                                       modules for verify/print/dce); -1 when the kernel
//                                       does not allow the reset.
//   bytes_per_second, instr_per_second  input text bytes / instructions per CPU second
// The process exits 1 when any stage fails on any module (a smoke test relies on it).
//
// --make_concat=OUT writes the ~100 MB concatenation issue 2 asks for: every curated and bulk
// corpus module (every chunk of every file, in path order) that parses and verifies, joined
// by `// -----` lines, taken again from the first until the text holds --concat_bytes
// (default 100,000,000; a module more). --corpus_dir / --bulk_dir default to the paths
// compiled in by CMake.
#include <malloc.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/alias.h"
#include "analysis/memory/memory_profile.h"
#include "analysis/memory/xla_assignment_model.h"
#include "benchmark/benchmark.h"
#include "fmt/core.h"
#include "hlo/module.h"
#include "hlo/parser.h"
#include "hlo/printer.h"
#include "hlo/verifier.h"
#include "passes/pass_registry.h"
#include "support/status_text.h"

namespace hloscope {
namespace {

namespace fs = std::filesystem;

bool g_failed = false;  // some stage failed somewhere: exit 1

std::string ReadFile(const fs::path& path, bool* ok) {
  std::ifstream in(path, std::ios::binary);
  *ok = static_cast<bool>(in);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// IR bytes, metadata strings excluded.
int64_t IrBytes(const Module& m) {
  Module::MemoryStats s = m.ComputeMemoryStats();
  return s.instruction_bytes + s.shape_bytes + s.string_bytes - s.metadata_string_bytes +
         s.other_bytes;
}

struct Input {
  std::string label;
  std::string text;
  std::vector<InputChunk> chunks;  // views into text
  int64_t instructions = 0;
  int64_t ir_bytes = 0;
};

// --- peak RSS ------------------------------------------------------------------------------

// Resets the process's peak RSS to its current RSS; false where the kernel refuses.
bool ResetPeakRss() {
  malloc_trim(0);  // give freed heap back first, so an earlier stage's garbage does not count
  std::ofstream f("/proc/self/clear_refs");
  f << "5";
  f.flush();
  return static_cast<bool>(f);
}

// VmHWM in bytes, or -1.
int64_t PeakRssBytes() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.starts_with("VmHWM:")) return std::atoll(line.c_str() + 6) * 1024;
  }
  return -1;
}

// --- stages --------------------------------------------------------------------------------

absl::StatusOr<std::unique_ptr<Module>> ParseChunk(const Input& input, const InputChunk& c) {
  ParseOptions options;
  options.filename = input.label;
  options.first_line = c.first_line;
  return ParseModule(c.text, options);
}

void Fail(benchmark::State& state, std::string_view what, const absl::Status& status) {
  std::string message = fmt::format("{}: {}", what, StatusText(status));
  fmt::print(stderr, "hlo_bench: {}\n", message);
  g_failed = true;
  state.SkipWithError(message.c_str());
}

// Parses every module of the input (untimed setup); empty with the state failed on error.
std::vector<std::unique_ptr<Module>> ParseAll(benchmark::State& state, const Input& input) {
  std::vector<std::unique_ptr<Module>> modules;
  for (const InputChunk& chunk : input.chunks) {
    auto m = ParseChunk(input, chunk);
    if (!m.ok()) {
      Fail(state, "parse", m.status());
      return {};
    }
    modules.push_back(*std::move(m));
  }
  return modules;
}

void RunParse(benchmark::State& state, const Input& input, bool verify) {
  for (auto _ : state) {
    for (const InputChunk& chunk : input.chunks) {
      auto m = ParseChunk(input, chunk);
      if (!m.ok()) return Fail(state, "parse", m.status());
      if (verify) {
        if (absl::Status s = VerifyModule(**m); !s.ok()) return Fail(state, "verify", s);
      }
      benchmark::DoNotOptimize(m->get());
    }
  }
}

void RunVerify(benchmark::State& state, const Input& input) {
  std::vector<std::unique_ptr<Module>> modules = ParseAll(state, input);
  if (modules.empty()) return;
  for (auto _ : state) {
    for (const auto& m : modules) {
      absl::Status s = VerifyModule(*m);
      if (!s.ok()) return Fail(state, "verify", s);
    }
  }
}

void RunPrint(benchmark::State& state, const Input& input) {
  std::vector<std::unique_ptr<Module>> modules = ParseAll(state, input);
  if (modules.empty()) return;
  std::string out;
  for (auto _ : state) {
    for (const auto& m : modules) {
      out.clear();
      AppendModule(*m, PrintOptions{}, out);
      benchmark::DoNotOptimize(out.data());
    }
  }
}

// Runs the registered pass `name` on freshly parsed modules; parsing and destroying them is
// not timed.
void RunPassStage(benchmark::State& state, const Input& input, std::string_view name) {
  auto pass = PassRegistry::Global().Create(name);
  if (!pass.ok()) return Fail(state, name, pass.status());
  std::vector<std::unique_ptr<Module>> modules;
  for (auto _ : state) {
    state.PauseTiming();
    modules.clear();
    modules = ParseAll(state, input);
    if (modules.empty()) return;
    state.ResumeTiming();
    for (const auto& m : modules) {
      absl::StatusOr<bool> changed = (*pass)->Run(*m);
      if (!changed.ok()) return Fail(state, name, changed.status());
      benchmark::DoNotOptimize(*changed);
    }
  }
  modules.clear();  // after the loop: the timer has stopped
}

// Dataflow + alias analysis (AliasAnalysis runs the dataflow analysis itself). Setup, untimed:
// parse, then flatten-call-graph so computations shared by several call sites (which the
// analysis refuses) get their own copies; a module the analysis still rejects is left out
// and counted in `analysis_skipped_modules`, never silently.
void RunDataflowAlias(benchmark::State& state, const Input& input) {
  std::vector<std::unique_ptr<Module>> parsed = ParseAll(state, input);
  if (parsed.empty()) return;
  auto flatten = PassRegistry::Global().Create("flatten-call-graph");
  if (!flatten.ok()) return Fail(state, "dataflow+alias", flatten.status());
  std::vector<std::unique_ptr<Module>> modules;
  int64_t skipped = 0;
  for (auto& m : parsed) {
    if (!(*flatten)->Run(*m).ok() || !AliasAnalysis::Run(*m).ok()) {
      ++skipped;
      continue;
    }
    modules.push_back(std::move(m));
  }
  if (modules.empty()) {
    return Fail(state, "dataflow+alias", absl::InvalidArgumentError("no module could be analysed"));
  }
  for (auto _ : state) {
    for (const auto& m : modules) {
      absl::StatusOr<std::unique_ptr<AliasAnalysis>> aa = AliasAnalysis::Run(*m);
      if (!aa.ok()) return Fail(state, "dataflow+alias", aa.status());
      benchmark::DoNotOptimize(aa->get());
    }
  }
  state.counters["analysis_skipped_modules"] = static_cast<double>(skipped);
}

// copy-elision (issue 6) with its analyses, on freshly parsed modules; untimed setup as in
// RunPassStage plus flatten-call-graph (the dataflow analysis needs one call site per
// control-flow callee). Modules the analysis still rejects are counted, never timed.
void RunCopyElision(benchmark::State& state, const Input& input) {
  auto flatten = PassRegistry::Global().Create("flatten-call-graph");
  auto pass = PassRegistry::Global().Create("copy-elision");
  if (!flatten.ok() || !pass.ok()) {
    return Fail(state, "copy-elision", flatten.ok() ? pass.status() : flatten.status());
  }
  std::vector<std::unique_ptr<Module>> modules;
  int64_t skipped = 0;
  for (auto _ : state) {
    state.PauseTiming();
    modules = ParseAll(state, input);
    if (modules.empty()) return;
    for (auto& m : modules) (void)(*flatten)->Run(*m);
    skipped = 0;
    state.ResumeTiming();
    for (const auto& m : modules) {
      absl::StatusOr<bool> changed = (*pass)->Run(*m);
      if (!changed.ok()) ++skipped;
      benchmark::DoNotOptimize(changed.ok());
    }
    state.PauseTiming();
    modules.clear();
    state.ResumeTiming();
  }
  state.counters["analysis_skipped_modules"] = static_cast<double>(skipped);
}

struct Stage {
  const char* name;
  void (*run)(benchmark::State&, const Input&);
  // The stage re-parses its input outside the timing every iteration (passes, which change
  // the module): Google Benchmark's min_time counts only timed CPU, so such a stage gets a
  // fixed iteration count instead, about 2M instructions' worth (2 to 100), which bounds the
  // wall time the untimed parsing takes.
  bool setup_per_iteration = false;
};

// The stage registry: bench/run runs every entry, in this order. One line per stage.
// memory-profile: ProfileModule (alias analysis, live ranges, peak, stages, activations) with
// the liveness model and no heap, on modules prepared as for dataflow+alias.
void RunMemoryProfile(benchmark::State& state, const Input& input) {
  MemoryOptions options;
  options.model = MemoryOptions::Model::kLiveness;
  options.heap = false;
  std::vector<std::unique_ptr<Module>> parsed = ParseAll(state, input);
  auto flatten = PassRegistry::Global().Create("flatten-call-graph");
  if (!flatten.ok()) return Fail(state, "memory-profile", flatten.status());
  std::vector<std::unique_ptr<Module>> modules;
  for (auto& m : parsed) {
    if ((*flatten)->Run(*m).ok() && ProfileModule(*m, options).ok())
      modules.push_back(std::move(m));
  }
  state.counters["analysis_skipped_modules"] = static_cast<double>(parsed.size() - modules.size());
  for (auto _ : state) {
    for (const auto& m : modules) {
      absl::StatusOr<MemoryReport> r = ProfileModule(*m, options);
      if (!r.ok()) return Fail(state, "memory-profile", r.status());
      benchmark::DoNotOptimize(r->peak_bytes);
    }
  }
}

// heap-simulation: ProfileModule as XLA's heap simulator counts (--memory-model=xla: buffer
// sharing, constants apart) with the best-fit heap, its at-peak layout and the allocation
// summary; memory-profile above is the liveness model without the heap, so the difference
// is what the heap costs.
void RunHeapSimulation(benchmark::State& state, const Input& input) {
  std::vector<std::unique_ptr<Module>> parsed = ParseAll(state, input);
  auto flatten = PassRegistry::Global().Create("flatten-call-graph");
  if (!flatten.ok()) return Fail(state, "heap-simulation", flatten.status());
  MemoryOptions options;
  options.model = MemoryOptions::Model::kXla;
  options.heap = true;
  std::vector<std::unique_ptr<Module>> modules;
  for (auto& m : parsed) {
    if ((*flatten)->Run(*m).ok() && ProfileModule(*m, options).ok()) {
      modules.push_back(std::move(m));
    }
  }
  state.counters["analysis_skipped_modules"] = static_cast<double>(parsed.size() - modules.size());
  for (auto _ : state) {
    for (const auto& m : modules) {
      absl::StatusOr<MemoryReport> r = ProfileModule(*m, options);
      if (!r.ok()) return Fail(state, "heap-simulation", r.status());
      benchmark::DoNotOptimize(r->modules[0].heap_bytes);
    }
  }
}

// xla-assignment: AssignLikeXla (analysis/memory/xla_assignment_model.h): alias analysis, the
// whole-module live ranges, XLA's buffer order with MaybeAssignBuffer, and the temporaries
// packed by both XLA heap orders (and our own, for the ideal figure).
void RunXlaAssignment(benchmark::State& state, const Input& input) {
  std::vector<std::unique_ptr<Module>> parsed = ParseAll(state, input);
  auto flatten = PassRegistry::Global().Create("flatten-call-graph");
  if (!flatten.ok()) return Fail(state, "xla-assignment", flatten.status());
  std::vector<std::unique_ptr<Module>> modules;
  for (auto& m : parsed) {
    if ((*flatten)->Run(*m).ok() && AssignLikeXla(*m).ok()) modules.push_back(std::move(m));
  }
  state.counters["analysis_skipped_modules"] = static_cast<double>(parsed.size() - modules.size());
  for (auto _ : state) {
    for (const auto& m : modules) {
      absl::StatusOr<XlaModelAssignment> a = AssignLikeXla(*m);
      if (!a.ok()) return Fail(state, "xla-assignment", a.status());
      benchmark::DoNotOptimize(a->totals.total_bytes);
    }
  }
}

const Stage kStages[] = {
    {"parse", [](benchmark::State& s, const Input& in) { RunParse(s, in, false); }},
    {"verify", RunVerify},
    {"parse+verify", [](benchmark::State& s, const Input& in) { RunParse(s, in, true); }},
    {"print", RunPrint},
    {"dce", [](benchmark::State& s, const Input& in) { RunPassStage(s, in, "dce"); }, true},
    {"dataflow+alias", RunDataflowAlias},
    {"copy-elision", RunCopyElision, true},
    {"memory-profile", RunMemoryProfile},
    {"heap-simulation", RunHeapSimulation},
    {"xla-assignment", RunXlaAssignment},
};

void RunStage(benchmark::State& state, const Stage* stage, const Input* input) {
  const bool rss = ResetPeakRss();
  stage->run(state, *input);
  state.counters["peak_rss_bytes"] = rss ? static_cast<double>(PeakRssBytes()) : -1.0;
  const int64_t iterations = static_cast<int64_t>(state.iterations());
  state.SetBytesProcessed(iterations * static_cast<int64_t>(input->text.size()));
  state.counters["instr_per_second"] = benchmark::Counter(
      static_cast<double>(iterations * input->instructions), benchmark::Counter::kIsRate);
  state.counters["instructions"] = static_cast<double>(input->instructions);
  state.counters["modules"] = static_cast<double>(input->chunks.size());
  state.counters["size_bytes"] = static_cast<double>(input->text.size());
  state.counters["IR_bytes_per_instr"] =
      input->instructions ? static_cast<double>(input->ir_bytes) / input->instructions : 0;
}

// Reads the file, splits it and parses every module once (instruction count, IR bytes).
std::unique_ptr<Input> LoadInput(const fs::path& path, std::string label) {
  auto input = std::make_unique<Input>();
  input->label = label.empty() ? path.filename().string() : std::move(label);
  bool ok = false;
  input->text = ReadFile(path, &ok);
  if (!ok) {
    fmt::print(stderr, "hlo_bench: cannot read {}\n", path.string());
    return nullptr;
  }
  input->chunks = SplitInputFile(input->text);
  for (const InputChunk& chunk : input->chunks) {
    auto m = ParseChunk(*input, chunk);
    if (!m.ok()) {
      fmt::print(stderr, "hlo_bench: {}\n", StatusText(m.status()));
      return nullptr;
    }
    input->instructions += (*m)->instruction_count();
    input->ir_bytes += IrBytes(**m);
  }
  return input;
}

// --- the concatenation ---------------------------------------------------------------------

std::vector<fs::path> HloFiles(const fs::path& dir, bool recursive) {
  std::vector<fs::path> files;
  std::error_code ec;
  auto add = [&files](const fs::directory_entry& e) {
    if (e.is_regular_file() && e.path().filename() != "INDEX.tsv") files.push_back(e.path());
  };
  if (recursive) {
    for (const auto& e : fs::recursive_directory_iterator(dir, ec)) add(e);
  } else {
    for (const auto& e : fs::directory_iterator(dir, ec)) {
      if (e.path().extension() == ".hlo") add(e);
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

int MakeConcatenation(const fs::path& out_path, const fs::path& corpus_dir,
                      const fs::path& bulk_dir, size_t target_bytes) {
  std::vector<fs::path> files = HloFiles(corpus_dir, /*recursive=*/false);
  for (const char* archive : {"xla", "cc_hlo", "bulk_gh"}) {
    std::vector<fs::path> more = HloFiles(bulk_dir / archive, /*recursive=*/true);
    files.insert(files.end(), more.begin(), more.end());
  }
  std::vector<std::string> modules;
  for (const fs::path& file : files) {
    bool ok = false;
    const std::string text = ReadFile(file, &ok);
    for (const InputChunk& chunk : SplitInputFile(text)) {
      auto m = ParseModule(chunk.text);
      if (m.ok() && VerifyModule(**m).ok()) modules.emplace_back(chunk.text);
    }
  }
  if (modules.empty()) {
    fmt::print(stderr, "hlo_bench: no module of {} or {} parses\n", corpus_dir.string(),
               bulk_dir.string());
    return 1;
  }
  std::string all;
  all.reserve(target_bytes + (1 << 20));
  for (size_t k = 0; all.size() < target_bytes; ++k) {
    if (!all.empty()) all += "\n// -----\n";
    all += modules[k % modules.size()];
  }
  all += "\n";
  const fs::path tmp = out_path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << all;
    if (!out.flush()) {
      fmt::print(stderr, "hlo_bench: cannot write {}\n", tmp.string());
      return 1;
    }
  }
  fs::rename(tmp, out_path);
  fmt::print(stderr, "hlo_bench: wrote {}: {} bytes from {} distinct modules of {} files\n",
             out_path.string(), all.size(), modules.size(), files.size());
  return 0;
}

// --- main ----------------------------------------------------------------------------------

// Removes `--flag=value` from argv and returns value (or fallback).
std::string TakeFlag(int* argc, char** argv, std::string_view flag, std::string fallback) {
  const std::string prefix = fmt::format("--{}=", flag);
  for (int i = 1; i < *argc; ++i) {
    std::string_view arg = argv[i];
    if (arg.starts_with(prefix) || arg == prefix.substr(0, prefix.size() - 1)) {
      fallback = arg.size() > prefix.size() ? std::string(arg.substr(prefix.size())) : "";
      for (int j = i; j + 1 < *argc; ++j) argv[j] = argv[j + 1];
      --*argc;
      break;
    }
  }
  return fallback;
}

std::vector<std::string> SplitList(std::string_view list) {
  std::vector<std::string> items;
  while (!list.empty()) {
    size_t comma = list.find(',');
    std::string_view item = list.substr(0, comma);
    if (!item.empty()) items.emplace_back(item);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return items;
}

int Main(int argc, char** argv) {
  const std::string corpus_dir = TakeFlag(&argc, argv, "corpus_dir", HLOSCOPE_CORPUS_DIR);
  const std::string bulk_dir = TakeFlag(&argc, argv, "bulk_dir", HLOSCOPE_BULK_DIR);
  const std::string concat = TakeFlag(&argc, argv, "make_concat", "");
  const std::string concat_bytes = TakeFlag(&argc, argv, "concat_bytes", "100000000");
  const std::string stages = TakeFlag(&argc, argv, "stages", "");
  const std::string label = TakeFlag(&argc, argv, "label", "");
  const bool list = TakeFlag(&argc, argv, "list_stages", "-") != "-";

  if (list) {
    for (const Stage& s : kStages) fmt::print("{}\n", s.name);
    return 0;
  }
  if (!concat.empty()) {
    return MakeConcatenation(concat, corpus_dir, bulk_dir,
                             static_cast<size_t>(std::atoll(concat_bytes.c_str())));
  }

  benchmark::Initialize(&argc, argv);
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg.starts_with("-")) {
      fmt::print(stderr, "hlo_bench: unknown flag {}\n", arg);
      return 2;
    }
    files.emplace_back(arg);
  }
  if (files.empty()) {
    fmt::print(stderr, "hlo_bench: no input file (usage: see bench/hlo_bench.cc)\n");
    return 2;
  }
  std::vector<const Stage*> selected;
  for (const std::string& name : SplitList(stages)) {
    auto it = std::find_if(std::begin(kStages), std::end(kStages),
                           [&](const Stage& s) { return name == s.name; });
    if (it == std::end(kStages)) {
      fmt::print(stderr, "hlo_bench: unknown stage '{}'\n", name);
      return 2;
    }
    selected.push_back(&*it);
  }
  if (selected.empty()) {
    for (const Stage& s : kStages) selected.push_back(&s);
  }

  std::vector<std::unique_ptr<Input>> inputs;  // live until exit: the benchmarks point here
  for (const std::string& file : files) {
    auto input = LoadInput(file, files.size() == 1 ? label : "");
    if (!input) return 1;
    inputs.push_back(std::move(input));
  }
  for (const auto& input : inputs) {
    for (const Stage* stage : selected) {
      auto* b = benchmark::RegisterBenchmark(
          fmt::format("{}/{}", stage->name, input->label).c_str(), RunStage, stage, input.get());
      b->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond);
      if (stage->setup_per_iteration) {
        b->Iterations(
            std::clamp<int64_t>(2'000'000 / std::max<int64_t>(input->instructions, 1), 2, 100));
      }
    }
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return g_failed ? 1 : 0;
}

}  // namespace
}  // namespace hloscope

int main(int argc, char** argv) { return hloscope::Main(argc, argv); }
