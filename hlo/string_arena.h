// Bump allocator for the strings a module owns (names, attribute text, metadata).
//
// Strings are copied in once and never freed individually; they live as long as the module.
// This keeps Instruction small (a string_view, no std::string) and parsing allocation-free on
// the common path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

namespace hloscope {

class StringArena {
 public:
  StringArena() = default;
  StringArena(const StringArena&) = delete;
  StringArena& operator=(const StringArena&) = delete;

  std::string_view Save(std::string_view s) {
    if (s.empty()) return {};
    char* p = Allocate(s.size());
    CopyBytes(p, s.data(), s.size());
    return {p, s.size()};
  }

  char* Allocate(size_t n) {
    if (n > kBlockSize / 4) {  // big strings get their own block so small ones do not waste it
      blocks_.push_back(std::make_unique_for_overwrite<char[]>(n));
      bytes_ += n;
      used_ += n;
      return blocks_.back().get();
    }
    if (n > remaining_) {
      blocks_.insert(blocks_.begin(), std::make_unique_for_overwrite<char[]>(kBlockSize));
      cursor_ = blocks_.front().get();
      remaining_ = kBlockSize;
      bytes_ += kBlockSize;
    }
    char* p = cursor_;
    cursor_ += n;
    remaining_ -= n;
    used_ += n;
    return p;
  }

  // Bytes reserved from the system (block granularity).
  size_t bytes_allocated() const { return bytes_; }
  // Bytes handed out (what the strings themselves take).
  size_t bytes_used() const { return used_; }

 private:
  // memcpy, inline for the short strings that are most of what a module saves (names): two
  // overlapping word copies instead of a library call per name.
  static void CopyBytes(char* dst, const char* src, size_t n) {
    if (n >= 8 && n <= 16) {
      uint64_t a, b;
      std::memcpy(&a, src, 8);
      std::memcpy(&b, src + n - 8, 8);
      std::memcpy(dst, &a, 8);
      std::memcpy(dst + n - 8, &b, 8);
    } else if (n >= 4 && n < 8) {
      uint32_t a, b;
      std::memcpy(&a, src, 4);
      std::memcpy(&b, src + n - 4, 4);
      std::memcpy(dst, &a, 4);
      std::memcpy(dst + n - 4, &b, 4);
    } else {
      std::memcpy(dst, src, n);
    }
  }

  static constexpr size_t kBlockSize = 64 * 1024;
  std::vector<std::unique_ptr<char[]>> blocks_;
  char* cursor_ = nullptr;
  size_t remaining_ = 0;
  size_t bytes_ = 0;
  size_t used_ = 0;
};

}  // namespace hloscope
