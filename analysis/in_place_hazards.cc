#include "analysis/in_place_hazards.h"

#include <algorithm>
#include <charconv>
#include <optional>

#include "analysis/in_place_pairs.h"
#include "fmt/format.h"
#include "hlo/computation.h"

namespace hloscope {

namespace {

// Operands of a scatter that it updates in place: its N inputs (operands are N inputs, the
// indices, then N updates).
int64_t ScatterInputs(const Instruction& scatter) { return (scatter.operand_count() - 1) / 2; }

bool IsInPlaceSlot(const Instruction& user, int64_t k) {
  switch (user.opcode()) {
    case Opcode::kDynamicUpdateSlice:
      return k == 0;
    case Opcode::kScatter:
      return k < ScatterInputs(user);
    default:
      return false;
  }
}

std::optional<int64_t> ConstantValue(const Instruction& i) {
  if (i.opcode() != Opcode::kConstant || !i.shape().IsArray() || !i.shape().dims.empty()) {
    return std::nullopt;
  }
  std::string_view text = i.literal();
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

// The two index operands name the same position: one instruction, or equal constants.
bool SameIndex(const Instruction& a, const Instruction& b) {
  if (&a == &b) return true;
  std::optional<int64_t> x = ConstantValue(a), y = ConstantValue(b);
  return x && y && *x == *y;
}

// `reader` (a user of `alias`) reads exactly the elements `update` writes, so each element is
// read before it is replaced (a read-modify-write at the same index).
bool ReadsWhatUpdateWrites(const Instruction& reader, const Instruction& alias,
                           const Instruction& update) {
  if (update.opcode() != Opcode::kDynamicUpdateSlice || update.operand(0) != &alias ||
      reader.operand(0) != &alias) {
    return false;
  }
  const Shape& written = update.operand(1)->shape();
  const int64_t rank = static_cast<int64_t>(written.dims.size());
  if (update.operand_count() != 2 + rank) return false;  // indices as one vector: not followed
  if (reader.opcode() == Opcode::kDynamicSlice) {
    if (reader.operand_count() != 1 + rank) return false;
    absl::Span<const int64_t> sizes = reader.dynamic_slice_sizes();
    if (!std::equal(sizes.begin(), sizes.end(), written.dims.begin(), written.dims.end())) {
      return false;
    }
    for (int64_t d = 0; d < rank; ++d) {
      if (!SameIndex(*reader.operand(1 + d), *update.operand(2 + d))) return false;
    }
    return true;
  }
  if (reader.opcode() == Opcode::kSlice) {
    absl::Span<const SliceDim> slice = reader.slice();
    if (static_cast<int64_t>(slice.size()) != rank) return false;
    for (int64_t d = 0; d < rank; ++d) {
      std::optional<int64_t> start = ConstantValue(*update.operand(2 + d));
      const SliceDim& s = slice[static_cast<size_t>(d)];
      if (!start || s.stride != 1 || s.start != *start || s.size() != written.dims[d]) {
        return false;
      }
    }
    return true;
  }
  return false;
}

// `update` writes one element, computed from what `reader` read of the same operand: the one
// write comes after the read in any emitter (XLA shares the buffer then, gpu alias_info_test
// BufferCanBeSharedBecauseDUSAndDSAccessSlicesOfSizeOne; through different bitcasts it does
// not, BufferCannotBeSharedBecauseDUSAndDSAccessDifferentOperands, and neither do we).
bool SingleElementUpdateFrom(const Instruction& reader, const Instruction& update) {
  if (update.opcode() != Opcode::kDynamicUpdateSlice || reader.operand(0) != update.operand(0)) {
    return false;
  }
  const Instruction& value = *update.operand(1);
  for (int64_t d : value.shape().dims) {
    if (d != 1) return false;
  }
  std::vector<const Instruction*> work = {&value};
  std::vector<const Instruction*> seen;
  while (!work.empty()) {
    const Instruction* at = work.back();
    work.pop_back();
    if (at == &reader) return true;
    if (std::find(seen.begin(), seen.end(), at) != seen.end()) continue;
    seen.push_back(at);
    for (const Instruction* o : at->operands()) work.push_back(o);
  }
  return false;
}

std::string Where(const Instruction& reader) {
  switch (reader.opcode()) {
    case Opcode::kDynamicSlice:
      return "with a dynamic-slice at other start indices or sizes than the update's";
    case Opcode::kSlice:
      return "with a slice the update may have written already";
    case Opcode::kGather:
      return "with a gather at offsets the update may have written already";
    default:
      return fmt::format("as a whole ({}) while the update writes it", OpcodeName(reader.opcode()));
  }
}

void CheckParameter(const Instruction& fusion, int64_t k, const Instruction& param,
                    InPlaceHazardReport& report) {
  // The parameter and the bitcasts of it: one buffer.
  std::vector<const Instruction*> aliases = {&param};
  for (size_t i = 0; i < aliases.size(); ++i) {
    for (const Instruction* u : aliases[i]->users()) {
      if (u->opcode() == Opcode::kBitcast &&
          std::find(aliases.begin(), aliases.end(), u) == aliases.end()) {
        aliases.push_back(u);
      }
    }
  }
  std::vector<const Instruction*> updates;
  for (const Instruction* a : aliases) {
    for (const Instruction* u : a->users()) {
      for (int64_t j = 0; j < u->operand_count(); ++j) {
        if (u->operand(j) == a && IsInPlaceSlot(*u, j) &&
            std::find(updates.begin(), updates.end(), u) == updates.end()) {
          updates.push_back(u);
        }
      }
    }
  }
  const Instruction* update = updates.size() == 1 ? updates.front() : nullptr;
  const Computation& outer = *fusion.parent();
  for (const Instruction* a : aliases) {
    for (const Instruction* r : a->users()) {
      if (r->opcode() == Opcode::kBitcast) continue;  // an alias, followed above
      // A tuple passes the parameter on to the fusion's output: no read inside the fusion.
      if (r->opcode() == Opcode::kTuple) continue;
      bool only_in_place_slots = true;
      for (int64_t j = 0; j < r->operand_count(); ++j) {
        if (r->operand(j) == a && !IsInPlaceSlot(*r, j)) only_in_place_slots = false;
      }
      if (only_in_place_slots) continue;
      if (updates.empty()) {
        // output_to_operand_aliasing alone: elementwise reads see their own element.
        if (IsElementwise(r->opcode()) && r->shape().dims == a->shape().dims) continue;
      } else if (update != nullptr &&
                 (ReadsWhatUpdateWrites(*r, *a, *update) || SingleElementUpdateFrom(*r, *update))) {
        continue;
      }
      std::string via = a == &param ? std::string() : fmt::format(" through %{}", a->name());
      std::string with = update != nullptr ? fmt::format(" with %{}", update->name())
                         : updates.empty() ? std::string(" (output_to_operand_aliasing)")
                                           : fmt::format(" with {} updates", updates.size());
      report.hazards.push_back(
          {&fusion, k, &param, update, r,
           fmt::format("%{} (in %{}) updates operand {} (%{}) in place{}, but %{} reads %{}{} {}",
                       fusion.name(), outer.name(), k, param.name(), with, r->name(), param.name(),
                       via, Where(*r))});
    }
  }
}

}  // namespace

InPlaceHazardReport FindInPlaceHazards(const Module& module) {
  InPlaceHazardReport report;
  for (const Computation* c : module.computations()) {
    for (const Instruction* f : c->instructions()) {
      // A fusion, or an async fusion in its short form (`fusion-start(...), calls=body`). The
      // long form's fusion sits in the wrapped computation and is met there, so each async
      // fusion counts once in either form.
      const bool short_async_fusion =
          f->opcode() == Opcode::kAsyncStart && f->async_wrapped_opcode() == Opcode::kFusion;
      if ((f->opcode() != Opcode::kFusion && !short_async_fusion) ||
          f->fused_computation() == nullptr) {
        continue;
      }
      std::vector<InPlacePair> pairs = GetInPlaceInputOutputPairs(*f);
      if (pairs.empty()) continue;
      ++report.in_place_fusions;
      const Computation& fused = *f->fused_computation();
      std::vector<int64_t> done;
      for (const InPlacePair& p : pairs) {
        const int64_t k = p.input.operand_number;
        if (!p.input.operand_index.empty() || k >= fused.parameter_count() ||
            std::find(done.begin(), done.end(), k) != done.end()) {
          continue;
        }
        done.push_back(k);
        CheckParameter(*f, k, *fused.parameter(k), report);
      }
    }
  }
  return report;
}

}  // namespace hloscope
