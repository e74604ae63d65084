// The buffer analyses over the whole corpus, in process (thousands of modules; a process per
// module would cost more than the analyses).
//
// Every module (every `// -----` chunk) of every curated file (HLOSCOPE_CORPUS_DIR/*.hlo) and of
// every bulk archive (HLOSCOPE_BULK_DIR/<archive>/**.hlo) that parses and that the verifier
// accepts must
//   1. run DataflowAnalysis (SSA form) and AliasAnalysis without error, and
//   2. run `copy-insertion,copy-elision` without error, the result accepted by the verifier
//      (skipped, with a note, while the registry has no copy-insertion pass), copy-insertion's
//      output buffer-safe (analysis/buffer_consistency.h: the stage `safety`, issue 30), and
//   3. where the interpreter can run the module (supported opcodes, at most 1 MiB of storage,
//      at most 10^5 steps: a test of thousands of modules), compute after those passes, with
//      storage shared as the alias analysis says (buffer mode), what the module as given computes
//      by value, on seeded random arguments (and seeded values for constants dumped as {...}),
//      and write into no read-only value (a
//      cross-replica pipeline, whose recv runs before any send and whose
//      _xla_send_recv_source_target_pairs name N <= 8 replicas, runs as N replicas); data from
//      outside the program (infeed, host recv, a recv with no send on its channel) is read
//      from one seeded stream in both runs (eval/host_io.h, HostIo::kSeeded), and the data
//      written outside (outfeed, host send, a send with no recv) must be the same too, in
//      order, bit for bit (JudgeDifference); custom-calls of unknown targets run as opaque
//      functions of their operands, the side-effecting ones logged as writes to outside
//      (eval/opaque_custom_call.h); a module whose copy-insertion output is a listed safety
//      exception is not judged when buffer mode differs,
// unless tests/corpus/analysis_exceptions.tsv lists it:
//   <file relative to the corpus or bulk dir> TAB <chunk> TAB
//   <stage: analysis|passes|safety|judge>
//   TAB <first line of the error> TAB <what XLA does with the module>
// A listed module that now passes, or fails differently, fails the test (stale row). Modules
// that do not parse or verify are the round-trip test's business (bulk_expectations.tsv,
// curated_invalid.tsv) and are only counted here (HLOSCOPE_ALL_REFUSALS=1 prints each with
// its first error). A module is read as XLA reads it: a template of XLA's C++ tests as the
// instance its test parses (template_instances.tsv), a part in protobuf text format (XLA's
// importer tests) as the HLO text XLA prints for that HloModuleProto. One test per curated file set
// and per archive; each prints its counts and time.
//
// Coverage: each test prints how many modules the interpreter judged (item 3) and a histogram
// of why the others were not (the interpreter's refusal, instruction names dropped, or the
// earlier stage that stopped them), and fails when the judged count drops below its floor in
// tests/corpus/judged_floor.tsv (`<test> TAB <floor>`): raise a floor when coverage grows.
//
// The default suite runs CorpusAnalysisSample: a fixed list of bulk modules on which
// copy-insertion's output was once not buffer-safe (async ops with aliasing, in-place
// fusions, pipelined send/recv), with the same exceptions; the whole corpus is labelled corpus.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "analysis/alias.h"
#include "analysis/analysis_cache.h"
#include "analysis/buffer_consistency.h"
#include "analysis/dataflow.h"
#include "analysis/ordering.h"
#include "analysis/value_liveness.h"
#include "eval/evaluator.h"
#include "eval/literal.h"
#include "eval/replicas.h"
#include "eval/send_recv_pairs.h"
#include "fmt/core.h"
#include "gtest/gtest.h"
#include "hlo/module.h"
#include "hlo/parser.h"
#include "hlo/proto_reader.h"
#include "hlo/verifier.h"
#include "passes/pass_registry.h"
#include "support/status_text.h"
#include "tests/corpus/template_instances.h"

namespace hloscope {
namespace {

namespace fs = std::filesystem;

struct Exception {
  std::string error;
  std::string xla_verdict;
};
// (file, chunk, stage) -> the expected error.
using ExceptionKey = std::tuple<std::string, int, std::string>;

std::map<ExceptionKey, Exception> ReadExceptions() {
  std::map<ExceptionKey, Exception> out;
  std::ifstream in(HLOSCOPE_ANALYSIS_EXCEPTIONS_FILE);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cells;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, '\t')) cells.push_back(cell);
    if (cells.size() != 5) {
      ADD_FAILURE() << "analysis_exceptions.tsv: a row needs 5 cells: " << line;
      continue;
    }
    out[{cells[0], std::stoi(cells[1]), cells[2]}] = {cells[3], cells[4]};
  }
  return out;
}

