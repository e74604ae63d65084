#include "eval/opaque_custom_call.h"

#include <cstring>
#include <string_view>
#include <vector>

#include "eval/element_io.h"
#include "eval/layout_util.h"
#include "hlo/attribute_values.h"
#include "hlo/module.h"

namespace hloscope::eval {
namespace {

// One step of the running hash: `h` and `word` mixed by SplitMix64's finalizer.
uint64_t Mix(uint64_t h, uint64_t word) { return MixBits(h ^ MixBits(word)); }

uint64_t MixBytes(uint64_t h, const uint8_t* data, size_t n) {
  h = Mix(h, n);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t word;
    std::memcpy(&word, data + i, 8);
    h = Mix(h, word);
  }
  if (i < n) {
    uint64_t word = 0;
    std::memcpy(&word, data + i, n - i);
    h = Mix(h, word);
  }
  return h;
}

uint64_t MixText(uint64_t h, std::string_view text) {
  return MixBytes(h, reinterpret_cast<const uint8_t*>(text.data()), text.size());
}

// Attributes that do not change what the call computes and that passes may add or rewrite.
bool DefinesCall(std::string_view key) {
  return key != "metadata" && key != "sharding" && key != "frontend_attributes" &&
         key != "statistics" && key != "control-predecessors" && key != "custom_call_target" &&
         key != "backend_config";
}

uint64_t MixArray(uint64_t h, const Literal& array) {
  const Shape& shape = array.shape();
  h = Mix(h, static_cast<uint64_t>(shape.element_type));
  for (int64_t d : shape.dims) h = Mix(h, static_cast<uint64_t>(d));
  const int bytes = ElementBytes(shape.element_type);
  if (bytes <= 0) return h;
  if (array.dynamic_sizes().empty()) {
    std::vector<uint8_t> scratch;
    const uint8_t* row_major = RowMajorData(shape, array.data().data(), scratch);
    return MixBytes(h, row_major, array.data().size());
  }
  // Only the valid elements are the value (the padding may hold anything).
  const std::vector<int64_t> sizes = array.ValidSizes();
  for (int64_t s : sizes) h = Mix(h, static_cast<uint64_t>(s));
  ForEachIndex(sizes, [&](const std::vector<int64_t>& index) {
    h = MixBytes(h, array.data().data() + array.PhysicalOffset(index), static_cast<size_t>(bytes));
  });
  return h;
}

uint64_t MixLiteral(uint64_t h, const Literal& literal) {
  if (literal.is_tuple()) {
    h = Mix(h, literal.elements().size());
    for (const Literal& e : literal.elements()) h = MixLiteral(h, e);
    return h;
  }
  if (!literal.is_array()) return h;  // a token carries no data
  return MixArray(h, literal);
}

// RandomLiteral for every array leaf of `shape`, each from its own seed; tokens stay tokens. A
// buffer b(T) gets T's array, seeded as an array result at the buffer's index would be.
Literal ResultLeaves(const Shape& shape, uint64_t seed, ShapeIndex& index) {
  if (shape.IsTuple()) {
    std::vector<Literal> elements;
    for (size_t i = 0; i < shape.tuple_elements.size(); ++i) {
      index.push_back(static_cast<int64_t>(i));
      elements.push_back(ResultLeaves(*shape.tuple_elements[i], seed, index));
      index.pop_back();
    }
    return Literal::MakeTuple(std::move(elements));
  }
  if (shape.IsBuffer()) return ResultLeaves(*shape.tuple_elements[0], seed, index);
  if (!shape.IsArray()) return Literal::Zeros(shape);
  uint64_t leaf_seed = MixText(seed, shape.ToString(/*print_layout=*/false));
  leaf_seed = Mix(leaf_seed, index.size());
  for (int64_t i : index) leaf_seed = Mix(leaf_seed, static_cast<uint64_t>(i));
  return RandomLiteral(shape, leaf_seed);
}

}  // namespace

uint64_t OpaqueCallKey(const Instruction& instr) {
  uint64_t h = MixText(0x6f70617175650000ull, instr.custom_call_target());
  h = MixText(h, instr.backend_config());
  const Module* module = instr.module();
  for (const Attribute& a : instr.attributes()) {
    if (a.is_computation_ref || a.is_control_predecessors) continue;
    std::string_view key = module != nullptr ? module->AttrKeyName(a.key) : std::string_view();
    if (!DefinesCall(key)) continue;
    h = MixText(MixText(h, key), a.value);
  }
  return h;
}

uint64_t HashLogicalContents(const Literal& literal) { return MixLiteral(0, literal); }

bool OpaqueCallHasSideEffect(const Instruction& instr) {
  return RawAttribute(instr, "custom_call_has_side_effect") == "true";
}

OpaqueCallResult EvalOpaqueCustomCall(const Instruction& instr, absl::Span<const Literal> operands,
                                      const Shape& result, int64_t side_effect_count) {
  uint64_t h = Mix(OpaqueCallKey(instr), operands.size());
  for (const Literal& o : operands) h = Mix(h, HashLogicalContents(o));
  uint64_t seed = h;
  if (OpaqueCallHasSideEffect(instr)) {
    seed = Mix(seed, static_cast<uint64_t>(side_effect_count));
  }
  ShapeIndex index;
  return OpaqueCallResult{ResultLeaves(result, seed, index), h};
}

}  // namespace hloscope::eval
