// A tool's command-line flags, declared once: each flag's names, whether it takes a value, the
// value's placeholder, its help text and the handler that stores and checks the value. Parsing,
// the OPTIONS part of --help and the "did you mean" of an unknown flag all come from the table,
// so a flag cannot be parsed without being documented or documented without being parsed.
//
//   FlagTable table({.unknown = ..., .takes_no_value = ...});
//   table.Section("OPTIONS:", 25);
//   table.Add({.names = {"--jobs"}, .value = FlagValue::kRequired, .placeholder = "N",
//              .help = "Process up to N modules at once.", .handler = ...});
//   absl::Status usage = table.Parse(argc, argv);   // message: the usage error, as printed
//   std::string options = table.Help();
//
// Every flag that takes a value accepts `--x=V` and `--x V` alike, except an optional value
// (`--x[=V]`), which is only ever given after '=' so that `--x FILE` keeps FILE positional.
// `--` ends the options; everything after it is positional.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"

namespace hloscope {

enum class FlagValue {
  kNone,      // --x; --x=V is an error
  kRequired,  // --x=V or --x V
  kOptional,  // --x or --x=V
};

// Stores and checks a flag's value: what followed '=' or the next argument, nullopt when none
// was given (a kNone flag, a kOptional one without '=', a kRequired one at the end of the line).
// Returns the usage error as the status's message, exactly as the tool prints it.
using FlagHandler = std::function<absl::Status(std::optional<std::string_view> value)>;

// Every member has a default, so a row names only what it sets (designated initializers).
struct Flag {
  // Every spelling, e.g. {"-h", "--help"}; the help row lists them in this order.
  std::vector<std::string> names = {};
  FlagValue value = FlagValue::kNone;
  // The value's name in the help row: "A,B,..." shows as "--passes=A,B,...", "OUT" as "-o OUT",
  // and an optional "FILE.json" as "--report[=FILE.json]".
  std::string placeholder = {};
  // The value names a file the tool writes. Such a path may name neither an input nor another
  // output (tools/common/output_paths.h); tests/robustness/hostile_cli_test.cc reads this mark to
  // point every output flag of every tool at an input, and tests/tools/common/flag_tables_test.cc
  // to check that every flag whose value names a file is marked or known as an input.
  bool output_file = false;
  // The help row's text. A '\n' starts a new line; a line too long for the width is wrapped.
  // Empty: the row before documents this flag too (its label should name it).
  std::string help = {};
  FlagHandler handler = {};
  // Replaces the generated left column, for a row that documents two flags at once.
  std::string label = {};
};

// A usage error of a single flag, for handlers.
absl::Status FlagError(std::string message);

// `flag` with output_file set: for rows built by a tool's own helpers.
inline Flag OutputFileFlag(Flag flag) {
  flag.output_file = true;
  return flag;
}

// A switch (no value) that sets *out.
Flag SwitchFlag(std::vector<std::string> names, bool* out, std::string help);

class FlagTable {
 public:
  // How a tool words the errors the table itself finds (each tool kept its own wording).
  struct Wording {
    // An argument that names no flag: `arg` as given, `name` its part before '='.
    std::function<std::string(std::string_view arg, std::string_view name)> unknown;
    // A kNone flag given a value.
    std::function<std::string(std::string_view name)> takes_no_value;
  };

  explicit FlagTable(Wording wording);

  // Starts a part of the help: `heading` (lines printed as they are, may be empty) and then the
  // rows of the flags added after it, their text starting at `column`.
  void Section(std::string heading, size_t column);
  // Adds a flag to the current section. A name used twice is a programming error: it aborts.
  void Add(Flag flag);
  // Arguments that are not flags ('-' is one), in order. Without a handler they are refused.
  void Positional(std::function<absl::Status(std::string_view arg)> handler);

  // Parses argv[1..argc-1], calling the handlers in order; stops at the first error.
  absl::Status Parse(int argc, const char* const* argv) const;
  absl::Status Parse(int argc, char** argv) const {
    return Parse(argc, const_cast<const char* const*>(argv));
  }

  // The sections, rows aligned at their section's column and wrapped at `width`.
  std::string Help(size_t width = 100) const;

  // The known long name nearest to `name` by edit distance, if one is near enough to be a
  // likely typo.
  std::optional<std::string> Nearest(std::string_view name) const;

  const std::vector<Flag>& flags() const { return flags_; }

 private:
  struct SectionInfo {
    std::string heading;
    size_t column;
    size_t first_flag;  // index into flags_
  };

  absl::Status Unknown(std::string_view arg, std::string_view name) const;

  Wording wording_;
  std::vector<Flag> flags_;
  std::vector<SectionInfo> sections_;
  absl::flat_hash_map<std::string, size_t> by_name_;
  std::function<absl::Status(std::string_view)> positional_;
};

// The left column of `flag`'s help row: its label, or its names with the placeholder.
std::string FlagLabel(const Flag& flag);

}  // namespace hloscope