std::string FirstLine(std::string_view s) {
  const size_t end = s.find('\n');
  return std::string(end == std::string_view::npos ? s : s.substr(0, end));
}

std::string FirstLineOf(const absl::Status& s) { return FirstLine(StatusText(s)); }

struct Counts {
  int files = 0, modules = 0, unparsed = 0, unverified = 0, analysed = 0, passes_run = 0;
  int judged = 0;     // compared in the interpreter and equal (item 3)
  int instances = 0;  // modules read as their template instance (template_instances.tsv)
  int excepted = 0;
};

// The refusal without what names one module: "(instruction %x)" and "%x" dropped, so that
// the same reason in many modules is counted once.
std::string RefusalReason(std::string_view message) {
  if (message.starts_with("the module needs about")) return "more storage than the size limit";
  std::string out;
  for (size_t i = 0; i < message.size(); ++i) {
    if (message.substr(i).starts_with(" (instruction %")) {
      const size_t close = message.find(')', i);
      if (close == std::string_view::npos) break;
      i = close;
      continue;
    }
    if (message[i] == '%') {
      out += '%';
      while (i + 1 < message.size() && message[i + 1] != ' ' && message[i + 1] != ':' &&
             message[i + 1] != ',' && message[i + 1] != ')')
        ++i;
      continue;
    }
    out += message[i];
  }
  return out;
}

// tests/corpus/judged_floor.tsv: the least number of modules each test must judge.
std::map<std::string, int> ReadJudgedFloors() {
  std::map<std::string, int> out;
  std::ifstream in(HLOSCOPE_JUDGED_FLOOR_FILE);
  if (!in) ADD_FAILURE() << "cannot read " << HLOSCOPE_JUDGED_FLOOR_FILE;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const size_t tab = line.find('\t');
    if (tab == std::string::npos) {
      ADD_FAILURE() << "judged_floor.tsv: a row needs 2 cells: " << line;
      continue;
    }
    out[line.substr(0, tab)] = std::stoi(line.substr(tab + 1));
  }
  return out;
}

// tests/corpus/template_instances.tsv, read once (a malformed table fails the test that
// reads it first, and no template is instantiated).
const TemplateInstanceTable& TemplateInstances() {
  static const TemplateInstanceTable* table = [] {
    std::ifstream in(HLOSCOPE_TEMPLATE_INSTANCES_FILE);
    std::stringstream buffer;
    buffer << in.rdbuf();
    absl::StatusOr<TemplateInstanceTable> parsed =
        ParseTemplateInstances(buffer.str(), "tests/corpus/template_instances.tsv");
    if (!in || !parsed.ok()) {
      ADD_FAILURE() << "cannot read " << HLOSCOPE_TEMPLATE_INSTANCES_FILE << ": "
                    << (parsed.ok() ? "no such file" : FirstLineOf(parsed.status()));
      return new TemplateInstanceTable();
    }
    return new TemplateInstanceTable(*std::move(parsed));
  }();
  return *table;
}

// What the judge holds against the module by value (`expected`) and the transformed module in
// buffer mode (`got`): each replica's outputs, then the writes to outside; the first
// difference, or nullopt when both agree bit for bit.
std::optional<std::string> JudgeDifference(const std::vector<eval::Literal>& expected,
                                           const std::vector<eval::OutsideWrite>& expected_writes,
                                           const std::vector<eval::Literal>& got,
                                           const std::vector<eval::OutsideWrite>& got_writes,
                                           int64_t replicas) {
  if (expected.size() != got.size())
    return fmt::format("{} replicas' outputs vs {}", expected.size(), got.size());
  for (size_t r = 0; r < got.size(); ++r) {
    if (std::optional<std::string> difference = eval::FirstDifference(expected[r], got[r])) {
      return replicas > 0 ? fmt::format("replica {}: {}", r, *difference) : *difference;
    }
  }
  return eval::FirstOutsideWriteDifference(expected_writes, got_writes, replicas > 0);
}

class CorpusChecker {
 public:
  CorpusChecker() : exceptions_(ReadExceptions()) {
    has_copy_insertion_ = PassRegistry::Global().Contains("copy-insertion");
  }

