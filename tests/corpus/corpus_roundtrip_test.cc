// Round trip of the whole corpus through the parser and the printer.
//
// Curated corpus (HLOSCOPE_CORPUS_DIR/*.hlo; one test per file, CuratedRoundTrip.File/<name>).
// Every `// -----` chunk of every file must
//   parse → VerifyModule → print (P1) → parse → VerifyModule → print (P2)
// with P1 == P2 and the same graph both times (computations, instructions, opcodes, shapes,
// operands, called computations, control edges, roots; see Fingerprint()). The legacy print
// style must also parse back to the same canonical text. A curated module the verifier rejects
// is a verifier bug and fails here, unless tests/corpus/curated_invalid.tsv lists it with the
// verifier's exact message (modules XLA's verifier rejects too: hand-written inputs of XLA tools
// that do not verify).
//
// Bulk archives (HLOSCOPE_BULK_DIR, unpacked at configure time; one test per archive,
// BulkCorpus.<Archive>). Every chunk of every file must either round-trip as a fixed point
// (parse → print → parse → print, same text and same graph) or fail with exactly the error
// recorded for it in tests/corpus/bulk_expectations.tsv:
//   <path relative to HLOSCOPE_BULK_DIR> TAB <chunk index, 0-based> TAB <first error line>
// where a parse error is written without its `<path>:` prefix (so `12:3: error: ...`, line
// numbers counted in the whole file). A listed module that now round-trips fails the test
// (stale expectation), as does a listed module that no longer exists. Nothing is run out of
// process: a crash is a failure of the whole test binary. No single parse may take > 5 s.
//
// Regenerating the expectations after a parser change (then review the diff):
//   HLOSCOPE_UPDATE_EXPECTATIONS=1 ctest --test-dir build -R BulkCorpus
// or, without ctest, the same variable with
//   build/tests/corpus/corpus_roundtrip_test --gtest_filter='BulkCorpus.*'
// In that mode each bulk test rewrites its archive's lines of the file (under a lock in the
// build tree, so tests running in parallel do not lose each other's lines) and passes.
//
// Each bulk test prints a summary line: files, modules (chunks), parsed, round-tripped, failed,
// and how many the verifier accepts (information only: many of XLA's test modules are
// deliberately invalid). It also prints the round-trip percentage
//   (a) over modules whose INDEX.tsv `flag` column is not `maybe-template` (only
//       xla_cc_test_modules has the column; in the other archives no module is flagged), and
//   (b) over modules without template placeholders, by this rule (HasTemplatePlaceholder),
//       applied to the text outside double-quoted strings, comments and `#` lines, to words
//       that the module does not define as a name or key (`TT = ...`, `%d = ...`):
//       - `$` followed by a letter, digit, `_` or `{`  ($0, $dtype, ${lhs} — absl::Substitute
//         and Python-style substitution; `$` inside strings, e.g. "__cublas$gemm", is real HLO);
//       - `<<` (the `<<F8E4M3>>` placeholders of the fp8 tests);
//       - a printf conversion `%s`, `%d`, `%i`, `%u`, `%f`, or positional `%1$s` not followed by
//         a name character;
//       - an all-capitals placeholder word used as a type or value: TYPE, DTYPE, ITYPE, OTYPE,
//         ELEMENT_TYPE, SHAPE, DIMS, NUM, SIZE, RANK, OP, OPCODE, REDUCE_OP, FUSION_KIND,
//         KIND, DIRECTION, COMPARISON, BACKEND_CONFIG, REPLICA_GROUPS, PAYLOAD, ... (a word of
//         at least two capitals/underscores/digits that is none of ENTRY, ROOT, EQ, NE, LT, LE,
//         GT, GE, TOTALORDER, ..., nor a known XLA keyword or enum value such as
//         API_VERSION_TYPED_FFI; see NonPlaceholderWords).
//   and (c) over the modules not flagged, each template module that tests/corpus/
//       template_instances.tsv lists counted by its instance: the text its XLA test parses,
//       made by substituting the values that test uses (see template_instances.h). Every
//       listed module must fail as raw text (else it is no template and the row is stale),
//       every listed placeholder must occur in it, and its instance must round-trip (legacy
//       print style too); whether the verifier accepts the instance is counted for information.
//       The raw text of a listed module keeps its error in bulk_expectations.tsv.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "fmt/core.h"
#include "gtest/gtest.h"
#include "hlo/module.h"
#include "hlo/parser.h"
#include "hlo/printer.h"
#include "hlo/verifier.h"
#include "support/status_text.h"
#include "tests/corpus/template_instances.h"

