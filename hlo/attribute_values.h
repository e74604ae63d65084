// Reading attributes that the IR keeps only as text (dot dimension numbers, padding,
// dim_labels, ...), for the analyses and tools that need their values.
//
//   std::vector<int64_t> sizes = IntListAttribute(*gather, "slice_sizes");       // {1,2}
//   DotDimensionNumbers dnums = ReadDotDimensionNumbers(*dot);   // dnums.lhs_contracting {1}
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "hlo/instruction.h"

namespace hloscope {

class Module;

// The text of attribute `key` as written, or nullopt when the instruction has none.
std::optional<std::string_view> RawAttribute(const Instruction& instr, std::string_view key);
// The integers of `key={1,2}` or `key=3`, in order; empty when absent.
std::vector<int64_t> IntListAttribute(const Instruction& instr, std::string_view key);
// The integer that is all of `text` ("3", "-1"); nullopt for anything else, empty text, or a
// number that does not fit 64 bits.
std::optional<int64_t> ParseInt64(std::string_view text);
// The integer of `key=N`; nullopt when the attribute is absent or not one integer.
std::optional<int64_t> IntAttribute(const Instruction& instr, std::string_view key);

// The same for an instruction that is not in a computation yet (the parser's shape inference):
// `module` interns its attribute keys.
std::optional<std::string_view> RawAttribute(const Instruction& instr, const Module& module,
                                             std::string_view key);
std::vector<int64_t> IntListAttribute(const Instruction& instr, const Module& module,
                                      std::string_view key);

// Appends the integers written in `text` (`{1,2}`, `3`) to `out` in order, skipping anything
// between them; IntListAttribute's reading, for callers that want a list that does not
// allocate (the verifier runs on every instruction).
template <typename IntList>
void AppendIntList(std::string_view text, IntList& out) {
  const char* p = text.data();
  const char* end = p + text.size();
  while (p < end) {
    int64_t v = 0;
    std::from_chars_result r = std::from_chars(p, end, v);
    if (r.ec == std::errc()) {
      out.push_back(v);
      p = r.ptr;
    } else {
      ++p;
    }
  }
}

// The dimension numbers of a dot, ragged-dot or scaled-dot, decoded from their attributes
// (`lhs_batch_dims={0} lhs_contracting_dims={2} rhs_batch_dims={0} rhs_contracting_dims={1}`).
// Every reader of a dot's dimensions (shape inference, the verifier, the interpreter, the FLOP
// count) gets them from ReadDotDimensionNumbers, so the attribute names and their reading live
// here only. An absent attribute is an empty list; as in IntListAttribute, the integers are
// read in order and anything between them is skipped, so the lists are never malformed: a
// range or pairing error is the reader's to report, in its own words.
struct DotDimensionNumbers {
  // Inline: the verifier reads these for every dot on every run, and ranks are small.
  using DimList = absl::InlinedVector<int64_t, 8>;
  DimList lhs_batch, lhs_contracting, rhs_batch, rhs_contracting;
  DimList lhs_ragged, rhs_group;  // ragged-dot only (`lhs_ragged_dims`, `rhs_group_dims`)
};
// One pass over the instruction's attributes (each lookup by name would be a scan).
DotDimensionNumbers ReadDotDimensionNumbers(const Instruction& instr);
// The same for an instruction that is not in a computation yet (the parser's shape inference).
DotDimensionNumbers ReadDotDimensionNumbers(const Instruction& instr, const Module& module);

// One dimension of pad's `padding=`: elements added before, after and between the input's.
struct PaddingDim {
  int64_t low = 0, high = 0, interior = 0;
};
// `padding=0_1x2_3_1` as written: low_high or low_high_interior per dimension (low and high
// may be negative), joined by 'x'; empty text is a scalar's padding. nullopt when the text is
// not of that form or a number does not fit 64 bits.
std::optional<std::vector<PaddingDim>> ParsePadding(std::string_view text);
// The size of a dimension of `size` elements once padded:
// low + size + high + (size - 1) * interior. nullopt when the interior padding is negative,
// the result is negative, or it overflows.
std::optional<int64_t> PaddedSize(int64_t size, const PaddingDim& pad);

}  // namespace hloscope
