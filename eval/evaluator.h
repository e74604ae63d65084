// The reference interpreter behind hlo-run: runs a module's entry computation on literals.
//
//   absl::StatusOr<Literal> out = Evaluate(module, RandomArguments(module, 1), {});
//
// Two modes:
//  - kValue: the meaning of the program. Every instruction produces a fresh literal.
//  - kBuffer: storage follows AliasAnalysis (analysis/alias.h). One allocation per HloBuffer;
//    an instruction that defines a value writes it into its buffer's storage, forwarding
//    instructions (tuple, get-tuple-element, bitcast-as-alias, call and while results, ...)
//    only refer to it, in-place operations write into the buffer they share with an operand,
//    and a while loop's state lives in its buffers across iterations. Each result is computed
//    into a temporary first and then stored, so an op that writes the buffer it reads still
//    sees its inputs. Consequence (and purpose): when a copy that was needed has been removed,
//    a later reader sees overwritten data and buffer mode disagrees with value mode, as a
//    device would.
//
// Numerics: elementwise float ops compute in the element type's C++ type (bf16 and f16 via
// float, rounded to nearest even on store). dot accumulates in f32 for bf16/f16/f32 and in
// f64 for f64 (integers in 64-bit), rounding once at the end. Integer division by zero and
// overflow follow XLA (x/0 = -1, x%0 = x, INT_MIN/-1 = INT_MIN).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "analysis/dataflow_options.h"
#include "eval/host_io.h"
#include "eval/literal.h"
#include "hlo/module.h"