namespace hloscope {
namespace {

namespace fs = std::filesystem;

constexpr double kMaxParseSeconds = 5.0;

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string_view FirstLine(std::string_view s) {
  size_t nl = s.find('\n');
  return nl == std::string_view::npos ? s : s.substr(0, nl);
}

std::string Truncate(std::string_view s, size_t n) {
  if (s.size() <= n) return std::string(s);
  return fmt::format("{}... ({} more bytes)", s.substr(0, n), s.size() - n);
}

// --- graph fingerprint -------------------------------------------------------------------

// One line per computation and per instruction, with everything that makes the graph: names,
// opcodes, shapes, operands, called computations, control predecessors, roots, entry.
std::vector<std::string> Fingerprint(const Module& m) {
  std::vector<std::string> lines;
  lines.push_back(fmt::format("module {} entry={} computations={}", m.name(),
                              m.entry() ? m.entry()->name() : "<none>", m.computations().size()));
  for (const Computation* c : m.computations()) {
    lines.push_back(fmt::format("computation {} instructions={} root={} thread={}", c->name(),
                                c->instruction_count(), c->root() ? c->root()->name() : "<none>",
                                c->execution_thread()));
    for (const Instruction* i : c->instructions()) {
      std::string line =
          fmt::format("  {} = {} {}(", i->name(), i->shape().ToString(), i->PrintedOpcode());
      for (const Instruction* op : i->operands()) {
        line += op ? op->name() : "<null>";
        line += ',';
      }
      line += ") calls=";
      for (const Computation* callee : i->called_computations()) {
        line += callee ? callee->name() : "<null>";
        line += ',';
      }
      line += " control=";
      for (const Instruction* p : i->control_predecessors()) {
        line += p->name();
        line += ',';
      }
      line += fmt::format(" users={}", i->user_count());
      lines.push_back(std::move(line));
    }
  }
  return lines;
}

// Empty when equal, else a description of the first difference.
std::string CompareLines(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  size_t n = std::min(a.size(), b.size());
  for (size_t k = 0; k < n; ++k) {
    if (a[k] != b[k]) {
      return fmt::format("entry {} differs: '{}' vs '{}'", k + 1, Truncate(a[k], 160),
                         Truncate(b[k], 160));
    }
  }
  if (a.size() != b.size()) return fmt::format("{} vs {} entries", a.size(), b.size());
  return "";
}

// Empty when equal, else the first differing line of two texts.
std::string CompareTexts(std::string_view a, std::string_view b) {
  if (a == b) return "";
  size_t line = 1, start = 0;
  size_t n = std::min(a.size(), b.size());
  size_t k = 0;
  for (; k < n && a[k] == b[k]; ++k) {
    if (a[k] == '\n') {
      ++line;
      start = k + 1;
    }
  }
  auto line_of = [&](std::string_view s) {
    std::string_view rest = start <= s.size() ? s.substr(start) : std::string_view();
    return Truncate(FirstLine(rest), 160);
  };
  return fmt::format("line {} differs: '{}' vs '{}'", line, line_of(a), line_of(b));
}

// --- one round trip ----------------------------------------------------------------------

struct Outcome {
  bool parsed = false;     // the first parse succeeded
  bool verified = false;   // VerifyModule accepted the first parse
  bool roundtrip = false;  // print → parse → print is a fixed point with the same graph
  std::string error;       // why not (full text; the first line is what expectations hold)
  std::string verify_error;
  double parse_seconds = 0;
  int64_t instructions = 0;
  int64_t computations = 0;
};

Outcome RoundTrip(std::string_view text, std::string_view filename, int first_line,
                  bool check_legacy) {
  Outcome out;
  ParseOptions options;
  options.filename = filename;
  options.first_line = first_line;
  auto t0 = std::chrono::steady_clock::now();
  absl::StatusOr<std::unique_ptr<Module>> m1 = ParseModule(text, options);
  out.parse_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!m1.ok()) {
    std::string_view msg(m1.status().message().data(), m1.status().message().size());
    // Machine independent: drop the `<filename>:` prefix (the filename is the path).
    if (msg.substr(0, filename.size()) == filename && msg.size() > filename.size() &&
        msg[filename.size()] == ':') {
      msg.remove_prefix(filename.size() + 1);
    }
    out.error = std::string(msg);
    return out;
  }
  out.parsed = true;
  out.instructions = (*m1)->instruction_count();
  out.computations = static_cast<int64_t>((*m1)->computations().size());
  absl::Status verified = VerifyModule(**m1);
  out.verified = verified.ok();
  if (!verified.ok()) out.verify_error = StatusText(verified);

