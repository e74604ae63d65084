#include "tools/common/file_io.h"

#include <fcntl.h>
#include <malloc.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <system_error>

#include "fmt/core.h"

namespace hloscope {

bool ReadInput(const std::string& path, std::string* text, std::string* error) {
  FILE* f = path == "-" ? stdin : std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    *error = fmt::format("cannot open '{}': {}", path, std::strerror(errno));
    return false;
  }
  const std::string_view shown = path == "-" ? std::string_view("<stdin>") : path;
  // A directory opens, and then reads as nothing on some systems; a device or a pipe has no
  // size and may never end (/dev/zero), so it is read up to kMaxStreamInputBytes.
  struct stat info;
  bool regular = true;
  if (::fstat(::fileno(f), &info) == 0) {
    if (S_ISDIR(info.st_mode)) {
      if (f != stdin) std::fclose(f);
      *error = fmt::format("cannot read '{}': {}", shown, std::strerror(EISDIR));
      return false;
    }
    regular = S_ISREG(info.st_mode);
    // Reserving the known size avoids the doubling copies of a large file.
    if (regular && info.st_size > 0)
      text->reserve(text->size() + static_cast<size_t>(info.st_size));
  }
  char buf[1 << 16];
  size_t n;
  size_t read = 0;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) {
    read += n;
    if (!regular && read > kMaxStreamInputBytes) {
      if (f != stdin) std::fclose(f);
      *error = fmt::format(
          "cannot read '{}': more than {} bytes from something that is not a regular file (a "
          "device or a pipe); save it to a file first",
          shown, kMaxStreamInputBytes);
      return false;
    }
    text->append(buf, n);
  }
  bool failed = std::ferror(f) != 0;
  int err = errno;
  if (f != stdin) std::fclose(f);
  if (failed) {
    *error =
        fmt::format("cannot read '{}': {}", path == "-" ? "<stdin>" : path, std::strerror(err));
    return false;
  }
  return true;
}

InputFile::~InputFile() {
  if (mapped_ != nullptr) ::munmap(const_cast<char*>(mapped_), size_);
}

bool InputFile::Read(const std::string& path, std::string* error) {
  if (path != "-") {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat info;
    if (fd >= 0 && ::fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && info.st_size > 0) {
      const size_t size = static_cast<size_t>(info.st_size);
      void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
      if (p != MAP_FAILED) {
        ::close(fd);
        mapped_ = static_cast<const char*>(p);
        size_ = size;
        return true;
      }
    }
    if (fd >= 0) ::close(fd);
  }
  return ReadInput(path, &read_, error);
}

namespace {
// Set once a failed write to standard output has been reported, so the check at exit does not
// report it a second time.
bool stdout_failure_reported = false;
}  // namespace

bool WriteOutput(const std::string& path, std::string_view text, std::string* error) {
  AtomicFileWriter writer;
  if (!writer.Open(path, error)) return false;
  // Not committed on failure: the writer's destructor removes the temporary.
  return writer.Write(text, error) && writer.Commit(error);
}

namespace {

// The process's file-creation mask, read without changing it for long (tools are single
// threaded when they open outputs).
mode_t CurrentUmask() {
  mode_t mask = ::umask(0);
  ::umask(mask);
  return mask;
}

}  // namespace

AtomicFileWriter::~AtomicFileWriter() { Discard(); }

bool AtomicFileWriter::Write(std::string_view text, std::string* error) {
  if (file_ == nullptr) {
    *error = fmt::format("cannot write '{}': not open", path_);
    return false;
  }
  if (std::fwrite(text.data(), 1, text.size(), file_) == text.size()) {
    written_ += text.size();
    // Renaming a new file over an existing one makes ext4 allocate and start writing all of
    // its delayed data inside rename() (its auto_da_alloc guard against empty files after a
    // crash): ~70 ms for a 200 MB output, at the very end, when nothing else runs. Starting
    // the writeback of each finished stretch while later modules are still being processed
    // leaves little for rename() to do. It only starts the writes (it waits for none) and
    // changes no content; a failure here is reported like any failed write.
    constexpr size_t kWritebackStep = 16 << 20;
    if (!temporary_.empty() && written_ - kicked_off_ >= kWritebackStep) {
      if (std::fflush(file_) != 0) {
        *error = fmt::format("cannot write '{}': {}", path_, std::strerror(errno));
        return false;
      }
      ::sync_file_range(::fileno(file_), static_cast<off_t>(kicked_off_),
                        static_cast<off_t>(written_ - kicked_off_), SYNC_FILE_RANGE_WRITE);
      kicked_off_ = written_;
    }
    return true;
  }
  *error =
      fmt::format("cannot write '{}': {}", path_ == "-" ? "<stdout>" : path_, std::strerror(errno));
  if (path_ == "-") stdout_failure_reported = true;
  return false;
}

void AtomicFileWriter::Discard() {
  if (file_ != nullptr && file_ != stdout) std::fclose(file_);
  file_ = nullptr;
  closed_ = false;
  if (!temporary_.empty()) ::unlink(temporary_.c_str());
  temporary_.clear();
}

