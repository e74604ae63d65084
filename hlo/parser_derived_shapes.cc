#include "hlo/parser_derived_shapes.h"

#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "hlo/attribute_values.h"
#include "support/str_util.h"

namespace hloscope {
namespace {

// Shapes are copied into InternShape: moving a Shape whose inline vectors were never written
// trips g++ 12's -Wuninitialized (a false positive in absl::InlinedVector's move).
const Shape* Scalar(Module& module, PrimitiveType type) {
  Shape s;
  s.element_type = type;
  return module.InternShape(Shape(s));
}

const Shape* Tuple(Module& module, std::vector<const Shape*> elements) {
  Shape s;
  s.element_type = PrimitiveType::kTuple;
  s.tuple_elements = std::move(elements);
  return module.InternShape(Shape(s));
}

// recv and infeed: XLA's parser reads the data shape from element 0 of the written tuple and
// refuses a shape that has none ("recv must have a non-empty tuple shape"; for infeed an empty
// tuple passes its check and then aborts in ShapeUtil::GetTupleElementShape).
const Shape* WrittenElementZero(const Instruction& instr, std::string* error) {
  const Shape& written = instr.shape();
  if (written.IsTuple() && !written.tuple_elements.empty()) return written.tuple_elements[0];
  *error = StrCat(instr.PrintedOpcode(), " '", instr.name(), "' must have a non-empty tuple shape",
                  " (XLA's parser takes its data shape from element 0), not ", written.ToString());
  return nullptr;
}

// HloChannelInstruction::ClassOf (xla/hlo/ir/hlo_instructions.h at 183fa00cb5): the
// collectives, collective-permute and send/recv with their -start and -done forms that carry a
// channel_id.
bool IsChannelInstruction(Opcode op) {
  switch (op) {
    case Opcode::kAllGather:
    case Opcode::kAllGatherStart:
    case Opcode::kAllReduce:
    case Opcode::kAllReduceStart:
    case Opcode::kReduceScatter:
    case Opcode::kAllToAll:
    case Opcode::kRaggedAllToAll:
    case Opcode::kCollectiveBroadcast:
    case Opcode::kCollectivePermute:
    case Opcode::kCollectivePermuteStart:
    case Opcode::kSend:
    case Opcode::kSendDone:
    case Opcode::kRecv:
    case Opcode::kRecvDone:
      return true;
    default:
      return false;
  }
}

std::string ChannelText(const std::optional<std::string_view>& raw) {
  return raw ? StrCat("channel_id=", *raw) : std::string("no channel_id");
}

}  // namespace

bool ParserChecksOperandChannel(Opcode op) {
  return op == Opcode::kSendDone || op == Opcode::kRecvDone;
}

std::string ParserChannelMismatch(const Instruction& instr, const Module& module) {
  if (!ParserChecksOperandChannel(instr.opcode()) || instr.operand_count() == 0) return "";
  const Instruction& operand = *instr.operand(0);
  if (!IsChannelInstruction(operand.opcode())) return "";
  std::optional<std::string_view> own = RawAttribute(instr, module, "channel_id");
  std::optional<std::string_view> theirs = RawAttribute(operand, module, "channel_id");
  std::optional<int64_t> own_id = own ? ParseInt64(*own) : std::nullopt;
  std::optional<int64_t> their_id = theirs ? ParseInt64(*theirs) : std::nullopt;
  if (own_id == their_id) return "";
  return StrCat(instr.PrintedOpcode(), " '", instr.name(), "' has ", ChannelText(own),
                " but its operand '", operand.name(), "' (", operand.PrintedOpcode(), ") has ",
                ChannelText(theirs), ": XLA's parser refuses a ", instr.PrintedOpcode(),
                " whose channel differs from its operand's");
}

bool ParserBuildsShape(Opcode op) {
  switch (op) {
    case Opcode::kSend:
    case Opcode::kSendDone:
    case Opcode::kRecv:
    case Opcode::kRecvDone:
    case Opcode::kInfeed:
    case Opcode::kOutfeed:
    case Opcode::kAfterAll:
    case Opcode::kAddDependency:
      return true;
    default:
      return false;
  }
}

bool ParserShapeNeedsOperand(Opcode op) {
  return op == Opcode::kSend || op == Opcode::kRecvDone || op == Opcode::kAddDependency;
}

const Shape* ParserBuiltShape(const Instruction& instr, Module& module, std::string* error) {
  const Opcode op = instr.opcode();
  if (ParserShapeNeedsOperand(op) && instr.operand_count() == 0) return instr.shape_ptr();
  switch (op) {
    case Opcode::kSend:
      // HloSendInstruction: (operand 0, u32[] context, token[]).
      return Tuple(module, {instr.operand(0)->shape_ptr(), Scalar(module, PrimitiveType::kU32),
                            Scalar(module, PrimitiveType::kToken)});
    case Opcode::kSendDone:
    case Opcode::kOutfeed:
    case Opcode::kAfterAll:
      return Scalar(module, PrimitiveType::kToken);
    case Opcode::kRecv: {
      const Shape* data = WrittenElementZero(instr, error);
      if (data == nullptr) return nullptr;
      return Tuple(module, {data, Scalar(module, PrimitiveType::kU32),
                            Scalar(module, PrimitiveType::kToken)});
    }
    case Opcode::kInfeed: {
      const Shape* data = WrittenElementZero(instr, error);
      if (data == nullptr) return nullptr;
      return Tuple(module, {data, Scalar(module, PrimitiveType::kToken)});
    }
    case Opcode::kRecvDone: {
      // HloRecvDoneInstruction: (element 0 of the operand, token[]). XLA aborts on an operand
      // that is not a tuple (ShapeUtil::GetTupleElementShape); we refuse it.
      const Instruction& operand = *instr.operand(0);
      const Shape& context = operand.shape();
      if (!context.IsTuple() || context.tuple_elements.empty()) {
        *error = StrCat("recv-done '", instr.name(), "' takes its data shape from element 0 of ",
                        "its operand '", operand.name(), "', whose shape ", context.ToString(),
                        " is not a non-empty tuple");
        return nullptr;
      }
      return Tuple(module, {context.tuple_elements[0], Scalar(module, PrimitiveType::kToken)});
    }
    case Opcode::kAddDependency:
      return instr.operand(0)->shape_ptr();
    default:
      return instr.shape_ptr();
  }
}

}  // namespace hloscope
