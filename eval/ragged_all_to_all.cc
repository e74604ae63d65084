// ragged-all-to-all(input, output, input_offsets, send_sizes, output_offsets, recv_sizes), as
// XLA defines it: participant p sends rows [input_offsets[q], + send_sizes[q]) of its input
// (along dimension 0) to each participant q of its group, which writes them into its copy of
// `output` at rows [output_offsets[q] of p, + ...). The result is the output operand with every
// received block written; rows nobody writes keep the output operand's values. recv_sizes
// only mirrors the senders' send_sizes and is not read. With k updates per participant the
// vectors hold G * k entries, update u to participant q at q * k + u (as XLA:GPU's kernel lays
// them out); each is one block as above, written in update order.
//
// Offsets and sizes are clamped as dynamic-slice and dynamic-update-slice clamp their starts
// (a size to [0, rows], a start so that the block fits), so every argument gives a defined
// result; XLA leaves out-of-range blocks undefined. Blocks are written in participant order.
// On one replica the others hold the same operands (collectives.h), so each writes the same
// block: this replica's own block `me`.
#include <algorithm>
#include <cstring>

#include "absl/status/status.h"
#include "eval/collectives.h"
#include "eval/element_io.h"
#include "eval/layout_util.h"
#include "support/str_util.h"

namespace hloscope::eval {
namespace {

absl::Status Refuse(const Instruction& instr, std::string_view why) {
  return absl::InvalidArgumentError(
      StrCat("cannot run %", instr.name(), " (ragged-all-to-all): ", why));
}

int64_t Clamp(int64_t v, int64_t lo, int64_t hi) { return std::max(lo, std::min(v, hi)); }

}  // namespace

absl::StatusOr<std::vector<Bytes>> EvalRaggedAllToAll(
    const Instruction& instr, const CollectiveGroup& group,
    absl::Span<const std::vector<ArrayRef>> operands, absl::Span<const Shape* const> results) {
  const size_t participants = operands.size();
  if (participants == 0 || group.me >= participants || results.size() != 1) {
    return Refuse(instr, "it needs its group's operands and one result");
  }
  for (const std::vector<ArrayRef>& p : operands) {
    if (p.size() != 6) return Refuse(instr, "it takes 6 operands");
  }
  const std::vector<ArrayRef>& mine = operands[group.me];
  const Shape& in = *mine[0].shape;
  const Shape& out = *results[0];
  if (!in.IsArray() || !out.IsArray() || in.rank() < 1 || in.rank() != out.rank() ||
      in.element_type != out.element_type || mine[1].shape->dims != out.dims ||
      mine[1].shape->element_type != out.element_type ||
      !std::equal(in.dims.begin() + 1, in.dims.end(), out.dims.begin() + 1)) {
    return Refuse(instr,
                  "the input, the output operand and the result must be arrays that differ only "
                  "in dimension 0");
  }
  for (size_t k = 2; k < 6; ++k) {
    const Shape& s = *mine[k].shape;
    if (!s.IsArray() || s.rank() != 1 ||
        (s.element_type != PrimitiveType::kS32 && s.element_type != PrimitiveType::kS64) ||
        s.dims[0] == 0 || s.dims[0] % static_cast<int64_t>(participants) != 0 ||
        s.dims[0] != mine[2].shape->dims[0]) {
      return Refuse(instr, StrCat("its offsets and sizes must be s32 or s64 vectors of one "
                                  "length, a multiple of the participants (",
                                  participants, ")"));
    }
  }
  auto entry = [](const ArrayRef& a, size_t i) {
    // The vectors are rank 1: physical order is logical order.
    return LoadInt(a.shape->element_type, a.data + i * ElementBytes(a.shape->element_type));
  };
  Bytes result(static_cast<size_t>(DenseBytes(out)));
  Relayout(*mine[1].shape, mine[1].data, out, result.data());
  const int64_t eb = ElementBytes(out.element_type);
  const std::vector<int64_t> out_strides = PhysicalStrides(out);
  std::vector<int64_t> row_dims(in.dims.begin(), in.dims.end());
  const int64_t in_rows = in.dims[0], out_rows = out.dims[0];
  const size_t updates = static_cast<size_t>(mine[2].shape->dims[0]) / participants;
  for (size_t block = 0; block < participants * updates; ++block) {
    const std::vector<ArrayRef>& from = operands[block / updates];
    const size_t at = group.me * updates + block % updates;
    const int64_t size = Clamp(entry(from[3], at), 0, std::min(in_rows, out_rows));
    const int64_t in_start = Clamp(entry(from[2], at), 0, in_rows - size);
    const int64_t out_start = Clamp(entry(from[4], at), 0, out_rows - size);
    row_dims[0] = size;
    const std::vector<int64_t> src_strides = PhysicalStrides(*from[0].shape);
    ForEachIndex(row_dims, [&](const std::vector<int64_t>& index) {
      int64_t s = (in_start + index[0]) * src_strides[0];
      int64_t d = (out_start + index[0]) * out_strides[0];
      for (size_t i = 1; i < index.size(); ++i) {
        s += index[i] * src_strides[i];
        d += index[i] * out_strides[i];
      }
      std::memcpy(result.data() + d * eb, from[0].data + s * eb, static_cast<size_t>(eb));
    });
  }
  std::vector<Bytes> outs;
  outs.push_back(std::move(result));
  return outs;
}

}  // namespace hloscope::eval
