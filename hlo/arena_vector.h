// A growable array of trivially copyable items that keeps a few items inline and takes any
// larger storage from a module's StringArena instead of the heap.
//
// Instructions and computations hold several such lists (operands, users, attributes, the
// instruction order). With heap-backed small vectors, parsing a large module made tens of
// thousands of malloc calls, and destroying it had to visit every instruction to free them
// again. Arena storage makes both go away: a list that outgrows its inline slots gets a new
// block from the arena, its capacity a power of two, and gives the old block back to the
// arena, which hands it to the next list that grows to that size (StringArena::FreeArray);
// the whole type is trivially destructible.
//
// Because the list does not know its arena, every call that may grow it takes one. The
// storage lives as long as the arena, i.e. as long as the module.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "absl/types/span.h"
#include "hlo/string_arena.h"

namespace hloscope {

template <typename T, uint32_t kInline>
class ArenaVector {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                "items are moved with memcpy and never destroyed");
  static_assert(kInline >= 1);
  static_assert(alignof(T) <= StringArena::kArrayAlign);

 public:
  using value_type = T;
  using iterator = T*;
  using const_iterator = const T*;

  ArenaVector() : heap_(nullptr) {}
  ArenaVector(const ArenaVector&) = delete;
  ArenaVector& operator=(const ArenaVector&) = delete;

  T* data() { return OnHeap() ? heap_ : inline_; }
  const T* data() const { return OnHeap() ? heap_ : inline_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t capacity() const { return capacity_; }
  // Bytes taken from the arena for this list's current storage (0 while inline).
  size_t arena_bytes() const { return OnHeap() ? capacity_ * sizeof(T) : 0; }

  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }
  T& operator[](size_t i) { return data()[i]; }
  const T& operator[](size_t i) const { return data()[i]; }
  T& back() { return data()[size_ - 1]; }
  operator absl::Span<const T>() const { return {data(), size_}; }  // NOLINT: like a vector

  // `arena` is a StringArena& or a callable returning one; the callable runs only when the
  // list must grow, so callers on hot paths can defer finding their module's arena.
  template <typename Arena>
  void push_back(const T& item, Arena&& arena) {
    if (size_ == capacity_) Grow(size_ + 1, Resolve(arena));
    data()[size_++] = item;
  }
  void reserve(size_t n, StringArena& arena) {
    if (n > capacity_) Grow(n, arena);
  }
  // Grows to `n` items, filling new slots with `fill`; never shrinks.
  void resize(size_t n, const T& fill, StringArena& arena) {
    reserve(n, arena);
    T* d = data();
    for (size_t i = size_; i < n; ++i) d[i] = fill;
    if (n > size_) size_ = static_cast<uint32_t>(n);
  }
  void insert(T* pos, const T& item, StringArena& arena) {
    size_t index = static_cast<size_t>(pos - data());
    if (size_ == capacity_) Grow(size_ + 1, arena);
    T* d = data();
    std::memmove(d + index + 1, d + index, (size_ - index) * sizeof(T));
    d[index] = item;
    ++size_;
  }
  // Removes [first, last), keeping the order of what follows.
  T* erase(T* first, T* last) {
    T* e = end();
    std::memmove(first, last, static_cast<size_t>(e - last) * sizeof(T));
    size_ -= static_cast<uint32_t>(last - first);
    return first;
  }
  T* erase(T* pos) { return erase(pos, pos + 1); }
  void pop_back() { --size_; }
  void clear() { size_ = 0; }

 private:
  bool OnHeap() const { return capacity_ > kInline; }

  template <typename Arena>
  static StringArena& Resolve(Arena& arena) {
    if constexpr (std::is_invocable_v<Arena&>) {
      return arena();
    } else {
      return arena;
    }
  }

  void Grow(size_t min_capacity, StringArena& arena) {
    // Power-of-two capacities, so an outgrown block fits the next list that reaches its size.
    size_t cap = std::bit_ceil(std::max<size_t>(capacity_ * 2, min_capacity));
    T* fresh = reinterpret_cast<T*>(arena.AllocateArray(cap * sizeof(T)));
    std::memcpy(static_cast<void*>(fresh), data(), size_ * sizeof(T));
    if (OnHeap()) arena.FreeArray(reinterpret_cast<char*>(heap_), capacity_ * sizeof(T));
    heap_ = fresh;
    capacity_ = static_cast<uint32_t>(cap);
  }

  union {
    T inline_[kInline];
    T* heap_;
  };
  uint32_t size_ = 0;
  uint32_t capacity_ = kInline;
};

}  // namespace hloscope