  // Checks every chunk of `path`, reported as `name` (relative to its corpus directory).
  void CheckFile(const fs::path& path, const std::string& name) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    const std::string text = buffer.str();
    ++counts_.files;
    std::vector<InputChunk> chunks = SplitInputFile(text);
    // A template of XLA's C++ tests (tests/corpus/template_instances.h) is judged as its
    // instance, the module that XLA's test parses; corpus_roundtrip_test checks that the raw
    // text fails to parse. An instance that splits differently is that test's error: the raw
    // text is kept then.
    std::string instance;
    if (name.starts_with("cc_hlo/")) {
      const TemplateInstanceTable& table = TemplateInstances();
      if (auto it = table.find(name.substr(std::string_view("cc_hlo/").size()));
          it != table.end()) {
        instance = InstantiateTemplate(text, it->second);
        std::vector<InputChunk> instance_chunks = SplitInputFile(instance);
        if (instance_chunks.size() == chunks.size()) {
          chunks = std::move(instance_chunks);
          counts_.instances += static_cast<int>(chunks.size());
        }
      }
    }
    for (size_t k = 0; k < chunks.size(); ++k) {
      ++counts_.modules;
      // XLA's importer tests hold HloModuleProtos in protobuf text format (hlo-translate reads
      // them, split or not): such a part is judged as the HLO text XLA prints for it.
      std::string converted;
      std::string_view module_text = chunks[k].text;
      ParseOptions options;
      options.filename = name;
      options.first_line = chunks[k].first_line;
      if (DetectInputFormat(name, chunks[k].text) == InputFormat::kTextProto) {
        absl::StatusOr<std::string> as_text =
            ProtoToHloText(chunks[k].text, InputFormat::kTextProto, name);
        if (!as_text.ok()) {
          ++counts_.unparsed;
          ++refusals_["(does not parse)"];
          ReportLoadError(name, k, "parse", as_text.status());
          continue;
        }
        converted = *std::move(as_text);
        module_text = converted;
        options.first_line = 1;
      }
      absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(module_text, options);
      if (!m.ok()) {
        ++counts_.unparsed;
        ++refusals_["(does not parse)"];
        ReportLoadError(name, k, "parse", m.status());
        continue;
      }
      if (absl::Status verified = VerifyModule(**m); !verified.ok()) {
        ++counts_.unverified;
        ++refusals_["(does not verify)"];
        ReportLoadError(name, k, "verify", verified);
        continue;
      }
      const int chunk = static_cast<int>(k);
      absl::Status analysis = Analyse(**m);
      if (Check(name, chunk, "analysis", analysis)) ++counts_.analysed;
      if (!analysis.ok() || !has_copy_insertion_) {
        ++refusals_["(analysis failed)"];
        continue;
      }
      absl::Status safety;
      if (Check(name, chunk, "passes", RunPasses(**m, safety))) {
        ++counts_.passes_run;
        // A module whose copy-insertion output is not buffer-safe (a listed safety exception)
        // is still judged; buffer mode may then differ for the reason the exception gives.
        const bool known_unsafe = !Check(name, chunk, "safety", safety);
        Judge(name, chunk, module_text, **m, known_unsafe);
      } else {
        ++refusals_["(copy-insertion,copy-elision failed)"];
      }
    }
  }

  // A module the judge does not run: counted under `reason`; with HLOSCOPE_ALL_REFUSALS set
  // also printed with its file and chunk (`grep ^refused` lists the modules of one reason).
  void Refuse(const std::string& file, int chunk, const std::string& reason) {
    ++refusals_[reason];
    if (std::getenv("HLOSCOPE_ALL_REFUSALS") != nullptr)
      fmt::print("refused\t{}\t{}\t{}\n", file, chunk, reason);
  }

  // With HLOSCOPE_ALL_REFUSALS set, each module that does not load is printed with the first
  // line of its error (scripts/judge-coverage --load-errors groups them): which of those XLA
  // accepts is docs/interpreter_coverage.md's question.
  static void ReportLoadError(const std::string& name, size_t chunk, std::string_view stage,
                              const absl::Status& error) {
    if (std::getenv("HLOSCOPE_ALL_REFUSALS") == nullptr) return;
    std::string message = FirstLineOf(error);
    if (message.starts_with(name + ":")) message.erase(0, name.size());  // keep line:col
    fmt::print("load error\t{}\t{}\t{}\t{}\n", stage, name, chunk, message);
  }

  // Rows of the exceptions file that no module matched: those under `prefix` (a bulk
  // archive's folder), or with an empty prefix the curated files (no folder).
  void ReportUnused(const std::string& prefix) {
    for (const auto& [key, e] : exceptions_) {
      const std::string& file = std::get<0>(key);
      const bool mine =
          prefix.empty() ? file.find('/') == std::string::npos : file.starts_with(prefix);
      if (!mine || used_.contains(key)) continue;
      if (std::get<2>(key) != "analysis" && !has_copy_insertion_) continue;
      ADD_FAILURE() << "analysis_exceptions.tsv: stale row (no such failing module): "
                    << std::get<0>(key) << " chunk " << std::get<1>(key) << " " << std::get<2>(key);
    }
  }

  const Counts& counts() const { return counts_; }
  // Why modules were not judged: reason -> modules.
  const std::map<std::string, int>& refusals() const { return refusals_; }
  bool has_copy_insertion() const { return has_copy_insertion_; }

 private:
  static absl::Status Analyse(const Module& m) {
    absl::StatusOr<std::unique_ptr<DataflowAnalysis>> df = DataflowAnalysis::Run(m);
    if (!df.ok()) return df.status();
    absl::StatusOr<std::unique_ptr<AliasAnalysis>> aa = AliasAnalysis::Run(m);
    return aa.ok() ? absl::OkStatus() : aa.status();
  }

  // Copy-insertion's output must be buffer-safe: the first conflict, as an error.
  static absl::Status BufferSafety(const Module& m) {
    AnalysisCache analyses(m);
    absl::StatusOr<const AliasAnalysis*> alias = analyses.Alias(DataflowOptions{});
    if (!alias.ok()) return alias.status();
    absl::StatusOr<const ExecutionOrdering*> ordering = analyses.Ordering();
    if (!ordering.ok()) return ordering.status();
    ValueLiveness live((*alias)->dataflow(), **ordering);
    const std::vector<InputOutputAlias> donated(m.input_output_aliases().begin(),
                                                m.input_output_aliases().end());
    if (std::optional<BufferConflict> c = FindBufferConflict(**alias, live, donated)) {
      return absl::InternalError("after copy-insertion, not buffer-safe: " + c->message);
    }
    return absl::OkStatus();
  }

  // `safety`: BufferSafety after copy-insertion (when it ran).
  static absl::Status RunPasses(Module& m, absl::Status& safety) {
    for (const char* name : {"copy-insertion", "copy-elision"}) {
      absl::StatusOr<std::unique_ptr<Pass>> pass = PassRegistry::Global().Create(name);
      if (!pass.ok()) return pass.status();
      absl::StatusOr<bool> changed = (*pass)->Run(m);
      if (!changed.ok()) return changed.status();
      if (absl::Status s = VerifyModule(m); !s.ok()) {
        return absl::InternalError(fmt::format("after {}: {}", name, FirstLineOf(s)));
      }
      if (std::string_view(name) == "copy-insertion") safety = BufferSafety(m);
    }
    return absl::OkStatus();
  }

  // The judge runs a cross-replica pipeline on at most this many replicas (one thread each).
  static constexpr int64_t kMaxJudgedReplicas = 8;

  // The interpreter's refusal of a recv that runs before any send on its channel.
  static bool IsSendRecvOrder(const absl::Status& s) {
    return absl::StrContains(StatusText(s), "runs before any send on that channel");
  }

  // The outputs of one run (replicas 0) or of `replicas` replicas in lockstep.
  static absl::StatusOr<std::vector<eval::Literal>> Outputs(
      const Module& m, const std::vector<std::vector<eval::Literal>>& args, int64_t replicas,
      const eval::EvalOptions& options) {
    if (replicas > 0) return eval::EvaluateReplicas(m, args, options);
    absl::StatusOr<eval::Literal> out = eval::Evaluate(m, args[0], options);
    if (!out.ok()) return out.status();
    std::vector<eval::Literal> outs;
    outs.push_back(*std::move(out));
    return outs;
  }

  // Item 3: the module as given (`text`) by value against `transformed` in buffer mode.
  void Judge(const std::string& file, int chunk, std::string_view text, const Module& transformed,
             bool known_unsafe) {
    absl::StatusOr<std::unique_ptr<Module>> original = ParseModule(text, {});
    if (!original.ok()) return;
    eval::EvalOptions by_value;
    by_value.max_bytes = int64_t{1} << 20;
    by_value.max_steps = 100'000;
    // rng draws from one seeded engine in evaluation order; copy-insertion and copy-elision add
    // and remove copies but keep the other instructions' order, so both runs draw alike.
    by_value.rng_seed = 1;
    // Reads from outside draw from one seeded stream in read order, which the passes keep as
    // they keep rng's; the writes to outside are compared below.
    by_value.host_io = eval::HostIo::kSeeded;
    by_value.host_io_seed = 1;
    std::vector<eval::OutsideWrite> expected_writes;
    by_value.outside_writes = &expected_writes;
    // Constants dumped as {...}: seeded values keyed by the constant's name, which the passes
    // keep, so both runs see the same values (eval/elided_constants.h).
    by_value.elided_constants = eval::ElidedConstants::kSeeded;
    by_value.elided_constants_seed = 1;
    // Custom-calls of unknown targets (Neuron, Transformer Engine, Pallas kernels): opaque
    // functions of the call and its operands' values, side-effecting ones logged in order as
    // writes to outside (eval/opaque_custom_call.h). Sound for this differential check: the
    // passes do not know what the calls mean either, and what they must keep (each call's
    // operand values, the order of side-effecting calls, results written where
    // output_to_operand_aliasing says) is what the two runs compare. It cannot catch a pass
    // that is wrong only given a call's real meaning, which no pass here reasons about.
    by_value.custom_calls = eval::CustomCalls::kOpaque;
    // Judge-only modes for what XLA's backends run and XLA's evaluator refuses: mixed
    // precision as FloatNormalization computes it, rng_default as the CPU and GPU compilers
    // expand it (Philox). Both runs share them; the passes change neither types nor rng order.
    by_value.mixed_precision = eval::MixedPrecision::kConvertOperands;
    by_value.rng_default = eval::RngDefault::kPhilox;
    // rng_uniform with low >= high (random bounds from the judge's inputs): the backends'
    // formula on the seeded engine's words (eval/rng_empty_range.h), drawn in the same order.
    by_value.rng_empty_range = eval::RngEmptyRange::kBackendFormula;
    eval::EvalOptions in_buffers = by_value;
    in_buffers.mode = eval::EvalMode::kBuffer;
    if (absl::Status s = eval::CheckRunnable(**original, by_value); !s.ok()) {
      Refuse(file, chunk, RefusalReason(FirstLineOf(s)));
      return;
    }
    if (absl::Status s = eval::CheckRunnable(transformed, in_buffers); !s.ok()) {
      Refuse(file, chunk, "after the passes: " + RefusalReason(FirstLineOf(s)));
      return;
    }
    // One replica; a cross-replica pipeline (a recv that runs before any send, with
    // _xla_send_recv_source_target_pairs) as many replicas as its pairs name, each with its
    // own seeded arguments (seed 1 + R).
    int64_t replicas = 0;
    std::vector<std::vector<eval::Literal>> args = {eval::RandomArguments(**original, 1)};
    absl::StatusOr<std::vector<eval::Literal>> expected = Outputs(**original, args, 0, by_value);
    if (!expected.ok() && IsSendRecvOrder(expected.status())) {
      replicas = eval::ReplicasForSendRecv(**original);
      if (replicas >= 2 && replicas <= kMaxJudgedReplicas) {
        for (int64_t r = 1; r < replicas; ++r)
          args.push_back(eval::RandomArguments(**original, 1 + static_cast<uint64_t>(r)));
        expected = Outputs(**original, args, replicas, by_value);
      }
    }
    if (!expected.ok()) {  // e.g. past the step budget: not judged
      Refuse(file, chunk, "run: " + RefusalReason(FirstLineOf(expected.status())));
      return;
    }
    std::vector<std::string> overwrites;
    in_buffers.read_only_overwrites = &overwrites;
    std::vector<eval::OutsideWrite> got_writes;
    in_buffers.outside_writes = &got_writes;
    absl::StatusOr<std::vector<eval::Literal>> got =
        Outputs(transformed, args, replicas, in_buffers);
    absl::Status verdict;
    std::optional<std::string> difference;
    if (got.ok())
      difference = JudgeDifference(*expected, expected_writes, *got, got_writes, replicas);
    if (!got.ok()) {
      verdict = absl::InternalError("after copy-insertion,copy-elision, buffer mode fails: " +
                                    FirstLineOf(got.status()));
    } else if (difference.has_value()) {
      verdict = absl::InternalError(
          "after copy-insertion,copy-elision, buffer mode differs from the module by value: " +
          *difference);
    } else if (!overwrites.empty()) {
      verdict = absl::InternalError(
          "after copy-insertion,copy-elision, a read-only value is written: " + overwrites.front());
    }
    // A module the safety stage found not buffer-safe (its exception says why) is not judged
    // when buffer mode then differs: that is the difference the exception explains (the
    // memory-space-assignment tests' fusions that alias two outputs to one operand).
    if (known_unsafe && !verdict.ok()) {
      Refuse(file, chunk, "(not buffer-safe after copy-insertion: a safety exception)");
      return;
    }
    // Counted when equal: a listed exception is counted among the exceptions instead.
    if (Check(file, chunk, "judge", verdict)) ++counts_.judged;
  }

  // True when the outcome is as expected (passed, or failed as listed).
  bool Check(const std::string& file, int chunk, const std::string& stage,
             const absl::Status& status) {
    const ExceptionKey key{file, chunk, stage};
    auto it = exceptions_.find(key);
    if (it == exceptions_.end()) {
      EXPECT_TRUE(status.ok()) << file << " chunk " << chunk << " (" << stage
                               << "): " << FirstLineOf(status);
      return status.ok();
    }
    used_.insert(key);
    ++counts_.excepted;
    EXPECT_FALSE(status.ok()) << file << " chunk " << chunk << " (" << stage
                              << ") is listed in analysis_exceptions.tsv but now passes";
    if (!status.ok()) {
      EXPECT_EQ(FirstLineOf(status), it->second.error)
          << file << " chunk " << chunk << " (" << stage << ") fails differently";
    }
    return false;
  }

  std::map<ExceptionKey, Exception> exceptions_;
  std::set<ExceptionKey> used_;
  Counts counts_;
  std::map<std::string, int> refusals_;
  bool has_copy_insertion_ = false;
};

