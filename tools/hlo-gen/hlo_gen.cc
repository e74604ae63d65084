// hlo-gen: write realistic, fused, pipelined transformer training-step modules as HLO text,
// from a few hundred instructions to millions (see --help and tools/hlo-gen/hlo_gen/).
//
//   hlo-gen --layers=4 --microbatches=15 --stages=4 --remat=out-proj -o step.hlo
//   hlo-gen --layout=mpmd --stages=4 -o stages/        (stages/stage_0.hlo ... stage_3.hlo)
//
// Exit status: 0 success, 1 the output could not be written completely, 2 bad usage.
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fmt/core.h"
#include "tools/common/error_line.h"
#include "tools/common/file_io.h"
#include "tools/hlo-gen/model.h"
#include "tools/hlo-gen/options.h"
#include "tools/hlo-gen/text_emitter.h"
#include "tools/common/output_paths.h"

namespace hloscope::gen {
namespace {

enum ExitCode { kExitOk = 0, kExitWriteFailed = 1, kExitBadUsage = 2 };

int UsageError(std::string_view message) {
  fmt::print(stderr, "hlo-gen: error: {}\nRun 'hlo-gen --help' for usage.\n",
             TerminalSafe(message));
  return kExitBadUsage;
}

bool IsDirectory(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// The file stage `stage` of an mpmd run goes to (see --help for -o).
std::string StagePath(const std::string& out, int stage) {
  if (out.ends_with('/')) return fmt::format("{}stage_{}.hlo", out, stage);
  if (IsDirectory(out)) return fmt::format("{}/stage_{}.hlo", out, stage);
  return fmt::format("{}.stage_{}.hlo", out, stage);
}

// Generates one module into `writer`, opened on `path` ('-' = stdout), and closes it without
// replacing the target: a file appears only once every module of the run is complete
// (PublishAll). Returns an exit code.
int GenerateInto(const Options& options, int stage, const std::string& path,
                 AtomicFileWriter& writer) {
  // Written under a temporary name and renamed when complete: a failed run never leaves a
  // partial module behind.
  if (std::string error; !writer.Open(path, &error)) return UsageError(error);
  std::FILE* f = writer.file();
  // Large writes: a big stdio buffer keeps the generator I/O-cheap. Close() below releases it
  // before the next stage's file is opened.
  static char buffer[1 << 20];
  std::setvbuf(f, buffer, _IOFBF, sizeof(buffer));
  Sink sink(f);
  GenerateModule(options, stage, sink);
  std::string error;
  if (sink.failed()) {
    // Not committed: the writer removes its temporary and the target stays as it was.
    error = fmt::format("cannot write '{}': {}", path, std::strerror(errno));
  } else if (writer.Close(&error)) {
    return kExitOk;
  }
  fmt::print(stderr, "{}", ErrorLine("hlo-gen", error));
  return kExitWriteFailed;
}

// Renames every closed writer's file into place, in order; the first failure is reported.
int PublishAll(std::vector<std::unique_ptr<AtomicFileWriter>>& writers) {
  for (auto& writer : writers) {
    if (std::string error; !writer->Publish(&error)) {
      fmt::print(stderr, "{}", ErrorLine("hlo-gen", error));
      return kExitWriteFailed;
    }
  }
  writers.clear();
  return kExitOk;
}

int Main(int argc, char** argv) {
  Options options;
  if (std::string error = ParseOptions(argc, argv, &options); !error.empty()) {
    return UsageError(error);
  }
  if (options.help) {
    fmt::print("{}\n{}", HelpText(), kOutputPathsHelp);
    return kExitOk;
  }
  // hlo-gen reads no file, so only its one output flag is checked (tools/common/output_paths.h).
  if (std::string error = CheckOutputPaths({{"-o", options.output}}, {}); !error.empty()) {
    return UsageError(error);
  }
  std::vector<std::unique_ptr<AtomicFileWriter>> writers;
  auto generate = [&](int stage, const std::string& path) {
    writers.push_back(std::make_unique<AtomicFileWriter>());
    return GenerateInto(options, stage, path, *writers.back());
  };
  if (options.layout == Layout::kSpmdCircular || options.stage >= 0) {
    const int stage = options.layout == Layout::kSpmdCircular ? 0 : options.stage;
    if (int code = generate(stage, options.output); code != kExitOk) return code;
    return PublishAll(writers);
  }
  for (int stage = 0; stage < options.stages; ++stage) {
    if (options.output == "-") {
      if (stage > 0) {
        fmt::print("// -----\n");
        std::fflush(stdout);
      }
      if (int code = generate(stage, "-"); code != kExitOk) return code;
      // Standard output streams module by module, as before.
      if (int code = PublishAll(writers); code != kExitOk) return code;
    } else if (int code = generate(stage, StagePath(options.output, stage)); code != kExitOk) {
      return code;
    }
  }
  // Every stage file is complete: only now do they replace what was there.
  return PublishAll(writers);
}

}  // namespace
}  // namespace hloscope::gen

int main(int argc, char** argv) {
  return hloscope::RunToolMain("hlo-gen", hloscope::gen::Main, argc, argv,
                               hloscope::gen::kExitWriteFailed, hloscope::gen::kExitWriteFailed);
}