  std::string p1 = PrintModule(**m1);
  ParseOptions printed_options;
  printed_options.filename = "<printed>";
  absl::StatusOr<std::unique_ptr<Module>> m2 = ParseModule(p1, printed_options);
  if (!m2.ok()) {
    out.error = "reparse of the printed text failed: " + StatusText(m2.status());
    return out;
  }
  std::string p2 = PrintModule(**m2);
  if (std::string d = CompareTexts(p1, p2); !d.empty()) {
    out.error = "printing is not a fixed point: " + d;
    return out;
  }
  if (std::string d = CompareLines(Fingerprint(**m1), Fingerprint(**m2)); !d.empty()) {
    out.error = "the round trip changed the graph: " + d;
    return out;
  }
  if (check_legacy) {
    PrintOptions legacy;
    legacy.style = PrintStyle::kLegacy;
    std::string l1 = PrintModule(**m1, legacy);
    ParseOptions legacy_options;
    legacy_options.filename = "<printed-legacy>";
    absl::StatusOr<std::unique_ptr<Module>> m3 = ParseModule(l1, legacy_options);
    if (!m3.ok()) {
      out.error = "reparse of the legacy-style print failed: " + StatusText(m3.status());
      return out;
    }
    if (std::string d = CompareTexts(p1, PrintModule(**m3)); !d.empty()) {
      out.error = "the legacy-style print parses to a different module: " + d;
      return out;
    }
  }
  out.roundtrip = true;
  return out;
}

// --- template placeholders (rule in the header comment) ----------------------------------

bool IsWordChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// All-capital words that real HLO text contains outside strings.
const absl::flat_hash_set<std::string_view>& NonPlaceholderWords() {
  // clang-format off
  static const auto* words = new absl::flat_hash_set<std::string_view>{
      "ENTRY", "ROOT", "EQ", "NE", "LT", "LE", "GT", "GE", "TOTALORDER", "FLOAT", "SIGNED",
      "UNSIGNED", "PARTIAL", "DEFAULT", "HIGH", "HIGHEST", "DOT", "FFT", "IFFT", "RFFT",
      "IRFFT", "TRUE", "FALSE", "SC", "NaN", "INF", "NAN", "DEVICE", "HOST", "PINNED_HOST",
      "RNG_DEFAULT", "RNG_THREE_FRY", "RNG_PHILOX", "RNG_UNIFORM", "RNG_NORMAL",
      "QR", "TF32", "BF16_BF16_F32", "BF16_BF16_F32_X3", "BF16_BF16_F32_X6", "BF16_BF16_F32_X9",
      "F32_F32_F32", "TF32_TF32_F32", "TF32_TF32_F32_X3", "F16_F16_F16", "F16_F16_F32",
      "BF16_BF16_BF16", "F64_F64_F64", "ANY_F8_ANY_F8_F32", "ANY_F8_ANY_F8_F32_FAST_ACCUM",
      "ANY_F8_ANY_F8_ANY", "ANY_F8_ANY_F8_ANY_FAST_ACCUM", "ALG_DOT_BF16_BF16_F32",
      "FileNames", "FunctionNames", "FileLocations", "StackFrames",
      "TILE", "NO_TILE", "MAXIMAL", "MANUAL", "REPLICATED",
      // custom-call api_version= and schedule=, triangular-solve transpose_a=
      "API_VERSION_UNSPECIFIED", "API_VERSION_ORIGINAL", "API_VERSION_STATUS_RETURNING",
      "API_VERSION_STATUS_RETURNING_UNIFIED", "API_VERSION_TYPED_FFI",
      "SCHEDULE_NONE", "SCHEDULE_LATEST", "SCHEDULE_EARLIEST",
      "NO_TRANSPOSE", "TRANSPOSE", "ADJOINT",
  };
  // clang-format on
  return *words;
}

// Words written right before `=` (instruction names, attribute keys), with a leading `%`
// dropped: the module defines them, so they are not placeholders even when all capitals
// (`ROOT TT = ...`) or shaped like a printf conversion (`%d = ...`).
absl::flat_hash_set<std::string_view> DefinedWords(std::string_view text) {
  absl::flat_hash_set<std::string_view> words;
  for (size_t eq = text.find('='); eq != std::string_view::npos; eq = text.find('=', eq + 1)) {
    size_t e = eq;
    while (e > 0 && (text[e - 1] == ' ' || text[e - 1] == '\t')) --e;
    size_t b = e;
    while (b > 0 && (IsWordChar(text[b - 1]) || text[b - 1] == '.' || text[b - 1] == '-')) --b;
    if (b < e) words.insert(text.substr(b, e - b));
  }
  return words;
}

bool HasTemplatePlaceholder(std::string_view text) {
  const size_t n = text.size();
  const absl::flat_hash_set<std::string_view> defined = DefinedWords(text);
  size_t k = 0;
  while (k < n) {
    char c = text[k];
    if (c == '#' && (k == 0 || text[k - 1] == '\n')) {  // `# RUN:` lines are comments
      while (k < n && text[k] != '\n') ++k;
      continue;
    }
    if (c == '"') {  // skip a string
      ++k;
      while (k < n && text[k] != '"') k += text[k] == '\\' ? 2 : 1;
      ++k;
      continue;
    }
    if (c == '/' && k + 1 < n && text[k + 1] == '/') {  // line comment
      while (k < n && text[k] != '\n') ++k;
      continue;
    }
    if (c == '/' && k + 1 < n && text[k + 1] == '*') {
      size_t e = text.find("*/", k + 2);
      k = e == std::string_view::npos ? n : e + 2;
      continue;
    }
    if (c == '$' && k + 1 < n && (IsWordChar(text[k + 1]) || text[k + 1] == '{')) return true;
    if (c == '<' && k + 1 < n && text[k + 1] == '<') return true;
    if (c == '%') {
      size_t j = k + 1;
      while (j < n && text[j] >= '0' && text[j] <= '9') ++j;
      bool positional = j > k + 1 && j < n && text[j] == '$';
      if (positional) ++j;
      if (j < n && std::string_view("sdiuf").find(text[j]) != std::string_view::npos &&
          (j + 1 >= n || !(IsWordChar(text[j + 1]) || text[j + 1] == '.' || text[j + 1] == '-'))) {
        if (positional || (j == k + 1 && !defined.contains(text.substr(j, 1)))) return true;
      }
    }
    if (IsWordChar(c) && (k == 0 || !(IsWordChar(text[k - 1]) || text[k - 1] == '.' ||
                                      text[k - 1] == '-' || text[k - 1] == '%'))) {
      size_t j = k;
      bool all_caps = true;
      int letters = 0;
      while (j < n && IsWordChar(text[j])) {
        char d = text[j];
        if (d >= 'a' && d <= 'z') all_caps = false;
        if (d >= 'A' && d <= 'Z') ++letters;
        ++j;
      }
      std::string_view word = text.substr(k, j - k);
      // A word that is part of a name (`ROOT_1.2`, `%FOO.1`) or an attribute key is not a
      // placeholder; one used as a value, shape or operand is.
      bool part_of_name = j < n && (text[j] == '.' || text[j] == '-');
      if (all_caps && letters >= 2 && !part_of_name && !(word[0] >= '0' && word[0] <= '9') &&
          !NonPlaceholderWords().contains(word) && !defined.contains(word)) {
        return true;
      }
      k = j;
      continue;
    }
    ++k;
  }
  return false;
}

// --- expectations file -------------------------------------------------------------------

using ModuleKey = std::pair<std::string, int>;  // (path relative to the bulk dir, chunk)
using Expectations = std::map<ModuleKey, std::string>;

std::string EscapeField(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '\t')
      out += "\\t";
    else if (c == '\r')
      out += "\\r";
    else
      out += c;
  }
  return out;
}

