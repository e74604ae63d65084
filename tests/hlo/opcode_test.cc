#include "hlo/opcode.h"

#include <set>
#include <string>

#include "gtest/gtest.h"

namespace hloscope {
namespace {

TEST(Opcode, TableHasUniqueNamesThatParseBack) {
  std::set<std::string> names;
  for (int i = 0; i < OpcodeCount(); ++i) {
    auto op = static_cast<Opcode>(i);
    const OpcodeInfo& info = GetOpcodeInfo(op);
    EXPECT_EQ(info.opcode, op);
    EXPECT_TRUE(names.insert(std::string(info.name)).second) << info.name;
    auto parsed = ParseOpcode(info.name);
    ASSERT_TRUE(parsed.has_value()) << info.name;
    EXPECT_EQ(*parsed, op);
  }
  EXPECT_EQ(OpcodeCount(), 136);
  EXPECT_FALSE(ParseOpcode("clz").has_value());  // XLA prints count-leading-zeros
  // Near misses of the hashed lookup: too short, a prefix, same ends, a longer name.
  for (const char* text : {"", "a", "ad", "addd", "al-reduce", "all-reducee", "all-reduce-stat",
                           "get-tuple-elemen", "ROOT", "ADD"}) {
    EXPECT_FALSE(ParseOpcode(text).has_value()) << text;
  }
}

TEST(Opcode, PropertiesComeFromTheTable) {
  EXPECT_TRUE(IsElementwise(Opcode::kAdd));
  EXPECT_TRUE(IsElementwise(Opcode::kSelect));
  EXPECT_FALSE(IsElementwise(Opcode::kDot));
  EXPECT_TRUE(HasFlag(Opcode::kSend, kOpSideEffect));
  EXPECT_TRUE(HasFlag(Opcode::kAllReduce, kOpCollective));
  EXPECT_TRUE(HasFlag(Opcode::kWhile, kOpControlFlow));
  EXPECT_TRUE(HasFlag(Opcode::kAsyncStart, kOpAsyncStart));
  EXPECT_EQ(GetOpcodeInfo(Opcode::kGetTupleElement).arity, 1);
  EXPECT_EQ(GetOpcodeInfo(Opcode::kTuple).arity, kVariadic);
  EXPECT_EQ(GetOpcodeInfo(Opcode::kRaggedAllToAll).arity, 6);
  EXPECT_EQ(OpcodeName(Opcode::kDynamicUpdateSlice), "dynamic-update-slice");
}

// The value-semantics flags: each predicate holds for exactly the opcodes the analyses listed
// by hand before the table had them, so moving the lists changed no answer.
TEST(Opcode, ValueSemanticsFlagsCoverExactlyTheirOpcodes) {
  const auto holders = [](bool (*predicate)(Opcode)) {
    std::set<std::string> out;
    for (int i = 0; i < OpcodeCount(); ++i) {
      if (predicate(static_cast<Opcode>(i))) out.insert(std::string(OpcodeName(Opcode(i))));
    }
    return out;
  };
  using Names = std::set<std::string>;
  EXPECT_EQ(holders(ForwardsOperands),
            (Names{"domain", "get-tuple-element", "opt-barrier", "tuple"}));
  EXPECT_EQ(holders(RunsCallees),
            (Names{"async-done", "async-start", "async-update", "call", "conditional", "while"}));
  EXPECT_EQ(holders(IsControlFlow), (Names{"call", "conditional", "while"}));
  EXPECT_EQ(holders(WritesNoStorage),
            (Names{"bitcast", "call", "conditional", "get-tuple-element", "tuple", "while"}));
  EXPECT_EQ(holders(MayWriteInPlace),
            (Names{"all-reduce-start", "async-start", "collective-permute",
                   "collective-permute-start", "custom-call", "dynamic-update-slice", "fusion",
                   "ragged-all-to-all", "scatter", "set-dimension-size"}));
  // Kept by dead-code elimination when unused: side effects, collectives, async halves.
  EXPECT_TRUE(HasEffectBeyondResult(Opcode::kSend));
  EXPECT_TRUE(HasEffectBeyondResult(Opcode::kAllReduce));
  EXPECT_TRUE(HasEffectBeyondResult(Opcode::kCopyStart));
  EXPECT_TRUE(HasEffectBeyondResult(Opcode::kAsyncUpdate));
  EXPECT_FALSE(HasEffectBeyondResult(Opcode::kAdd));
  EXPECT_FALSE(HasEffectBeyondResult(Opcode::kCustomCall));  // unless its attribute says so
}

}  // namespace
}  // namespace hloscope
