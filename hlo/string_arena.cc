#include "hlo/string_arena.h"

#include <bit>
#include <cstring>
#include <mutex>
#include <utility>

namespace hloscope {
namespace {

// Standard-size blocks freed by destroyed arenas, handed to new ones. Bounded, so a process
// that parses one huge module and then little keeps at most kMaxCachedBlocks blocks.
class BlockCache {
 public:
  static BlockCache& Get() {
    static BlockCache* cache = new BlockCache;  // never destroyed: arenas may outlive statics
    return *cache;
  }

  std::unique_ptr<char[]> Take() {
    std::lock_guard<std::mutex> lock(mu_);
    if (free_.empty()) return nullptr;
    std::unique_ptr<char[]> block = std::move(free_.back());
    free_.pop_back();
    return block;
  }

  // Takes what fits under the bound; the rest is freed when `blocks` is destroyed.
  void Give(std::vector<std::unique_ptr<char[]>>& blocks) {
    std::lock_guard<std::mutex> lock(mu_);
    while (!blocks.empty() && free_.size() < StringArena::kMaxCachedBlocks) {
      free_.push_back(std::move(blocks.back()));
      blocks.pop_back();
    }
  }

  size_t size() {
    std::lock_guard<std::mutex> lock(mu_);
    return free_.size();
  }

 private:
  std::mutex mu_;
  std::vector<std::unique_ptr<char[]>> free_;
};

// Under AddressSanitizer, recycled blocks would hide a use of a destroyed module's strings.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kRecycleBlocks = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kRecycleBlocks = false;
#else
constexpr bool kRecycleBlocks = true;
#endif
#else
constexpr bool kRecycleBlocks = true;
#endif

}  // namespace

StringArena::~StringArena() {
  if (kRecycleBlocks) BlockCache::Get().Give(blocks_);
}

char* StringArena::AllocateLarge(size_t n) {
  large_blocks_.push_back(std::make_unique_for_overwrite<char[]>(n));
  bytes_ += n;
  return large_blocks_.back().get();
}

namespace {
// log2(n) when n is a power of two of at least 8 bytes (room for the free-list link), else -1.
int ArrayClass(size_t n) {
  if (n < sizeof(char*) || (n & (n - 1)) != 0) return -1;
  return std::countr_zero(n);
}
}  // namespace

char* StringArena::AllocateArray(size_t n) {
  const int cls = ArrayClass(n);
  if (cls >= 0 && cls < kArrayClasses && free_arrays_[cls] != nullptr) {
    char* p = free_arrays_[cls];
    std::memcpy(&free_arrays_[cls], p, sizeof(char*));
    return p;
  }
  if (n > kBlockSize / 4) {
    array_bytes_ += n;
    return AllocateLarge(n);  // operator new[]: aligned for any fundamental type
  }
  size_t pad = (0 - reinterpret_cast<uintptr_t>(cursor_)) & (kArrayAlign - 1);
  if (n + pad > remaining_) {
    NewBlock();
    pad = (0 - reinterpret_cast<uintptr_t>(cursor_)) & (kArrayAlign - 1);
  }
  char* p = cursor_ + pad;
  cursor_ += n + pad;
  remaining_ -= n + pad;
  array_bytes_ += n + pad;
  return p;
}

void StringArena::FreeArray(char* p, size_t n) {
  const int cls = ArrayClass(n);
  if (cls < 0 || cls >= kArrayClasses) return;
  std::memcpy(p, &free_arrays_[cls], sizeof(char*));
  free_arrays_[cls] = p;
}

void StringArena::NewBlock() {
  std::unique_ptr<char[]> block;
  if (kRecycleBlocks) block = BlockCache::Get().Take();
  if (block == nullptr) block = std::make_unique_for_overwrite<char[]>(kBlockSize);
  cursor_ = block.get();
  remaining_ = kBlockSize;
  bytes_ += kBlockSize;
  blocks_.push_back(std::move(block));
}

size_t StringArena::CachedBlocksForTesting() { return BlockCache::Get().size(); }

}  // namespace hloscope
