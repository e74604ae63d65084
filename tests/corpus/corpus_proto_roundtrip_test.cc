// Text → binary HloModuleProto → text over the corpus (issue 28's acceptance: the proto round
// trip is a fixed point on every corpus module, or the module is listed with the reason).
//
// For every `// -----` chunk that ParseModule accepts (chunks it refuses are the text round
// trip's business, tests/corpus/bulk_expectations.tsv):
//   P1 = print(parse(text))
//   P2 = print(ParseModuleProto(WriteModuleProto(parse(text), binary)))
// and P1 == P2 (one difference accepted: the reader gives a module without
// entry_computation_layout its entry's signature as the layout, as XLA does), or the chunk is
// listed in tests/corpus/proto_roundtrip_expectations.tsv:
//   <path> TAB <chunk, 0-based> TAB <first line of the reason>
// where <path> is `curated/<file>` or the path under HLOSCOPE_BULK_DIR, and the reason is
// `write: <writer error>`, `read: <reader error>` or `differs: <first differing line>`. A
// listed chunk that now round-trips, or that no longer exists, fails as stale.
//
// Tests: ProtoRoundTripSample.* (default suite: a fixed sample of small curated files, a few
// seconds) and ProtoRoundTripCorpus.* (ctest label `corpus`: every curated file and each bulk
// archive). Regenerate the expectations after a writer or reader change, then review the diff:
//   HLOSCOPE_UPDATE_EXPECTATIONS=1 build/tests/corpus/corpus_proto_roundtrip_test
//       --gtest_filter='ProtoRoundTripCorpus.*' (one command line)
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fmt/core.h"
#include "fmt/format.h"
#include "google/protobuf/util/field_comparator.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "hlo/module.h"
#include "hlo/parser.h"
#include "hlo/printer.h"
#include "hlo/proto_reader.h"
#include "hlo/proto_writer.h"
#include "hlo/proto_writer_internal.h"
#include "support/status_text.h"

