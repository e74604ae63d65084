// Verifier robustness on every opcode in every operand count and shape it may be written with:
// the shape rules must not read an operand, tuple element or attribute that is not there.
// Each module is one instruction `c` of opcode OP over K parameters of one shape, with one of a
// few result shapes and attribute sets, in an entry computation:
//   HloModule m
//   ENTRY e {
//     p0 = <operand shape> parameter(0)  ...
//     ROOT c = <result shape> OP(p0, ...)<attributes>
//   }
// Every one that parses must verify or fail with the verifier's message form,
// `computation 'e': instruction 'c': ...` (the structure or the shape rule of `c`; nothing else
// in the module can be wrong). A crash fails the whole binary. Built and run again under
// ASan+UBSan by scripts/test (ctest label `robustness`), where an out-of-range read fails too.
// The zero-operand forms of sort, dynamic-reshape and async-update crashed before this test.
#include <string>
#include <string_view>

#include "fmt/core.h"
#include "gtest/gtest.h"
#include "hlo/opcode.h"
#include "hlo/parser.h"
#include "hlo/verifier.h"

namespace hloscope {
namespace {

constexpr int kOperandCounts[] = {0, 1, 2, 3, 4, 6};

constexpr std::string_view kOperandShapes[] = {
    "f32[4]",
    "f32[4,4]",
    "s32[]",
    "token[]",
    "(f32[4], u32[], token[])",
    "((f32[4]), f32[4], u32[])",
};

constexpr std::string_view kResultShapes[] = {
    "f32[4]",
    "f32[4,4]",
    "(f32[4])",
    "()",
    "token[]",
    "(f32[4], f32[4])",
    "((f32[4]), f32[4], u32[])",
    "(f32[4], f32[4], u32[], u32[])",
};

// Attributes the rules read, in values that fit and values that do not.
constexpr std::string_view kAttributes[] = {
    "",
    ", dimensions={0}",
    ", dimensions={5}, replica_groups={{0,1},{1}}, source_target_pairs={{0,1},{0,2}}",
    ", offset_dims={0}, collapsed_slice_dims={}, start_index_map={0}, index_vector_dim=1, "
    "slice_sizes={4}",
    ", feature_index=0, k=2, fft_type=RFFT, fft_length={4}, exponent_bits=0, mantissa_bits=1",
};

std::string Module(std::string_view op, int operands, std::string_view operand_shape,
                   std::string_view result_shape, std::string_view attributes) {
  std::string text = "HloModule m\nENTRY e {\n";
  std::string args;
  for (int i = 0; i < operands; ++i) {
    text += fmt::format("  p{} = {} parameter({})\n", i, operand_shape, i);
    args += fmt::format("{}p{}", i == 0 ? "" : ", ", i);
  }
  text += fmt::format("  ROOT c = {} {}({}){}\n}}\n", result_shape, op, args, attributes);
  return text;
}

TEST(VerifierRobustness, EveryOpcodeInManyForms) {
  int parsed = 0, verified = 0, rejected = 0;
  for (int o = 0; o < static_cast<int>(Opcode::kOpcodeCount); ++o) {
    const std::string_view op = OpcodeName(static_cast<Opcode>(o));
    for (int k : kOperandCounts) {
      for (std::string_view operand : kOperandShapes) {
        if (k == 0 && operand != kOperandShapes[0]) continue;  // no operands: one form is enough
        for (std::string_view result : kResultShapes) {
          for (std::string_view attributes : kAttributes) {
            const std::string text = Module(op, k, operand, result, attributes);
            absl::StatusOr<std::unique_ptr<hloscope::Module>> m = ParseModule(text);
            if (!m.ok()) continue;  // the parser's errors have their own robustness test
            ++parsed;
            absl::Status s = VerifyModule(**m);
            if (s.ok()) {
              ++verified;
              continue;
            }
            ++rejected;
            const std::string_view message(s.message().data(), s.message().size());
            EXPECT_TRUE(message.starts_with("computation 'e': instruction 'c': "))
                << message << "\nfor\n"
                << text;
          }
        }
      }
    }
  }
  fmt::print("[verifier robustness] {} modules parsed: {} verify, {} rejected\n", parsed, verified,
             rejected);
  // Most forms are wrong somewhere, some are right: both paths ran.
  EXPECT_GT(parsed, 10000);
  EXPECT_GT(verified, 100);
  EXPECT_GT(rejected, 10000);
}

}  // namespace
}  // namespace hloscope
