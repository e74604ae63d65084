// Parser robustness on truncated and corrupted real HLO: every input ends in a parse or in a
// clean error, never a crash, hang or out-of-range read. Built and run again under ASan+UBSan
// by scripts/test (ctest label `robustness`, build-asan/).
//
// For each corpus file below (files split by `// -----` are tested chunk by chunk, with the
// chunk's first line, which is what a prefix of the whole file amounts to):
//  - small files (< 8 KB): every prefix (every byte length), and three mutations at every
//    position: delete the byte, duplicate it, replace it by one of a few characters that
//    matter to the grammar (brackets, quote, `%`, `,`, `=`, newline, comment starts, NUL,
//    0xff, ...; cycling with the position);
//  - large files: 2,000 prefixes at evenly spread lengths, plus every prefix that ends within
//    two bytes of a newline in windows of 40 lines at the start, middle and end, capped at
//    kLargePrefixLimit bytes so the test stays fast (the cap keeps the Mixtral file's header,
//    frontend attributes and first computations).
// For every input, ParseModule returns a Status. A failure must read
//   <filename>:<line>:<col>: error: <message>
//   <the source line, or 200 bytes of it around the column>
//   <blanks>^
// with line and column inside the input, the quoted line taken from the input at that line,
// and the caret under the column. A success must pass through VerifyModule (any Status) and
// print text that parses again.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "fmt/core.h"
#include "gtest/gtest.h"
#include "hlo/parser.h"
#include "hlo/printer.h"
#include "hlo/verifier.h"