// The most common reasons first, once per test; then the judged count against its floor.
void ReportCoverage(const std::string& test, const CorpusChecker& checker) {
  std::vector<std::pair<int, std::string>> by_count;
  for (const auto& [reason, n] : checker.refusals()) by_count.emplace_back(n, reason);
  std::sort(by_count.begin(), by_count.end(), std::greater<>());
  const Counts& c = checker.counts();
  fmt::print("{}: judged {} of {} modules ({:.1f}%); not judged, by reason:\n", test, c.judged,
             c.modules, c.modules == 0 ? 0.0 : 100.0 * c.judged / c.modules);
  // HLOSCOPE_ALL_REFUSALS=1 prints every reason, to find what to support next.
  const size_t kShown = std::getenv("HLOSCOPE_ALL_REFUSALS") != nullptr ? by_count.size() : 25;
  for (size_t i = 0; i < by_count.size() && i < kShown; ++i) {
    fmt::print("  {:6}  {}\n", by_count[i].first, by_count[i].second);
  }
  if (by_count.size() > kShown) fmt::print("  ... {} more reasons\n", by_count.size() - kShown);
  const std::map<std::string, int> floors = ReadJudgedFloors();
  auto it = floors.find(test);
  if (it == floors.end()) {
    ADD_FAILURE() << "judged_floor.tsv has no row for " << test;
    return;
  }
  EXPECT_GE(c.judged, it->second) << test << ": the interpreter judged fewer modules than the "
                                  << "floor in judged_floor.tsv";
}

