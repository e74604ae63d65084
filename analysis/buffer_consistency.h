// Buffer consistency: does a module, as given, keep every value intact while it is live when
// its values share storage as the alias analysis says?
//
//   ValueLiveness live(alias.dataflow(), ordering);
//   std::optional<BufferConflict> c = FindBufferConflict(alias, live, donated);
//   if (c) fmt::print("not buffer-safe: {}\n", c->message);
//
// XLA's copy insertion makes a module safe in this sense before any copy is removed; a dump
// taken before optimization often is not (a scatter updating a broadcast's buffer in place
// while the broadcast is still read, an entry parameter updated in place that the caller
// keeps). Copy removal reasons about interference between values of merged buffers and
// assumes the buffers it starts from hold no conflict already; on an inconsistent module its
// answers (and the savings it reports) mean nothing.
//
// A module is consistent when no value of a buffer of the alias analysis is written while
// another value of that buffer is live (ValueLiveness under the module's ExecutionOrdering: the
// values of a buffer are totally ordered, each one's live range ending before the next is
// defined). In a module that is not scheduled, a read that dependencies leave unordered with
// a write into its buffer is a conflict only when the text order (the order the interpreter
// runs, and the schedule such a module usually gets) puts it after the write; reads in other
// computations than the write are then left to the scheduler. Reads that must come after the
// write, and live ranges that must span it (the entry's result, a loop's every iteration), are
// always conflicts; in a scheduled module the schedule decides. Read-only values (a constant, or an
// entry parameter element that input_output_alias does not donate) take part in no conflict: XLA's
// copy insertion copies them where they meet a written buffer as a matter of course, the
// interpreter's buffer mode keeps their bytes as if it had, and copy-elision never removes a
// copy that would add such a write.
// Values defined inside a fusion or a reducer (computations the entry does not reach as
// control flow) take part in no conflict either: they run inside one instruction, XLA assigns
// them no buffers and adds no copies there, and whether a fusion may write in place into an
// operand it also reads elsewhere is its emitter's question (`hlo-opt --check-in-place`).
// Buffers of tokens hold nothing, and those of tuples only a table of pointers to element
// buffers that are checked themselves: both are skipped. As in XLA's own check, the values of a
// large buffer (more than kPairwiseLimit) are sorted by definition and only neighbours are
// compared, which keeps a chain of a million in-place updates linear; smaller buffers compare every
// pair. The answer is the first conflict in buffer order, naming the instructions involved.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "absl/types/span.h"
#include "analysis/alias.h"
#include "analysis/value_liveness.h"
#include "hlo/input_output_alias.h"

namespace hloscope {

struct BufferConflict {
  ValueId live = kNoValue;       // the value that is still needed
  ValueId overwrite = kNoValue;  // the value written into its buffer meanwhile
  // "%scatter.3 overwrites %broadcast.1 in place, but %add.2 reads %broadcast.1 after it"
  std::string message;
};

// Buffers of up to this many values compare every pair of values.
inline constexpr size_t kPairwiseLimit = 32;

// `live` must be built from `alias.dataflow()`. The first conflict, or nullopt when the module
// is consistent.
std::optional<BufferConflict> FindBufferConflict(const AliasAnalysis& alias,
                                                 const ValueLiveness& live,
                                                 absl::Span<const InputOutputAlias> donated);

// Whether value `v` is read-only storage: a constant, or an element of an entry parameter that
// no entry of `donated` covers.
bool IsReadOnlyValue(const HloValue& v, const Module& module,
                     absl::Span<const InputOutputAlias> donated);

}  // namespace hloscope
