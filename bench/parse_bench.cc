// Parse + verify throughput on real HLO (Google Benchmark). bench/run builds this in Release,
// runs it and prints a Markdown table beside the time of `wc -l` on the same files.
//
// Benchmarks (one core, the text already in memory; reading the file is not timed):
//   ParseVerify/<file>  ParseModule + VerifyModule of one of the five largest curated corpus
//                       files (split files: every `// -----` chunk in turn).
//   ParseVerify/concat  the ~100 MB concatenation below, parsed and verified module by module
//                       (ParseModule takes one module, so the loop runs SplitInputFile and then
//                       one ParseModule + VerifyModule per chunk, all inside the timing).
//   Parse/<file>        ParseModule alone on the largest file, to separate the verifier's share.
// Counters: bytes_per_second (SetBytesProcessed), instr_per_second, instructions (per
// iteration), and IR_bytes_per_instr: Module::ComputeMemoryStats of the parsed modules, all
// bytes of the in-memory IR except the metadata strings (op_name, source_file, ...), divided
// by the instruction count.
//
// The concatenation is made at start-up from the corpus: every curated and bulk module (every
// chunk of every file, in path order) that parses and verifies, joined by `// -----` lines and
// repeated until it holds at least 100,000,000 bytes. It is written to a temporary directory
// and removed at exit, or to $HLOSCOPE_BENCH_CONCAT when set (bench/run keeps it there to time
// `wc -l` on it). --corpus_dir=DIR / --bulk_dir=DIR override the compiled-in paths.
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

#include <unistd.h>

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
    // The concatenation is split inside the timing: finding the `// -----` lines is part of
    // reading a multi-module file.
    std::vector<InputChunk> chunks = SplitInputFile(input->text);
    for (const InputChunk& chunk : chunks) {
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
  state.counters["instr_per_second"] =
      benchmark::Counter(static_cast<double>(iterations * input->instructions),
                         benchmark::Counter::kIsRate);
  state.counters["IR_bytes_per_instr"] =
      input->instructions ? static_cast<double>(input->ir_bytes) / input->instructions : 0;
  state.counters["size_bytes"] = static_cast<double>(input->text.size());
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

// Every module of the corpus that parses and verifies, joined by `// -----` lines, repeated
// up to kConcatBytes.
std::string MakeConcatenation(const fs::path& corpus_dir, const fs::path& bulk_dir) {
  std::vector<fs::path> files = HloFiles(corpus_dir, /*recursive=*/false);
  for (const char* archive : {"xla", "cc_hlo", "bulk_gh"}) {
    std::vector<fs::path> more = HloFiles(bulk_dir / archive, /*recursive=*/true);
    files.insert(files.end(), more.begin(), more.end());
  }
  std::string once;
  for (const fs::path& file : files) {
    const std::string text = ReadFile(file);
    for (const InputChunk& chunk : SplitInputFile(text)) {
      auto m = ParseModule(chunk.text);
      if (!m.ok() || !VerifyModule(**m).ok()) continue;
      if (!once.empty()) once += "\n// -----\n";
      once.append(chunk.text);
    }
  }
  std::string all;
  if (once.empty()) return all;
  all.reserve(kConcatBytes + once.size() + 16);
  while (all.size() < kConcatBytes) {
    if (!all.empty()) all += "\n// -----\n";
    all += once;
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

int Main(int argc, char** argv) {
  const fs::path corpus_dir = FlagValue(&argc, argv, "corpus_dir", HLOSCOPE_CORPUS_DIR);
  const fs::path bulk_dir = FlagValue(&argc, argv, "bulk_dir", HLOSCOPE_BULK_DIR);
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

  auto concat = std::make_unique<Input>();
  concat->name = "concat";
  concat->text = MakeConcatenation(corpus_dir, bulk_dir);
  if (concat->text.empty()) {
    fmt::print(stderr, "parse_bench: no module of {} or {} parses\n", corpus_dir.string(),
               bulk_dir.string());
    return 1;
  }
  if (!Measure(*concat)) return 1;
  fs::path concat_path;
  bool remove_concat = false;
  if (const char* keep = std::getenv("HLOSCOPE_BENCH_CONCAT"); keep != nullptr && *keep) {
    concat_path = keep;
  } else {
    concat_path = fs::temp_directory_path() /
                  fmt::format("hloscope_parse_bench_{}.hlo", static_cast<long>(getpid()));
    remove_concat = true;
  }
  {
    std::ofstream out(concat_path, std::ios::binary | std::ios::trunc);
    out << concat->text;
  }
  fmt::print(stderr, "parse_bench: concatenation: {} bytes, {} modules, {} instructions in {}\n",
             concat->text.size(), concat->chunks.size(), concat->instructions,
             concat_path.string());

  for (const auto& input : inputs) {
    benchmark::RegisterBenchmark(("ParseVerify/" + input->name).c_str(), RunParse, input.get(),
                                 true)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  benchmark::RegisterBenchmark("ParseVerify/concat", RunParse, concat.get(), true)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
  benchmark::RegisterBenchmark(("Parse/" + inputs.front()->name).c_str(), RunParse,
                               inputs.front().get(), false)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();

  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (remove_concat) {
    std::error_code ec;
    fs::remove(concat_path, ec);
  }
  return 0;
}

}  // namespace
}  // namespace hloscope

int main(int argc, char** argv) { return hloscope::Main(argc, argv); }