void Summarize(const std::string& what, const CorpusChecker& checker, double seconds) {
  const Counts& c = checker.counts();
  fmt::print(
      "{}: {} files, {} modules ({} read as their template instance): {} do not parse and {} "
      "do not verify (round-trip test); analysed {}, copy-insertion,copy-elision {}{} ({} run in "
      "the interpreter and equal), {} listed exceptions; {:.1f} s\n",
      what, c.files, c.modules, c.instances, c.unparsed, c.unverified, c.analysed, c.passes_run,
      checker.has_copy_insertion() ? "" : " (no copy-insertion pass yet)", c.judged, c.excepted,
      seconds);
}

TEST(CorpusAnalysis, Curated) {
  const fs::path dir(HLOSCOPE_CORPUS_DIR);
  if (!fs::is_directory(dir)) GTEST_SKIP() << "no corpus at " << dir;
  const auto start = std::chrono::steady_clock::now();
  CorpusChecker checker;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".hlo") files.push_back(entry);
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) checker.CheckFile(f, f.filename().string());
  checker.ReportUnused("");
  EXPECT_GT(checker.counts().analysed, 0);
  Summarize("curated", checker,
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  ReportCoverage("curated", checker);
}

class CorpusAnalysisBulk : public ::testing::TestWithParam<std::string> {};

