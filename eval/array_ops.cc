// Dispatch for the array kernels that call no computation and have a file of their own
// (convolution.cc, reduce_precision.cc, linalg.cc, fft.cc, stochastic_convert.cc): one place for
// the evaluator to ask, so that adding a kernel does not touch the evaluator's switch.
#include "eval/kernels.h"
#include "eval/stochastic_convert.h"

namespace hloscope::eval {

bool IsSupportedArrayOp(Opcode op) {
  return op == Opcode::kConvolution || op == Opcode::kReducePrecision || op == Opcode::kCholesky ||
         op == Opcode::kTriangularSolve || op == Opcode::kFft || op == Opcode::kStochasticConvert;
}

absl::StatusOr<Bytes> EvalArrayOp(const Instruction& instr, absl::Span<const ArrayRef> operands) {
  switch (instr.opcode()) {
    case Opcode::kConvolution:
      return EvalConvolution(instr, operands);
    case Opcode::kReducePrecision:
      return EvalReducePrecision(instr, operands);
    case Opcode::kCholesky:
      return EvalCholesky(instr, operands);
    case Opcode::kTriangularSolve:
      return EvalTriangularSolve(instr, operands);
    case Opcode::kFft:
      return EvalFft(instr, operands);
    case Opcode::kStochasticConvert:
      return EvalStochasticConvert(instr, operands);
    default:
      return absl::UnimplementedError("not an array kernel of array_ops.cc");
  }
}

}  // namespace hloscope::eval
