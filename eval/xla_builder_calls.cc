#include "eval/xla_builder_calls.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "eval/element_io.h"
#include "eval/evaluator.h"
#include "eval/layout_util.h"
#include "eval/literal.h"
#include "hlo/module.h"
#include "hlo/parser.h"
#include "hlo/primitive_type.h"
#include "support/str_util.h"

namespace hloscope::eval {
namespace {

struct Expansion {
  std::string_view target;
  std::string_view element_type;
  // The instructions of the scalar computation, parameters included, root last.
  std::string_view body;
};

constexpr Expansion kExpansions[] = {
#include "eval/xla_builder_expansions.inc"
};

absl::Status Refuse(const Instruction& instr, std::string_view why) {
  return absl::InvalidArgumentError(StrCat("cannot run custom-call %", instr.name(), " (",
                                           instr.custom_call_target(), "): ", why));
}

int64_t ParameterCount(std::string_view body) {
  int64_t n = 0;
  for (size_t at = body.find(" parameter("); at != std::string_view::npos;
       at = body.find(" parameter(", at + 1)) {
    ++n;
  }
  return n;
}

// The element types the expansions of `target` exist for, for the refusal's message.
std::string KnownTypes(std::string_view target) {
  std::string types;
  for (const Expansion& e : kExpansions) {
    if (e.target != target) continue;
    if (!types.empty()) types += ", ";
    types += e.element_type;
  }
  return types;
}

// A module whose entry maps the expansion over rank-1 arrays of `count` elements: the
// expansion is elementwise, so flattening the operands (in row-major order) changes nothing.
std::string MappedModuleText(const Expansion& e, int64_t arity, int64_t count) {
  const std::string array = StrCat(e.element_type, "[", count, "]");
  std::string text =
      StrCat("HloModule xla_builder_call\n\n%expansion {\n", e.body, "}\n\n", "ENTRY %main {\n");
  std::string args;
  for (int64_t i = 0; i < arity; ++i) {
    text += StrCat("  %p", i, " = ", array, " parameter(", i, ")\n");
    args += StrCat(i == 0 ? "" : ", ", "%p", i);
  }
  text +=
      StrCat("  ROOT %map = ", array, " map(", args, "), dimensions={0}, to_apply=%expansion\n}\n");
  return text;
}

}  // namespace

bool IsXlaBuilderTarget(std::string_view target) {
  return std::any_of(std::begin(kExpansions), std::end(kExpansions),
                     [&](const Expansion& e) { return e.target == target; });
}

absl::StatusOr<std::vector<Bytes>> EvalXlaBuilderCall(const Instruction& instr,
                                                      absl::Span<const ArrayRef> operands,
                                                      absl::Span<const Shape* const> results) {
  const std::string_view target = instr.custom_call_target();
  if (results.size() != 1) return Refuse(instr, "needs one array result");
  const Shape& result = *results[0];
  const std::string_view type = PrimitiveTypeName(result.element_type);
  const Expansion* found = nullptr;
  for (const Expansion& e : kExpansions) {
    if (e.target == target && e.element_type == type) found = &e;
  }
  if (found == nullptr) {
    return Refuse(instr, StrCat("no expansion for element type ", type,
                                " (XLA's builder tests define it for ", KnownTypes(target), ")"));
  }
  const int64_t arity = ParameterCount(found->body);
  if (static_cast<int64_t>(operands.size()) != arity) {
    return Refuse(instr, StrCat("needs ", arity, " operand(s), got ", operands.size()));
  }
  for (const ArrayRef& o : operands) {
    if (o.shape->element_type != result.element_type || o.shape->dims != result.dims) {
      return Refuse(instr, "each operand must have the result's element type and dimensions");
    }
  }
  const int64_t count = result.ElementCount();
  std::vector<Bytes> out;
  if (count == 0) {
    out.emplace_back();
    return out;
  }
  absl::StatusOr<std::unique_ptr<Module>> module =
      ParseModule(MappedModuleText(*found, arity, count), {.filename = "<xla_builder expansion>"});
  if (!module.ok()) {
    return absl::InternalError(StrCat("the expansion of ", target, " for ", type,
                                      " does not parse: ", std::string(module.status().message())));
  }
  const Computation& entry = *(*module)->entry();
  std::vector<Literal> args;
  for (size_t i = 0; i < operands.size(); ++i) {
    std::vector<uint8_t> scratch;
    const uint8_t* rows = RowMajorData(*operands[i].shape, operands[i].data, scratch);
    const Shape& flat = entry.parameter(static_cast<int64_t>(i))->shape();
    args.push_back(
        Literal::FromBytes(flat, Bytes(rows, rows + count * ElementBytes(result.element_type))));
  }
  absl::StatusOr<Literal> r = Evaluate(**module, args, EvalOptions{});
  if (!r.ok()) {
    return absl::Status(r.status().code(),
                        StrCat("custom-call %", instr.name(), " (", target,
                               "), in its expansion: ", std::string(r.status().message())));
  }
  out.push_back(ToPhysical(result, Bytes(r->data().begin(), r->data().end())));
  return out;
}

}  // namespace hloscope::eval