TEST_P(CorpusAnalysisBulk, Archive) {
  const fs::path dir = fs::path(HLOSCOPE_BULK_DIR) / GetParam();
  if (!fs::is_directory(dir)) GTEST_SKIP() << "no bulk archive at " << dir;
  const auto start = std::chrono::steady_clock::now();
  CorpusChecker checker;
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".hlo") files.push_back(entry);
  }
  std::sort(files.begin(), files.end());
  const fs::path bulk(HLOSCOPE_BULK_DIR);
  for (const fs::path& f : files) checker.CheckFile(f, fs::relative(f, bulk).string());
  checker.ReportUnused(GetParam() + "/");
  EXPECT_GT(checker.counts().analysed, 0);
  Summarize(GetParam(), checker,
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  ReportCoverage(GetParam(), checker);
}

// The bulk modules on which copy-insertion's output was not buffer-safe before issue 30 (and
// the four still listed in analysis_exceptions.tsv, which must fail as listed), and the one
// the interpreter judged unsafe. VerifyBuffersBufferInResultMultipleTimes and
// VerifyBuffersBufferWithTwoWritesStraightLine were here until the verifier rejected them as
// XLA's does (hlo/verifier_buffer_rules.cc): the last test below.
TEST(CorpusAnalysisSample, FormerlyUnsafeAfterCopyInsertion) {
  const fs::path bulk(HLOSCOPE_BULK_DIR);
  if (!fs::is_directory(bulk / "cc_hlo")) GTEST_SKIP() << "no bulk archive at " << bulk;
  constexpr const char* kModules[] = {
      "backends_gpu_tests_collective_pipeline_parallelism_test__"
      "PartiallyPipelinedAsyncSendRecvLoop2Devices",
      "backends_gpu_tests_dynamic_slice_fusion_v2_test__AsyncSingleOutputOneDUS",
      "backends_gpu_tests_dynamic_slice_fusion_v2_test__AsyncTupleOutputOneDUS",
      "backends_gpu_tests_dynamic_slice_fusion_v2_test__AsyncTupleOutputTwoDUS",
      "codegen_ir_emission_utils_test__CanEmitFusedDynamicUpdateSliceInPlace_"
      "HandlesMultiOutputFusionSharedParameter",
      "hlo_analysis_alias_info_test__AsyncStartForwardedOperand",
      // Not unsafe after copy-insertion but judged: the conditional in a call-start's callee
      // wrote into a read-only entry parameter before its branch-root copies.
      "hlo_analysis_hlo_dataflow_analysis_test__AsyncCallWithConditional",
      "hlo_analysis_alias_info_test__CollectivePermuteStartNotInplace",
      "hlo_analysis_alias_info_test__CombinedCollectivePermute",
      "hlo_analysis_hlo_ordering_test__"
      "UsesBeforeValueDefinitionValueIsAnAliasedAsyncWrappedCallInstruction",
      "hlo_parser_hlo_parser_test__global__73",
      "hlo_transforms_host_offloader_test__BasicAsyncCustomCallWithAliasing",
      "service_buffer_assignment_test__AsyncCustomCallWithAliasing",
      "service_gpu_alias_info_test__BufferCannotBeSharedDynamicUpdateSliceAndOtherUser",
      "service_gpu_custom_call_test__CustomCallConcurrentUpdateTwoBuffers",
      "service_hlo_verifier_test__VerifyBuffersAsyncCallExpandedStreamAnnotated",
      "service_hlo_verifier_test__VerifyBuffersAsyncCallWithAlias",
      "service_latency_hiding_scheduler_test__AnnotatedNoOp",
      "service_memory_space_assignment_memory_space_assignment_test__"
      "AsyncOpCustomFusionLongLiveRange",
      "service_memory_space_assignment_memory_space_assignment_test__"
      "AsyncOpCustomFusionMultipleUsers",
      "service_memory_space_assignment_memory_space_assignment_test__"
      "AsyncOpCustomFusionShortLiveRange",
  };
  CorpusChecker checker;
  for (const char* m : kModules) {
    const std::string name = fmt::format("cc_hlo/xla__xla_{}.hlo", m);
    ASSERT_TRUE(fs::is_regular_file(bulk / name)) << name;
    checker.CheckFile(bulk / name, name);
  }
  EXPECT_EQ(checker.counts().passes_run, static_cast<int>(std::size(kModules)));
}

