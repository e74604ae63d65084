// Reading inputs and writing outputs for the command-line tools, where '-' names standard
// input or output and errors come back as messages that name the file and the system's reason.
//
// Outputs are written whole or not at all: a file is written under a temporary name in its
// own directory and renamed over the target only once every byte is on disk, so a failed write
// (disk full, `ulimit -f`, a crash) leaves the target as it was. An output never names an
// input: each tool refuses that before it runs (tools/common/output_paths.h).
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>

namespace hloscope {

// The most bytes ReadInput takes from an input that is not a regular file (standard input
// from a pipe, a FIFO, a device such as /dev/zero), which has no size to check beforehand.
inline constexpr size_t kMaxStreamInputBytes = size_t{1} << 30;

// Appends all of `path` ('-' = standard input) to *text; false with *error set on failure
// ("cannot open 'x.hlo': No such file or directory", "cannot read 'd': Is a directory", or
// more than kMaxStreamInputBytes from a device or pipe).
bool ReadInput(const std::string& path, std::string* text, std::string* error);

// An input read whole, kept for as long as what was parsed from it points into it. A regular
// file is mapped instead of read: reading copied each byte into a string whose pages then
// faulted in one at a time (the 146 MB 1M-instruction module: 36K faults and a copy, in the
// serial part of --jobs), where the pages of a mapped file come from the page cache, many per
// fault (touching every page of that module: 1.1K faults, 6 ms). The mapping is not populated
// up front (MAP_POPULATE took 12-40 ms there, on the main thread): the --jobs workers fault in
// their own parts. Anything else (standard input, a pipe, an empty file, a failed mapping) is
// read with ReadInput, with its messages. The file must not be truncated while it is mapped;
// outputs replace files by renaming, which leaves a mapped one whole.
class InputFile {
 public:
  InputFile() = default;
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  ~InputFile();

  // False with *error set as ReadInput sets it.
  bool Read(const std::string& path, std::string* error);
  std::string_view text() const {
    return mapped_ != nullptr ? std::string_view(mapped_, size_) : std::string_view(read_);
  }

 private:
  std::string read_;
  const char* mapped_ = nullptr;
  size_t size_ = 0;
};

// Writes `text` to `path` ('-' = standard output) through an AtomicFileWriter; false with
// *error set on failure, and then the file at `path` is untouched.
bool WriteOutput(const std::string& path, std::string_view text, std::string* error);

// A file written atomically. Open() creates `<dir>/.<name>.tmp.XXXXXX` beside the target;
// callers write to file(); Commit() flushes, syncs and closes it and renames it over the target.
// Anything else (an error, or destruction without Commit) removes the temporary and leaves the
// target untouched. '-' writes to standard output directly (flushed by Commit). A target that
// exists and is not a regular file (/dev/null, a FIFO, a terminal) is written in place, since
// renaming over it would replace the device; a symbolic link is followed, so the file it points
// to is replaced and the link stays.
class AtomicFileWriter {
 public:
  AtomicFileWriter() = default;
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;
  ~AtomicFileWriter();

  // False with *error set when the temporary (or the target, written in place) cannot be made.
  bool Open(const std::string& path, std::string* error);
  std::FILE* file() const { return file_; }
  // Appends `text`: an output may be written in pieces as it is produced (hlo-opt writes each
  // module as its turn comes) and still replaces the target only at Commit. False with *error
  // set ("cannot write 'x': No space left on device"); Commit must not follow then.
  bool Write(std::string_view text, std::string* error);
  // False with *error set ("cannot write 'x': No space left on device"); the target is then
  // untouched and the temporary removed. Close() then Publish().
  bool Commit(std::string* error);
  // The two halves of Commit, for a run of several files that must all be complete before any
  // replaces its target (hlo-gen's stage files): Close flushes and closes the temporary (its
  // file descriptor and buffer are free afterwards) and leaves the target untouched; Publish
  // renames the closed temporary over the target. Each is false with *error set on failure,
  // and then the temporary is removed.
  bool Close(std::string* error);
  bool Publish(std::string* error);

 private:
  void Discard();
  bool Fail(int err, std::string* error);

  std::string path_;       // as the user named it, for messages
  std::string target_;     // what is replaced: `path_` with symbolic links resolved
  std::string temporary_;  // empty when writing in place
  std::FILE* file_ = nullptr;
  size_t written_ = 0;     // bytes given to Write
  size_t kicked_off_ = 0;  // the bytes before this are handed to the kernel's writeback
  bool closed_ = false;    // Close succeeded; Publish has not run
};

// Flushes standard output and reports whether everything written to it arrived
// (`hlo-run ... >/dev/full`). On failure prints "<tool>: error: cannot write standard output:
// <reason>" and returns `failure_code` (or `code` when that already reports a failure);
// otherwise returns `code` unchanged.
int FinishStandardOutput(std::string_view tool, int code, int failure_code);

// What every tool's main() returns: runs `main`, turns what escapes it into a message instead
// of an abort (std::bad_alloc: "<tool>: error: out of memory ..."; an I/O error that fmt
// throws when standard output fails), and checks standard output at exit
// (FinishStandardOutput). `io_failure_code` is the tool's documented status for an output
// that could not be written; `out_of_memory_code` the one its --help gives for running out of
// memory (hlo-run: 3, "cannot run: module too large").
int RunToolMain(std::string_view tool, int (*main)(int, char**), int argc, char** argv,
                int io_failure_code, int out_of_memory_code);

}  // namespace hloscope
