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
//
// send/recv with `_xla_send_recv_source_target_pairs` (eval/send_recv_pairs.h) cross replicas:
// a send deposits its data for each target at once and goes on (sends are buffered); the
// matching recv-done waits for it, so a recv may start before its source has sent. When every
// replica that has not stopped waits (at a collective or a recv-done) and none of those waits
// can end, the run is deadlocked: every waiter fails with one message naming each replica's
// waiting instruction.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "eval/evaluator.h"
#include "eval/kernels.h"
#include "eval/literal.h"

namespace hloscope::eval {

// `arguments[r]` are replica r's entry arguments; returns each replica's outputs. Errors are
// the first failing replica's, prefixed with "replica R: ". options.read_only_overwrites
// receives the names any replica overwrote (sorted, each once).
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

  // Point to point: `source`'s `occurrence`-th send to `target` (data of `shape`). Sends and
  // receives between two replicas match in the order they run, whatever their channel_id
  // (XLA:GPU's send and recv thunks talk to the peer; XLA's pipeline tests give a transfer's
  // send and recv different channel ids).
  void Send(int64_t source, int64_t target, int64_t occurrence, const Shape* shape, Bytes data);
  // Waits for that send and takes its data: `recv_done` (on replica `target`) is named in
  // errors. FailedPrecondition when `source` stopped without sending it, or on a deadlock.
  absl::StatusOr<std::pair<const Shape*, Bytes>> Receive(const Instruction& recv_done,
                                                         int64_t source, int64_t target,
                                                         int64_t occurrence);

 private:
  struct Slot {
    std::map<int64_t, std::vector<Bytes>> deposited;  // by replica
    int64_t departed = 0;
  };
  struct Waiter {
    std::string what;             // "%name (...)", for the deadlock message
    std::function<bool()> ready;  // whether the wait can end; called with mu_ held
  };
  // Waits (mu_ held through `lock`) until `ready`; a deadlock ends it with an error.
  absl::Status Wait(std::unique_lock<std::mutex>& lock, int64_t replica, std::string what,
                    std::function<bool()> ready);

  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::pair<const Instruction*, int64_t>, Slot> slots_;
  std::vector<bool> finished_;
  std::map<int64_t, Waiter> waiting_;  // by replica
  std::string deadlock_;               // set once every live replica waits in vain
  // Sent and not yet received, by (source, target, occurrence).
  std::map<std::tuple<int64_t, int64_t, int64_t>, std::pair<const Shape*, Bytes>> sent_;
};

}  // namespace hloscope::eval
