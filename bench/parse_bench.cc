// Parse + verify throughput on real HLO (Google Benchmark). bench/run builds this in Release,
// runs it and prints a Markdown table beside the time of `wc -l` on the same files.
//
// Times are the CPU time of the benchmark thread (Google Benchmark's default): on an idle
// machine it equals the wall time, and on a shared one it is not inflated by other processes.
// Benchmarks (one core, the text already in memory; reading the file is not timed):
//   ParseVerify/<file>  ParseModule + VerifyModule of one of the five largest curated corpus
//                       files (split files: every `// -----` chunk in turn).
//   ParseVerify/concat  the ~100 MB concatenation below, parsed and verified module by module
//                       (ParseModule takes one module: the loop runs one ParseModule +
//                       VerifyModule per `// -----` chunk; SplitInputFile runs once, before
//                       the timing, as for the files). Destroying each module is timed too.
//   Parse/<file>        ParseModule alone on the largest file, to separate the verifier's share.
// Counters: bytes_per_second (SetBytesProcessed), instr_per_second, instructions (per
// iteration), and IR_bytes_per_instr: Module::ComputeMemoryStats of the parsed modules, all
// bytes of the in-memory IR except the metadata strings (op_name, source_file, ...), divided
// by the instruction count.
//
// The concatenation is made at start-up from the corpus: every curated and bulk module (every
// chunk of every file, in path order) that parses and verifies, joined by `// -----` lines,
// taken again from the first module until the text holds 100,000,000 bytes (a module more).
// Its IR bytes per instruction include each module's fixed cost (arena block, tables), which
// the many small test modules of the bulk archives make large; the single files show the
// per-instruction cost of big modules. It is written to a temporary directory
// and removed at exit, or to $HLOSCOPE_BENCH_CONCAT when set (bench/run keeps it there to time
// `wc -l` on it). --corpus_dir=DIR / --bulk_dir=DIR override the compiled-in paths.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "benchmark/benchmark.h"
#include "fmt/core.h"
#include "hlo/module.h"
#include "hlo/parser.h"
#include "hlo/verifier.h"

