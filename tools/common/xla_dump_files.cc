#include "tools/common/xla_dump_files.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <system_error>
#include <tuple>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "re2/re2.h"

namespace hloscope {

const char kDumpNamesLookedFor[] =
    "module_NNNN.NAME.before_optimizations.txt, "
    "module_NNNN.NAME.PLATFORM_after_optimizations.txt (and -buffer-assignment.txt, "
    "-memory-usage-report.txt), module_NNNN.NAME.STEP.PIPELINE.after_PASS.before_PASS.txt, "
    "the same as .hlo.pb, each optionally after a TIMESTAMP. prefix";

namespace {

struct Extension {
  std::string_view text;
  DumpFormat format;
  // Set: the extension alone says what the file is (a file of the after-optimizations dump).
  std::optional<DumpFileKind> kind;
};

// Longest first where one ends another ("-buffer-assignment.txt" before ".txt").
constexpr Extension kExtensions[] = {
    {"-buffer-assignment-values.txt", DumpFormat::kText, DumpFileKind::kOtherModuleFile},
    {"-buffer-assignment.txt", DumpFormat::kText, DumpFileKind::kBufferAssignment},
    {"-memory-usage-report.txt", DumpFormat::kText, DumpFileKind::kMemoryUsageReport},
    {"-memory-usage-report.pb.gz", DumpFormat::kOther, DumpFileKind::kOtherModuleFile},
    {"-memory-usage-report.pb", DumpFormat::kOther, DumpFileKind::kOtherModuleFile},
    {"-live-range.txt", DumpFormat::kText, DumpFileKind::kOtherModuleFile},
    {".hlo.pb.gz", DumpFormat::kCompressedProto, std::nullopt},
    {".hlo.pb", DumpFormat::kProto, std::nullopt},
    {".txt", DumpFormat::kText, std::nullopt},
};

// The module's name and the platform before "after_optimizations" ("sm_9.0_gpu" has a dot,
// so it is tried first; Hopper's is "sm_9.0a_gpu", with the architecture-specific suffix; a name
// may hold dots, so the name is the shortest that fits, and none at all when that fits: XLA leaves
// out names that make the file name too long).
const RE2& AfterOptimizationsStem() {
  static const RE2 re(R"(^(?:(.*?)\.)??(?:(sm_\d+\.\d+[a-z]?_gpu|[^.]+)_)?after_optimizations$)");
  return re;
}
const RE2& BeforeOptimizationsStem() {
  static const RE2 re(R"(^(?:(.*?)\.)?before_optimizations$)");
  return re;
}
// NAME.STEP.PIPELINE.after_PASS.before_NEXT: the step is the first all-digit part after the
// name, pass names hold no dots.
const RE2& PassDumpStem() {
  static const RE2 re(R"(^(?:(.*?)\.)?(\d{4,})\.(.+)\.after_([^.]+)\.before_([^.]+)$)");
  return re;
}
const RE2& ModulePrefix() {
  static const RE2 re(R"(^(?:(\d+)\.)?module_(\d{4,})(?:\.(.*))?$)");
  return re;
}

bool ToInt(const std::string& digits, int64_t* out) {
  if (digits.empty() || digits.size() > 18) return false;
  int64_t v = 0;
  for (char c : digits) v = v * 10 + (c - '0');
  *out = v;
  return true;
}

}  // namespace

std::string_view DumpFileKindName(DumpFileKind kind) {
  switch (kind) {
    case DumpFileKind::kBeforeOptimizations:
      return "before_optimizations";
    case DumpFileKind::kAfterOptimizations:
      return "after_optimizations";
    case DumpFileKind::kBufferAssignment:
      return "buffer-assignment";
    case DumpFileKind::kMemoryUsageReport:
      return "memory-usage-report";
    case DumpFileKind::kPassDump:
      return "pass dump";
    case DumpFileKind::kOtherModuleFile:
      return "other";
  }
  return "other";
}

std::optional<DumpFileName> ClassifyDumpFileName(std::string_view name) {
  std::string timestamp, id_digits, rest;
  if (!RE2::FullMatch(name, ModulePrefix(), &timestamp, &id_digits, &rest)) return std::nullopt;
  DumpFileName out;
  out.timestamp = timestamp;
  if (!ToInt(id_digits, &out.module_id)) return std::nullopt;

  std::string_view stem = rest;
  const Extension* ext = nullptr;
  for (const Extension& e : kExtensions) {
    if (stem.ends_with(e.text)) {
      ext = &e;
      stem.remove_suffix(e.text.size());
      break;
    }
  }
  auto other = [&]() {
    out.kind = DumpFileKind::kOtherModuleFile;
    out.format = DumpFormat::kOther;
    out.what = rest;
    return out;
  };
  if (ext == nullptr) return other();
  out.format = ext->format;

  std::string module_name, platform, step, pipeline, pass, next_pass;
  if (RE2::FullMatch(stem, AfterOptimizationsStem(), &module_name, &platform)) {
    out.kind = ext->kind.value_or(DumpFileKind::kAfterOptimizations);
    if (out.kind == DumpFileKind::kOtherModuleFile) {
      out.format = DumpFormat::kOther;
      out.what = std::string(ext->text.substr(1));
    }
    out.module_name = module_name;
    out.platform = platform;
    return out;
  }
  if (ext->kind) return other();  // e.g. a buffer assignment of a pass dump: not read
  if (RE2::FullMatch(stem, BeforeOptimizationsStem(), &module_name)) {
    out.kind = DumpFileKind::kBeforeOptimizations;
    out.module_name = module_name;
    return out;
  }
  if (RE2::FullMatch(stem, PassDumpStem(), &module_name, &step, &pipeline, &pass, &next_pass) &&
      ToInt(step, &out.step)) {
    out.kind = DumpFileKind::kPassDump;
    out.module_name = module_name;
    out.pipeline = pipeline;
    out.pass = pass;
    out.next_pass = next_pass;
    return out;
  }
  return other();
}

namespace {

// The entries of `path`, sorted so that the scan, and every message after it, is the same on
// every file system.
absl::StatusOr<std::vector<std::filesystem::directory_entry>> SortedEntries(
    const std::filesystem::path& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<fs::directory_entry> entries;
  fs::directory_iterator it(path, ec);
  for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) break;
    entries.push_back(*it);
  }
  if (ec) {
    return absl::FailedPreconditionError(
        fmt::format("cannot list directory '{}': {}", path.string(), ec.message()));
  }
  std::sort(entries.begin(), entries.end(),
            [](const auto& a, const auto& b) { return a.path() < b.path(); });
  return entries;
}

