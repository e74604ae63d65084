// Literal: a concrete value of an HLO shape, as the interpreter (eval/evaluator.h) reads and
// writes it, plus the helpers hlo-run and the differential harness use on literals.
//
//   Literal x = RandomLiteral(*shape, /*seed=*/7);
//   if (auto diff = FirstDifference(expected, actual)) fmt::print("{}\n", *diff);
//
// Storage. An array literal holds its elements in the PHYSICAL order given by its shape's layout
// (minor_to_major; without a layout, the default descending order = row-major). Tiles and other
// layout parts are ignored for element order: elements are dense, one after another, each in
// its type's natural width (pred: one byte 0/1; bf16/f16: two bytes). This is what makes buffer
// mode's bitcast a reinterpretation of the same bytes. A tuple literal holds one Literal per
// element; a token literal is empty.
//
// Comparison and element access are LOGICAL: two arrays with different layouts but the same
// logical values compare equal.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "hlo/module.h"
#include "hlo/shape.h"

namespace hloscope::eval {

class Literal {
 public:
  Literal() = default;
  // A literal of `shape` with every byte zero (tuples recursively; tokens empty). The shape is
  // copied, so the literal does not depend on the module that owns `shape`.
  static Literal Zeros(const Shape& shape);
  // A tuple literal made of `elements` (its shape is the tuple of their shapes).
  static Literal MakeTuple(std::vector<Literal> elements);
  // An array literal of `shape` holding `bytes` (physical order; size must be
  // element_count * element bytes).
  static Literal FromBytes(const Shape& shape, std::vector<uint8_t> bytes);

  const Shape& shape() const;
  bool is_tuple() const { return shape().IsTuple(); }
  bool is_array() const { return shape().IsArray(); }

  // Arrays: the elements in physical order (see the header comment).
  absl::Span<const uint8_t> data() const { return data_; }
  absl::Span<uint8_t> mutable_data() { return absl::MakeSpan(data_); }
  // Tuples: the elements.
  const std::vector<Literal>& elements() const { return elements_; }
  std::vector<Literal>& mutable_elements() { return elements_; }

  int64_t element_count() const { return shape().ElementCount(); }
  // The byte offset of the element at logical multi-index `index` (arrays only).
  int64_t PhysicalOffset(absl::Span<const int64_t> index) const;
  // Element at a logical multi-index, converted to double (for tests and printing). Integers
  // above 2^53 lose precision; pred is 0 or 1.
  double Get(absl::Span<const int64_t> index) const;
  // Stores `value` converted to the element type (floats rounded to nearest even; integers
  // truncated toward zero and saturated at the type's range, NaN -> 0).
  void Set(absl::Span<const int64_t> index, double value);
  // The element at a LINEAR logical index (row-major over the dims), as double.
  double GetLinear(int64_t linear) const;

  // Arrays of a bounded dynamic shape (`f32[<=10]`): the valid size of each dimension, as
  // XLA's Literal keeps them (each at most its bound; a static dimension's is its size).
  // Storage stays at the bound; only the elements inside these sizes are the value, so
  // printing and comparison read those. Empty: every dimension at its bound.
  const std::vector<int64_t>& dynamic_sizes() const { return dynamic_sizes_; }
  void set_dynamic_sizes(std::vector<int64_t> sizes) { dynamic_sizes_ = std::move(sizes); }
  // dynamic_sizes(), or the dimensions when it is empty.
  std::vector<int64_t> ValidSizes() const;

 private:
  struct OwnedShape;  // a deep copy of a shape and its tuple elements
  std::shared_ptr<const OwnedShape> shape_;
  std::vector<uint8_t> data_;
  std::vector<Literal> elements_;
  std::vector<int64_t> dynamic_sizes_;
};

// Deterministic pseudo-random contents (same shape + seed -> same bytes on every machine; no
// std:: distributions, which differ between standard libraries): floats are multiples of 1/8 in
// [-2, 2) (exact in every float type, including bf16 and f16), signed integers in [-8, 8),
// unsigned integers in [0, 16), pred 0/1. Tuples recursively, each element its own stream.
Literal RandomLiteral(const Shape& shape, uint64_t seed);
// SplitMix64's finalizer: spreads a counter or seed over all 64 bits (portable, no std::
// distributions); RandomLiteral's seeds and host I/O's stream are derived with it.
uint64_t MixBits(uint64_t x);
// One literal per entry parameter: parameter i gets RandomLiteral(shape_i, a mix of seed and i).
std::vector<Literal> RandomArguments(const Module& module, uint64_t seed);

// Bitwise comparison of logical elements. nullopt when the shapes agree (tuple structure, dims
// and element types; layouts may differ), the dynamic sizes agree and every element inside them
// has equal bits; otherwise a message naming the first difference, e.g.
// "output {1}: element [2,3]: 1.5 vs 1.25" (expected first).
std::optional<std::string> FirstDifference(const Literal& expected, const Literal& actual);
// Number of array elements over all leaves (used for "outputs match (N elements)").
int64_t TotalElementCount(const Literal& literal);

// Text for printing: `f32[2,2] {{1, 2}, {3, 4}}` with full values (a dynamic shape as XLA's
// Literal::ToString prints it: `f32[<=4,2](3,2) {...}`, the elements inside the sizes), or for
// arrays of more than kFormatFullLimit elements (unless print_all) a summary: shape, min/max/mean
// and the first few elements. Tuples print one element per line, prefixed with its index.
inline constexpr int64_t kFormatFullLimit = 64;
std::string FormatLiteral(const Literal& literal, bool print_all);

}  // namespace hloscope::eval
