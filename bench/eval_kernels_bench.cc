// eval_kernels_bench: the interpreter's reduce-window and convolution against a plain C++ loop
// nest computing the same thing (issue 35), with the ratio.
//
//   reduce-window  f32[1024,1024] (1M elements), 3x3 window, stride 1, padding 1, add
//   convolution    f32[1,1,512,512] with a 3x3 kernel, padding 1 (bf01_oi01->bf01)
//
// Each interpreter row runs Evaluate on the parsed module (value mode, one seeded argument
// set); each loop row runs the loop nest on the same values, summing in the interpreter's order
// so that the results are also compared bit for bit (the "equal" column). Prints Google
// Benchmark's table, then one Markdown table: CPU ms of both and interpreter / loop.
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "eval/evaluator.h"
#include "eval/literal.h"
#include "fmt/core.h"
#include "hlo/module.h"
#include "hlo/parser.h"

namespace hloscope {
namespace {

constexpr int64_t kRw = 1024;   // reduce-window side
constexpr int64_t kConv = 512;  // convolution side

constexpr const char* kReduceWindow = R"(HloModule rw
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[1024,1024] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[1024,1024] reduce-window(x, z), window={size=3x3 pad=1_1x1_1}, to_apply=add
}
)";

constexpr const char* kConvolution = R"(HloModule conv
ENTRY e {
  x = f32[1,1,512,512] parameter(0)
  k = f32[1,1,3,3] parameter(1)
  ROOT c = f32[1,1,512,512] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01
}
)";

struct Case {
  std::unique_ptr<Module> module;
  std::vector<eval::Literal> args;
  std::vector<float> interpreted, looped;
};
std::map<std::string, Case> g_cases;

std::vector<float> Floats(const eval::Literal& lit) {
  std::vector<float> v(lit.data().size() / sizeof(float));
  std::memcpy(v.data(), lit.data().data(), v.size() * sizeof(float));
  return v;
}

void Interpret(benchmark::State& state, const std::string& name) {
  Case& c = g_cases.at(name);
  for (auto _ : state) {
    absl::StatusOr<eval::Literal> out = eval::Evaluate(*c.module, c.args, {});
    if (!out.ok()) {
      state.SkipWithError("evaluation failed");
      return;
    }
    c.interpreted = Floats(*out);
  }
}

// Window elements in row-major order, padding skipped: the interpreter's summation order.
std::vector<float> ReduceWindowLoops(const std::vector<float>& x) {
  std::vector<float> out(static_cast<size_t>(kRw * kRw));
  for (int64_t i = 0; i < kRw; ++i) {
    for (int64_t j = 0; j < kRw; ++j) {
      float acc = 0;
      for (int64_t di = -1; di <= 1; ++di) {
        for (int64_t dj = -1; dj <= 1; ++dj) {
          const int64_t a = i + di, b = j + dj;
          if (a >= 0 && a < kRw && b >= 0 && b < kRw) acc += x[static_cast<size_t>(a * kRw + b)];
        }
      }
      out[static_cast<size_t>(i * kRw + j)] = acc;
    }
  }
  return out;
}

std::vector<float> ConvolutionLoops(const std::vector<float>& x, const std::vector<float>& k) {
  std::vector<float> out(static_cast<size_t>(kConv * kConv));
  for (int64_t i = 0; i < kConv; ++i) {
    for (int64_t j = 0; j < kConv; ++j) {
      float acc = 0;
      for (int64_t di = 0; di < 3; ++di) {
        for (int64_t dj = 0; dj < 3; ++dj) {
          const int64_t a = i + di - 1, b = j + dj - 1;
          if (a >= 0 && a < kConv && b >= 0 && b < kConv)
            acc += x[static_cast<size_t>(a * kConv + b)] * k[static_cast<size_t>(di * 3 + dj)];
        }
      }
      out[static_cast<size_t>(i * kConv + j)] = acc;
    }
  }
  return out;
}

void Loops(benchmark::State& state, const std::string& name) {
  Case& c = g_cases.at(name);
  const std::vector<float> x = Floats(c.args[0]);
  const std::vector<float> k = c.args.size() > 1 ? Floats(c.args[1]) : std::vector<float>{};
  for (auto _ : state) {
    c.looped = name == "reduce-window" ? ReduceWindowLoops(x) : ConvolutionLoops(x, k);
    benchmark::DoNotOptimize(c.looped.data());
  }
}

class TimeCollector : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) ms_[r.benchmark_name()] = r.GetAdjustedCPUTime();
    ConsoleReporter::ReportRuns(runs);
  }
  double ms(const std::string& prefix) const {
    for (const auto& [k, v] : ms_) {
      if (k.starts_with(prefix)) return v;
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
  for (auto [name, text] : {std::pair<std::string, const char*>("reduce-window", kReduceWindow),
                            std::pair<std::string, const char*>("convolution", kConvolution)}) {
    absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text);
    if (!m.ok()) {
      fmt::print(stderr, "eval_kernels_bench: {} does not parse\n", name);
      return 1;
    }
    Case& c = g_cases[name];
    c.module = *std::move(m);
    c.args = eval::RandomArguments(*c.module, 1);
    benchmark::RegisterBenchmark((name + "/interpreter").c_str(), Interpret, name)
        ->Unit(benchmark::kMillisecond)
        ->MeasureProcessCPUTime();
    benchmark::RegisterBenchmark((name + "/loops").c_str(), Loops, name)
        ->Unit(benchmark::kMillisecond)
        ->MeasureProcessCPUTime();
  }
  benchmark::Initialize(&argc, argv);
  TimeCollector reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  fmt::print(
      "\n| kernel | elements | interpreter ms | C++ loops ms | interpreter / loops | equal "
      "|\n|---|---|---|---|---|---|\n");
  for (const std::string name : {"reduce-window", "convolution"}) {
    const Case& c = g_cases.at(name);
    const double interp = reporter.ms(name + "/interpreter");
    const double loops = reporter.ms(name + "/loops");
    const bool equal =
        !c.interpreted.empty() && c.interpreted.size() == c.looped.size() &&
        std::memcmp(c.interpreted.data(), c.looped.data(), c.looped.size() * sizeof(float)) == 0;
    fmt::print("| {} | {} | {:.1f} | {:.2f} | {:.0f} | {} |\n", name, c.looped.size(), interp,
               loops, loops > 0 ? interp / loops : 0.0, equal ? "yes" : "NO");
  }
  return 0;
}