bool AtomicFileWriter::Open(const std::string& path, std::string* error) {
  Discard();
  path_ = path;
  target_ = path;
  written_ = kicked_off_ = 0;
  if (path == "-") {
    file_ = stdout;
    return true;
  }
  auto fail = [&](int err) {
    *error = fmt::format("cannot open '{}' for writing: {}", path, std::strerror(err));
    return false;
  };
  bool write_in_place = false;
  struct stat link_info;
  if (::lstat(path.c_str(), &link_info) == 0 && S_ISLNK(link_info.st_mode)) {
    // Replace the file the link names, not the link. A dangling link is written through.
    if (char* resolved = ::realpath(path.c_str(), nullptr)) {
      target_ = resolved;
      std::free(resolved);
    } else {
      write_in_place = true;
    }
  }
  struct stat info;
  bool exists = ::stat(target_.c_str(), &info) == 0;
  if (exists && S_ISDIR(info.st_mode)) return fail(EISDIR);
  if (write_in_place || (exists && !S_ISREG(info.st_mode))) {
    file_ = std::fopen(target_.c_str(), "wb");
    return file_ != nullptr || fail(errno);
  }
  size_t slash = target_.rfind('/');
  // The directory part keeps its '/', so "x.hlo" gives "./.x.hlo.tmp.XXXXXX".
  std::string_view whole(target_);
  std::string_view dir = slash == std::string::npos ? "./" : whole.substr(0, slash + 1);
  std::string_view base = slash == std::string::npos ? whole : whole.substr(slash + 1);
  std::string pattern = fmt::format("{}.{}.tmp.XXXXXX", dir, base);
  int fd = ::mkstemp(pattern.data());
  if (fd < 0) return fail(errno);
  temporary_ = pattern;
  // mkstemp makes the file 0600; give it the mode the target has, or the one a new file gets.
  mode_t mode = exists ? (info.st_mode & 07777) : (0666 & ~CurrentUmask());
  if (::fchmod(fd, mode) != 0) {
    int err = errno;
    ::close(fd);
    file_ = nullptr;
    Discard();
    return fail(err);
  }
  file_ = ::fdopen(fd, "wb");
  if (file_ == nullptr) {
    int err = errno;
    ::close(fd);
    Discard();
    return fail(err);
  }
  return true;
}

bool AtomicFileWriter::Commit(std::string* error) { return Close(error) && Publish(error); }

bool AtomicFileWriter::Close(std::string* error) {
  if (file_ == nullptr) {
    *error = fmt::format("cannot write '{}': not open", path_);
    return false;
  }
  errno = 0;
  bool ok = std::fflush(file_) == 0 && std::ferror(file_) == 0;
  int err = errno;
  if (file_ != stdout) {
    if (std::fclose(file_) != 0 && ok) {
      ok = false;
      err = errno;
    }
  }
  file_ = nullptr;
  if (!ok) return Fail(err, error);
  closed_ = true;
  return true;
}

bool AtomicFileWriter::Publish(std::string* error) {
  if (!closed_) {
    *error = fmt::format("cannot write '{}': not closed", path_);
    return false;
  }
  closed_ = false;
  if (!temporary_.empty()) {
    if (::rename(temporary_.c_str(), target_.c_str()) != 0) return Fail(errno, error);
    temporary_.clear();
  }
  return true;
}

bool AtomicFileWriter::Fail(int err, std::string* error) {
  // An error flagged by an earlier write leaves errno unset here; say what we know.
  *error = fmt::format("cannot write '{}': {}", path_ == "-" ? "<stdout>" : path_,
                       err != 0 ? std::strerror(err) : "write error");
  if (path_ == "-") stdout_failure_reported = true;
  Discard();
  return false;
}

int FinishStandardOutput(std::string_view tool, int code, int failure_code) {
  errno = 0;
  bool ok = std::fflush(stdout) == 0 && std::ferror(stdout) == 0;
  if (ok) return code;
  int err = errno;
  std::clearerr(stdout);
  if (stdout_failure_reported) return code != 0 ? code : failure_code;
  std::fprintf(stderr, "%.*s: error: cannot write standard output: %s\n",
               static_cast<int>(tool.size()), tool.data(),
               err != 0 ? std::strerror(err) : "write error");
  return code != 0 ? code : failure_code;
}

int RunToolMain(std::string_view tool, int (*main)(int, char**), int argc, char** argv,
                int io_failure_code, int out_of_memory_code) {
  // Past `ulimit -f` a write fails with EFBIG instead of killing the process, so the output's
  // temporary is removed and the error reported like any other failed write.
  std::signal(SIGXFSZ, SIG_IGN);
  // The analyses of a large module allocate and free vectors of megabytes over and over. Above
  // glibc's default mmap threshold each is a fresh mapping whose pages fault in again, and a
  // freed heap top goes back to the kernel to be faulted in anew by the next: keeping them in
  // the heap (mapped only from 32 MiB, the most glibc allows; trimmed only past 1 GiB) reuses
  // pages already touched. 1M-instruction hlo-gen module, copy-elision: 218K -> 173K minor
  // faults, system time 0.50 -> 0.42 s, peak RSS 867 -> 786 MB (same build with and without).
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  int code;
  try {
    code = main(argc, argv);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr,
                 "%.*s: error: out of memory (the input or the requested sizes need "
                 "more memory than this process may use)\n",
                 static_cast<int>(tool.size()), tool.data());
    code = out_of_memory_code;
  } catch (const std::system_error& e) {
    // fmt::print throws when a write to standard output fails part way.
    std::fprintf(stderr, "%.*s: error: cannot write standard output: %s\n",
                 static_cast<int>(tool.size()), tool.data(), e.what());
    stdout_failure_reported = true;
    code = io_failure_code;
  }
  return FinishStandardOutput(tool, code, io_failure_code);
}

}  // namespace hloscope
