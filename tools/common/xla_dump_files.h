// The files of an XLA dump directory (`XLA_FLAGS=--xla_dump_to=DIR`): what each file name
// says it is, and the files grouped per compiled module. Names only; nothing here reads a
// file's contents (tools/hlo-opt/hlo_opt_xla_dump.h does). XLA's naming, from xla/service/dump.cc and
// xla/hlo/pass/hlo_pass_pipeline.cc (docs/xla_dumps.md has the details):
//
//   [TIMESTAMP.]module_NNNN[.NAME].SUFFIX
//
// TIMESTAMP (microseconds) only with --xla_dump_include_timestamp, NNNN the module's unique id
// (%04d, so more digits past 9999), NAME left out when the whole name would pass 255 bytes.
// SUFFIX is what the file holds:
//   before_optimizations.txt                    the module as compiled, before any pass
//   PLATFORM_after_optimizations.txt            after the compiler's passes (PLATFORM e.g.
//                                               sm_9.0_gpu or cpu)
//   PLATFORM_after_optimizations-buffer-assignment.txt / -memory-usage-report.txt
//                                               XLA's buffer assignment and its totals
//   ...-buffer-assignment-values.txt, -live-range.txt (xla_dump_buffer_assignment_analysis)
//   STEP.PIPELINE.after_PASS.before_NEXT.txt    --xla_dump_hlo_pass_re: the module after PASS
//                                               (STEP counts dumps of this module, %04d;
//                                               PASS pipeline-start / NEXT pipeline-end mark a
//                                               pipeline's ends)
//   each of the above as .hlo.pb (.hlo.pb.gz) with --xla_dump_hlo_as_proto, and .dot, .html,
//   .top_level.html, .url, .riegeli, .fdo_profile for the other dump formats.
// XLA writes more per module (LLVM IR .ll, .ptx, thunk sequences, autotuning results,
// debug options, metadata .textproto, snapshots ...): recognised by the module_ prefix and
// not read. XLA itself never adds a process or rank: several processes dumping to one
// directory differ only by TIMESTAMP (or overwrite each other), and per-process dumps are
// usually kept in subdirectories, which ScanDumpDirectory walks and names as the source.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace hloscope {

enum class DumpFileKind {
  kBeforeOptimizations,  // module text (or proto) before optimizations
  kAfterOptimizations,   // module after optimizations
  kBufferAssignment,     // ...after_optimizations-buffer-assignment.txt
  kMemoryUsageReport,    // ...after_optimizations-memory-usage-report.txt
  kPassDump,             // the module after one pass (--xla_dump_hlo_pass_re)
  kOtherModuleFile,      // another file of a module (LLVM IR, PTX, graphs ...): not read
};

enum class DumpFormat { kText, kProto, kCompressedProto, kOther };

struct DumpFileName {
  DumpFileKind kind = DumpFileKind::kOtherModuleFile;
  DumpFormat format = DumpFormat::kOther;
  std::string timestamp;  // --xla_dump_include_timestamp's prefix, or empty
  int64_t module_id = 0;
  std::string module_name;  // empty when XLA left it out
  std::string platform;     // after optimizations: "sm_9.0_gpu", "cpu", or empty
  // kPassDump only.
  int64_t step = 0;
  std::string pipeline;
  std::string pass;       // the pass this is the module after ("pipeline-start": none yet)
  std::string next_pass;  // the pass that runs next ("pipeline-end": none)
  // kOtherModuleFile: what follows the module's id and name, as XLA wrote it (e.g. "ptx").
  std::string what;
};

// What `name` (a file name, no directory) is in an XLA dump; nullopt for a name XLA does not
// write (no module_NNNN after an optional timestamp).
std::optional<DumpFileName> ClassifyDumpFileName(std::string_view name);

// "before_optimizations", "after_optimizations", "buffer-assignment", "memory-usage-report",
// "pass dump" or "other".
std::string_view DumpFileKindName(DumpFileKind kind);

struct DumpFile {
  std::string path;      // DIR joined with the name (and the subdirectory it is in)
  std::string relative;  // the name, after its subdirectory of DIR if any: for messages
  DumpFileName name;
};

// One compiled module: the files that share source, timestamp, id and name.
struct DumpModule {
  std::string source;  // subdirectory relative to DIR ("" for DIR itself)
  std::string timestamp;
  int64_t id = 0;
  std::string name;
  std::optional<DumpFile> before;  // text preferred over proto when both are there
  std::optional<DumpFile> after;
  std::optional<DumpFile> buffer_assignment;
  std::optional<DumpFile> memory_usage_report;
  std::vector<DumpFile> passes;  // by step
  int64_t other_files = 0;
  // SUBDIR and "@TIMESTAMP" joined ("rank1", "@1700000000123456", "rank1@17..."): where the
  // module came from when the same id and name were dumped more than once (several
  // processes); empty otherwise.
  std::string origin;
};

struct DumpDirectory {
  std::string path;
  std::vector<DumpModule> modules;  // by id, then name, then source and timestamp
  // Module id and name pairs dumped from more than one source or timestamp.
  std::vector<std::string> collisions;
  // Module names compiled under more than one id (recompilation).
  std::vector<std::string> recompiled;
  int64_t other_module_files = 0;         // recognised, not read
  std::vector<std::string> unrecognized;  // names that are not XLA's (relative paths)
};

// Lists `dir` and its subdirectories (up to 4 levels; symbolic links to directories are not
// followed) and groups the files per module. An entry named like a module file is taken as
// one whatever it is (a directory, a dangling link): reading it then fails with the system's
// reason, so it is never silently skipped. Errors: `dir` or a subdirectory cannot be listed
// (FailedPrecondition), no module file at all (InvalidArgument, saying what was looked for).
absl::StatusOr<DumpDirectory> ScanDumpDirectory(const std::string& dir);

// The names ScanDumpDirectory looks for, for messages.
extern const char kDumpNamesLookedFor[];

}  // namespace hloscope
