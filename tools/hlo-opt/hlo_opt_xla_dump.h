// hlo-opt on an XLA dump directory: `--xla-dump=DIR` (or a directory where FILE goes) prints
// one row per compiled module (ours beside XLA's totals), and `--module=ID|NAME` opens one.
// The directory's files are found and grouped by tools/common/xla_dump_files.h; this file reads
// them, runs the memory profiler and copy-elision's report on each module, and prints.
//
//   hlo-opt --xla-dump=/tmp/xla_dump                     # the index, largest peak first
//   hlo-opt /tmp/xla_dump --module=jit_train_step        # one module in full
//   hlo-opt --xla-dump=/tmp/xla_dump --format=json -o index.json
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "hlo/module.h"
#include "tools/common/file_io.h"
#include "tools/common/flag_table.h"
#include "tools/hlo-opt/hlo_opt_memory.h"
#include "tools/common/load_module.h"  // LoadedModule
#include "tools/common/xla_dump_files.h"

namespace hloscope {

struct XlaDumpFlags {
  std::string dir;          // --xla-dump=DIR, or the directory given as FILE
  bool from_input = false;  // dir came from FILE (no dump there keeps FILE's old message)
  std::string module;       // --module=ID|NAME|ORIGIN:ID|ORIGIN:NAME; empty: the index
  bool enabled() const { return !dir.empty(); }
};

// Adds --xla-dump=DIR and --module=ID|NAME to hlo-opt's table.
void AddXlaDumpFlags(FlagTable& table, XlaDumpFlags& flags);

// Checks the flags together once all are parsed: an empty string, or the usage error.
// `other_modes`: a flag that reads one module was given (--passes, --stats, --print-*, ...).
std::string CheckXlaDumpFlags(const XlaDumpFlags& flags, const MemoryFlags& memory,
                              bool other_modes, bool more_inputs);

// The one place a dump file becomes a Module (tools/common/load_module.h): text, or a binary proto
// (`.hlo.pb`) read as the HLO text XLA prints for it, parsed and verified; a gzip-compressed
// proto is Unimplemented (unpack it first). A file that cannot be read: FailedPrecondition;
// a corrupt proto, parse or verifier errors: InvalidArgument (`file:line:col: error:`, or the
// byte offset of a proto).
absl::StatusOr<LoadedModule> LoadDumpModule(const DumpFile& file);

// XLA's "Total bytes used: N" from a -memory-usage-report.txt or -buffer-assignment.txt.
absl::StatusOr<int64_t> ReadXlaTotalBytes(const std::string& path);

// Runs the index or the one-module view and writes it to `output`. Returns hlo-opt's exit
// code: 0; 1 bad input (a module that does not parse or verify, a memory usage report without
// its total); 2 bad usage (no such directory or no XLA dump in it, an unreadable file, a
// --module that names no module or several). Nothing is written unless everything succeeded.
int RunXlaDump(const XlaDumpFlags& flags, const MemoryFlags& memory, const std::string& output);

// `--xla-dump=DIR --memory-diff=ID1,ID2`: the memory diff (tools/hlo-opt/hlo_opt_memory_diff.h) of two
// modules of the directory, each its final (after-optimizations) module file, found as
// --module finds one. Same exit codes as RunXlaDump.
int RunXlaDumpMemoryDiff(const XlaDumpFlags& flags, const std::vector<std::string>& specs,
                         const MemoryFlags& memory, const std::string& output);

}  // namespace hloscope