// Files `f` (a module file, not kOtherModuleFile) into its module's slot. Text is read where
// XLA wrote both forms; a proto stands in where it is alone.
void AddToModule(const DumpFile& f, DumpModule& m) {
  auto keep = [&](std::optional<DumpFile>& slot) {
    if (!slot || (slot->name.format != DumpFormat::kText && f.name.format == DumpFormat::kText)) {
      slot = f;
    }
  };
  switch (f.name.kind) {
    case DumpFileKind::kBeforeOptimizations:
      keep(m.before);
      break;
    case DumpFileKind::kAfterOptimizations:
      keep(m.after);
      break;
    case DumpFileKind::kBufferAssignment:
      keep(m.buffer_assignment);
      break;
    case DumpFileKind::kMemoryUsageReport:
      keep(m.memory_usage_report);
      break;
    case DumpFileKind::kPassDump: {
      auto same_step = std::find_if(m.passes.begin(), m.passes.end(),
                                    [&](const DumpFile& p) { return p.name.step == f.name.step; });
      if (same_step == m.passes.end()) {
        m.passes.push_back(f);
      } else if (same_step->name.format != DumpFormat::kText &&
                 f.name.format == DumpFormat::kText) {
        *same_step = f;
      }
      break;
    }
    case DumpFileKind::kOtherModuleFile:
      break;
  }
}

// Notes in `out` the modules with one id and name dumped more than once (several processes,
// or one at several timestamps: each gets an origin) and the names compiled under several
// ids; sorts each module's pass dumps by step.
void NoteRepeats(std::vector<DumpModule*>& modules, DumpDirectory& out) {
  std::map<std::pair<int64_t, std::string>, std::vector<DumpModule*>> by_id_name;
  std::map<std::string, std::set<int64_t>> ids_by_name;
  for (DumpModule* m : modules) {
    std::sort(m->passes.begin(), m->passes.end(),
              [](const DumpFile& a, const DumpFile& b) { return a.name.step < b.name.step; });
    by_id_name[{m->id, m->name}].push_back(m);
    if (!m->name.empty()) ids_by_name[m->name].insert(m->id);
  }
  for (auto& [id_name, list] : by_id_name) {
    if (list.size() < 2) continue;
    std::string joined;
    for (DumpModule* m : list) {
      m->origin = m->source;
      if (!m->timestamp.empty()) m->origin += "@" + m->timestamp;
      joined += (joined.empty() ? "" : ", ") + m->origin;
    }
    out.collisions.push_back(fmt::format("module {} {} was dumped {} times ({})", id_name.first,
                                         id_name.second.empty() ? "(no name)" : id_name.second,
                                         list.size(), joined));
  }
  for (const auto& [name, ids] : ids_by_name) {
    if (ids.size() < 2) continue;
    std::string joined;
    for (int64_t id : ids) joined += (joined.empty() ? "" : ", ") + std::to_string(id);
    out.recompiled.push_back(
        fmt::format("{} was compiled {} times (ids {})", name, ids.size(), joined));
  }
}