namespace hloscope {
namespace {

namespace fs = std::filesystem;

constexpr size_t kConcatBytes = 100'000'000;
constexpr int kLargestFiles = 5;

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
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
  std::string name;
  std::string text;
  std::vector<InputChunk> chunks;  // views into text
  int64_t instructions = 0;
  int64_t ir_bytes = 0;
  fs::path path;             // the concatenation: where it was written
  bool remove_file = false;  // ... and whether to remove it at exit
};

// Parses and verifies every chunk once; false (with a message) when one fails.
bool Measure(Input& input) {
  input.chunks = SplitInputFile(input.text);
  for (const InputChunk& chunk : input.chunks) {
    ParseOptions options;
    options.filename = input.name;
    options.first_line = chunk.first_line;
    auto m = ParseModule(chunk.text, options);
    if (!m.ok()) {
      fmt::print(stderr, "parse_bench: {}\n", std::string(m.status().message()));
      return false;
    }
    if (absl::Status s = VerifyModule(**m); !s.ok()) {
      fmt::print(stderr, "parse_bench: {}: {}\n", input.name, std::string(s.message()));
      return false;
    }
    input.instructions += (*m)->instruction_count();
    input.ir_bytes += IrBytes(**m);
  }
  return true;
}

void RunParse(benchmark::State& state, const Input* input, bool verify) {
  for (auto _ : state) {
    for (const InputChunk& chunk : input->chunks) {
      ParseOptions options;
      options.filename = input->name;
      options.first_line = chunk.first_line;
      auto m = ParseModule(chunk.text, options);
      if (!m.ok()) {
        state.SkipWithError("parse failed");
        return;
      }
      if (verify) {
        absl::Status s = VerifyModule(**m);
        if (!s.ok()) {
          state.SkipWithError("verify failed");
          return;
        }
      }
      benchmark::DoNotOptimize(m->get());
    }
  }
  const int64_t iterations = static_cast<int64_t>(state.iterations());
  state.SetBytesProcessed(iterations * static_cast<int64_t>(input->text.size()));
  state.counters["instructions"] = static_cast<double>(input->instructions);
  state.counters["instr_per_second"] = benchmark::Counter(
      static_cast<double>(iterations * input->instructions), benchmark::Counter::kIsRate);
  state.counters["IR_bytes_per_instr"] =
      input->instructions ? static_cast<double>(input->ir_bytes) / input->instructions : 0;
  state.counters["size_bytes"] = static_cast<double>(input->text.size());
  state.counters["modules"] = static_cast<double>(input->chunks.size());
}

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

// Every module of the corpus that parses and verifies, in path order, joined by `// -----`
// lines; the list is taken again from the start until the text holds kConcatBytes.
std::string MakeConcatenation(const fs::path& corpus_dir, const fs::path& bulk_dir) {
  std::vector<fs::path> files = HloFiles(corpus_dir, /*recursive=*/false);
  for (const char* archive : {"xla", "cc_hlo", "bulk_gh"}) {
    std::vector<fs::path> more = HloFiles(bulk_dir / archive, /*recursive=*/true);
    files.insert(files.end(), more.begin(), more.end());
  }
  std::vector<std::string> modules;
  for (const fs::path& file : files) {
    const std::string text = ReadFile(file);
    for (const InputChunk& chunk : SplitInputFile(text)) {
      auto m = ParseModule(chunk.text);
      if (m.ok() && VerifyModule(**m).ok()) modules.emplace_back(chunk.text);
    }
  }
  std::string all;
  if (modules.empty()) return all;
  all.reserve(kConcatBytes + (1 << 20));
  for (size_t k = 0; all.size() < kConcatBytes; ++k) {
    if (!all.empty()) all += "\n// -----\n";
    all += modules[k % modules.size()];
  }
  return all;
}

std::string FlagValue(int* argc, char** argv, std::string_view flag, std::string fallback) {
  const std::string prefix = std::string("--") + std::string(flag) + "=";
  for (int i = 1; i < *argc; ++i) {
    std::string_view arg = argv[i];
    if (arg.starts_with(prefix)) {
      fallback = std::string(arg.substr(prefix.size()));
      for (int j = i; j + 1 < *argc; ++j) argv[j] = argv[j + 1];
      --*argc;
      break;
    }
  }
  return fallback;
}

std::unique_ptr<Input> MakeConcatInput(const fs::path& corpus_dir, const fs::path& bulk_dir);

int Main(int argc, char** argv) {
  const fs::path corpus_dir = FlagValue(&argc, argv, "corpus_dir", HLOSCOPE_CORPUS_DIR);
  const fs::path bulk_dir = FlagValue(&argc, argv, "bulk_dir", HLOSCOPE_BULK_DIR);
  // The concatenation takes a few seconds to make: skip it when --benchmark_filter leaves it
  // out (the filter is a regex searched in the benchmark name, as Google Benchmark does).
  bool want_concat = true;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    constexpr std::string_view kFilter = "--benchmark_filter=";
    if (arg.starts_with(kFilter)) {
      std::string filter(arg.substr(kFilter.size()));
      bool negative = !filter.empty() && filter[0] == '-';
      if (negative) filter.erase(0, 1);
      bool match = true;
      try {
        match = filter.empty() || filter == "all" ||
                std::regex_search("ParseVerify/concat", std::regex(filter));
      } catch (const std::regex_error&) {
      }
      want_concat = negative ? !match : match;
    }
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;

  // The five largest curated files.
  std::vector<fs::path> curated = HloFiles(corpus_dir, /*recursive=*/false);
  if (curated.empty()) {
    fmt::print(stderr, "parse_bench: no *.hlo files in {} (use --corpus_dir=DIR)\n",
               corpus_dir.string());
    return 1;
  }
  std::stable_sort(curated.begin(), curated.end(), [](const fs::path& a, const fs::path& b) {
    return fs::file_size(a) > fs::file_size(b);
  });
  curated.resize(std::min<size_t>(curated.size(), kLargestFiles));

  // Inputs live until exit (the benchmarks hold pointers to them).
  std::vector<std::unique_ptr<Input>> inputs;
  for (const fs::path& file : curated) {
    auto input = std::make_unique<Input>();
    input->name = file.filename().string();
    input->text = ReadFile(file);
    if (!Measure(*input)) return 1;
    inputs.push_back(std::move(input));
  }

  std::unique_ptr<Input> concat;
  if (want_concat && !(concat = MakeConcatInput(corpus_dir, bulk_dir))) return 1;
  for (const auto& input : inputs) {
    benchmark::RegisterBenchmark(("ParseVerify/" + input->name).c_str(), RunParse, input.get(),
                                 true)
        ->Unit(benchmark::kMillisecond);
  }
  if (concat) {
    benchmark::RegisterBenchmark("ParseVerify/concat", RunParse, concat.get(), true)
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::RegisterBenchmark(("Parse/" + inputs.front()->name).c_str(), RunParse,
                               inputs.front().get(), false)
      ->Unit(benchmark::kMillisecond);

  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (concat && concat->remove_file) {
    std::error_code ec;
    fs::remove(concat->path, ec);
  }
  return 0;
}

// Makes the concatenation, measures it and writes it to a file (see the header comment).
std::unique_ptr<Input> MakeConcatInput(const fs::path& corpus_dir, const fs::path& bulk_dir) {
  auto concat = std::make_unique<Input>();
  concat->name = "concat";
  concat->text = MakeConcatenation(corpus_dir, bulk_dir);
  if (concat->text.empty()) {
    fmt::print(stderr, "parse_bench: no module of {} or {} parses\n", corpus_dir.string(),
               bulk_dir.string());
    return nullptr;
  }
  if (!Measure(*concat)) return nullptr;
  if (const char* keep = std::getenv("HLOSCOPE_BENCH_CONCAT"); keep != nullptr && *keep) {
    concat->path = keep;
  } else {
    concat->path = fs::temp_directory_path() /
                   fmt::format("hloscope_parse_bench_{}.hlo", static_cast<long>(getpid()));
    concat->remove_file = true;
  }
  {
    std::ofstream out(concat->path, std::ios::binary | std::ios::trunc);
    out << concat->text;
  }
  fmt::print(stderr, "parse_bench: concatenation: {} bytes, {} modules, {} instructions in {}\n",
             concat->text.size(), concat->chunks.size(), concat->instructions,
             concat->path.string());
  return concat;
}

}  // namespace
}  // namespace hloscope

int main(int argc, char** argv) { return hloscope::Main(argc, argv); }