namespace hloscope {
namespace {

namespace fs = std::filesystem;

using Key = std::pair<std::string, int>;  // path, chunk

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string FirstLine(std::string_view s) {
  size_t nl = s.find('\n');
  std::string line(nl == std::string_view::npos ? s : s.substr(0, nl));
  // A TSV field: no tabs; long lines cut.
  std::replace(line.begin(), line.end(), '\t', ' ');
  if (line.size() > 300) line = line.substr(0, 300) + "...";
  return line;
}

// Empty when equal, else where the two texts first differ: line, column and the text
// around it in both (long lines are cut to the neighbourhood of the difference).
std::string FirstDifference(std::string_view a, std::string_view b) {
  size_t line = 1, start = 0, k = 0;
  const size_t n = std::min(a.size(), b.size());
  for (; k < n && a[k] == b[k]; ++k) {
    if (a[k] == '\n') {
      ++line;
      start = k + 1;
    }
  }
  if (k == a.size() && k == b.size()) return "";
  const size_t from = std::max(start, k >= 40 ? k - 40 : 0);
  auto around = [&](std::string_view s) {
    std::string_view rest = from <= s.size() ? s.substr(from) : std::string_view();
    rest = rest.substr(0, std::min(rest.find('\n'), size_t{100}));
    return std::string(rest);
  };
  return fmt::format("line {} col {}: '{}' became '{}'", line, k - start + 1, around(a), around(b));
}

// Empty when the chunk round-trips (or does not parse as text at all), else the reason.
std::string RoundTrip(std::string_view text, const std::string& name, int first_line) {
  ParseOptions options;
  options.filename = name;
  options.first_line = first_line;
  absl::StatusOr<std::unique_ptr<Module>> m1 = ParseModule(text, options);
  if (!m1.ok()) return "";
  const std::string p1 = PrintModule(**m1);
  absl::StatusOr<std::string> bytes = WriteModuleProto(**m1, ProtoFormat::kBinary);
  if (!bytes.ok()) return "write: " + StatusText(bytes.status());
  absl::StatusOr<std::unique_ptr<Module>> m2 =
      ParseModuleProto(*bytes, InputFormat::kBinaryProto, "roundtrip.hlo.pb");
  if (!m2.ok()) return "read: " + StatusText(m2.status());
  std::string p2 = PrintModule(**m2);
  // A module read from a proto always has an entry computation layout, as in XLA: without
  // host_program_shape the reader writes the entry's own signature. Where the text had none,
  // exactly that signature is the one addition accepted.
  const std::string_view header1 = std::string_view(p1).substr(0, p1.find('\n'));
  if (header1.find(", entry_computation_layout=") == std::string_view::npos &&
      (*m1)->entry() != nullptr && (*m1)->entry()->root() != nullptr) {
    const Computation& entry = *(*m1)->entry();
    std::string signature = ", entry_computation_layout={(";
    for (int64_t i = 0; i < entry.parameter_count(); ++i) {
      if (i > 0) signature += ", ";
      signature += entry.parameter(i)->shape().ToString();
    }
    signature += ")->" + entry.root()->shape().ToString() + "}";
    size_t at = p2.find(signature);
    if (at != std::string::npos && at < p2.find('\n')) p2.erase(at, signature.size());
  }
  std::string diff = FirstDifference(p1, p2);
  return diff.empty() ? "" : "differs: " + diff;
}

std::map<Key, std::string> ReadExpectations() {
  std::map<Key, std::string> out;
  std::ifstream in(HLOSCOPE_PROTO_EXPECTATIONS_FILE);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    size_t t1 = line.find('\t');
    size_t t2 = t1 == std::string::npos ? t1 : line.find('\t', t1 + 1);
    if (t2 == std::string::npos) continue;
    out[{line.substr(0, t1), std::stoi(line.substr(t1 + 1, t2 - t1 - 1))}] = line.substr(t2 + 1);
  }
  return out;
}

bool UpdateMode() { return std::getenv("HLOSCOPE_UPDATE_EXPECTATIONS") != nullptr; }

// Rewrites the lines of `prefix` (one test's files) in the expectations file with `actual`.
void WriteExpectations(const std::string& prefix, const std::map<Key, std::string>& actual) {
  std::ifstream in(HLOSCOPE_PROTO_EXPECTATIONS_FILE);
  std::vector<std::string> header, kept;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') {
      header.push_back(line);
    } else if (line.compare(0, prefix.size(), prefix) != 0) {
      kept.push_back(line);
    }
  }
  for (const auto& [key, reason] : actual) {
    kept.push_back(fmt::format("{}\t{}\t{}", key.first, key.second, reason));
  }
  std::sort(kept.begin(), kept.end());
  std::ofstream out(HLOSCOPE_PROTO_EXPECTATIONS_FILE, std::ios::trunc);
  for (const std::string& h : header) out << h << '\n';
  for (const std::string& k : kept) out << k << '\n';
}

