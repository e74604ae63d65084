// proto_read_bench: reading an XLA module proto against parsing the same module as text, in
// one run, with the ratio (issue 28). The input is the Pax training step of the corpus
// (xla_dumps/*pax*.hlo.pb: 37K instructions, an HloProto of 6.5 MB), or --input=FILE.
//
//   read-text   ParseModule on the HLO text of the module (what the proto converts to: the text
//               XLA prints for it), the text already in memory
//   read-proto  ParseModuleProto on the proto's bytes, already in memory: protobuf decoding,
//               conversion to HLO text, ParseModule on that text
//   decode      protobuf decoding alone, and convert (decode + conversion to text): where the
//               proto path's extra time goes
//
// Prints Google Benchmark's table, then one Markdown row: CPU ms of read-text and read-proto
// and their ratio (proto / text; the goal is 1 or less). Exits 1 when the input cannot be read.
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "benchmark/benchmark.h"
#include "fmt/core.h"
#include "hlo/module.h"
#include "hlo/parser.h"
#include "hlo/proto_reader.h"
#include "hlo/xla_hlo.pb.h"
#include "support/status_text.h"

namespace hloscope {
namespace {

std::string g_bytes;  // the proto file
std::string g_text;   // its HLO text

void ReadText(benchmark::State& state) {
  for (auto _ : state) {
    absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(g_text);
    if (!m.ok()) state.SkipWithError("parse failed");
    benchmark::DoNotOptimize(m);
  }
}

void ReadProto(benchmark::State& state) {
  for (auto _ : state) {
    absl::StatusOr<std::unique_ptr<Module>> m =
        ParseModuleProto(g_bytes, InputFormat::kBinaryProto, "bench.pb");
    if (!m.ok()) state.SkipWithError("proto read failed");
    benchmark::DoNotOptimize(m);
  }
}

void Decode(benchmark::State& state) {
  for (auto _ : state) {
    google::protobuf::Arena arena;
    auto* p = google::protobuf::Arena::CreateMessage<xla::HloProto>(&arena);
    if (!p->ParseFromArray(g_bytes.data(), static_cast<int>(g_bytes.size()))) {
      state.SkipWithError("decode failed");
    }
    benchmark::DoNotOptimize(p);
  }
}

void Convert(benchmark::State& state) {
  for (auto _ : state) {
    absl::StatusOr<std::string> t = ProtoToHloText(g_bytes, InputFormat::kBinaryProto, "b.pb");
    if (!t.ok()) state.SkipWithError("conversion failed");
    benchmark::DoNotOptimize(t);
  }
}

// Keeps each benchmark's CPU time per iteration, in ms, for the ratio row.
class TimeCollector : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      ms_[r.benchmark_name()] = r.GetAdjustedCPUTime();  // in the benchmark's unit, ms
    }
    ConsoleReporter::ReportRuns(runs);
  }
  double ms(const std::string& name) const {
    for (const auto& [k, v] : ms_) {
      if (k.starts_with(name)) return v;
    }
    return 0;
  }

 private:
  std::map<std::string, double> ms_;
};

}  // namespace
}  // namespace hloscope

int main(int argc, char** argv) {
  using namespace hloscope;
  std::string path = std::string(HLOSCOPE_CORPUS_DIR) +
                     "/xla_dumps/NVIDIA_JAX-Toolbox__pax_fsdp4_proc0__module_0040.pjit__wrapped_"
                     "step_fn.sm_8.0_gpu_after_optimizations.hlo.pb";
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a.starts_with("--input=")) path = std::string(a.substr(8));
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream buf;
  buf << in.rdbuf();
  g_bytes = buf.str();
  absl::StatusOr<std::string> text = ProtoToHloText(g_bytes, InputFormat::kBinaryProto, path);
  if (!in || !text.ok()) {
    fmt::print(stderr, "proto_read_bench: cannot read {}: {}\n", path,
               text.ok() ? "unreadable" : StatusText(text.status()));
    return 1;
  }
  g_text = *std::move(text);
  benchmark::RegisterBenchmark("read-text", ReadText)
      ->Unit(benchmark::kMillisecond)
      ->MeasureProcessCPUTime();
  benchmark::RegisterBenchmark("read-proto", ReadProto)
      ->Unit(benchmark::kMillisecond)
      ->MeasureProcessCPUTime();
  benchmark::RegisterBenchmark("decode", Decode)
      ->Unit(benchmark::kMillisecond)
      ->MeasureProcessCPUTime();
  benchmark::RegisterBenchmark("convert", Convert)
      ->Unit(benchmark::kMillisecond)
      ->MeasureProcessCPUTime();
  benchmark::Initialize(&argc, argv);
  TimeCollector reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  const double text_ms = reporter.ms("read-text");
  const double proto_ms = reporter.ms("read-proto");
  const double decode_ms = reporter.ms("decode");
  const double convert_ms = reporter.ms("convert");
  fmt::print(
      "\n| input | proto bytes | text bytes | read text ms | read proto ms | of which decode ms "
      "| and to text ms | proto / text |\n|---|---|---|---|---|---|---|---|\n");
  fmt::print("| {} | {} | {} | {:.1f} | {:.1f} | {:.1f} | {:.1f} | {:.2f} |\n",
             path.substr(path.rfind('/') + 1), g_bytes.size(), g_text.size(), text_ms, proto_ms,
             decode_ms, convert_ms - decode_ms, text_ms > 0 ? proto_ms / text_ms : 0.0);
  return 0;
}
