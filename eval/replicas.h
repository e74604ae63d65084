// N replicas of one module run in lockstep (hlo-run --replicas=N): one thread per replica, each
// with its own interpreter; collectives exchange the participants' operands and compute for
// real (eval/collectives.h), and replica-id gives each its number.
//
//   absl::StatusOr<std::vector<Literal>> outs = EvaluateReplicas(module, args_by_replica, {});
//
// Each collective instruction's k-th run on one replica meets the k-th run of the same
// instruction on the other members of its group. A replica that finishes or fails while a
// member of its group waits for it ends that wait with an error naming both, so a module
// whose replicas take different paths fails instead of hanging.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "eval/evaluator.h"
#include "eval/kernels.h"
#include "eval/literal.h"

namespace hloscope::eval {

// `arguments[r]` are replica r's entry arguments; returns each replica's outputs. Errors are
// the first failing replica's, prefixed with "replica R: ".
absl::StatusOr<std::vector<Literal>> EvaluateReplicas(
    const Module& module, absl::Span<const std::vector<Literal>> arguments,
    const EvalOptions& options);

// Where the replicas' collectives meet (used by the evaluator).
class Rendezvous {
 public:
  explicit Rendezvous(int64_t replicas) : finished_(static_cast<size_t>(replicas), false) {}

  // Deposits `mine` (this replica's operands of the `occurrence`-th run of `instr`) and waits
  // until every replica of `group` has deposited its own; returns them in `group` order.
  absl::StatusOr<std::vector<std::vector<Bytes>>> Exchange(const Instruction& instr,
                                                           int64_t occurrence, int64_t replica,
                                                           absl::Span<const int64_t> group,
                                                           std::vector<Bytes> mine);
  // The replica has stopped (finished or failed): waits on it end with an error.
  void Finished(int64_t replica);

 private:
  struct Slot {
    std::map<int64_t, std::vector<Bytes>> deposited;  // by replica
    int64_t departed = 0;
  };
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::pair<const Instruction*, int64_t>, Slot> slots_;
  std::vector<bool> finished_;
};

}  // namespace hloscope::eval
