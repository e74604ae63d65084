#include "eval/elided_constants.h"

#include <cstdint>
#include <string_view>

#include "support/option_error.h"
#include "support/str_util.h"

namespace hloscope::eval {
namespace {

// FNV-1a: a hash of the name that is the same on every machine and standard library.
uint64_t NameHash(std::string_view name) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : name) {
    h ^= static_cast<uint8_t>(c);
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string_view Trimmed(std::string_view s) {
  while (!s.empty() &&
         (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' || s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// `{...}` with nothing else (XLA's only elided form of an array; spaces allowed inside).
bool IsWholeArrayElided(const Instruction& instr) {
  std::string_view text = Trimmed(instr.literal());
  if (text.size() < 2 || text.front() != '{' || text.back() != '}') return false;
  return Trimmed(text.substr(1, text.size() - 2)) == "...";
}

}  // namespace

bool IsElidedConstant(const Instruction& instr) {
  return instr.opcode() == Opcode::kConstant &&
         instr.literal().find("...") != std::string_view::npos;
}

absl::Status CheckElidedConstant(const Instruction& instr, const EvalOptions& options) {
  if (!IsElidedConstant(instr)) return absl::OkStatus();
  if (options.elided_constants == ElidedConstants::kRefuse) {
    return LiftedByOption(absl::UnimplementedError(StrCat(
                              "the interpreter cannot run constant %", instr.name(),
                              ": its contents were elided ({...}) when the module was dumped")),
                          "elided_constants");
  }
  if (!instr.shape().IsArray() || !IsWholeArrayElided(instr)) {
    return absl::UnimplementedError(StrCat(
        "the interpreter cannot run constant %", instr.name(),
        ": seeded values replace only a whole array elided as {...}, not '", instr.literal(), "'"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Literal> ConstantValue(const Instruction& instr, const EvalOptions& options) {
  if (!IsElidedConstant(instr)) return ParseLiteral(instr.literal(), instr.shape());
  if (absl::Status s = CheckElidedConstant(instr, options); !s.ok()) return s;
  return RandomLiteral(instr.shape(), options.elided_constants_seed ^ NameHash(instr.name()));
}

}  // namespace hloscope::eval
