#include "tools/hlo-pipeline/hlo_pipeline_hlo_opt.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "tools/common/file_io.h"

extern char** environ;

namespace hloscope::pipeline {
namespace {

// What a child process printed and how it ended.
struct ChildRun {
  std::string out;
  std::string err;
  int wait_status = 0;
};

absl::Status HloOptMissing(const std::string& path, int error) {
  return absl::FailedPreconditionError(fmt::format(
      "--from-hlo reads HLO with hlo-opt --stage-costs, and hlo-opt cannot be run from '{}': "
      "{}; put hlo-opt beside hlo-pipeline, set HLOSCOPE_HLO_OPT to its path, or give costs "
      "measured beforehand with --stage-costs=FILE.json (hlo-opt --stage-costs=FILE.json)",
      path, std::strerror(error)));
}

// Closes the file descriptors it holds.
struct Fds {
  int fd[4] = {-1, -1, -1, -1};  // stdout read, stdout write, stderr read, stderr write
  ~Fds() {
    for (int f : fd) {
      if (f >= 0) close(f);
    }
  }
  void Close(int i) {
    if (fd[i] >= 0) close(fd[i]);
    fd[i] = -1;
  }
};

// Runs argv[0] with `argv`, standard input inherited, standard output and error captured. Both
// pipes are drained together, so a child that fills one while we wait on the other cannot stall.
absl::StatusOr<ChildRun> Run(const std::string& path, const std::vector<std::string>& args) {
  Fds fds;
  // O_CLOEXEC: only the dup2'd copies (which lose the flag) reach the child.
  if (pipe2(&fds.fd[0], O_CLOEXEC) != 0 || pipe2(&fds.fd[2], O_CLOEXEC) != 0) {
    return absl::InternalError(fmt::format("cannot make a pipe: {}", std::strerror(errno)));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds.fd[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fds.fd[3], STDERR_FILENO);
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(path.c_str()));
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, path.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return HloOptMissing(path, spawned);
  fds.Close(1);
  fds.Close(3);
  ChildRun run;
  pollfd polls[2] = {{fds.fd[0], POLLIN, 0}, {fds.fd[2], POLLIN, 0}};
  std::string* sinks[2] = {&run.out, &run.err};
  int open_pipes = 2;
  char buffer[1 << 16];
  while (open_pipes > 0) {
    if (poll(polls, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;  // the child is still waited for below
    }
    for (int i = 0; i < 2; ++i) {
      if (polls[i].fd < 0 || polls[i].revents == 0) continue;
      const ssize_t n = read(polls[i].fd, buffer, sizeof(buffer));
      if (n > 0) {
        sinks[i]->append(buffer, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        polls[i].fd = -1;  // end of file (or a read error): poll ignores it from now on
        --open_pipes;
      }
    }
  }
  while (waitpid(pid, &run.wait_status, 0) < 0) {
    if (errno != EINTR) {
      return absl::InternalError(
          fmt::format("cannot wait for '{}': {}", path, std::strerror(errno)));
    }
  }
  return run;
}

// hlo-opt's message as hlo-pipeline reports it: without "hlo-opt: error: " and the usage hint,
// which name the wrong tool and flags for a user of hlo-pipeline.
std::string ChildMessage(std::string_view err) {
  constexpr std::string_view kPrefix = "hlo-opt: error: ";
  constexpr std::string_view kHint = "Run 'hlo-opt --help' for usage.\n";
  std::string message(err.starts_with(kPrefix) ? err.substr(kPrefix.size()) : err);
  if (size_t at = message.rfind(kHint); at != std::string::npos) message.erase(at, kHint.size());
  while (!message.empty() && message.back() == '\n') message.pop_back();
  return message;
}

}  // namespace

absl::StatusOr<std::string> HloOptPath() {
  if (const char* env = std::getenv("HLOSCOPE_HLO_OPT"); env != nullptr && *env != '\0') {
    return std::string(env);
  }
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) {
    return absl::FailedPreconditionError(fmt::format(
        "--from-hlo runs hlo-opt from hlo-pipeline's directory, and /proc/self/exe cannot be "
        "read ({}); set HLOSCOPE_HLO_OPT to hlo-opt's path, or give costs measured beforehand "
        "with --stage-costs=FILE.json (hlo-opt --stage-costs=FILE.json)",
        std::strerror(errno)));
  }
  std::string_view exe(self, static_cast<size_t>(n));
  return fmt::format("{}/hlo-opt", exe.substr(0, exe.rfind('/')));
}

absl::StatusOr<StageCosts> StageCostsFromHlo(const std::vector<std::string>& files,
                                             double device_tflops,
                                             const std::string& backward_regex) {
  // Opened here first so that an unreadable file is named by the flag, as it always was. A
  // regular file is only mapped, not read (InputFile), so this costs no copy of the text.
  for (const std::string& file : files) {
    if (file == "-") continue;  // standard input is hlo-opt's to read
    InputFile input;
    std::string error;
    if (!input.Read(file, &error)) {
      return absl::NotFoundError(fmt::format("--from-hlo: {}", error));
    }
  }
  absl::StatusOr<std::string> hlo_opt = HloOptPath();
  if (!hlo_opt.ok()) return hlo_opt.status();
  if (access(hlo_opt->c_str(), X_OK) != 0) return HloOptMissing(*hlo_opt, errno);
  std::vector<std::string> args = {"--stage-costs=-", fmt::format("--tflops={}", device_tflops),
                                   fmt::format("--backward-regex={}", backward_regex), "--"};
  args.insert(args.end(), files.begin(), files.end());
  absl::StatusOr<ChildRun> run = Run(*hlo_opt, args);
  if (!run.ok()) return run.status();
  if (WIFSIGNALED(run->wait_status)) {
    const int sig = WTERMSIG(run->wait_status);
    return absl::InternalError(fmt::format("{}--from-hlo: '{}' was killed by signal {} ({})",
                                           run->err, *hlo_opt, sig, strsignal(sig)));
  }
  const int code = WIFEXITED(run->wait_status) ? WEXITSTATUS(run->wait_status) : -1;
  if (code != 0) {
    std::string message = ChildMessage(run->err);
    // hlo-opt names standard input "<stdin>" in its file:line:col prefix; --from-hlo has always
    // named it "-", as the user wrote it.
    constexpr std::string_view kStdinName = "<stdin>:";
    if (std::find(files.begin(), files.end(), "-") != files.end() &&
        message.starts_with(kStdinName)) {
      message.replace(0, kStdinName.size(), "-:");
    }
    if (message.empty()) {
      message =
          fmt::format("--from-hlo: '{}' failed (exit status {}) and said nothing", *hlo_opt, code);
    }
    return absl::InvalidArgumentError(message);
  }
  fmt::print(stderr, "{}", run->err);  // warnings, if any: for the user, unchanged
  absl::StatusOr<StageCosts> costs =
      ParseStageCostsJson(run->out, fmt::format("--from-hlo: what '{}' printed", *hlo_opt));
  if (!costs.ok()) return costs.status();
  if (costs->stages.size() != files.size()) {
    return absl::InternalError(fmt::format("--from-hlo: '{}' gave {} stages for {} files", *hlo_opt,
                                           costs->stages.size(), files.size()));
  }
  // The table names each stage's file as the user did: hlo-opt calls standard input "<stdin>",
  // --from-hlo has always printed "-".
  for (size_t i = 0; i < files.size(); ++i) costs->stages[i].path = files[i];
  return costs;
}

}  // namespace hloscope::pipeline
