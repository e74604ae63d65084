// Bump allocator for the strings a module owns (names, attribute text, metadata) and for the
// spilled storage of its lists (ArenaVector).
//
// Strings are copied in once and never freed individually; they live as long as the module.
// This keeps Instruction small (a string_view, no std::string) and parsing allocation-free on
// the common path.
//
// Standard-size blocks of a destroyed arena go to a small process-wide cache that the next
// arena draws from. Without it, freeing a module returned its blocks to glibc, which trimmed
// them off the top of the heap, and the next parse paid a page fault for every 4 KiB it wrote
// (3,600 faults per parse of a 4 MB module, 20% of parse time).
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
  static constexpr size_t kBlockSize = 64 * 1024;
  // Alignment of AllocateArray blocks (ArenaVector items need no more).
  static constexpr size_t kArrayAlign = 8;
  // How many standard blocks the process-wide cache keeps at most (16 MiB).
  static constexpr size_t kMaxCachedBlocks = 256;
  // Blocks now in the cache (for tests).
  static size_t CachedBlocksForTesting();

  StringArena() = default;
  StringArena(const StringArena&) = delete;
  StringArena& operator=(const StringArena&) = delete;
  ~StringArena();

  std::string_view Save(std::string_view s) {
    if (s.empty()) return {};
    char* p = Allocate(s.size());
    CopyBytes(p, s.data(), s.size());
    return {p, s.size()};
  }

  char* Allocate(size_t n) {
    if (n > kBlockSize / 4) {
      used_ += n;
      return AllocateLarge(n);
    }
    if (n > remaining_) NewBlock();
    char* p = cursor_;
    cursor_ += n;
    remaining_ -= n;
    used_ += n;
    return p;
  }

  // Storage of `n` bytes for an array (see ArenaVector), 8-byte aligned. A block given back
  // with FreeArray is handed out again for the next request of the same size, so lists that
  // grow by doubling reuse each other's outgrown blocks instead of leaving them behind.
  char* AllocateArray(size_t n);
  // Gives back an array block of `n` bytes that AllocateArray returned. Only power-of-two sizes
  // are kept for reuse (ArenaVector only makes those); other blocks just stay unused.
  void FreeArray(char* p, size_t n);

  // Bytes reserved from the system (block granularity).
  size_t bytes_allocated() const { return bytes_; }
  // Bytes handed out (what the strings themselves take).
  size_t bytes_used() const { return used_; }
  // Bytes AllocateArray took from blocks (alignment included), whether in use now or freed
  // for reuse.
  size_t array_bytes() const { return array_bytes_; }

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

  // A block of its own for a big string or array, so small ones do not waste the rest of a
  // standard block. Counts bytes_ only; callers count what the bytes are for.
  char* AllocateLarge(size_t n);
  // Starts a fresh standard block (from the cache when it has one).
  void NewBlock();

  std::vector<std::unique_ptr<char[]>> blocks_;        // kBlockSize each
  std::vector<std::unique_ptr<char[]>> large_blocks_;  // one big allocation each
  char* cursor_ = nullptr;
  size_t remaining_ = 0;
  size_t bytes_ = 0;
  size_t used_ = 0;
  size_t array_bytes_ = 0;
  // Freed array blocks by log2 of their size, each holding the next one's address.
  static constexpr int kArrayClasses = 48;
  char* free_arrays_[kArrayClasses] = {};
};

}  // namespace hloscope
