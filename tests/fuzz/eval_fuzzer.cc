// libFuzzer target for the interpreter (built with -DHLOSCOPE_FUZZ=ON; see
// `scripts/fuzz --fuzzer=eval`).
//
// hlo-run promises that bad input gets a clear error, never a crash (issue 35). An input that
// parses and verifies is run the way hlo-run and the corpus judge run a user's module:
//   - eval::CheckRunnable, then eval::Evaluate on eval::RandomArguments, in value mode and in
//     buffer mode, with an rng seed, seeded host I/O and seeded elided constants, so that the
//     options that lift refusals open every kernel to the fuzzer;
//   - when the module has collectives or send/recv, eval::EvaluateReplicas on 2 replicas;
//   - one of the two runs (picked by the input's length, so every input gets both) also uses the
//     corpus judge's modes: mixed_precision=convert, rng_default=philox or threefry (another bit
//     of the length), rng_empty_range=backend; the other keeps their refusals, so both the
//     judge-only kernels and the refusal paths are fuzzed.
// The limits are small (64 KiB of storage, 10^4 steps) so each execution stays cheap: a run past
// them is a ResourceExhausted status, like every other refusal. A status of any kind is a clean
// answer; a crash, an abort or a sanitizer report is the failure this target looks for.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "eval/evaluator.h"
#include "eval/literal.h"
#include "eval/replicas.h"
#include "hlo/module.h"
#include "hlo/parser.h"
#include "hlo/verifier.h"

namespace {

namespace eval = hloscope::eval;

constexpr int64_t kMaxBytes = int64_t{64} << 10;
constexpr int64_t kMaxSteps = 10'000;
constexpr uint64_t kSeed = 1;

// Whether the module talks to other replicas: only those need the (threaded, slower) replica run.
bool UsesOtherReplicas(const hloscope::Module& module) {
  for (const hloscope::Computation* c : module.computations()) {
    for (const hloscope::Instruction* instr : c->instructions()) {
      switch (instr->opcode()) {
        case hloscope::Opcode::kAllReduce:
        case hloscope::Opcode::kAllReduceStart:
        case hloscope::Opcode::kAllGather:
        case hloscope::Opcode::kAllGatherStart:
        case hloscope::Opcode::kReduceScatter:
        case hloscope::Opcode::kAllToAll:
        case hloscope::Opcode::kRaggedAllToAll:
        case hloscope::Opcode::kCollectiveBroadcast:
        case hloscope::Opcode::kCollectivePermute:
        case hloscope::Opcode::kCollectivePermuteStart:
        case hloscope::Opcode::kSend:
        case hloscope::Opcode::kRecv:
        case hloscope::Opcode::kAsyncStart:
          return true;
        default:
          break;
      }
    }
  }
  return false;
}

// Which runs use the judge-only modes: taken from the input's length, which mutations change.
struct JudgeChoice {
  bool in_value_run = false;
  eval::RngDefault rng_default = eval::RngDefault::kPhilox;
};

JudgeChoice ChooseJudgeModes(size_t size) {
  JudgeChoice choice;
  choice.in_value_run = size % 2 == 1;
  choice.rng_default =
      (size / 2) % 2 == 1 ? eval::RngDefault::kThreeFry : eval::RngDefault::kPhilox;
  return choice;
}

eval::EvalOptions Options(eval::EvalMode mode, bool judge_modes, eval::RngDefault rng_default) {
  eval::EvalOptions options;
  options.mode = mode;
  options.max_bytes = kMaxBytes;
  options.max_steps = kMaxSteps;
  options.rng_seed = kSeed;
  options.host_io = eval::HostIo::kSeeded;
  options.host_io_seed = kSeed;
  options.elided_constants = eval::ElidedConstants::kSeeded;
  options.elided_constants_seed = kSeed;
  options.custom_calls = eval::CustomCalls::kOpaque;
  if (judge_modes) {
    options.mixed_precision = eval::MixedPrecision::kConvertOperands;
    options.rng_default = rng_default;
    options.rng_empty_range = eval::RngEmptyRange::kBackendFormula;
  }
  return options;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto module = hloscope::ParseModule(text);
  if (!module.ok() || !hloscope::VerifyModule(**module).ok()) return 0;
  const hloscope::Module& m = **module;

  const JudgeChoice judge = ChooseJudgeModes(size);
  const eval::EvalOptions value =
      Options(eval::EvalMode::kValue, judge.in_value_run, judge.rng_default);
  const eval::EvalOptions buffer =
      Options(eval::EvalMode::kBuffer, !judge.in_value_run, judge.rng_default);
  // CheckRunnable is what keeps RandomArguments from building huge parameters. It asks with the
  // judge's modes, which refuse less, so the run without them meets its refusals in Evaluate.
  if (!eval::CheckRunnable(m, judge.in_value_run ? value : buffer).ok()) return 0;
  const std::vector<eval::Literal> args = eval::RandomArguments(m, kSeed);

  // Statuses of every kind are clean answers; only crashes and sanitizer reports fail.
  (void)eval::Evaluate(m, args, value);
  (void)eval::Evaluate(m, args, buffer);

  if (UsesOtherReplicas(m)) {
    const std::vector<std::vector<eval::Literal>> by_replica = {
        args, eval::RandomArguments(m, kSeed + 1)};
    (void)eval::EvaluateReplicas(m, by_replica, value);
  }
  return 0;
}
