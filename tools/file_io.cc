#include "tools/file_io.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "fmt/core.h"

namespace hloscope {

bool ReadInput(const std::string& path, std::string* text, std::string* error) {
  FILE* f = path == "-" ? stdin : std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    *error = fmt::format("cannot open '{}': {}", path, std::strerror(errno));
    return false;
  }
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) text->append(buf, n);
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

bool WriteOutput(const std::string& path, std::string_view text, std::string* error) {
  FILE* f = path == "-" ? stdout : std::fopen(path.c_str(), "wb");
  if (f == nullptr) {
    *error = fmt::format("cannot open '{}' for writing: {}", path, std::strerror(errno));
    return false;
  }
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  ok = (f == stdout ? std::fflush(f) : std::fclose(f)) == 0 && ok;
  if (!ok) *error = fmt::format("cannot write '{}': {}", path, std::strerror(errno));
  return ok;
}

}  // namespace hloscope