namespace hloscope {
namespace {

namespace fs = std::filesystem;

constexpr size_t kSmallFileLimit = 8 * 1024;
constexpr size_t kLargePrefixSamples = 2000;
constexpr size_t kLargePrefixLimit = 256 * 1024;
constexpr int kWindowLines = 40;

// Corpus files (HLOSCOPE_CORPUS_DIR) under test: small ones get every prefix and mutations.
const char* const kFiles[] = {
    // < 8 KB
    "openxla_xla__xla_service_gpu_gpu_copy_insertion_test.cc__DUSBitcastNoCopy.hlo",
    "openxla_xla__xla_service_copy_insertion_test.cc__AsyncDUSInLoop.hlo",
    "openxla_xla__xla_service_memory_space_assignment_memory_space_assignment_test.cc__"
    "WhileInPlaceBuffer.hlo",
    "NVIDIA_JAX-Toolbox__.github_container_nsys_jax_tests_example.hlo",
    "openxla_xla__xla_hlo_translate_hlo_to_mhlo_tests_import_bounded_dynamism.hlo",
    "openxla_xla__xla_hlo_transforms_host_offloader_test.cc__LlmActivation.hlo",
    "openxla_xla__xla_backends_gpu_transforms_windowed_einsum_handler_test.cc__"
    "AllGatherMultipleConsumersF8.hlo",
    "openxla_xla__xla_service_scan_loop_accumulator_input_unification_test.cc__"
    "UnifyAccumulatorInput2.hlo",
    // large: sampled prefixes
    "openxla_xla__xla_hlo_translate_hlo_to_mhlo_tests_import.hlo",
    "openxla_xla__xla_tools_hlo_isolation_hlo_isolation_test_base_test.cc__TestOutputIsReduce.hlo",
    "wenboqian_GraphHelper__src_HLO_pbtxt_baseline_bert_1.hlo",  // legacy style, operand shapes
    "openxla_xla__xla_tools_benchmarks_hlo_hlo_mixtral_8x7b_bf16_2x8.hlo",
};

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string_view> SplitLines(std::string_view s) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (true) {
    size_t nl = s.find('\n', start);
    if (nl == std::string_view::npos) {
      lines.push_back(s.substr(start));
      return lines;
    }
    lines.push_back(s.substr(start, nl - start));
    start = nl + 1;
  }
}

// Empty if `message` is a well-formed error for `input` (a chunk starting at `first_line`).
std::string CheckErrorFormat(std::string_view message, std::string_view filename,
                             std::string_view input, int first_line) {
  const std::string prefix = std::string(filename) + ":";
  if (!message.starts_with(prefix)) return "does not start with '" + prefix + "'";
  std::string_view rest = message.substr(prefix.size());
  auto parse_number = [&rest](int64_t* out) {
    size_t k = 0;
    int64_t v = 0;
    while (k < rest.size() && k < 12 && rest[k] >= '0' && rest[k] <= '9') {
      v = v * 10 + (rest[k] - '0');
      ++k;
    }
    if (k == 0) return false;
    *out = v;
    rest.remove_prefix(k);
    return true;
  };
  int64_t line = 0, col = 0;
  if (!parse_number(&line) || !rest.starts_with(":")) return "no line number";
  rest.remove_prefix(1);
  if (!parse_number(&col) || !rest.starts_with(": error: ")) {
    return "no ':<col>: error: ' after the line number";
  }
  std::vector<std::string_view> msg_lines = SplitLines(message);
  // An input that looks like a proto or MLIR gets one `<file>: note: ...` line at the end.
  if (!msg_lines.empty() && msg_lines.back().find(": note: ") != std::string_view::npos) {
    if (!msg_lines.back().starts_with(std::string(filename) + ": note: ")) {
      return "a note line that does not start with '<file>: note: '";
    }
    msg_lines.pop_back();
  }
  if (msg_lines.size() < 3) return "no source line and caret line";
  std::string_view caret_line = msg_lines.back();
  std::string_view source_line = msg_lines[msg_lines.size() - 2];
  if (caret_line.empty() || caret_line.back() != '^' ||
      caret_line.find_first_not_of(" \t") != caret_line.size() - 1) {
    return "last line is not a caret line";
  }
  std::vector<std::string_view> input_lines = SplitLines(input);
  const int64_t index = line - first_line;
  if (index < 0 || index >= static_cast<int64_t>(input_lines.size())) {
    return fmt::format("line {} is outside the input (lines {}..{})", line, first_line,
                       first_line + static_cast<int64_t>(input_lines.size()) - 1);
  }
  std::string_view actual = input_lines[static_cast<size_t>(index)];
  if (col < 1 || col > static_cast<int64_t>(actual.size()) + 1) {
    return fmt::format("column {} is outside line {} ({} bytes)", col, line, actual.size());
  }
  std::string shown(actual);  // as the error shows it: control bytes as '?'
  for (char& c : shown) {
    unsigned char u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\t') || u == 0x7f) c = '?';
  }
  if (shown.find(source_line) == std::string::npos) {
    return "the quoted source line is not line " + std::to_string(line) + " of the input";
  }
  if (caret_line.size() - 1 > source_line.size()) return "the caret is past the quoted line";
  return "";
}

struct Stats {
  int64_t inputs = 0;
  int64_t parsed = 0;
};

// Parses one input and checks the outcome; returns false (after one gtest failure) on the
// first bad outcome so a broken parser does not print thousands of failures.
bool CheckInput(std::string_view original, std::string_view filename, int first_line,
                std::string_view what, Stats& stats) {
  ++stats.inputs;
  // An exactly sized copy without a terminating NUL: under ASan, reading one byte past the
  // end of the input is reported (a std::string would hide it behind its NUL and capacity).
  std::unique_ptr<char[]> buffer(new char[original.size()]);
  std::copy(original.begin(), original.end(), buffer.get());
  const std::string_view input(buffer.get(), original.size());
  ParseOptions options;
  options.filename = filename;
  options.first_line = first_line;
  absl::StatusOr<std::unique_ptr<Module>> module = ParseModule(input, options);
  if (!module.ok()) {
    const absl::Status& status = module.status();
    std::string_view message(status.message().data(), status.message().size());
    std::string problem = CheckErrorFormat(message, filename, input, first_line);
    if (!problem.empty()) {
      ADD_FAILURE() << what << ": malformed error message (" << problem << "):\n" << message;
      return false;
    }
    return true;
  }
  ++stats.parsed;
  absl::Status verified = VerifyModule(**module);  // any Status is fine, no crash
  (void)verified;
  std::string printed = PrintModule(**module);
  ParseOptions printed_options;
  printed_options.filename = "<printed>";
  absl::StatusOr<std::unique_ptr<Module>> again = ParseModule(printed, printed_options);
  if (!again.ok()) {
    ADD_FAILURE() << what << ": parses, but its printed text does not:\n"
                  << again.status().message() << "\n--- input ---\n"
                  << input.substr(0, 4000) << "\n--- printed ---\n"
                  << printed.substr(0, 4000);
    return false;
  }
  return true;
}

class ParserRobustness : public ::testing::TestWithParam<const char*> {};

std::string TestNameOf(std::string_view file) {
  std::string name;
  for (char c : file.substr(0, file.size() - 4)) {
    name += (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ? c : '_';
  }
  return name;
}

// Lengths of the prefixes of `chunk` to try.
std::vector<size_t> PrefixLengths(std::string_view chunk, bool small) {
  std::vector<size_t> lengths;
  if (small) {
    for (size_t n = 0; n <= chunk.size(); ++n) lengths.push_back(n);
    return lengths;
  }
  const size_t limit = std::min(chunk.size(), kLargePrefixLimit);
  for (size_t k = 0; k <= kLargePrefixSamples; ++k) {
    lengths.push_back(limit * k / kLargePrefixSamples);
  }
  // Newline offsets up to the limit; windows of lines at the start, middle and end.
  std::vector<size_t> newlines;
  for (size_t p = chunk.find('\n'); p != std::string_view::npos && p < limit;
       p = chunk.find('\n', p + 1)) {
    newlines.push_back(p);
  }
  const size_t count = newlines.size();
  for (size_t window_start :
       {size_t{0}, count / 2, count > kWindowLines ? count - kWindowLines : 0}) {
    for (size_t i = window_start; i < std::min(count, window_start + kWindowLines); ++i) {
      for (int delta = -2; delta <= 2; ++delta) {
        int64_t n = static_cast<int64_t>(newlines[i]) + delta;
        if (n >= 0 && static_cast<size_t>(n) <= limit) lengths.push_back(static_cast<size_t>(n));
      }
    }
  }
  std::sort(lengths.begin(), lengths.end());
  lengths.erase(std::unique(lengths.begin(), lengths.end()), lengths.end());
  return lengths;
}

TEST_P(ParserRobustness, PrefixesAndMutations) {
  const std::string file = GetParam();
  const std::string text = ReadFile(fs::path(HLOSCOPE_CORPUS_DIR) / file);
  ASSERT_FALSE(text.empty()) << "cannot read " << file << " in " << HLOSCOPE_CORPUS_DIR;
  const bool small = text.size() < kSmallFileLimit;
  Stats prefixes, mutations;

  for (const InputChunk& chunk : SplitInputFile(text)) {
    // The whole chunk is real HLO: it must parse.
    {
      ParseOptions options;
      options.filename = file;
      options.first_line = chunk.first_line;
      auto whole = ParseModule(chunk.text, options);
      ASSERT_TRUE(whole.ok()) << whole.status().message();
    }
    // Prefixes (CheckInput copies each into its own buffer, so reading past its end is caught
    // by ASan rather than reading on into the rest of the file).
    for (size_t n : PrefixLengths(chunk.text, small)) {
      if (!CheckInput(
              chunk.text.substr(0, n), file, chunk.first_line,
              fmt::format("prefix of {} bytes of the chunk at line {}", n, chunk.first_line),
              prefixes)) {
        return;
      }
    }
    if (!small) continue;
    // Mutations at every position: delete, duplicate, or replace the byte.
    static constexpr char kReplacements[] = {'(',  ')',  '{',    '}',  '[', ']', '"',
                                             '%',  ',',  '=',    '\n', '/', '*', ':',
                                             '\\', '\0', '\xff', 'x',  '9', ' '};
    std::string mutated;
    for (size_t p = 0; p < chunk.text.size(); ++p) {
      for (int kind = 0; kind < 3; ++kind) {
        mutated.assign(chunk.text);
        std::string what;
        switch (kind) {
          case 0:
            mutated.erase(p, 1);
            what = fmt::format("deleting byte {}", p);
            break;
          case 1:
            mutated.insert(p, 1, mutated[p]);
            what = fmt::format("duplicating byte {}", p);
            break;
          default: {
            char c = kReplacements[p % sizeof(kReplacements)];
            if (c == mutated[p]) c = kReplacements[(p + 1) % sizeof(kReplacements)];
            mutated[p] = c;
            what = fmt::format("replacing byte {} by 0x{:02x}", p, static_cast<unsigned char>(c));
          }
        }
        what += fmt::format(" of the chunk at line {}", chunk.first_line);
        if (!CheckInput(mutated, file, chunk.first_line, what, mutations)) return;
      }
    }
  }
  fmt::print("[robustness] {}: {} prefixes ({} parse), {} mutations ({} parse)\n", file,
             prefixes.inputs, prefixes.parsed, mutations.inputs, mutations.parsed);
  EXPECT_GT(prefixes.inputs, 0);
}

INSTANTIATE_TEST_SUITE_P(Corpus, ParserRobustness, ::testing::ValuesIn(kFiles),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return TestNameOf(info.param);
                         });

// The checker itself: it accepts a good message and rejects bad ones.
TEST(ParserRobustnessChecker, ErrorFormat) {
  const std::string_view input = "HloModule m\nENTRY e {\n  x = f32[] bogus()\n}\n";
  EXPECT_EQ(CheckErrorFormat("a.hlo:3:12: error: unknown opcode 'bogus'\n"
                             "  x = f32[] bogus()\n           ^",
                             "a.hlo", input, 1),
            "");
  EXPECT_NE(CheckErrorFormat("b.hlo:3:12: error: x\n  x = f32[] bogus()\n           ^", "a.hlo",
                             input, 1),
            "");
  EXPECT_NE(CheckErrorFormat("a.hlo:9:1: error: x\n\n^", "a.hlo", input, 1), "");
  EXPECT_NE(CheckErrorFormat("a.hlo:3:99: error: x\n  x = f32[] bogus()\n ^", "a.hlo", input, 1),
            "");
  EXPECT_NE(CheckErrorFormat("a.hlo:3:12: error: x", "a.hlo", input, 1), "");
  // A real one from the parser.
  ParseOptions options;
  options.filename = "a.hlo";
  auto m = ParseModule(input, options);
  ASSERT_FALSE(m.ok());
  std::string_view message(m.status().message().data(), m.status().message().size());
  EXPECT_EQ(CheckErrorFormat(message, "a.hlo", input, 1), "") << message;
}

}  // namespace
}  // namespace hloscope
