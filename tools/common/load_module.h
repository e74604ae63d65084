// Reading, parsing and verifying a module, once for every tool: the text stays with the module
// (its views point into it, and the verifier's messages quote it as file:line:col).
//
//   absl::StatusOr<LoadedModule> m = LoadModule(path);        // a whole file, one module
//   if (!m.ok()) return IsReadError(m.status()) ? kBadUsage : kBadInput;
//
//   ParseAndVerify({chunk.text, chunk.first_line, filename})   // one part of a file already read
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hlo/module.h"
#include "tools/common/file_io.h"
#include "tools/common/load_input.h"

namespace hloscope {

// One module's text: the input must outlive the parsed module, whose strings point into it; the
// line of the file it starts on, and the file's name for messages.
struct ModuleSource {
  std::string_view text;
  int first_line = 1;
  std::string_view filename;
};

// How long each step took (hlo-opt --stats prints them).
struct LoadTimes {
  double parse_seconds = 0;
  double verify_seconds = 0;
};

// Parses and verifies one module; the verifier's errors point into `source.text`. `times`, when
// given, receives the duration of each step.
absl::StatusOr<std::unique_ptr<Module>> ParseAndVerify(const ModuleSource& source,
                                                       LoadTimes* times = nullptr);

struct LoadOptions {
  // The name messages give the input; empty: InputName(path).
  std::string label;
  // The input's form (--input-format); unset: by content, then by extension
  // (tools/common/load_input.h): HLO text, or an XLA module proto read as the HLO text XLA prints.
  std::optional<InputFormat> input_format;
};

// A module with the input it was parsed from.
struct LoadedModule {
  std::string label;                // the file as messages name it ("<stdin>" for '-')
  std::unique_ptr<InputFile> file;  // the text the module was parsed from, kept with it
  // A proto input's HLO text (the module's views point into it instead of `file`).
  std::unique_ptr<std::string> converted;
  std::unique_ptr<Module> module;
};

// Reads `path` ('-' = standard input), parses and verifies it as one module: HLO text, or an
// XLA module proto (options.input_format). A file that cannot be read is absl::NotFoundError
// (IsReadError; the tools call it bad usage, exit 2); otherwise the error is the proto
// reader's (byte offset), the parser's or the verifier's (naming the file's line), bad input.
absl::StatusOr<LoadedModule> LoadModule(const std::string& path, const LoadOptions& options = {});

// Whether `status` is LoadModule's failure to read its file (the parser and the verifier never
// answer NotFound).
bool IsReadError(const absl::Status& status);

// The name messages give `path`: "<stdin>" for '-'.
std::string InputName(const std::string& path);

}  // namespace hloscope
