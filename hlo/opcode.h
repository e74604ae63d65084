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
  // What an opcode does to values. The rules that also depend on the operand, the shape index
  // or an option (bitcast, copy, add-dependency, the async collectives) are code, in
  // analysis/dataflow_rules.cc (which values an output holds) and analysis/value_uses.cc
  // (which operand reads are uses).
  kOpForwardsOperands = 1u << 8,  // output holds operand values, reads none (tuple, domain, ...)
  kOpAsyncWrapper = 1u << 9,      // async-start/-update/-done: run a wrapped computation
  kOpMayWriteInPlace = 1u << 10,  // may write its output into an operand's buffer
  // Writes no array of its own: its output is its operands' or its callees' storage (a
  // tuple's index table aside), so it never needs a second copy of an operand.
  kOpNoStorage = 1u << 11,
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
// Whether `op` has any of the flags in `f`.
inline bool HasFlag(Opcode op, uint32_t f) { return (GetOpcodeInfo(op).flags & f) != 0; }
inline bool IsElementwise(Opcode op) { return HasFlag(op, kOpElementwise); }
inline bool IsControlFlow(Opcode op) { return HasFlag(op, kOpControlFlow); }
// Passes its operands on without reading them, whatever the operand and index.
inline bool ForwardsOperands(Opcode op) { return HasFlag(op, kOpForwardsOperands); }
// Hands its operands to a computation it runs (while, conditional, call, the async wrappers).
inline bool RunsCallees(Opcode op) { return HasFlag(op, kOpControlFlow | kOpAsyncWrapper); }
// The opcodes that may have in-place input/output pairs (analysis/in_place_pairs.h).
inline bool MayWriteInPlace(Opcode op) { return HasFlag(op, kOpMayWriteInPlace); }
inline bool WritesNoStorage(Opcode op) { return HasFlag(op, kOpNoStorage); }
// Its execution is observable beyond its result (side effects, communication, half of an
// async pair): an unused one is kept.
inline bool HasEffectBeyondResult(Opcode op) {
  return HasFlag(op, kOpSideEffect | kOpCollective | kOpAsyncStart | kOpAsyncUpdate | kOpAsyncDone);
}
inline int OpcodeCount() { return static_cast<int>(Opcode::kOpcodeCount); }

}  // namespace hloscope
