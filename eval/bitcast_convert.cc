// bitcast-convert between element types of different widths, as XLA defines it: from a wider
// type to a narrower one the result has one more, innermost dimension of size
// (wide bits / narrow bits) holding the pieces of each element in memory order (little-endian,
// as on XLA's CPU and GPU backends); from narrower to wider that innermost dimension is folded
// back. In row-major order both are then the same bytes.
#include "absl/status/status.h"
#include "eval/element_io.h"
#include "eval/kernels.h"
#include "eval/layout_util.h"
#include "support/str_util.h"

namespace hloscope::eval {

int BitcastConvertBits(PrimitiveType type) {
  return type == PrimitiveType::kPred ? 8 : BitWidth(type);
}

absl::StatusOr<Bytes> EvalBitcastConvertWidths(const Instruction& instr, const ArrayRef& operand) {
  const Shape& in = *operand.shape;
  const Shape& out = instr.shape();
  const int in_bits = BitcastConvertBits(in.element_type);
  const int out_bits = BitcastConvertBits(out.element_type);
  // Only whole-byte types: the interpreter keeps sub-byte elements one per byte, so their
  // pieces of a wider element are not its bytes.
  const bool whole_bytes = in_bits == ElementBytes(in.element_type) * 8 &&
                           out_bits == ElementBytes(out.element_type) * 8 && in_bits > 0 &&
                           out_bits > 0;
  bool fits = false;
  if (whole_bytes && in_bits > out_bits) {
    auto dims = in.dims;
    dims.push_back(in_bits / out_bits);
    fits = dims == out.dims;
  } else if (whole_bytes && in_bits < out_bits) {
    auto dims = out.dims;
    dims.push_back(out_bits / in_bits);
    fits = dims == in.dims;
  }
  if (!whole_bytes && in.IsArray() && out.IsArray() && in_bits != out_bits) {
    // XLA's evaluator refuses these too: its literals keep a sub-byte element in a byte, and
    // Literal::BitcastConvert wants the two byte sizes equal (xla/literal.cc at openxla/xla
    // 2c731115), which s4[8,2] (16 bytes there) and s8[8] are not.
    return absl::UnimplementedError(
        StrCat("the interpreter does not run bitcast-convert between ",
               PrimitiveTypeName(in.element_type), " and ", PrimitiveTypeName(out.element_type),
               ": a sub-byte type is not the bits of a wider one in XLA's evaluator, which keeps "
               "one element a byte and refuses the size change (instruction %",
               instr.name(), ")"));
  }
  if (!fits) {
    return absl::UnimplementedError(
        StrCat("the interpreter supports bitcast-convert between types of different widths only "
               "for whole-byte "
               "types, the narrower side having one more, innermost dimension of the width ratio "
               "(instruction %",
               instr.name(), ")"));
  }
  Bytes scratch;
  const uint8_t* row_major = RowMajorData(in, operand.data, scratch);
  Bytes result(row_major, row_major + DenseBytes(in));
  return ToPhysical(out, std::move(result));
}

}  // namespace hloscope::eval
