#include "tools/common/parallel_modules.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <utility>

#include "tools/common/load_module.h"

namespace hloscope {

int DefaultJobs() { return std::max(1, static_cast<int>(std::thread::hardware_concurrency())); }

namespace {
std::atomic<int> process_jobs{0};  // 0: not set
}  // namespace

void SetProcessJobs(int jobs) { process_jobs = jobs; }

int ProcessJobs() {
  const int jobs = process_jobs;
  return jobs > 0 ? jobs : DefaultJobs();
}

void ForEachInOrder(size_t count, int jobs, size_t window, const std::function<void(size_t)>& work,
                    const std::function<void(size_t)>& consume,
                    const std::function<void(size_t)>& release) {
  const size_t threads = std::min(static_cast<size_t>(std::max(jobs, 1)), count);
  if (threads <= 1) {
    for (size_t k = 0; k < count; ++k) {
      work(k);
      consume(k);
      release(k);
    }
    return;
  }
  window = std::max(window, threads);
  std::mutex mu;
  std::condition_variable workers_wake;   // something to release, or room for more work
  std::condition_variable consumer_wake;  // the next result to consume is done
  std::vector<char> done(count, 0);
  size_t next_work = 0;     // the next k to start
  size_t consumed = 0;      // consume(k) returned for every k below
  size_t next_release = 0;  // the next k to release
  auto worker = [&] {
    std::unique_lock lock(mu);
    for (;;) {
      // Releasing first keeps memory down: a result waits for no new work to finish.
      if (next_release < consumed) {
        const size_t k = next_release++;
        lock.unlock();
        release(k);
        lock.lock();
      } else if (next_work < count && next_work < consumed + window) {
        const size_t k = next_work++;
        lock.unlock();
        work(k);
        lock.lock();
        done[k] = 1;
        if (k == consumed) consumer_wake.notify_one();
      } else if (next_release == count) {
        return;
      } else {
        workers_wake.wait(lock);
      }
    }
  };
  std::vector<std::jthread> pool;
  pool.reserve(threads);
  for (size_t t = 0; t < threads; ++t) pool.emplace_back(worker);
  for (size_t k = 0; k < count; ++k) {
    {
      std::unique_lock lock(mu);
      consumer_wake.wait(lock, [&] { return done[k] != 0; });
    }
    consume(k);
    {
      std::lock_guard lock(mu);
      consumed = k + 1;
    }
    workers_wake.notify_all();
  }
  // The workers release what is left and stop; the jthreads join here.
}

std::string OutputBuffers::Take() {
  std::lock_guard lock(mu_);
  if (spare_.empty()) return {};
  std::string buffer = std::move(spare_.back());
  spare_.pop_back();
  return buffer;
}

void OutputBuffers::Give(std::string buffer) {
  buffer.clear();  // keeps the capacity
  std::lock_guard lock(mu_);
  spare_.push_back(std::move(buffer));
}

void ParseModulesInOrder(
    absl::Span<const ModuleSource> sources, int jobs,
    const std::function<absl::Status(Module&)>& prepare,
    const std::function<void(size_t, absl::StatusOr<std::unique_ptr<Module>>)>& consume) {
  std::vector<absl::StatusOr<std::unique_ptr<Module>>> results(sources.size());
  auto work = [&](size_t k) {
    absl::StatusOr<std::unique_ptr<Module>> m = ParseAndVerify(sources[k]);
    if (m.ok() && prepare) {
      if (absl::Status s = prepare(**m); !s.ok()) m = s;
    }
    results[k] = std::move(m);
  };
  // Every module is kept by the caller, so the window bounds nothing worth bounding.
  ForEachInOrder(
      sources.size(), jobs, sources.size(), work,
      [&](size_t k) { consume(k, std::move(results[k])); }, [](size_t) {});
}

}  // namespace hloscope