// The error for a directory that holds no module: what it does hold.
absl::Status NoModuleError(const std::string& dir, const DumpDirectory& out) {
  const size_t files = out.unrecognized.size() + static_cast<size_t>(out.other_module_files);
  const std::string found =
      files == 0 ? "it is empty"
                 : fmt::format(
                       "it has {} file{} not named as XLA names its dumps and {} XLA "
                       "file{} that hold{} no module (LLVM IR, PTX, ...)",
                       out.unrecognized.size(), out.unrecognized.size() == 1 ? "" : "s",
                       out.other_module_files, out.other_module_files == 1 ? "" : "s",
                       out.other_module_files == 1 ? "s" : "");
  return absl::InvalidArgumentError(fmt::format(
      "'{}' holds no XLA dump of a module: {}; looked for {}", dir, found, kDumpNamesLookedFor));
}

}  // namespace

absl::StatusOr<DumpDirectory> ScanDumpDirectory(const std::string& dir) {
  namespace fs = std::filesystem;
  DumpDirectory out;
  out.path = dir;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return absl::FailedPreconditionError(
        fmt::format("cannot open directory '{}': {}", dir,
                    ec ? ec.message()
                       : (fs::exists(dir, ec) ? "Not a directory" : "No such file or directory")));
  }
  // Key: source, timestamp, id, name.
  using Key = std::tuple<std::string, std::string, int64_t, std::string>;
  std::map<Key, DumpModule> modules;
  std::map<std::tuple<std::string, std::string, int64_t>, int64_t> other_files;

  struct Pending {
    fs::path path;
    std::string relative;
    int depth;
  };
  std::vector<Pending> dirs = {{fs::path(dir), "", 0}};
  while (!dirs.empty()) {
    Pending d = dirs.back();
    dirs.pop_back();
    absl::StatusOr<std::vector<fs::directory_entry>> entries = SortedEntries(d.path);
    if (!entries.ok()) return entries.status();
    for (const fs::directory_entry& e : *entries) {
      const std::string name = e.path().filename().string();
      const std::string relative = d.relative.empty() ? name : d.relative + "/" + name;
      std::optional<DumpFileName> file = ClassifyDumpFileName(name);
      std::error_code type_ec;
      const bool is_dir = !e.is_symlink(type_ec) && e.is_directory(type_ec);
      if (!file) {
        if (is_dir) {
          if (d.depth < 4) dirs.push_back({e.path(), relative, d.depth + 1});
        } else {
          out.unrecognized.push_back(relative);
        }
        continue;
      }
      if (file->kind == DumpFileKind::kOtherModuleFile) {
        // Where the module's name ends in such a name is not known: counted per id.
        ++out.other_module_files;
        ++other_files[{d.relative, file->timestamp, file->module_id}];
        continue;
      }
      DumpModule& m = modules[Key{d.relative, file->timestamp, file->module_id, file->module_name}];
      m.source = d.relative;
      m.timestamp = file->timestamp;
      m.id = file->module_id;
      m.name = file->module_name;
      AddToModule(DumpFile{e.path().string(), relative, *file}, m);
    }
  }
  std::sort(out.unrecognized.begin(), out.unrecognized.end());

  std::vector<DumpModule*> in_key_order;
  for (auto& [key, m] : modules) in_key_order.push_back(&m);
  NoteRepeats(in_key_order, out);
  for (auto& [key, m] : modules) {
    if (auto it = other_files.find({m.source, m.timestamp, m.id}); it != other_files.end()) {
      m.other_files = it->second;
    }
    out.modules.push_back(std::move(m));
  }
  std::sort(out.modules.begin(), out.modules.end(), [](const DumpModule& a, const DumpModule& b) {
    return std::tie(a.id, a.name, a.source, a.timestamp) <
           std::tie(b.id, b.name, b.source, b.timestamp);
  });
  if (out.modules.empty()) return NoModuleError(dir, out);
  return out;
}

}  // namespace hloscope