namespace hloscope::eval {

enum class EvalMode { kValue, kBuffer };

// What to do with constants whose contents were elided when the module was dumped
// (`constant({...})`): refuse the module (their values are unknown), or fill each with seeded
// values keyed by its name (eval/elided_constants.h says why and how).
enum class ElidedConstants { kRefuse, kSeeded };

// What to do with a custom-call whose target the interpreter does not know (eval/custom_calls.h
// lists the known ones): refuse the module, as XLA's evaluator does, or run the call as an
// opaque, deterministic function of its operands (eval/opaque_custom_call.h), which is enough
// for a differential check (a module against its transformed version) and is not the call's
// real result.
enum class CustomCalls { kRefuse, kOpaque };

// Judge-only modes for what XLA's evaluator refuses but XLA's backends compile
// (docs/interpreter_coverage.md, "Judge-only run modes"). Mixed precision (add(f32, bf16),
// select(pred, f32, bf16), broadcast of f64 into f32): refuse, as XLA's evaluator reads every
// operand as one type, or convert the operands as XLA's FloatNormalization pass makes the
// backends do (eval/mixed_precision.h).
enum class MixedPrecision { kRefuse, kConvertOperands };
// rng-bit-generator with algorithm=rng_default (the backend's choice): refuse, as XLA's
// evaluator, or run it as the named algorithm (XLA's CPU and GPU pipelines expand it as Philox).
enum class RngDefault { kRefuse, kPhilox, kThreeFry };
// rng_uniform with low >= high: refuse, as XLA's evaluator (its std distributions are undefined
// there), or draw by the formula of XLA's backends (eval/rng_empty_range.h).
enum class RngEmptyRange { kRefuse, kBackendFormula };

// A refusal that an EvalOptions field would lift (rng without rng_seed, a module past
// max_bytes, a run past max_steps, an elided constant without elided_constants, an unknown
// custom-call target without custom_calls, mixed precision without mixed_precision,
// rng_default without rng_default, an empty rng range without rng_empty_range) records that field
// as the option lifting it (support/option_error.h LiftingOption). The message names no tool or
// flag: a tool that sets the field from a flag says which (hlo-run adds "(--max-bytes)").
struct EvalOptions {
  EvalMode mode = EvalMode::kValue;
  // Buffer mode: the alias analysis's options (dataflow.bitcast_defines_value true: a bitcast
  // defines a new value and so gets its own buffer; false: it reinterprets its operand's).
  DataflowOptions dataflow = {};
  // Refuse modules whose storage would exceed this many bytes (ResourceExhausted).
  int64_t max_bytes = int64_t{1} << 30;
  // Stop the run (ResourceExhausted) after this many instruction evaluations in all, across
  // every computation, loop iteration and to_apply call: endless loops, deeply nested loops and
  // call graphs that fan out exponentially end here instead of running for ever.
  int64_t max_steps = 100'000'000;
  // Buffer mode: when set, receives the names of the read-only values (constants, entry
  // parameters that no output aliases) whose buffer another value was written into during the
  // run, sorted. Read-only values keep their own bytes (see IsReadOnly in evaluator.cc), as if
  // XLA's copy insertion had copied them, so such a write cannot change the result; this list
  // is how a caller sees it. A pass that adds a name here made the module write into
  // read-only data, which a device would not copy for it.
  std::vector<std::string>* read_only_overwrites = nullptr;
  // The seed of rng's engine (XLA's module seed): a std::minstd_rand0 seeded with it at the start
  // of the run, drawn from by every rng in evaluation order. Without one, modules with rng are
  // refused (XLA then seeds from a true random source: the results are not defined).
  std::optional<uint64_t> rng_seed = std::nullopt;
  // Data from and to outside the program (eval/host_io.h): infeed, outfeed, host send/recv, a
  // recv with no send on its channel in the module, a send with no recv. kRefuse (as XLA's
  // evaluator) refuses infeed, outfeed and those recvs; kSeeded gives each read from outside
  // the next value of a stream seeded with host_io_seed (+ R for replica R of
  // EvaluateReplicas) and logs each write to outside in *outside_writes, in run order.
  HostIo host_io = HostIo::kRefuse;
  uint64_t host_io_seed = 0;
  // When set, receives the run's writes to outside (kSeeded; cleared first). EvaluateReplicas
  // gives replica 0's writes, then replica 1's, ...
  std::vector<OutsideWrite>* outside_writes = nullptr;
  // Elided constants: refused by default; kSeeded fills each with RandomLiteral values of a seed
  // mixed from elided_constants_seed and the constant's name (eval/elided_constants.h).
  ElidedConstants elided_constants = ElidedConstants::kRefuse;
  uint64_t elided_constants_seed = 0;
  // Custom-calls of unknown targets: refused by default (named in the error); kOpaque gives each
  // result a value hashed from the call and its operands, and logs side-effecting calls in
  // *outside_writes (eval/opaque_custom_call.h).
  CustomCalls custom_calls = CustomCalls::kRefuse;
  // Operands of mixed floating-point types: refused by default (named in the error).
  MixedPrecision mixed_precision = MixedPrecision::kRefuse;
  // rng-bit-generator with algorithm=rng_default: refused by default (named in the error).
  RngDefault rng_default = RngDefault::kRefuse;
  // rng_uniform on an empty or reversed range: refused by default (named in the error).
  RngEmptyRange rng_empty_range = RngEmptyRange::kRefuse;
};

// Runs the entry computation on `arguments` (one per entry parameter, shapes compatible with the
// parameters'). Unsupported opcode -> absl::UnimplementedError with exactly
// "the interpreter does not support opcode 'X' (instruction %name)". Wrong argument count/shape ->
// InvalidArgument; too large -> ResourceExhausted; alias analysis refusing the module (buffer
// mode) -> its status with context.
absl::StatusOr<Literal> Evaluate(const Module& module, absl::Span<const Literal> arguments,
                                 const EvalOptions& options);

// The checks Evaluate makes before running: every opcode and element type supported, and the
// storage within options.max_bytes. Call it before building large arguments.
absl::Status CheckRunnable(const Module& module, const EvalOptions& options);
// Bytes of storage the module's values need: every array any instruction defines, counted
// once (forwarding instructions and called computations' parameters define nothing new).
int64_t RequiredBytes(const Module& module);

// Parses a literal in HLO constant syntax (`{{1, 2}, {3, 4}}`, `1.5`, `true`, `(1, {2})` for
// tuples, `nan`, `inf`, `-inf`) as a value of `shape`. Errors say what was expected.
absl::StatusOr<Literal> ParseLiteral(std::string_view text, const Shape& shape);

// Whether the interpreter supports `opcode` (tools and the harness use it to skip modules).
bool IsSupportedOpcode(Opcode opcode);

}  // namespace hloscope::eval