// Round-trips every chunk of `files` (path under `root` → key path `prefix` + relative) and
// compares with the expectations of the keys that start with `prefix`.
void RunFiles(const fs::path& root, const std::vector<fs::path>& files, const std::string& prefix,
              bool whole_prefix) {
  std::map<Key, std::string> expected = ReadExpectations();
  std::map<Key, std::string> actual;
  std::vector<std::string> problems;
  int modules = 0, failed = 0;
  std::set<std::string> seen_paths;
  std::set<Key> seen_keys;
  for (const fs::path& file : files) {
    std::string rel = prefix + fs::relative(file, root).generic_string();
    seen_paths.insert(rel);
    std::string text = ReadFile(file);
    std::vector<InputChunk> chunks = SplitInputFile(text);
    for (size_t k = 0; k < chunks.size(); ++k) {
      ++modules;
      std::string reason = FirstLine(RoundTrip(chunks[k].text, rel, chunks[k].first_line));
      Key key{rel, static_cast<int>(k)};
      seen_keys.insert(key);
      auto it = expected.find(key);
      if (!reason.empty()) {
        ++failed;
        actual[key] = reason;
        if (it == expected.end()) {
          problems.push_back(fmt::format("{} chunk {}: {} (not listed)", rel, k, reason));
        } else if (it->second != reason) {
          problems.push_back(
              fmt::format("{} chunk {}: {}\n    listed as: {}", rel, k, reason, it->second));
        }
      } else if (it != expected.end()) {
        problems.push_back(fmt::format("{} chunk {}: round-trips now; listed (stale)", rel, k));
      }
    }
  }
  for (const auto& [key, reason] : expected) {
    bool ours = whole_prefix ? key.first.compare(0, prefix.size(), prefix) == 0
                             : seen_paths.count(key.first) > 0;
    if (ours && seen_keys.count(key) == 0) {
      problems.push_back(
          fmt::format("{} chunk {}: listed, no such module (stale)", key.first, key.second));
    }
  }
  fmt::print("[proto round trip] {}: {} files, {} modules, {} round-trip, {} listed\n", prefix,
             files.size(), modules, modules - failed, failed);
  if (UpdateMode() && whole_prefix) {
    WriteExpectations(prefix, actual);
    return;
  }
  for (const std::string& p : problems) ADD_FAILURE() << p;
}

