// The ordering and buffer-sharing reports (`hlo-opt --print-ordering`, `--print-sharing`): the
// answers of ExecutionOrdering, ValueLiveness and the in-place rules for pairs of instructions
// and values, one line per question, worded like XLA's test assertions so that a test of
// XLA's HloOrdering or CanShareOperandBufferWithUser translates into a FileCheck line:
//
//   executes-before(x, y): true                      // ordering.ExecutesBefore(x, y)
//   defined-before(constant{}, while{} (phi)): true  // ordering.IsDefinedBefore(...)
//   live-range-strictly-before(a{}, b{}): false (read by add operand 1 {} after b{})
//   may-interfere(a{}, b{}): true
//   uses(while{} (phi)): add operand 1 {}           // HloValue::GetUses
//   can-share-operand-buffer(data{}, while{}): true  // CanShareOperandBufferWithUser
//
// Every pair is printed (quadratic: meant for small modules); `instructions` narrows the
// questions to the named instructions and the values they define.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/dataflow_options.h"
#include "analysis/value_liveness.h"
#include "hlo/module.h"

namespace hloscope {

struct OrderingPrintOptions {
  DataflowOptions dataflow = {};
  // Names of the instructions to ask about; empty asks about all. A name that is not in the
  // module is a NotFound error (the only one the printers return), naming it and the module.
  std::vector<std::string> instructions;
};

// Ordering kind, executes-before for every ordered pair of distinct instructions, each
// value's uses, then defined-before, live-range-strictly-before (with the rule that decided a
// `false`) and may-interfere for every ordered pair of distinct values (may-interfere also of
// each value with itself). In SSA form (the default) it ends with whether two values of one
// buffer (alias.h) may interfere, then each such pair:
//   values-in-same-buffer-interfere: true
//   same-buffer-interference(buffer 2: constant1{}, while{0} (phi))
absl::StatusOr<std::string> PrintOrdering(const Module& module,
                                          const OrderingPrintOptions& options);

// A use as the printers write it: "add operand 1 {}".
std::string UseText(const ValueUse& use);
// Why a live range is not strictly before b's definition, as the printers append it to `false`
// (" (read by add operand 1 {} not before b{})"); "" for kBefore.
std::string LiveRangeReasonText(const LiveRangeOrder& o, const HloValue& b);

// Each instruction's in-place pairs, then can-share-operand-buffer for every operand, operand
// index and output index of every instruction that has operands.
absl::StatusOr<std::string> PrintSharing(const Module& module, const OrderingPrintOptions& options);

}  // namespace hloscope
