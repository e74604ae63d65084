// HLO opcodes: one data table (opcodes.def) gives each its printed name, operand count and
// properties. Code asks the table (`IsElementwise(op)`) instead of listing opcodes by hand.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace hloscope {

enum class Opcode : uint8_t {
#define HLO_OPCODE(enum_name, text, arity, flags) enum_name,
#include "hlo/opcodes.def"
#undef HLO_OPCODE
  kOpcodeCount,
};

// Property bits used in opcodes.def.
enum OpcodeFlag : uint32_t {
  kOpNone = 0,
  kOpElementwise = 1u << 0,  // result element i depends only on operand elements i
  kOpSideEffect = 1u << 1,   // must not be removed or reordered freely (send, infeed, rng, ...)
  kOpCollective = 1u << 2,   // communicates across devices
  kOpAsyncStart = 1u << 3,   // first half of an async pair (`-start`)
  kOpAsyncUpdate = 1u << 4,
  kOpAsyncDone = 1u << 5,          // second half of an async pair (`-done`)
  kOpControlFlow = 1u << 6,        // calls computations and runs them (while, conditional, call)
  kOpCallsComputations = 1u << 7,  // may carry called computations (to_apply, calls, ...)
};

// Operand count for variadic opcodes.
inline constexpr int kVariadic = -1;

struct OpcodeInfo {
  Opcode opcode;
  std::string_view name;
  int arity;  // exact operand count, or kVariadic
  uint32_t flags;
};

const OpcodeInfo& GetOpcodeInfo(Opcode op);
inline std::string_view OpcodeName(Opcode op) { return GetOpcodeInfo(op).name; }
std::optional<Opcode> ParseOpcode(std::string_view name);
inline bool HasFlag(Opcode op, OpcodeFlag f) { return (GetOpcodeInfo(op).flags & f) != 0; }
inline bool IsElementwise(Opcode op) { return HasFlag(op, kOpElementwise); }
inline int OpcodeCount() { return static_cast<int>(Opcode::kOpcodeCount); }

}  // namespace hloscope