Expectations ReadExpectations(const std::string& path) {
  Expectations e;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    size_t t1 = line.find('\t');
    size_t t2 = t1 == std::string::npos ? t1 : line.find('\t', t1 + 1);
    if (t2 == std::string::npos) continue;
    e[{line.substr(0, t1), std::atoi(line.substr(t1 + 1, t2 - t1 - 1).c_str())}] =
        line.substr(t2 + 1);
  }
  return e;
}

constexpr std::string_view kExpectationsHeader =
    "# Bulk corpus modules that do not round-trip through parse -> print -> parse -> print,\n"
    "# with their error; checked by tests/corpus/corpus_roundtrip_test.cc (BulkCorpus.*).\n"
    "# Regenerate after a parser change, then review the diff:\n"
    "#   HLOSCOPE_UPDATE_EXPECTATIONS=1 ctest --test-dir build -R BulkCorpus\n"
    "# path (relative to the unpacked bulk dir)\tchunk (0-based, split by '// -----')\t"
    "first line of the error (parse errors without the path prefix)\n";

// Replaces the lines of `folder` (an archive's top folder) with `entries`, keeping the rest.
void UpdateExpectations(const std::string& folder, const Expectations& entries) {
  int lock = open(HLOSCOPE_EXPECTATIONS_LOCK, O_CREAT | O_RDWR, 0644);
  if (lock >= 0) flock(lock, LOCK_EX);
  Expectations all = ReadExpectations(HLOSCOPE_EXPECTATIONS_FILE);
  for (auto it = all.begin(); it != all.end();) {
    it = it->first.first.starts_with(folder) ? all.erase(it) : std::next(it);
  }
  all.insert(entries.begin(), entries.end());
  std::string tmp = std::string(HLOSCOPE_EXPECTATIONS_FILE) + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << kExpectationsHeader;
    for (const auto& [key, error] : all) {
      out << key.first << '\t' << key.second << '\t' << error << '\n';
    }
  }
  std::rename(tmp.c_str(), HLOSCOPE_EXPECTATIONS_FILE);
  if (lock >= 0) {
    flock(lock, LOCK_UN);
    close(lock);
  }
}

bool UpdateMode() {
  const char* v = std::getenv("HLOSCOPE_UPDATE_EXPECTATIONS");
  return v != nullptr && std::string_view(v) != "" && std::string_view(v) != "0";
}

// HLOSCOPE_CORPUS_VERBOSE=1 lists the cc modules that fail without template placeholders, and
// every bulk module the verifier rejects (with its message).
bool Verbose() {
  const char* v = std::getenv("HLOSCOPE_CORPUS_VERBOSE");
  return v != nullptr && std::string_view(v) != "" && std::string_view(v) != "0";
}

// --- curated corpus ----------------------------------------------------------------------

