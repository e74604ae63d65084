#include "tools/hlo_run_flags.h"

#include <string_view>
#include <vector>

#include "fmt/format.h"
#include "hlo/str_util.h"

namespace hloscope {

const char kRunHelp[] =
    R"(OVERVIEW: run an HLO module on the reference interpreter and print its outputs

USAGE: hlo-run [options] FILE
       hlo-run --compare [options] A.hlo B.hlo
       hlo-run --compare --split-input-file [--jobs=N] [options] A.hlo B.hlo

Parses and verifies FILE, runs its entry computation on seeded pseudo-random arguments (or the
literals of --inputs) and prints the outputs. Small arrays are printed in full, larger ones as a
summary (shape, min/max/mean, first elements).

With --compare, runs A and B on the same arguments (their entry parameter shapes must match)
and compares the outputs bit for bit: A in --mode-a, B in --mode-b. Prints 'outputs match (N
elements)', or the first differing output index and element.

With --compare --split-input-file, A and B are each split at lines '// -----' (as hlo-opt
--split-input-file does) and part K of A is compared with part K of B, each line starting 'part
K: '; both files must have as many parts. Pairs are compared --jobs=N at a time (default: one
per core) and printed in order, the same as with --jobs=1. A pair that cannot run does not stop
the others; the exit status is the most severe of all pairs' (3, then 2, then 1).

Modes: 'value' gives every instruction a fresh array (the meaning of the program); 'buffer'
stores values as the alias analysis assigns buffers (one allocation per buffer, in-place ops
write into it, loop state lives in its buffers, bitcasts reinterpret the same bytes), so a copy
that was wrongly removed changes the result.

OPTIONS:
  --seed=N               Seed of the random arguments (default 0). Floats are multiples of 1/8
                         in [-2,2), signed integers in [-8,8), unsigned in [0,16), pred 0/1.
  --mode=value|buffer    How to run FILE (default value).
  --mode-a=M, --mode-b=M With --compare: the modes of A and B (defaults value and buffer).
  --inputs=FILE          Arguments from FILE instead of random ones: one line per entry
                         parameter, in HLO literal syntax as in constant(...), e.g.
                         '{{1, 2}, {3, 4}}' or '(1, {2, 3})' for a tuple. Blank lines and
                         lines starting with '//' are skipped.
  --print-all            Print every element of every output.
  --split-input-file     With --compare: compare the modules of A and B pairwise (see above).
  --jobs=N               With --split-input-file: compare up to N pairs at once (1 to 1024).
  --max-bytes=N          Refuse modules needing more than N bytes of storage (default 2^30).
  --max-steps=N          Stop after N instruction evaluations in all, counted across every
                         computation, loop iteration and call (default 100000000), so that
                         endless or exponentially nested loops and calls end with an error.
                         Computations nested more than 256 deep are refused as well.
  --bitcast-defines-value=true|false
                         Buffer mode: whether a bitcast gets its own buffer (true) or
                         reinterprets its operand's (false, the default).
  -h, --help             Show this help, then exit.

EXIT STATUS:
  0  success; with --compare, the outputs are equal
  1  --compare: the outputs differ
  2  bad usage: unknown option, bad value, missing or unreadable file
  3  cannot run: parse or verifier error, unsupported opcode, module too large (past
     --max-bytes, or more memory than this process may use), bad --inputs, more than
     --max-steps evaluations or 256 nested computations
)";

namespace {

std::optional<eval::EvalMode> ParseMode(std::string_view v) {
  if (v == "value") return eval::EvalMode::kValue;
  if (v == "buffer") return eval::EvalMode::kBuffer;
  return std::nullopt;
}

}  // namespace

std::optional<std::string> ParseRunFlags(int argc, char** argv, RunFlags* flags) {
  std::vector<std::string> files;
  bool options_done = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (options_done || !arg.starts_with("-") || arg == "-") {
      files.emplace_back(arg);
      continue;
    }
    if (arg == "--") {
      options_done = true;
      continue;
    }
    if (arg == "-h" || arg == "--help") {
      flags->help = true;
      continue;
    }
    if (arg == "--compare") {
      flags->compare = true;
      continue;
    }
    if (arg == "--print-all") {
      flags->print_all = true;
      continue;
    }
    if (arg == "--split-input-file") {
      flags->split_input_file = true;
      continue;
    }
    size_t eq = arg.find('=');
    std::string_view name = arg.substr(0, eq);
    if (name != "--seed" && name != "--mode" && name != "--mode-a" && name != "--mode-b" &&
        name != "--inputs" && name != "--max-bytes" && name != "--max-steps" &&
        name != "--bitcast-defines-value" && name != "--jobs") {
      return fmt::format("unknown option '{}'", name);
    }
    std::string_view value;
    if (eq != std::string_view::npos) {
      value = arg.substr(eq + 1);
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      return fmt::format("option '{}' needs a value", name);
    }
    auto bad = [&] { return fmt::format("bad value '{}' for {}", value, name); };
    if (name == "--seed") {
      if (!ParseInteger(value, &flags->seed)) return bad();
    } else if (name == "--mode" || name == "--mode-a" || name == "--mode-b") {
      std::optional<eval::EvalMode> m = ParseMode(value);
      if (!m)
        return fmt::format("bad value '{}' for {} (expected 'value' or 'buffer')", value, name);
      (name == "--mode" ? flags->mode : name == "--mode-a" ? flags->mode_a : flags->mode_b) = *m;
    } else if (name == "--jobs") {
      if (!ParseInteger(value, &flags->jobs) || flags->jobs < 1 || flags->jobs > 1024) {
        return fmt::format("bad value '{}' for --jobs (expected a whole number from 1 to 1024)",
                           value);
      }
    } else if (name == "--inputs") {
      flags->inputs = std::string(value);
    } else if (name == "--max-bytes") {
      if (!ParseInteger(value, &flags->max_bytes) || flags->max_bytes < 0) return bad();
    } else if (name == "--max-steps") {
      if (!ParseInteger(value, &flags->max_steps) || flags->max_steps < 0) return bad();
    } else if (name == "--bitcast-defines-value") {
      if (value != "true" && value != "false") {
        return fmt::format("bad value '{}' for {} (expected 'true' or 'false')", value, name);
      }
      flags->dataflow.bitcast_defines_value = value == "true";
    }
  }
  if (flags->help) return std::nullopt;
  if (flags->split_input_file && !flags->compare)
    return std::string("--split-input-file needs --compare");
  size_t want = flags->compare ? 2 : 1;
  if (files.size() != want) {
    return flags->compare  ? fmt::format("--compare needs two files, got {}", files.size())
           : files.empty() ? std::string("no input file")
                           : fmt::format("one input file expected, got {}", files.size());
  }
  flags->file = files[0];
  if (flags->compare) flags->file_b = files[1];
  return std::nullopt;
}

}  // namespace hloscope
