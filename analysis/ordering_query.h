// Single questions to the ordering and the value live ranges (`hlo-opt --ordering-query`), the
// way XLA's HloOrdering is asked them: for a pair of instructions, a pair of values, or a value
// and a chosen set of its uses. Where --print-ordering (analysis/ordering_report.h) prints every
// pair, a query costs one analysis and prints one line, so it works on a whole training step:
//
//   executes-before:A,B                    executes-before(A, B): true
//   execution-constraint:A,B               execution-constraint(A, B): is-same
//   defined-before:V,W                     defined-before(V, W): false
//   live-range-strictly-before:V,W         live-range-strictly-before(V, W): false (reason)
//   may-interfere:V,W                      may-interfere(V, W): true
//   uses:V                                 uses(V): add operand 0 {}, ... (live out)
//   uses-before-def:V,USE,...              uses-before-def({USE, ...}, V): true
//
// A, B name instructions. A value V is `NAME` or `NAME{i,...}`: the one value at that output
// index of NAME (XLA's GetUniqueValueAt; a position holding several values is an error). A use
// is `NAME:N` or `NAME:N{i,...}`: operand N of NAME, at index {i,...} of that operand (XLA's
// HloUse). Commas inside braces belong to the index (quote the flag in a shell, which would
// expand the braces).
//
// execution-constraint answers XLA's HloOrdering::GetExecutionConstraint words (is-same,
// run-before-start, run-before-end, run-exclusive-before, run-exclusive-after, run-after,
// unordered); uses-before-def asks XLA's UsesBeforeValueDefinition of each use in turn (each
// with the value at the position it reads) and names the first one that is not before V.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "analysis/dataflow.h"
#include "analysis/ordering.h"
#include "hlo/shape.h"

namespace hloscope {

enum class OrderingQueryKind : uint8_t {
  kExecutesBefore,
  kExecutionConstraint,
  kDefinedBefore,
  kLiveRangeStrictlyBefore,
  kMayInterfere,
  kUses,
  kUsesBeforeDef,
};

// An instruction (operand_number -1, index empty), a value (operand_number -1) or a use.
struct OrderingQueryArg {
  std::string instruction;
  int64_t operand_number = -1;
  ShapeIndex index;
};

struct OrderingQuery {
  OrderingQueryKind kind = OrderingQueryKind::kExecutesBefore;
  std::string text;  // as written, for messages
  std::vector<OrderingQueryArg> args;
};

// The syntax only (names are looked up when answering): an unknown query name, a missing
// `QUERY:`, the wrong number or kind of arguments and a malformed index are InvalidArgument,
// worded for the flag ("option '--ordering-query' ...").
absl::StatusOr<OrderingQuery> ParseOrderingQuery(std::string_view text);

// One line per query, in order. A name the module lacks, an index its shape lacks, an operand
// number past the instruction's operands, or a value position holding several values (the
// union form) is InvalidArgument naming the query; nothing is answered then.
absl::StatusOr<std::string> AnswerOrderingQueries(const DataflowAnalysis& flow,
                                                  const ExecutionOrdering& ordering,
                                                  absl::Span<const OrderingQuery> queries);

}  // namespace hloscope