std::vector<fs::path> FilesUnder(const fs::path& dir) {
  std::vector<fs::path> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().extension() == ".hlo") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<fs::path> CuratedFiles() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(HLOSCOPE_CORPUS_DIR)) {
    if (e.is_regular_file() && e.path().extension() == ".hlo") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The default suite's sample: the curated files under 200 KB (XLA's lit tests and the small
// modules from its C++ tests; the training steps are left to the corpus label).
TEST(ProtoRoundTripSample, SmallCuratedFiles) {
  std::vector<fs::path> sample;
  for (const fs::path& f : CuratedFiles()) {
    if (fs::file_size(f) < 200 * 1024) sample.push_back(f);
  }
  ASSERT_GE(sample.size(), 10u) << "curated corpus missing at " << HLOSCOPE_CORPUS_DIR;
  RunFiles(HLOSCOPE_CORPUS_DIR, sample, "curated/", /*whole_prefix=*/false);
}

TEST(ProtoRoundTripCorpus, Curated) {
  std::vector<fs::path> files = CuratedFiles();
  ASSERT_FALSE(files.empty()) << "curated corpus missing at " << HLOSCOPE_CORPUS_DIR;
  RunFiles(HLOSCOPE_CORPUS_DIR, files, "curated/", true);
}

void RunBulk(const std::string& folder) {
  fs::path dir = fs::path(HLOSCOPE_BULK_DIR) / folder;
  std::vector<fs::path> files = FilesUnder(dir);
  ASSERT_FALSE(files.empty()) << "bulk corpus not unpacked at " << dir;
  RunFiles(dir, files, folder + "/", true);
}

// The real XLA dumps (binary HloProto): read as text T1, written by us, read again as T2:
// T1 == T2, every one (the acceptance; nothing may be listed). One test per dump, the
// smallest in the default suite.
void RoundTripDump(const std::string& name) {
  const fs::path path = fs::path(HLOSCOPE_CORPUS_DIR) / "xla_dumps" / name;
  const std::string bytes = ReadFile(path);
  ASSERT_FALSE(bytes.empty()) << "missing " << path;
  absl::StatusOr<std::unique_ptr<Module>> m1 =
      ParseModuleProto(bytes, InputFormat::kBinaryProto, path.string());
  ASSERT_TRUE(m1.ok()) << m1.status();
  const std::string t1 = PrintModule(**m1);
  absl::StatusOr<std::string> written = WriteModuleProto(**m1, ProtoFormat::kBinary);
  ASSERT_TRUE(written.ok()) << written.status();
  absl::StatusOr<std::unique_ptr<Module>> m2 =
      ParseModuleProto(*written, InputFormat::kBinaryProto, "written.hlo.pb");
  ASSERT_TRUE(m2.ok()) << m2.status();
  EXPECT_EQ(FirstDifference(t1, PrintModule(**m2)), "");
  EXPECT_EQ((*m1)->instruction_count(), (*m2)->instruction_count());
  // The text format carries the same module.
  absl::StatusOr<std::string> text = WriteModuleProto(**m1, ProtoFormat::kText);
  ASSERT_TRUE(text.ok()) << text.status();
  absl::StatusOr<std::unique_ptr<Module>> m3 =
      ParseModuleProto(*text, InputFormat::kTextProto, "written.pbtxt");
  ASSERT_TRUE(m3.ok()) << m3.status();
  EXPECT_EQ(FirstDifference(t1, PrintModule(**m3)), "");
}

// Our writer against XLA's own: the dump's HloModuleProto, read as text and parsed, written
// again by ModuleToProto, must equal what XLA wrote field for field (a field at its default
// equals an absent one; NaNs of the same bits are equal). Ids are ours to choose, so operands,
// control predecessors, callees, roots and the schedule are compared by name, and the module's
// own id, which the text does not carry, is left out. (XLA lists instructions in its post order,
// we in the text's: they are matched by name. The computation of an async op written in XLA's
// short form, `reduce-scatter-start(...)`, is not in the text: ours is named as XLA's parser
// names it, and compared by the start that calls it.)
namespace xp = ::hloscope::xla;

std::string Differences(const google::protobuf::Message& a, const google::protobuf::Message& b) {
  google::protobuf::util::MessageDifferencer d;
  d.set_message_field_comparison(google::protobuf::util::MessageDifferencer::EQUIVALENT);
  google::protobuf::util::DefaultFieldComparator fields;
  fields.set_treat_nan_as_equal(true);
  d.set_field_comparator(&fields);
  std::string report;
  d.ReportDifferencesToString(&report);
  return d.Compare(a, b) ? "" : report.substr(0, 2000);
}

// Names to compare by: an instruction's or computation's name, except for the computation of
// an async start (`async:<start>`, XLA's own is named by its parser and passes) and its
// instructions (`async:<start>/param N`, `.../root`).
struct Names {
  std::map<int64_t, std::string> instr, comp;
  std::set<int64_t> async_comps;
  explicit Names(const xp::HloModuleProto& m) {
    std::map<int64_t, std::string> async_key;
    for (const auto& c : m.computations()) {
      for (const auto& i : c.instructions()) {
        if (i.opcode() == "async-start" && i.called_computation_ids_size() == 1) {
          async_key[i.called_computation_ids(0)] = "async:" + i.name();
        }
      }
    }
    for (const auto& c : m.computations()) {
      auto k = async_key.find(c.id());
      const bool async = k != async_key.end();
      comp[c.id()] = async ? k->second : c.name();
      if (async) async_comps.insert(c.id());
      for (const auto& i : c.instructions()) {
        instr[i.id()] = !async ? i.name()
                        : i.opcode() == "parameter"
                            ? fmt::format("{}/param {}", k->second, i.parameter_number())
                        : i.id() == c.root_id() ? k->second + "/root"
                                                : k->second + "/" + i.name();
      }
    }
  }
  template <typename Ids>
  std::vector<std::string> Of(const Ids& ids, const std::map<int64_t, std::string>& table) const {
    std::vector<std::string> out;
    for (int64_t id : ids) {
      auto it = table.find(id);
      out.push_back(it == table.end() ? fmt::format("<id {}>", id) : it->second);
    }
    return out;
  }
};

void MatchesXlasProto(const std::string& name) {
  const fs::path path = fs::path(HLOSCOPE_CORPUS_DIR) / "xla_dumps" / name;
  const std::string bytes = ReadFile(path);
  xp::HloProto dump;
  ASSERT_TRUE(dump.ParseFromString(bytes)) << path;
  const xp::HloModuleProto& xla = dump.hlo_module();
  absl::StatusOr<std::unique_ptr<Module>> m =
      ParseModuleProto(bytes, InputFormat::kBinaryProto, path.string());
  ASSERT_TRUE(m.ok()) << m.status();
  absl::StatusOr<xp::HloModuleProto> ours = ModuleToProto(**m);
  ASSERT_TRUE(ours.ok()) << ours.status();
  const Names xn(xla), on(*ours);

  ASSERT_EQ(ours->computations_size(), xla.computations_size());
  EXPECT_EQ(on.comp.at(ours->entry_computation_id()), xn.comp.at(xla.entry_computation_id()));
  // Ours lists callees before callers, as XLA's loader reads them.
  std::set<int64_t> written;
  std::map<std::string, const xp::HloComputationProto*> ours_by_key;
  for (const auto& oc : ours->computations()) {
    for (const auto& oi : oc.instructions()) {
      for (int64_t id : oi.called_computation_ids()) {
        EXPECT_TRUE(written.count(id)) << oc.name() << " / " << oi.name() << " calls "
                                       << on.comp.at(id) << " before it is listed";
      }
    }
    written.insert(oc.id());
    ours_by_key[on.comp.at(oc.id())] = &oc;
  }
  int64_t instructions = 0;
  for (const auto& xc_ref : xla.computations()) {
    const std::string key = xn.comp.at(xc_ref.id());
    auto found_comp = ours_by_key.find(key);
    ASSERT_NE(found_comp, ours_by_key.end()) << "no computation " << key;
    xp::HloComputationProto xc = xc_ref, oc = *found_comp->second;
    const bool async = xn.async_comps.count(xc.id()) > 0;
    EXPECT_EQ(on.instr.at(oc.root_id()), xn.instr.at(xc.root_id())) << key;
    // XLA lists a computation's instructions in its own post order, we in the text's (the
    // schedule's) order; both put operands first. Matched by name.
    ASSERT_EQ(oc.instructions_size(), xc.instructions_size()) << key;
    std::map<std::string, const xp::HloInstructionProto*> by_name;
    for (const auto& oi : oc.instructions()) by_name[on.instr.at(oi.id())] = &oi;
    for (int i = 0; i < xc.instructions_size(); ++i) {
      xp::HloInstructionProto xi = xc.instructions(i);
      const std::string iname = xn.instr.at(xi.id());
      auto found = by_name.find(iname);
      ASSERT_NE(found, by_name.end()) << key << " / " << iname;
      xp::HloInstructionProto oi = *found->second;
      EXPECT_EQ(on.Of(oi.operand_ids(), on.instr), xn.Of(xi.operand_ids(), xn.instr)) << iname;
      EXPECT_EQ(on.Of(oi.control_predecessor_ids(), on.instr),
                xn.Of(xi.control_predecessor_ids(), xn.instr))
          << iname;
      EXPECT_EQ(on.Of(oi.called_computation_ids(), on.comp),
                xn.Of(xi.called_computation_ids(), xn.comp))
          << iname;
      for (xp::HloInstructionProto* p : {&xi, &oi}) {
        p->clear_id();
        p->clear_operand_ids();
        p->clear_control_predecessor_ids();
        p->clear_called_computation_ids();
        // The short form's text does not carry the wrapped op's own metadata (XLA's printer
        // leaves it out too); the start's is compared.
        if (async) {
          p->clear_name();
          if (xi.opcode() != "parameter") p->clear_metadata();
        }
      }
      EXPECT_EQ(Differences(xi, oi), "") << key << " / " << iname << " (" << xi.opcode() << ")";
      ++instructions;
    }
    for (xp::HloComputationProto* p : {&xc, &oc}) {
      p->clear_instructions();
      p->clear_id();
      p->clear_root_id();
      if (async) {
        p->clear_name();
        p->mutable_program_shape()->clear_parameter_names();
      }
    }
    EXPECT_EQ(Differences(xc, oc), "") << key;
  }
  EXPECT_GT(instructions, 1000);
  // The schedule, by names.
  std::map<std::string, std::vector<std::string>> xs, os;
  for (const auto& [id, seq] : xla.schedule().sequences()) {
    xs[xn.comp.at(id)] = xn.Of(seq.instruction_ids(), xn.instr);
  }
  for (const auto& [id, seq] : ours->schedule().sequences()) {
    os[on.comp.at(id)] = on.Of(seq.instruction_ids(), on.instr);
  }
  EXPECT_FALSE(xs.empty());
  for (const auto& [c, seq] : xs) {
    auto it = os.find(c);
    // An async computation's parameters may come in any order before its root (XLA's
    // scheduler's choice, which the text does not show).
    auto normalized = [&](std::vector<std::string> v) {
      if (c.rfind("async:", 0) == 0 && !v.empty()) std::sort(v.begin(), v.end() - 1);
      return v;
    };
    if (it == os.end()) {
      ADD_FAILURE() << "XLA schedules " << c << ", we do not";
    } else if (normalized(it->second) != normalized(seq)) {
      ADD_FAILURE() << "the schedule of " << c
                    << " differs: " << fmt::format("{}", fmt::join(it->second, ",")) << " vs XLA's "
                    << fmt::format("{}", fmt::join(seq, ","));
    }
  }
  for (const auto& [c, seq] : os) {
    if (!xs.count(c)) ADD_FAILURE() << "we schedule " << c << ", XLA does not";
  }
  // Everything else of the module but what XLA's text form does not carry (is_dynamic and the
  // SPMD shardings of parameters and output come from the module's config).
  xp::HloModuleProto xm = xla, om = *ours;
  for (xp::HloModuleProto* p : {&xm, &om}) {
    p->clear_computations();
    p->clear_schedule();
    p->clear_id();
    p->clear_entry_computation_id();
    p->clear_is_dynamic();
    p->clear_spmd_output_sharding();
    p->clear_spmd_parameters_shardings();
  }
  EXPECT_EQ(Differences(xm, om), "");
}

TEST(ProtoRoundTripSample, MaxTextInitDump) {
  const std::string name =
      "NVIDIA_JAX-Toolbox__maxtext_fsdp4__module_0003.jit__unnamed_wrapped_function_.sm_9.0_gpu_"
      "after_optimizations.hlo.pb";
  RoundTripDump(name);
  MatchesXlasProto(name);
}
TEST(ProtoRoundTripCorpus, MaxTextTrainStepDump) {
  const std::string name =
      "NVIDIA_JAX-Toolbox__maxtext_fsdp4__module_0016.jit_train_step.sm_9.0_gpu_after_"
      "optimizations.hlo.pb";
  RoundTripDump(name);
  MatchesXlasProto(name);
}
TEST(ProtoRoundTripCorpus, PaxStepDump) {
  const std::string name =
      "NVIDIA_JAX-Toolbox__pax_fsdp4_proc0__module_0040.pjit__wrapped_step_fn.sm_8.0_gpu_after_"
      "optimizations.hlo.pb";
  RoundTripDump(name);
  MatchesXlasProto(name);
}

TEST(ProtoRoundTripCorpus, XlaHloFiles) { RunBulk("xla"); }
TEST(ProtoRoundTripCorpus, XlaCcTestModules) { RunBulk("cc_hlo"); }
TEST(ProtoRoundTripCorpus, TorchNeuronxGraphs) { RunBulk("bulk_gh"); }

}  // namespace
}  // namespace hloscope
