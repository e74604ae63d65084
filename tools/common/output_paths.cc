#include "tools/common/output_paths.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <system_error>

#include "fmt/format.h"
#include "tools/common/error_line.h"

namespace hloscope {

const char kOutputPathsHelp[] =
    "OUTPUT FILES:\n"
    "  Every output file is written whole or not at all: under a temporary name\n"
    "  beside it, renamed into place only when the run succeeds, so a failing run\n"
    "  leaves an existing file as it was. An output that names an input file (the\n"
    "  same file by any spelling or through a symbolic link), or two outputs that\n"
    "  name one file, is a usage error (exit 2) before anything is read or written.\n";

namespace {

// What a path names, for comparing: an existing regular file by device and inode; a file that
// does not exist yet by its resolved directory and its last component. Anything else (a
// device, a FIFO, a directory, standard input or output) is not compared.
struct FileIdentity {
  bool exists = false;
  dev_t device = 0;
  ino_t inode = 0;
  std::string future_path;  // when !exists
};

std::optional<FileIdentity> IdentityOf(const std::string& path) {
  if (path.empty() || path == "-") return std::nullopt;
  struct stat info;
  if (::stat(path.c_str(), &info) == 0) {
    if (!S_ISREG(info.st_mode)) return std::nullopt;
    return FileIdentity{true, info.st_dev, info.st_ino, {}};
  }
  // Not there yet: the writer creates it in its directory, which may be spelled many ways
  // (`./out`, `d/../out`, a symbolic link to the directory).
  std::filesystem::path p(path);
  std::error_code ec;
  std::filesystem::path dir = p.parent_path().empty() ? "." : p.parent_path();
  std::filesystem::path resolved = std::filesystem::weakly_canonical(dir, ec);
  if (ec) resolved = std::filesystem::absolute(dir, ec).lexically_normal();
  return FileIdentity{false, 0, 0, (resolved / p.filename()).string()};
}

bool Same(const FileIdentity& a, const FileIdentity& b) {
  if (a.exists != b.exists) return false;
  return a.exists ? a.device == b.device && a.inode == b.inode : a.future_path == b.future_path;
}

}  // namespace

std::string ShowOutputFlag(const OutputPath& output) {
  const std::string path = TerminalSafe(output.path);
  if (output.flag.starts_with("--")) return fmt::format("{}={}", output.flag, path);
  return fmt::format("{} {}", output.flag, path);
}

std::string CheckOutputPaths(const std::vector<OutputPath>& outputs,
                             const std::vector<std::string>& inputs) {
  std::vector<std::pair<std::string, FileIdentity>> input_ids;
  for (const std::string& input : inputs) {
    if (input == "-") {
      // Standard input redirected from a file (`hlo-opt - -o x.hlo < x.hlo`) is that file.
      struct stat info;
      if (::fstat(STDIN_FILENO, &info) == 0 && S_ISREG(info.st_mode)) {
        input_ids.emplace_back("<stdin>", FileIdentity{true, info.st_dev, info.st_ino, {}});
      }
      continue;
    }
    std::optional<FileIdentity> id = IdentityOf(input);
    // An input that does not exist is reported by the reader; it names nothing to protect.
    if (id && id->exists) input_ids.emplace_back(input, *id);
  }
  std::vector<std::pair<const OutputPath*, FileIdentity>> seen;
  for (const OutputPath& output : outputs) {
    std::optional<FileIdentity> id = IdentityOf(output.path);
    if (!id) continue;
    for (const auto& [input, input_id] : input_ids) {
      if (Same(*id, input_id)) {
        return fmt::format("{} names the input file '{}'; an output never replaces an input",
                           ShowOutputFlag(output), TerminalSafe(input));
      }
    }
    for (const auto& [earlier, earlier_id] : seen) {
      if (Same(*id, earlier_id)) {
        return fmt::format("{} and {} name the same file; give each output its own path",
                           ShowOutputFlag(*earlier), ShowOutputFlag(output));
      }
    }
    seen.emplace_back(&output, *id);
  }
  return "";
}

}  // namespace hloscope
