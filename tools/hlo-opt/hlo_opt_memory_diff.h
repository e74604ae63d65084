// hlo-opt's `--memory-diff A B`: what changed in memory between two module files. The diff and
// its printers are analysis/memory/memory_diff.h; this file holds the flag, the checks against
// hlo-opt's other flags, reading the two inputs and writing the output, so hlo_opt.cc only
// forwards to it.
//
//   hlo-opt --memory-diff before.hlo after.hlo --format=json -o diff.json
//   hlo-opt --memory-diff before.hlo after.hlo --memory-model=liveness --top=5
//
// The memory flags of --memory-report (tools/hlo-opt/hlo_opt_memory.h: --memory-model, --schedule,
// --top, --dim-value, --count-tuple-tables, --stage-regex, ...) apply to both modules alike.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/memory/memory_diff.h"
#include "hlo/module.h"
#include "tools/common/file_io.h"
#include "tools/common/flag_table.h"
#include "tools/hlo-opt/hlo_opt_memory.h"

namespace hloscope {

struct MemoryDiffFlags {
  bool enabled = false;
  // --memory-diff=ID1,ID2: two modules of an XLA dump directory (--xla-dump=DIR), by id or
  // name. Parsed here; the directory's reader resolves them to files.
  std::vector<std::string> dump_modules;
};

// Adds --memory-diff (two positional files) and --memory-diff=ID1,ID2 to hlo-opt's table.
void AddMemoryDiffFlags(FlagTable& table, MemoryDiffFlags& flags);

// What --memory-diff is checked against, once every flag is parsed.
struct MemoryDiffContext {
  std::vector<std::string> files;  // the positional inputs, in order
  std::string output = "-";        // -o
  // The first flag given that selects another output of hlo-opt (--passes, --stats,
  // --split-input-file, --print-buffers, ...), as the user spelled its name; empty when none.
  std::string other_mode_flag;
  bool xla_dump = false;  // --xla-dump=DIR was given
};

// An empty string, or the usage error. `memory` holds the memory report's flags, which the diff
// shares (--memory-report=FILE names the output like -o; csv, stages by module, pipeline
// schedules and the buffer-assignment block are not part of a diff).
std::string CheckMemoryDiffFlags(const MemoryDiffFlags& flags, const MemoryFlags& memory,
                                 const MemoryDiffContext& context);

// A module read from a file, ready for the memory profiler.
struct DiffInput {
  std::string label;                // the file as messages name it ("<stdin>" for '-')
  std::unique_ptr<InputFile> file;  // the text the module was parsed from, kept with it
  std::unique_ptr<Module> module;
};

// Reads, parses, verifies and flattens (one call site per control-flow callee, as the profiler
// needs) the module in `path` ('-' = standard input). The one place --memory-diff turns a file
// into a module, so that another input form plugs in here. A file that cannot be read is
// absl::NotFoundError (a usage error, exit 2); a parse or verifier error keeps its own code and
// names the file's line (bad input, exit 1).
absl::StatusOr<DiffInput> LoadModuleFile(const std::string& path);

// The whole of `hlo-opt --memory-diff A B`: reads both files, diffs them (DiffModules with
// memory.options), prints in memory.format and writes to the output (-o, or
// --memory-report=FILE) only when everything succeeded. Errors go to stderr. Returns hlo-opt's
// exit code: 0, 1 bad input, 2 usage (unreadable input, unwritable output).
int RunMemoryDiff(const MemoryDiffFlags& flags, const MemoryFlags& memory,
                  const MemoryDiffContext& context);

// The diff of two loaded modules, written to `output` ('-' = standard output): what
// RunMemoryDiff does once the modules are read, for callers that find them elsewhere (an XLA
// dump directory). Same exit codes.
int WriteMemoryDiff(const DiffInput& before, const DiffInput& after, const MemoryFlags& memory,
                    const std::string& output);

}  // namespace hloscope
