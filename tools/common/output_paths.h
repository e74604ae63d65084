// The one check every tool runs on its output paths after its flags are parsed and before it
// reads or writes anything (issue 34): no output may name an input, and no two outputs may name
// one file. Both would otherwise lose data silently: `hlo-opt x.hlo --report=x.hlo` replaced
// the module with the report, `-o y --report=y` kept only whichever was written last.
//
//   std::string error = CheckOutputPaths({{"-o", flags.output}, {"--report", report_file}},
//                                        {flags.input});
//   if (!error.empty()) return UsageError(error);
//
// Paths are compared as files, not as strings: an output that exists is the same file as an
// input when both have one device and inode number (so `./x.hlo`, `dir/../x.hlo` and a symbolic
// link to x.hlo all name x.hlo). An output that does not exist yet cannot be an input; two such
// outputs are the same when their directories resolve to one directory and their last
// components are equal. An input '-' is standard input, compared when it is redirected from a
// regular file (`hlo-opt - -o x.hlo < x.hlo`). An output '-' (standard output) and outputs that
// are not regular files (/dev/null, a FIFO, a terminal: written in place, never replaced) are
// not compared.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hloscope {

// One output of a tool: the flag that names it, as --help spells it ("-o", "--report", ...),
// and the path given.
struct OutputPath {
  std::string flag;
  std::string path;
};

// Empty when the outputs are safe to write; otherwise the usage message for the first problem:
//   "--report=x.hlo names the input file 'x.hlo'; an output never replaces an input"
//   "-o y.txt and --report=y.txt name the same file; give each output its own path"
// Empty paths are skipped.
std::string CheckOutputPaths(const std::vector<OutputPath>& outputs,
                             const std::vector<std::string>& inputs);

// How a flag and its path are shown in those messages: `-o y.txt` for a short flag,
// `--report=y.txt` for a long one.
std::string ShowOutputFlag(const OutputPath& output);

// The rule in words, for each tool's --help (one paragraph, lines of at most 79 columns).
extern const char kOutputPathsHelp[];

}  // namespace hloscope
