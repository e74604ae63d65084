// Data that crosses the program's edge: infeed and outfeed, send and recv with
// is_host_transfer=true, a recv whose channel has no send in the module and a send whose channel
// has no recv in it (their peer is another program or device). XLA's HloEvaluator refuses
// infeed and outfeed (hlo_evaluator_test.cc, DontFailOnCallUnimplementedOps and
// InfeedFailure), so the interpreter refuses these reads by default (HostIo::kRefuse). With
// HostIo::kSeeded every read from outside takes the next value of a seeded stream and every
// write to outside is logged (OutsideWrite), so that two runs of a module and of its
// copy-inserted version can be held to reading the same data and writing the same data.
//
//   EvalOptions options;
//   options.host_io = HostIo::kSeeded;
//   std::vector<OutsideWrite> writes;
//   options.outside_writes = &writes;
//   absl::StatusOr<Literal> out = Evaluate(module, args, options);
//   for (const OutsideWrite& w : writes) fmt::print("{}", FormatOutsideWrite(w, false));
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/types/span.h"
#include "eval/literal.h"
#include "hlo/instruction.h"
#include "hlo/module.h"

namespace hloscope::eval {

enum class HostIo {
  kRefuse,  // as XLA's evaluator: infeed, outfeed and reads from outside are refused
  kSeeded,  // reads take a seeded stream's values, writes are logged
};

// One write to outside the program, in the order the run made them.
struct OutsideWrite {
  int64_t replica = 0;      // the replica that wrote it (0 without --replicas)
  std::string kind;         // "outfeed" or "send"
  std::string instruction;  // the writing instruction's name, without '%'
  int64_t occurrence = 0;   // this instruction's k-th write in the run, from 0
  Literal data;             // the data written, as it was when written
};

// "outfeed %o #0: f32[2] {1, 2}\n"; a tuple's elements follow on lines of their own, indented
// two spaces ("  {0}: f32[2] {1, 2}"). With `with_replica`: "replica 1: outfeed ...".
std::string FormatOutsideWrite(const OutsideWrite& write, bool print_all, bool with_replica);

// Whether two runs wrote the same data to outside: nullopt when both logs have as many writes
// and each pair has the same replica, kind, instruction, occurrence and bits (FirstDifference);
// else the first difference, e.g. "outside write 0 (outfeed %o #0): output {}: element [1]: 2
// vs 3"; with `with_replica` the writes are named "replica R: outfeed %o #0".
std::optional<std::string> FirstOutsideWriteDifference(absl::Span<const OutsideWrite> expected,
                                                       absl::Span<const OutsideWrite> actual,
                                                       bool with_replica);

// Which sends and recvs of a module cross its edge.
class HostChannels {
 public:
  explicit HostChannels(const Module& module);
  // A recv whose data comes from outside: is_host_transfer=true, or no send in
  // the module uses its channel_id and it names no replicas (_xla_send_recv_source_target_pairs:
  // then its peer is another replica of this module).
  bool ReadsOutside(const Instruction& recv) const;
  // A send whose data goes outside: is_host_transfer=true, or no recv in the module uses its
  // channel_id and it names no replicas.
  bool WritesOutside(const Instruction& send) const;

 private:
  absl::flat_hash_set<int64_t> send_channels_;
  absl::flat_hash_set<int64_t> recv_channels_;
};

// The seeded stream that reads from outside draw from: the k-th read of a value of `shape`
// is RandomLiteral(shape, a mix of seed and k) (eval/literal.h: floats multiples of 1/8 in
// [-2, 2), small integers), so it depends on the seed, the read's place in the run's order of
// reads and its shape only.
class OutsideReads {
 public:
  explicit OutsideReads(uint64_t seed) : seed_(seed) {}
  Literal Next(const Shape& shape);

 private:
  uint64_t seed_;
  uint64_t reads_ = 0;
};

}  // namespace hloscope::eval
