#include "eval/xla_builder_calls.h"

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "eval/element_io.h"
#include "eval/xla_builder_math.h"
#include "hlo/module.h"
#include "hlo/parser.h"
#include "hlo/primitive_type.h"
#include "support/option_error.h"
#include "support/str_util.h"

namespace hloscope::eval {
namespace {

absl::Status Refuse(const Instruction& instr, std::string_view why) {
  return absl::InvalidArgumentError(StrCat("cannot run custom-call %", instr.name(), " (",
                                           instr.custom_call_target(), "): ", why));
}

// The parsed computation of `target` on `type`, built once per process and never freed:
// the interpreter caches per-instruction state (constants, orders) by address, so these
// addresses must stay valid, and never be reused, for as long as any run may go on.
absl::StatusOr<const Computation*> FunctionComputation(std::string_view target,
                                                       PrimitiveType type) {
  static std::mutex mutex;
  static auto* modules = new absl::flat_hash_map<std::string, std::unique_ptr<Module>>();
  const std::string key = StrCat(target, " ", PrimitiveTypeName(type));
  std::lock_guard<std::mutex> lock(mutex);
  auto it = modules->find(key);
  if (it == modules->end()) {
    std::optional<std::string> text = XlaBuilderMathModuleText(target, type);
    if (!text.has_value()) return absl::NotFoundError("no function");
    absl::StatusOr<std::unique_ptr<Module>> module =
        ParseModule(*text, {.filename = "<xla_builder function>"});
    if (!module.ok()) {
      return absl::InternalError(
          StrCat("the function of ", target, " for ", PrimitiveTypeName(type),
                 " does not parse: ", std::string(module.status().message())));
    }
    it = modules->emplace(key, std::move(*module)).first;
  }
  return it->second->entry();
}

}  // namespace

bool IsXlaBuilderTarget(std::string_view target) { return IsXlaBuilderMathTarget(target); }

absl::StatusOr<std::vector<Bytes>> EvalXlaBuilderCall(const Instruction& instr,
                                                      absl::Span<const ArrayRef> operands,
                                                      absl::Span<const Shape* const> results,
                                                      const ScalarRunner& run) {
  const std::string_view target = instr.custom_call_target();
  if (results.size() != 1) return Refuse(instr, "needs one array result");
  const Shape& result = *results[0];
  const PrimitiveType type = result.element_type;
  absl::StatusOr<const Computation*> function = FunctionComputation(target, type);
  if (absl::IsNotFound(function.status())) {
    return Refuse(instr, StrCat("no expansion for element type ", PrimitiveTypeName(type),
                                " (hlo-run has it for ", XlaBuilderMathTypes(target), ")"));
  }
  if (!function.ok()) return function.status();
  const int arity = XlaBuilderMathArity(target);
  if (static_cast<int>(operands.size()) != arity) {
    return Refuse(instr, StrCat("needs ", arity, " operand(s), got ", operands.size()));
  }
  for (const ArrayRef& o : operands) {
    if (o.shape->element_type != type || o.shape->dims != result.dims) {
      return Refuse(instr, "each operand must have the result's element type and dimensions");
    }
  }
  // Elementwise: element k of the result (in its physical order) from element k of each
  // operand, read in the result's order whatever the operands' layouts.
  OperandsInResultOrder in = InResultOrder(result, operands);
  const int64_t count = result.ElementCount();
  const int64_t width = ElementBytes(type);
  Bytes out(static_cast<size_t>(count * width));
  std::vector<Scalar> args(operands.size());
  for (int64_t k = 0; k < count; ++k) {
    for (size_t i = 0; i < operands.size(); ++i) {
      args[i] = LoadScalar(type, in.data[i] + k * in.step[i]);
    }
    absl::StatusOr<std::vector<Scalar>> r = run(**function, args);
    if (!r.ok()) {
      // PrefixError keeps what the evaluator recorded (a run past max_steps names the option
      // that lifts it).
      return PrefixError(
          r.status(), StrCat("custom-call %", instr.name(), " (", target, "), in its expansion: "));
    }
    StoreScalar(type, out.data() + k * width, (*r)[0]);
  }
  std::vector<Bytes> outs;
  outs.push_back(std::move(out));
  return outs;
}

}  // namespace hloscope::eval