// Two modules that copy-insertion once left not buffer-safe are not valid HLO: XLA's verifier
// rejects them, and so does ours now, so the corpus check counts them as not verifying.
TEST(CorpusAnalysisSample, BufferRulesRejectUnsafeModules) {
  const fs::path bulk(HLOSCOPE_BULK_DIR);
  if (!fs::is_directory(bulk / "cc_hlo")) GTEST_SKIP() << "no bulk archive at " << bulk;
  constexpr const char* kModules[] = {
      "VerifyBuffersBufferInResultMultipleTimes",
      "VerifyBuffersBufferWithTwoWritesStraightLine",
  };
  CorpusChecker checker;
  for (const char* m : kModules) {
    const std::string name = fmt::format("cc_hlo/xla__xla_service_hlo_verifier_test__{}.hlo", m);
    ASSERT_TRUE(fs::is_regular_file(bulk / name)) << name;
    checker.CheckFile(bulk / name, name);
  }
  EXPECT_EQ(checker.counts().unverified, static_cast<int>(std::size(kModules)));
}

// XLA's VerifyBuffers tests in the bulk archive (hlo_verifier_test.cc): the modules XLA's
// verifier rejects are rejected here too (each rule of hlo/verifier_buffer_rules.cc, and add's
// shape rule for VerifyBuffersAddOpCannotHaveBuffers), and the ones it accepts verify.
TEST(CorpusAnalysisSample, BufferRulesAsXla) {
  const fs::path bulk(HLOSCOPE_BULK_DIR);
  if (!fs::is_directory(bulk / "cc_hlo")) GTEST_SKIP() << "no bulk archive at " << bulk;
  auto check = [&](std::initializer_list<const char*> modules) {
    CorpusChecker checker;
    for (const char* m : modules) {
      const std::string name =
          fmt::format("cc_hlo/xla__xla_service_hlo_verifier_test__VerifyBuffers{}.hlo", m);
      EXPECT_TRUE(fs::is_regular_file(bulk / name)) << name;
      checker.CheckFile(bulk / name, name);
    }
    return checker.counts();
  };
  const auto rejected = {
      "EntryParameterCannotHaveBuffers", "PinMissingAlias",          "UnpinMissingAlias",
      "ResultBufferNotInOperands",       "OperandBufferNotInResult", "AddOpCannotHaveBuffers"};
  EXPECT_EQ(check(rejected).unverified, static_cast<int>(rejected.size()));
  const auto accepted = {"SpecialCustomCallTargets",
                         "NestedInOperands",
                         "NestedInResults",
                         "StraightLineChain",
                         "RotatedChain",
                         "LayoutChangeInPinAllowed",
                         "AsyncCallWithAlias",
                         "AsyncCallWithoutAlias",
                         "AsyncCallStreamAnnotated",
                         "AsyncCallExpandedStreamAnnotated"};
  const Counts counts = check(accepted);
  EXPECT_EQ(counts.unverified, 0);
  EXPECT_EQ(counts.modules, static_cast<int>(accepted.size()));
}

