// ForEachInOrder (tools/common/parallel_modules.h): every k is worked, consumed on the calling thread
// in order and released after it was consumed, with no more than `window` started past the
// last consumed; and ParseModulesInOrder hands modules and errors back in input order.
#include "tools/common/parallel_modules.h"

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "support/status_text.h"

namespace hloscope {
namespace {

struct Trace {
  std::mutex mu;
  std::vector<size_t> consumed;
  std::vector<int> state;  // 0 new, 1 worked, 2 consumed, 3 released
  size_t max_ahead = 0;    // most works started past the last consumed
  size_t consumed_count = 0;
  std::thread::id caller = std::this_thread::get_id();
  bool consumed_elsewhere = false;
  bool out_of_order = false;
};

void RunTraced(size_t count, int jobs, size_t window, Trace& t) {
  t.state.assign(count, 0);
  ForEachInOrder(
      count, jobs, window,
      [&](size_t k) {
        {
          std::lock_guard lock(t.mu);
          t.max_ahead = std::max(t.max_ahead, k + 1 - t.consumed_count);
          if (t.state[k] != 0) t.out_of_order = true;
        }
        // Later items finish first, so the consumer must wait for earlier ones.
        std::this_thread::sleep_for(std::chrono::microseconds((count - k) % 7 * 200));
        std::lock_guard lock(t.mu);
        t.state[k] = 1;
      },
      [&](size_t k) {
        std::lock_guard lock(t.mu);
        if (std::this_thread::get_id() != t.caller) t.consumed_elsewhere = true;
        if (t.state[k] != 1) t.out_of_order = true;
        t.state[k] = 2;
        t.consumed.push_back(k);
        t.consumed_count = k + 1;
      },
      [&](size_t k) {
        std::lock_guard lock(t.mu);
        if (t.state[k] != 2) t.out_of_order = true;
        t.state[k] = 3;
      });
}

TEST(ForEachInOrderTest, ConsumesInOrderOnTheCallerAndReleasesAfter) {
  for (int jobs : {1, 2, 4, 16}) {
    Trace t;
    RunTraced(40, jobs, 2 * static_cast<size_t>(jobs), t);
    std::vector<size_t> expected(40);
    for (size_t k = 0; k < expected.size(); ++k) expected[k] = k;
    EXPECT_EQ(t.consumed, expected) << "jobs=" << jobs;
    EXPECT_FALSE(t.consumed_elsewhere) << "jobs=" << jobs;
    EXPECT_FALSE(t.out_of_order) << "jobs=" << jobs;
    for (int s : t.state) EXPECT_EQ(s, 3) << "jobs=" << jobs;
    // A work starts at most `window` past the last consumed (1 for one job: one at a time).
    EXPECT_LE(t.max_ahead, jobs == 1 ? 1u : 2u * jobs) << "jobs=" << jobs;
  }
}

TEST(ForEachInOrderTest, NothingAndOne) {
  Trace none;
  RunTraced(0, 4, 8, none);
  EXPECT_TRUE(none.consumed.empty());
  Trace one;
  RunTraced(1, 4, 8, one);
  EXPECT_EQ(one.consumed, std::vector<size_t>{0});
  EXPECT_EQ(one.state[0], 3);
}

TEST(ForEachInOrderTest, RunsWorkOnSeveralThreads) {
  // Two works that each wait for the other to start can only finish if they run at once.
  std::atomic<int> started{0};
  std::atomic<bool> both = true;
  ForEachInOrder(
      2, 2, 4,
      [&](size_t) {
        ++started;
        auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (started < 2 && std::chrono::steady_clock::now() < deadline) {
          std::this_thread::yield();
        }
        if (started < 2) both = false;
      },
      [](size_t) {}, [](size_t) {});
  EXPECT_TRUE(both);
}

TEST(ParseModulesInOrderTest, ModulesAndErrorsInInputOrder) {
  const std::string good = "HloModule m{}\nENTRY e {\n  ROOT p = f32[2] parameter(0)\n}\n";
  const std::string bad = "HloModule bad\nENTRY e {\n  ROOT p = f32[2] no-such-op()\n}\n";
  std::vector<std::string> texts;
  std::vector<ModuleSource> sources;
  for (int i = 0; i < 9; ++i) {
    std::string t = i % 4 == 2 ? bad : good;
    if (i % 4 != 2) t.replace(t.find("{}"), 2, std::to_string(i));
    texts.push_back(t);
  }
  for (int i = 0; i < 9; ++i) sources.push_back({texts[i], 10 * i + 1, "f.hlo"});
  for (int jobs : {1, 3}) {
    std::vector<std::string> seen;
    int prepared = 0;
    std::mutex mu;
    ParseModulesInOrder(
        sources, jobs,
        [&](Module&) {
          std::lock_guard lock(mu);
          ++prepared;
          return absl::OkStatus();
        },
        [&](size_t k, absl::StatusOr<std::unique_ptr<Module>> m) {
          EXPECT_EQ(k, seen.size());
          seen.push_back(m.ok() ? std::string((*m)->name()) : StatusText(m.status()));
        });
    ASSERT_EQ(seen.size(), 9u) << "jobs=" << jobs;
    EXPECT_EQ(prepared, 7) << "jobs=" << jobs;
    EXPECT_EQ(seen[0], "m0");
    EXPECT_EQ(seen[8], "m8");
    // Errors name the line of the whole file (part 2 starts at line 21; the opcode is on 23).
    EXPECT_NE(seen[2].find("f.hlo:23:"), std::string::npos) << seen[2];
    EXPECT_NE(seen[6].find("f.hlo:63:"), std::string::npos) << seen[6];
  }
}

TEST(OutputBuffersTest, TakeGivesBackAnEmptyBufferThatKeepsItsCapacity) {
  OutputBuffers buffers;
  std::string fresh = buffers.Take();
  EXPECT_TRUE(fresh.empty());
  fresh.assign(1 << 20, 'x');
  const size_t capacity = fresh.capacity();
  const char* data = fresh.data();
  buffers.Give(std::move(fresh));
  std::string reused = buffers.Take();
  EXPECT_TRUE(reused.empty());
  EXPECT_GE(reused.capacity(), capacity);
  EXPECT_EQ(reused.data(), data);  // the same storage, not a copy
  // Nothing spare now: the next is a new, empty string.
  std::string another = buffers.Take();
  EXPECT_TRUE(another.empty());
  EXPECT_NE(another.data(), data);
}

TEST(OutputBuffersTest, SharedByThreads) {
  OutputBuffers buffers;
  std::vector<std::thread> threads;
  std::atomic<int> nonempty{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 1000; ++i) {
        std::string b = buffers.Take();
        if (!b.empty()) ++nonempty;
        b.assign(100, 'y');
        buffers.Give(std::move(b));
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(nonempty.load(), 0);
}

}  // namespace
}  // namespace hloscope