std::vector<std::string> CuratedFiles() {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(HLOSCOPE_CORPUS_DIR, ec)) {
    if (entry.is_regular_file() && entry.path().extension() == ".hlo") {
      files.push_back(entry.path().filename().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string TestNameOf(std::string_view file) {
  std::string name;
  for (char c : file.substr(0, file.size() - 4)) name += IsWordChar(c) ? c : '_';
  return name;
}

TEST(CuratedCorpus, EveryListedFileIsPresent) {
  const std::string sources = std::string(HLOSCOPE_CORPUS_DIR) + "/SOURCES.tsv";
  std::ifstream in(sources);
  ASSERT_TRUE(in) << "cannot read " << sources
                  << " (set -DHLOSCOPE_CORPUS_DIR=/path/to/shared/corpus)";
  std::string line;
  int listed = 0;
  while (std::getline(in, line)) {
    std::string file = line.substr(0, line.find('\t'));
    if (!file.ends_with(".hlo")) continue;
    ++listed;
    EXPECT_TRUE(fs::exists(fs::path(HLOSCOPE_CORPUS_DIR) / file)) << file;
  }
  EXPECT_GT(listed, 0);
  EXPECT_EQ(static_cast<size_t>(listed), CuratedFiles().size());
}

// tests/corpus/curated_invalid.tsv: (file, chunk) -> the verifier's message.
const Expectations& CuratedInvalid() {
  static const Expectations invalid = ReadExpectations(HLOSCOPE_CURATED_INVALID_FILE);
  return invalid;
}

TEST(CuratedCorpus, EveryInvalidListedFileIsPresent) {
  std::ifstream in(HLOSCOPE_CURATED_INVALID_FILE);
  ASSERT_TRUE(in) << "cannot read " << HLOSCOPE_CURATED_INVALID_FILE;
  for (const auto& [key, message] : CuratedInvalid()) {
    EXPECT_TRUE(fs::exists(fs::path(HLOSCOPE_CORPUS_DIR) / key.first)) << key.first;
    EXPECT_FALSE(message.empty()) << key.first;
  }
}

class CuratedRoundTrip : public ::testing::TestWithParam<std::string> {};

TEST_P(CuratedRoundTrip, File) {
  const std::string& file = GetParam();
  const std::string text = ReadFile(fs::path(HLOSCOPE_CORPUS_DIR) / file);
  ASSERT_FALSE(text.empty()) << file;
  std::vector<InputChunk> chunks = SplitInputFile(text);
  int64_t instructions = 0;
  double parse_seconds = 0;
  for (size_t k = 0; k < chunks.size(); ++k) {
    SCOPED_TRACE(fmt::format("{} chunk {} (line {})", file, k, chunks[k].first_line));
    Outcome o = RoundTrip(chunks[k].text, file, chunks[k].first_line, /*check_legacy=*/true);
    EXPECT_TRUE(o.parsed) << o.error;
    if (!o.parsed) continue;
    auto invalid = CuratedInvalid().find({file, static_cast<int>(k)});
    if (invalid == CuratedInvalid().end()) {
      EXPECT_TRUE(o.verified) << "the verifier rejects a curated module (a verifier bug): "
                              << o.verify_error;
    } else {
      EXPECT_FALSE(o.verified) << "listed in tests/corpus/curated_invalid.tsv but verifies";
      EXPECT_EQ(FirstLine(o.verify_error), invalid->second);
    }
    EXPECT_TRUE(o.roundtrip) << o.error;
    EXPECT_LT(o.parse_seconds, kMaxParseSeconds);
    instructions += o.instructions;
    parse_seconds += o.parse_seconds;
  }
  RecordProperty("modules", static_cast<int>(chunks.size()));
  RecordProperty("instructions", static_cast<int>(instructions));
  fmt::print("[curated] {}: {} module(s), {} instructions, parsed in {:.3f} s\n", file,
             chunks.size(), instructions, parse_seconds);
}

INSTANTIATE_TEST_SUITE_P(Corpus, CuratedRoundTrip, ::testing::ValuesIn(CuratedFiles()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return TestNameOf(info.param);
                         });
// Without a corpus there is nothing to instantiate; EveryListedFileIsPresent fails instead.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CuratedRoundTrip);

// --- bulk archives -----------------------------------------------------------------------

// INDEX.tsv of xla_cc_test_modules: file names whose `flag` column is `maybe-template`.
absl::flat_hash_set<std::string> MaybeTemplates(const fs::path& index) {
  absl::flat_hash_set<std::string> out;
  std::ifstream in(index);
  std::string line;
  int flag_column = -1;
  while (std::getline(in, line)) {
    std::vector<std::string> cols;
    size_t start = 0;
    while (true) {
      size_t t = line.find('\t', start);
      cols.push_back(line.substr(start, t == std::string::npos ? t : t - start));
      if (t == std::string::npos) break;
      start = t + 1;
    }
    if (flag_column < 0) {  // header
      for (size_t c = 0; c < cols.size(); ++c) {
        if (cols[c] == "flag") flag_column = static_cast<int>(c);
      }
      if (flag_column < 0) return out;
      continue;
    }
    if (static_cast<int>(cols.size()) > flag_column && cols[flag_column] == "maybe-template") {
      out.insert(cols[0]);
    }
  }
  return out;
}

// tests/corpus/template_instances.tsv, read once; a malformed table fails the cc archive's
// test with the table's error.
const absl::StatusOr<TemplateInstanceTable>& TemplateInstances() {
  static const auto* table = new absl::StatusOr<TemplateInstanceTable>(ParseTemplateInstances(
      ReadFile(HLOSCOPE_TEMPLATE_INSTANCES_FILE), "tests/corpus/template_instances.tsv"));
  return *table;
}

struct Tally {
  int64_t modules = 0;
  int64_t roundtrip = 0;
  double Percent() const { return modules ? 100.0 * roundtrip / modules : 0.0; }
};

void RunBulkArchive(std::string_view archive, const std::string& folder) {
  const fs::path root = fs::path(HLOSCOPE_BULK_DIR);
  const fs::path dir = root / folder;
  ASSERT_TRUE(fs::is_directory(dir))
      << dir << " does not exist: the top-level CMake unpacks " << archive
      << ".tar.gz there at configure time (is HLOSCOPE_CORPUS_DIR right?)";

  std::vector<std::string> files;  // relative to the bulk dir, '/'-separated
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    std::string rel = entry.path().lexically_relative(root).generic_string();
    if (entry.path().filename() == "INDEX.tsv") continue;
    files.push_back(std::move(rel));
  }
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty()) << dir;

  const bool cc = folder == "cc_hlo/";
  absl::flat_hash_set<std::string> templates;
  const TemplateInstanceTable empty_table;
  const TemplateInstanceTable* instances = &empty_table;
  if (cc) {
    templates = MaybeTemplates(dir / "INDEX.tsv");
    EXPECT_FALSE(templates.empty()) << "no maybe-template rows read from " << dir / "INDEX.tsv";
    ASSERT_TRUE(TemplateInstances().ok()) << TemplateInstances().status().message();
    instances = &*TemplateInstances();
    EXPECT_FALSE(instances->empty()) << "no rows read from " << HLOSCOPE_TEMPLATE_INSTANCES_FILE;
    for (const auto& [file, subs] : *instances) {
      EXPECT_TRUE(fs::is_regular_file(dir / file))
          << "tests/corpus/template_instances.tsv:" << subs.front().line << ": " << file
          << " is not in the archive";
    }
  }

  const Expectations all_expected = ReadExpectations(HLOSCOPE_EXPECTATIONS_FILE);
  Expectations expected;
  for (const auto& [key, error] : all_expected) {
    if (key.first.starts_with(folder)) expected.emplace(key, error);
  }

  Expectations actual;  // failures seen now
  std::vector<std::string> mismatches;
  // Problems of template_instances.tsv; reported in update mode too, which only rewrites
  // bulk_expectations.tsv.
  std::vector<std::string> instance_problems;
  int64_t modules = 0, parsed = 0, roundtrip = 0, verified = 0, instructions = 0;
  Tally not_flagged, no_placeholders, with_instances;
  int64_t instance_modules = 0, instance_roundtrip = 0, instance_verified = 0;
  double total_seconds = 0, slowest = 0;
  std::string slowest_module;
  auto start = std::chrono::steady_clock::now();

  for (const std::string& rel : files) {
    const std::string text = ReadFile(root / rel);
    std::vector<InputChunk> chunks = SplitInputFile(text);
    const std::string filename = fs::path(rel).filename().string();
    const bool flagged = cc && templates.contains(filename);
    // A listed template's instance: the whole file instantiated, then split, as the XLA test
    // substitutes into the whole string it parses.
    auto listed = instances->find(filename);
    std::vector<InputChunk> instance_chunks;
    std::string instance_text;
    if (listed != instances->end()) {
      for (const TemplateSubstitution& sub : listed->second) {
        if (text.find(sub.placeholder) == std::string::npos) {
          instance_problems.push_back(fmt::format(
              "tests/corpus/template_instances.tsv:{}: placeholder '{}' does not occur in {}",
              sub.line, sub.placeholder, rel));
        }
      }
      instance_text = InstantiateTemplate(text, listed->second);
      instance_chunks = SplitInputFile(instance_text);
      if (instance_chunks.size() != chunks.size()) {
        instance_problems.push_back(
            fmt::format("{}: the instance has {} module(s), the template {}", rel,
                        instance_chunks.size(), chunks.size()));
        instance_chunks.clear();
      }
    }
    for (size_t k = 0; k < chunks.size(); ++k) {
      const ModuleKey key{rel, static_cast<int>(k)};
      Outcome o = RoundTrip(chunks[k].text, rel, chunks[k].first_line, /*check_legacy=*/false);
      bool counts_as_roundtrip = o.roundtrip;
      if (k < instance_chunks.size()) {
        // A placeholder inside a literal (`constant({{LOOP_BOUND}})`) parses and round-trips;
        // only the verifier sees it is no value. A template is raw text that fails either.
        if (o.roundtrip && o.verified) {
          instance_problems.push_back(fmt::format(
              "{} chunk {}: listed in tests/corpus/template_instances.tsv (line {}) but its raw "
              "text round-trips and verifies: it is no template (stale rows)",
              rel, k, listed->second.front().line));
        } else {
          const std::string instance_name = rel + " (instance)";
          Outcome inst = RoundTrip(instance_chunks[k].text, instance_name,
                                   instance_chunks[k].first_line, /*check_legacy=*/true);
          ++instance_modules;
          instance_roundtrip += inst.roundtrip;
          instance_verified += inst.verified;
          counts_as_roundtrip = inst.roundtrip;
          if (!inst.roundtrip) {
            instance_problems.push_back(fmt::format(
                "{} chunk {}: the instance made with tests/corpus/template_instances.tsv does "
                "not round-trip: {}",
                rel, k, FirstLine(inst.error)));
          } else if (!inst.verified && Verbose()) {
            fmt::print("[bulk] verifier rejects the instance: {} chunk {}: {}\n", rel, k,
                       FirstLine(inst.verify_error));
          }
        }
      }
      ++modules;
      parsed += o.parsed;
      roundtrip += o.roundtrip;
      verified += o.verified;
      instructions += o.instructions;
      total_seconds += o.parse_seconds;
      if (o.parse_seconds > slowest) {
        slowest = o.parse_seconds;
        slowest_module = fmt::format("{} chunk {}", rel, k);
      }
      if (o.parse_seconds > kMaxParseSeconds) {
        ADD_FAILURE() << rel << " chunk " << k << " took " << o.parse_seconds
                      << " s to parse (limit " << kMaxParseSeconds << " s)";
      }
      {
        // Only the cc archive has the `maybe-template` flag; in the others nothing is flagged.
        if (!flagged) {
          ++not_flagged.modules;
          not_flagged.roundtrip += o.roundtrip;
          ++with_instances.modules;
          with_instances.roundtrip += counts_as_roundtrip;
        }
        if (!HasTemplatePlaceholder(chunks[k].text)) {
          ++no_placeholders.modules;
          no_placeholders.roundtrip += o.roundtrip;
          if (!o.roundtrip && Verbose()) {
            fmt::print("[bulk] fails without placeholders: {} chunk {}: {}\n", rel, k,
                       FirstLine(o.error));
          }
        }
      }
      if (o.parsed && !o.verified && Verbose()) {
        fmt::print("[bulk] verifier rejects: {} chunk {}: {}\n", rel, k, FirstLine(o.verify_error));
      }
      auto it = expected.find(key);
      if (!o.roundtrip) {
        std::string error = EscapeField(FirstLine(o.error));
        actual.emplace(key, error);
        if (it == expected.end()) {
          mismatches.push_back(fmt::format("{} chunk {}: fails, not listed: {}", rel, k, error));
        } else if (it->second != error) {
          mismatches.push_back(
              fmt::format("{} chunk {}: fails with\n      {}\n    listed as\n"
                          "      {}",
                          rel, k, error, it->second));
        }
      } else if (it != expected.end()) {
        mismatches.push_back(
            fmt::format("{} chunk {}: now round-trips but is listed as failing (stale)", rel, k));
      }
      if (it != expected.end()) expected.erase(it);
    }
  }
  for (const auto& [key, error] : expected) {
    mismatches.push_back(
        fmt::format("{} chunk {}: listed but no such module (stale)", key.first, key.second));
  }
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  fmt::print(
      "[bulk] {} ({}): {} files, {} modules, {} parsed, {} round-trip, {} failed; "
      "verifier accepts {}; {} instructions; parse {:.2f} s, all {:.2f} s; slowest "
      "parse {:.3f} s ({})\n",
      archive, folder, files.size(), modules, parsed, roundtrip, modules - roundtrip, verified,
      instructions, total_seconds, wall, slowest, slowest_module);
  {
    fmt::print(
        "[bulk] {}: not flagged maybe-template: {}/{} round-trip ({:.2f}%); without "
        "template placeholders: {}/{} round-trip ({:.2f}%)\n",
        archive, not_flagged.roundtrip, not_flagged.modules, not_flagged.Percent(),
        no_placeholders.roundtrip, no_placeholders.modules, no_placeholders.Percent());
    ::testing::Test::RecordProperty("not_flagged_percent",
                                    fmt::format("{:.2f}", not_flagged.Percent()));
    ::testing::Test::RecordProperty("no_placeholder_percent",
                                    fmt::format("{:.2f}", no_placeholders.Percent()));
  }
  if (cc) {
    fmt::print(
        "[bulk] {}: template instances (tests/corpus/template_instances.tsv): {} modules, {} "
        "round-trip, verifier accepts {}; not flagged maybe-template, templates counted by "
        "their instance: {}/{} round-trip ({:.2f}%)\n",
        archive, instance_modules, instance_roundtrip, instance_verified, with_instances.roundtrip,
        with_instances.modules, with_instances.Percent());
    ::testing::Test::RecordProperty("with_instances_percent",
                                    fmt::format("{:.2f}", with_instances.Percent()));
  }
  ::testing::Test::RecordProperty("modules", static_cast<int>(modules));
  ::testing::Test::RecordProperty("roundtrip", static_cast<int>(roundtrip));

  for (const std::string& problem : instance_problems) ADD_FAILURE() << problem;
  if (UpdateMode()) {
    UpdateExpectations(folder, actual);
    fmt::print("[bulk] {}: wrote {} expected failures to {}\n", archive, actual.size(),
               HLOSCOPE_EXPECTATIONS_FILE);
    return;
  }
  if (!mismatches.empty()) {
    constexpr size_t kShown = 40;
    std::string msg;
    for (size_t k = 0; k < std::min(kShown, mismatches.size()); ++k) {
      msg += "  " + mismatches[k] + "\n";
    }
    if (mismatches.size() > kShown) {
      msg += fmt::format("  ... and {} more\n", mismatches.size() - kShown);
    }
    ADD_FAILURE() << mismatches.size() << " module(s) of " << archive
                  << " differ from tests/corpus/bulk_expectations.tsv:\n"
                  << msg
                  << "If the change is intended, regenerate the file and review its diff:\n"
                     "  HLOSCOPE_UPDATE_EXPECTATIONS=1 ctest --test-dir build -R BulkCorpus\n"
                     "(or HLOSCOPE_UPDATE_EXPECTATIONS=1 "
                     "build/tests/corpus/corpus_roundtrip_test --gtest_filter='BulkCorpus.*')";
  }
}

TEST(BulkCorpus, XlaHloFiles) { RunBulkArchive("xla_hlo_files", "xla/"); }
TEST(BulkCorpus, XlaCcTestModules) { RunBulkArchive("xla_cc_test_modules", "cc_hlo/"); }
TEST(BulkCorpus, TorchNeuronxGraphs) { RunBulkArchive("torch_neuronx_graphs", "bulk_gh/"); }

// The placeholder rule on the forms it is meant to catch and on real HLO it must not.
TEST(TemplatePlaceholderRule, Examples) {
  EXPECT_TRUE(HasTemplatePlaceholder("p = $dtype[2] parameter(0)"));
  EXPECT_TRUE(HasTemplatePlaceholder("p = f32[${n}] parameter(0)"));
  EXPECT_TRUE(HasTemplatePlaceholder("x = <<F8E4M3>>[10,16] parameter(0)"));
  EXPECT_TRUE(HasTemplatePlaceholder("p = %s[2] parameter(0)"));
  EXPECT_TRUE(HasTemplatePlaceholder("p = %1$s[2] parameter(0)"));
  EXPECT_TRUE(HasTemplatePlaceholder("zero = TYPE[] constant(0)"));
  EXPECT_TRUE(HasTemplatePlaceholder("zero = f32[] constant(0), dimensions={DIMS}"));
  EXPECT_FALSE(HasTemplatePlaceholder(
      "HloModule m\nENTRY e {\n  ROOT c = f32[2] custom-call(), "
      "custom_call_target=\"__cublas$gemm\", metadata={op_name=\"TYPE $x %s\"}\n}"));
  EXPECT_FALSE(HasTemplatePlaceholder("ROOT %s.1 = f32[] add(%a, %b) // TYPE $0"));
  EXPECT_FALSE(HasTemplatePlaceholder("c = pred[] compare(a, b), direction=LT, type=TOTALORDER"));
  // Enum values XLA prints, names the module defines, and `#` comment lines.
  EXPECT_FALSE(HasTemplatePlaceholder(
      "c = f32[] custom-call(), custom_call_target=\"x\", api_version=API_VERSION_TYPED_FFI, "
      "schedule=SCHEDULE_LATEST"));
  EXPECT_FALSE(HasTemplatePlaceholder("ROOT TT = (s32[]) tuple(i)\nx = s32[] add(TT, TT)"));
  EXPECT_FALSE(HasTemplatePlaceholder("%d = s32[4] broadcast(%b)\n%e = s32[4] add(%d, %d)"));
  EXPECT_FALSE(HasTemplatePlaceholder("# RUN: hlo-opt %s | FileCheck %s\nHloModule m"));
  // ... but a `#` that does not start a line is no comment, and an undefined word still counts.
  EXPECT_TRUE(HasTemplatePlaceholder("ROOT TT = (s32[]) tuple(i)\nx = s32[] add(TT, UU)"));
  EXPECT_TRUE(HasTemplatePlaceholder("x = f32[] add(a, b) # TYPE"));
}

}  // namespace
}  // namespace hloscope
