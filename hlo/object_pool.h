// Stable-address storage for many objects of one type, allocated in large blocks.
//
// std::deque allocates a node per ~512 bytes, i.e. one malloc per two instructions; the
// parser creates tens of thousands. The pool allocates blocks of kBlock objects, constructs
// them in place, never moves them, and destroys them all with the pool.
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace hloscope {

template <typename T, size_t kBlock = 256>
class ObjectPool {
 public:
  ObjectPool() = default;
  ObjectPool(const ObjectPool&) = delete;
  ObjectPool& operator=(const ObjectPool&) = delete;
  ~ObjectPool() {
    // Trivially destructible objects (instructions) are not visited: at a few hundred
    // thousand objects, touching each one again was a visible part of freeing a module.
    if constexpr (!std::is_trivially_destructible_v<T>) {
      for (size_t i = 0; i < size_; ++i) (*this)[i].~T();
    }
  }

  template <typename... Args>
  T& emplace_back(Args&&... args) {
    if (size_ == blocks_.size() * kBlock) {
      blocks_.push_back(std::unique_ptr<Storage[]>(new Storage[kBlock]));
    }
    T* slot = reinterpret_cast<T*>(&blocks_[size_ / kBlock][size_ % kBlock]);
    new (slot) T(std::forward<Args>(args)...);
    ++size_;
    return *slot;
  }

  size_t size() const { return size_; }
  T& operator[](size_t i) {
    return *std::launder(reinterpret_cast<T*>(&blocks_[i / kBlock][i % kBlock]));
  }
  const T& operator[](size_t i) const {
    return *std::launder(reinterpret_cast<const T*>(&blocks_[i / kBlock][i % kBlock]));
  }
  T& back() { return (*this)[size_ - 1]; }

 private:
  // Cache-line aligned when the object is a whole number of lines (Instruction), so each
  // object starts a line and its field layout by line holds.
  static constexpr size_t kAlign = sizeof(T) % 64 == 0 ? 64 : alignof(T);
  struct alignas(kAlign) Storage {
    unsigned char bytes[sizeof(T)];
  };
  std::vector<std::unique_ptr<Storage[]>> blocks_;
  size_t size_ = 0;
};

}  // namespace hloscope
