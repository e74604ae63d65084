// scan: a sequential scan along one dimension (the form hlo/verifier_scan_rule.cc checks).
//
//   (outputs..., carries...) scan(inputs..., inits...), dimensions={d}, num_carries=C,
//                            is_reverse=false|true, to_apply=body
//
// Step k (k = 0..L-1, or L-1..0 with is_reverse=true) calls body(slice k of every input along
// d..., the current carries...), which returns (slice k of every output..., the new carries...).
// The result is the stacked outputs and the final carries, one array alone unwrapped.
// `is_associative` only allows other evaluation orders; the order here is the sequential one.
#pragma once

#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "eval/kernels.h"
#include "hlo/instruction.h"

namespace hloscope::eval {

// One run of the body on arrays of its parameters' shapes; the root's arrays (a tuple's
// elements in order, or the one array), each in the physical order of `shapes[i]`.
struct ScanStepResult {
  std::vector<const Shape*> shapes;
  std::vector<Bytes> arrays;
};
using ScanBody = std::function<absl::StatusOr<ScanStepResult>(absl::Span<const ArrayRef> args)>;

// `results`: the scan's arrays (its tuple's elements, or its one array). One result per entry.
absl::StatusOr<std::vector<Bytes>> EvalScan(const Instruction& instr,
                                            absl::Span<const ArrayRef> operands,
                                            absl::Span<const Shape* const> results,
                                            const ScanBody& body);

}  // namespace hloscope::eval
