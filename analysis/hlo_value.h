// The unit the dataflow analysis reasons about: a value, i.e. one array (or tuple, token)
// created at one place of the module. A value is defined at an (instruction, shape index)
// position; a phi value stands for "whichever of several values reaches this merge point"
// (a while or conditional result, a while body/condition parameter) in SSA form.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "hlo/instruction.h"
#include "hlo/shape.h"

namespace hloscope {

// Dense ids: values are numbered 0..n-1 in the order of their defining positions (computations
// in module order, instructions in text order, indices in pre-order).
using ValueId = uint32_t;
inline constexpr ValueId kNoValue = std::numeric_limits<ValueId>::max();

// A shape index stored elsewhere, length first: HloValue::index. The dataflow analysis keeps
// one copy of each (shape, position)'s index, so a value is 32 bytes and trivially
// destructible (a module has about one value per instruction: with a ShapeIndex inline, a
// million values would take 48 MB, all read back again to be destroyed). Reads like a
// ShapeIndex and converts to one.
class ShapeIndexView {
 public:
  ShapeIndexView() = default;
  // `length_prefixed` points at {n, i_0, ..., i_{n-1}} and must outlive the view.
  explicit ShapeIndexView(const int64_t* length_prefixed) : data_(length_prefixed) {}

  size_t size() const { return static_cast<size_t>(data_[0]); }
  bool empty() const { return data_[0] == 0; }
  const int64_t* begin() const { return data_ + 1; }
  const int64_t* end() const { return data_ + 1 + data_[0]; }
  int64_t operator[](size_t i) const { return data_[1 + i]; }
  // Implicit, so that what takes a ShapeIndex takes a value's index: ShapeIndexToString(v.index).
  operator ShapeIndex() const { return ShapeIndex(begin(), end()); }  // NOLINT
  friend bool operator==(ShapeIndexView a, const ShapeIndex& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  static constexpr int64_t kEmpty[1] = {0};
  const int64_t* data_ = kEmpty;
};

// Ordered to leave no padding but after `is_phi`: 32 bytes.
struct HloValue {
  ValueId id = kNoValue;
  bool is_phi = false;
  const Instruction* instruction = nullptr;  // defining instruction
  // Defining index in its shape; points into the DataflowAnalysis, valid while it lives.
  ShapeIndexView index;
  const Shape* shape = nullptr;  // the subshape at `index`

  // "name{1,0}" or "name{} (phi)".
  std::string ToString() const;
};

}  // namespace hloscope
