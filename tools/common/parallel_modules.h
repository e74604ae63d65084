// Many independent modules at once: the work on each runs on up to N threads, and what the
// user sees (outputs, error lines, reports) comes out on the calling thread in input order,
// exactly as when the modules are done one after another (`--jobs=1`).
//
//   ForEachInOrder(parts.size(), jobs, 2 * jobs,
//                  [&](size_t k) { results[k] = Work(parts[k]); },     // any thread
//                  [&](size_t k) { Print(results[k]); },               // this thread, k in order
//                  [&](size_t k) { results[k] = {}; });                // a worker thread
//
// The pool is std::thread workers taking the next index from a queue guarded by one mutex;
// nothing more (issue 24 asks for no hand-rolled pool beyond that).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/module.h"
#include "tools/common/load_module.h"  // ModuleSource

namespace hloscope {

// One job per core (at least one).
int DefaultJobs();

// The job count of the process: hlo-opt sets it from --jobs before any work, and the code
// that parses many modules for a report (ParseModulesInOrder's callers) reads it, so one flag
// reaches them without being threaded through every report's options. DefaultJobs() until set.
void SetProcessJobs(int jobs);
int ProcessJobs();

// Runs work(k) for every k in [0, count) on up to `jobs` threads, and consume(k) on the
// calling thread in increasing k, each as soon as work(k) is done and consume(k - 1) returned.
// After consume(k), release(k) runs on a worker thread: freeing a large module costs about a
// tenth of parsing it, and done on the calling thread it would hold up the output of the next.
// A worker starts no k beyond the last consumed + `window`, which bounds how many results are
// held at once. jobs <= 1 or count <= 1: everything on the calling thread, work, consume and
// release of one k before the next.
void ForEachInOrder(size_t count, int jobs, size_t window, const std::function<void(size_t)>& work,
                    const std::function<void(size_t)>& consume,
                    const std::function<void(size_t)>& release);

// Output buffers handed from one module's work to the next. A module's printed text is
// megabytes; a fresh buffer for each is fresh pages to fault in, and freed between modules it
// fragments the heap so that the next, a little larger, often lands on new pages too (50 x
// Mixtral, --jobs=1: the heap grew ~3.7 MB per module, 51K minor faults in all). A reused
// buffer keeps its pages. Thread-safe; holds at most as many buffers as were ever in use at
// once.
class OutputBuffers {
 public:
  // An empty string, with the capacity of one given back if there is one.
  std::string Take();
  void Give(std::string buffer);

 private:
  std::mutex mu_;
  std::vector<std::string> spare_;
};

// Parses and verifies every source (ParseAndVerify, tools/common/load_module.h), then runs `prepare` on
// each module that passed (a pass that every caller needs, e.g. flattening the call graph; may be
// empty), `jobs` at a time. consume(k, result) gets each module or its first error, on the calling
// thread in input order; the verifier's errors point into the source text.
void ParseModulesInOrder(
    absl::Span<const ModuleSource> sources, int jobs,
    const std::function<absl::Status(Module&)>& prepare,
    const std::function<void(size_t, absl::StatusOr<std::unique_ptr<Module>>)>& consume);

}  // namespace hloscope
