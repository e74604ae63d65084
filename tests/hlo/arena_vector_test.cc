// ArenaVector (lists whose spilled storage lives in a StringArena) and the arena's recycling
// of standard blocks.
#include "hlo/arena_vector.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <numeric>
#include <vector>

#include "hlo/string_arena.h"

namespace hloscope {
namespace {

std::vector<int64_t> Items(const ArenaVector<int64_t, 2>& v) { return {v.begin(), v.end()}; }

TEST(ArenaVectorTest, StaysInlineUpToItsInlineCapacity) {
  StringArena arena;
  ArenaVector<int64_t, 2> v;
  v.push_back(1, arena);
  v.push_back(2, arena);
  EXPECT_EQ(Items(v), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(v.capacity(), 2u);
  EXPECT_EQ(v.arena_bytes(), 0u);
  EXPECT_EQ(arena.array_bytes(), 0u);
}

TEST(ArenaVectorTest, SpillsToTheArenaAndKeepsItems) {
  StringArena arena;
  ArenaVector<int64_t, 2> v;
  for (int64_t i = 0; i < 1000; ++i) v.push_back(i, arena);
  std::vector<int64_t> want(1000);
  std::iota(want.begin(), want.end(), 0);
  EXPECT_EQ(Items(v), want);
  EXPECT_GE(v.capacity(), 1000u);
  EXPECT_EQ(v.arena_bytes(), v.capacity() * sizeof(int64_t));
  EXPECT_GE(arena.array_bytes(), v.arena_bytes());
  EXPECT_EQ(arena.bytes_used(), 0u);  // lists are not counted as strings
  EXPECT_EQ(reinterpret_cast<uintptr_t>(v.data()) % alignof(int64_t), 0u);
  EXPECT_EQ(v.capacity(), 1024u);
}

TEST(ArenaVectorTest, GrowthDoublesSoTotalStorageStaysLinear) {
  StringArena arena;
  ArenaVector<int64_t, 2> v;
  for (int64_t i = 0; i < 100000; ++i) v.push_back(i, arena);
  // Abandoned blocks of a doubling list add up to less than the final one.
  EXPECT_LT(arena.array_bytes(), 2 * v.capacity() * sizeof(int64_t) + 64 * sizeof(int64_t));
}

TEST(ArenaVectorTest, OutgrownBlocksAreReusedByTheNextListOfThatSize) {
  StringArena arena;
  ArenaVector<int64_t, 2> a, b;
  for (int64_t i = 0; i < 3; ++i) a.push_back(i, arena);  // capacity 4 in the arena
  const int64_t* four = a.data();
  for (int64_t i = 3; i < 5; ++i) a.push_back(i, arena);  // grows to 8, gives back the 4
  EXPECT_EQ(a.capacity(), 8u);
  const size_t taken = arena.array_bytes();
  for (int64_t i = 0; i < 3; ++i) b.push_back(10 + i, arena);
  EXPECT_EQ(b.data(), four);  // the outgrown block, not new storage
  EXPECT_EQ(arena.array_bytes(), taken);
  EXPECT_EQ(Items(a), (std::vector<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(Items(b), (std::vector<int64_t>{10, 11, 12}));
}

TEST(ArenaVectorTest, CapacitiesArePowersOfTwo) {
  StringArena arena;
  ArenaVector<int64_t, 2> v;
  v.reserve(5, arena);
  EXPECT_EQ(v.capacity(), 8u);
  v.resize(9, 0, arena);
  EXPECT_EQ(v.capacity(), 16u);
}

TEST(StringArenaTest, OnlyPowerOfTwoArrayBlocksAreKeptForReuse) {
  StringArena arena;
  char* odd = arena.AllocateArray(24);
  arena.FreeArray(odd, 24);
  EXPECT_NE(arena.AllocateArray(24), odd);  // not kept: 24 is no size a list asks for
  char* even = arena.AllocateArray(32);
  arena.FreeArray(even, 32);
  EXPECT_EQ(arena.AllocateArray(32), even);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(arena.AllocateArray(16)) % StringArena::kArrayAlign, 0u);
}

TEST(ArenaVectorTest, CallableArenaRunsOnlyWhenGrowing) {
  StringArena arena;
  int calls = 0;
  auto get = [&]() -> StringArena& {
    ++calls;
    return arena;
  };
  ArenaVector<int64_t, 2> v;
  v.push_back(1, get);
  v.push_back(2, get);
  EXPECT_EQ(calls, 0);
  v.push_back(3, get);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(Items(v), (std::vector<int64_t>{1, 2, 3}));
}

TEST(ArenaVectorTest, EraseInsertResizeKeepOrder) {
  StringArena arena;
  ArenaVector<int64_t, 2> v;
  for (int64_t i = 0; i < 6; ++i) v.push_back(i, arena);
  v.erase(v.begin() + 1);
  EXPECT_EQ(Items(v), (std::vector<int64_t>{0, 2, 3, 4, 5}));
  v.erase(std::remove_if(v.begin(), v.end(), [](int64_t x) { return x % 2 == 0; }), v.end());
  EXPECT_EQ(Items(v), (std::vector<int64_t>{3, 5}));
  v.insert(v.begin() + 1, 4, arena);
  v.insert(v.begin(), 2, arena);
  v.insert(v.end(), 6, arena);
  EXPECT_EQ(Items(v), (std::vector<int64_t>{2, 3, 4, 5, 6}));
  v.resize(7, -1, arena);
  EXPECT_EQ(Items(v), (std::vector<int64_t>{2, 3, 4, 5, 6, -1, -1}));
  v.resize(3, -1, arena);  // never shrinks
  EXPECT_EQ(v.size(), 7u);
  v.pop_back();
  EXPECT_EQ(v.back(), -1);
  v.clear();
  EXPECT_TRUE(v.empty());
}

TEST(ArenaVectorTest, InsertIntoFullInlineListSpills) {
  StringArena arena;
  ArenaVector<int64_t, 2> v;
  v.push_back(1, arena);
  v.push_back(3, arena);
  v.insert(v.begin() + 1, 2, arena);
  EXPECT_EQ(Items(v), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_GT(v.arena_bytes(), 0u);
}

#if !defined(__SANITIZE_ADDRESS__)
TEST(StringArenaTest, DestroyedArenaBlocksAreReusedUpToTheBound) {
  // Fill and drop an arena larger than the cache bound: the cache ends up full, not larger.
  {
    StringArena big;
    for (size_t i = 0; i < StringArena::kMaxCachedBlocks + 8; ++i) {
      big.Allocate(StringArena::kBlockSize / 4);
      big.Allocate(StringArena::kBlockSize / 4);
      big.Allocate(StringArena::kBlockSize / 4);
      big.Allocate(StringArena::kBlockSize / 4);
    }
  }
  EXPECT_EQ(StringArena::CachedBlocksForTesting(), StringArena::kMaxCachedBlocks);
  // A new arena takes its blocks from the cache; saved strings read back intact.
  std::vector<std::string_view> saved;
  {
    StringArena a;
    for (int i = 0; i < 3000; ++i) saved.push_back(a.Save("name." + std::to_string(i)));
    for (int i = 0; i < 3000; ++i) ASSERT_EQ(saved[i], "name." + std::to_string(i));
    EXPECT_LT(StringArena::CachedBlocksForTesting(), StringArena::kMaxCachedBlocks);
  }
  EXPECT_EQ(StringArena::CachedBlocksForTesting(), StringArena::kMaxCachedBlocks);
}
#endif

TEST(StringArenaTest, LargeStringsGetTheirOwnBlock) {
  StringArena arena;
  std::string big(StringArena::kBlockSize, 'x');
  std::string_view a = arena.Save("small");
  std::string_view b = arena.Save(big);
  std::string_view c = arena.Save("after");
  EXPECT_EQ(a, "small");
  EXPECT_EQ(b, big);
  EXPECT_EQ(c, "after");
  // The small strings share one standard block: the big one did not end it.
  EXPECT_EQ(c.data(), a.data() + a.size());
  EXPECT_EQ(arena.bytes_used(), a.size() + b.size() + c.size());
}

}  // namespace
}  // namespace hloscope