// The judge's comparison fails a module whose outputs agree but whose outfeed differs: the
// broken variant outfeeds the infeed's data before adding one instead of after, as a pass that
// let the outfeed read a buffer overwritten too early would.
TEST(CorpusAnalysisSample, JudgeFailsADifferentOutfeed) {
  constexpr const char* kModule = R"(
HloModule m
ENTRY e {
  p = f32[3] parameter(0)
  tok = token[] after-all()
  in = (f32[3], token[]) infeed(tok)
  x = f32[3] get-tuple-element(in), index=0
  t = token[] get-tuple-element(in), index=1
  one = f32[] constant(1)
  ones = f32[3] broadcast(one), dimensions={}
  y = f32[3] add(x, ones)
  o = token[] outfeed(OUTFED, t), outfeed_shape=f32[3]{0}
  ROOT r = f32[3] add(y, p)
}
)";
  auto parse = [&](std::string_view outfed) {
    std::string text = kModule;
    text.replace(text.find("OUTFED"), 6, outfed);
    absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text, {});
    EXPECT_TRUE(m.ok()) << StatusText(m.status());
    return m.ok() ? *std::move(m) : nullptr;
  };
  std::unique_ptr<Module> good = parse("y");
  std::unique_ptr<Module> broken = parse("x");
  ASSERT_NE(good, nullptr);
  ASSERT_NE(broken, nullptr);
  const std::vector<std::vector<eval::Literal>> args = {eval::RandomArguments(*good, 1)};
  auto run = [&](const Module& m, eval::EvalMode mode, std::vector<eval::OutsideWrite>* writes) {
    eval::EvalOptions options;
    options.mode = mode;
    options.host_io = eval::HostIo::kSeeded;
    options.host_io_seed = 1;
    options.outside_writes = writes;
    absl::StatusOr<eval::Literal> out = eval::Evaluate(m, args[0], options);
    EXPECT_TRUE(out.ok()) << StatusText(out.status());
    std::vector<eval::Literal> outs;
    if (out.ok()) outs.push_back(*std::move(out));
    return outs;
  };
  std::vector<eval::OutsideWrite> expected_writes, same_writes, broken_writes;
  const std::vector<eval::Literal> expected = run(*good, eval::EvalMode::kValue, &expected_writes);
  const std::vector<eval::Literal> same = run(*good, eval::EvalMode::kBuffer, &same_writes);
  const std::vector<eval::Literal> differs = run(*broken, eval::EvalMode::kBuffer, &broken_writes);
  ASSERT_EQ(expected_writes.size(), 1u);
  EXPECT_EQ(JudgeDifference(expected, expected_writes, same, same_writes, 0), std::nullopt);
  // The outputs agree, so only the outfeed tells the broken variant apart.
  ASSERT_EQ(differs.size(), 1u);
  EXPECT_EQ(eval::FirstDifference(expected[0], differs[0]), std::nullopt);
  const std::optional<std::string> difference =
      JudgeDifference(expected, expected_writes, differs, broken_writes, 0);
  ASSERT_TRUE(difference.has_value());
  EXPECT_EQ(difference->rfind("outside write 0 (outfeed %o #0): output {}: element [0]: ", 0), 0u)
      << *difference;
}

INSTANTIATE_TEST_SUITE_P(Archives, CorpusAnalysisBulk,
                         ::testing::Values("bulk_gh", "cc_hlo", "xla"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace hloscope
