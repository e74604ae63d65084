// b(...) buffers (XLA's Pin/Unpin chains): XLA's verifier rules on buffer values
// (hlo_verifier.cc, VerifyBuffers), all of them:
//
//  - Buffers only where XLA allows them: custom-calls, tuples, get-tuple-elements, whiles,
//    parameters of computations other than the entry (the caller has no buffer to pass), and a
//    dynamic-update-slice's operand 0 and result ("buffers aren't allowed in this context").
//  - Pin makes a buffer from one array of its shape, CreateBuffer from nothing, Unpin an array
//    of its shape from one buffer; Pin and Unpin through one alias.
//  - Every other custom-call names each buffer operand and each buffer output in exactly one
//    output_to_operand_aliasing entry: a buffer read and not returned would have no value after
//    the call, one returned twice two live values in one storage, and a buffer output with no
//    operand has no storage ("buffer is used in operands but not in results", "... in results
//    but not in operands", "... in results multiple times", "... in operands multiple times").
//  - A buffer value has at most one writer: a custom-call that aliases it, a while or
//    conditional, a call or fusion, a dynamic-update-slice into it, or the root of a while
//    body that hands it to the next iteration. Two writers of one value would each update the
//    storage the other still reads ("an HLO buffer value has more than one writers (or
//    unpins)", XLA's VerifyBuffersBufferWithTwoWrites*). The writers are counted as XLA counts
//    them, through tuples and get-tuple-elements, without looking into called computations:
//    such a user is taken to write every buffer it receives. The values whose writers are
//    counted are the ones XLA counts: the buffer outputs a custom-call aliases (Pin and
//    CreateBuffer included), and the buffer elements of while results, parameters and
//    dynamic-update-slices into buffers.
//
// As in XLA, async-start/-update/-done and calls with the stream annotation are not checked
// (their wrapped computation is), and in a computation an async op wraps only the root
// custom-call is.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "hlo/computation.h"
#include "hlo/verifier_internal.h"
#include "support/str_util.h"

namespace hloscope::verifier_internal {
namespace {

bool IsAsyncOp(Opcode op) {
  return op == Opcode::kAsyncStart || op == Opcode::kAsyncUpdate || op == Opcode::kAsyncDone;
}

bool IsStreamAnnotatedCall(const Instruction& instr) {
  return instr.opcode() == Opcode::kCall &&
         instr.FrontendAttribute("_xla_stream_annotation").has_value();
}

// Users that write every buffer they receive (XLA reads no further into them).
bool WritesWhatItReceives(Opcode op) {
  return op == Opcode::kCall || op == Opcode::kFusion || op == Opcode::kCustomCall ||
         op == Opcode::kWhile || op == Opcode::kConditional || op == Opcode::kDynamicUpdateSlice;
}

class WriterCounter {
 public:
  explicit WriterCounter(const Module& module) {
    for (const Computation* c : module.computations()) {
      for (const Instruction* i : c->instructions()) {
        if (i->opcode() == Opcode::kWhile) {
          for (const Computation* called : i->called_computations()) loop_bodies_.insert(called);
        }
        if (IsAsyncOp(i->opcode())) {
          for (const Computation* called : i->called_computations()) wrapped_.insert(called);
        }
      }
    }
  }

  bool IsWrapped(const Computation* c) const { return wrapped_.contains(c); }

  // The writers of the value `instr` defines at `index`: each user that writes it, or (for a
  // while body's root) the root that passes it to the next iteration.
  void Collect(const Instruction& instr, absl::Span<const int64_t> index,
               std::vector<const Instruction*>& writers) const {
    for (const Instruction* user : instr.users()) {
      if (WritesWhatItReceives(user->opcode())) {
        writers.push_back(user);
      } else if (user->opcode() == Opcode::kGetTupleElement) {
        if (!index.empty() && user->tuple_index() == index[0]) {
          Collect(*user, index.subspan(1), writers);
        }
      } else if (user->opcode() == Opcode::kTuple) {
        if (user == user->parent()->root()) {
          if (loop_bodies_.contains(user->parent())) writers.push_back(user);
        } else {
          // As XLA: the element of the tuple's first operand slot that holds it.
          const auto operands = user->operands();
          const int64_t slot =
              std::find(operands.begin(), operands.end(), &instr) - operands.begin();
          ShapeIndex inner = {slot};
          inner.insert(inner.end(), index.begin(), index.end());
          Collect(*user, inner, writers);
        }
      }
    }
  }

  absl::Status CheckUniqueWriter(const Instruction& instr, const ShapeIndex& index) const {
    std::vector<const Instruction*> writers;
    Collect(instr, index, writers);
    if (writers.size() <= 1) return absl::OkStatus();
    std::vector<std::string> names;
    for (const Instruction* w : writers) names.push_back(StrCat("'", w->name(), "'"));
    return InstrError(instr, StrCat("buffer ", ShapeText(*Subshape(instr.shape(), index)),
                                    " at shape index ", ShapeIndexToString(index), " has ",
                                    writers.size(), " writers (or unpins): ", StrJoin(names, ", "),
                                    "; a buffer value may be written once (XLA: an HLO buffer "
                                    "value has more than one writers)"));
  }

  absl::Status CheckUniqueWriters(const Instruction& instr) const {
    absl::Status status;
    ForEachSubshape(instr.shape(), [&](const Shape& sub, const ShapeIndex& index) {
      if (status.ok() && sub.IsBuffer()) status = CheckUniqueWriter(instr, index);
    });
    return status;
  }

 private:
  absl::flat_hash_set<const Computation*> loop_bodies_;  // bodies and conditions of whiles
  absl::flat_hash_set<const Computation*> wrapped_;      // computations async ops wrap
};

// Pin turns one array into a buffer of the same shape (layout aside: XLA's test
// VerifyBuffersLayoutChangeInPinAllowed), through one alias; the buffer it makes has one writer.
absl::Status CheckPin(const Instruction& instr, const WriterCounter& writers) {
  if (instr.operand_count() != 1 || !instr.operand(0)->shape().IsArray()) {
    return InstrError(instr, "custom-call to Pin must have one array non-buffer operand");
  }
  if (!instr.shape().IsBuffer()) {
    return InstrError(instr, StrCat("custom-call to Pin must have one buffer result, not ",
                                    ShapeText(instr.shape())));
  }
  if (!instr.operand(0)->shape().Compatible(*instr.shape().tuple_elements[0])) {
    return InstrError(
        instr, StrCat("custom-call to Pin must have the same shape as the operand: ",
                      ShapeText(instr.shape()), " pins ", ShapeText(instr.operand(0)->shape())));
  }
  if (instr.output_to_operand_aliasing().size() != 1) {
    return InstrError(instr, "custom-call to Pin must have one output-to-operand aliasing");
  }
  return writers.CheckUniqueWriter(instr, {});
}

absl::Status CheckCreateBuffer(const Instruction& instr, const WriterCounter& writers) {
  if (instr.operand_count() != 0) {
    return InstrError(instr, "custom-call to CreateBuffer can't have an operand");
  }
  if (!instr.shape().IsBuffer()) {
    return InstrError(instr, StrCat("custom-call to CreateBuffer must have one buffer result, not ",
                                    ShapeText(instr.shape())));
  }
  return writers.CheckUniqueWriter(instr, {});
}

// Unpin turns one buffer back into the array it holds, through one alias.
absl::Status CheckUnpin(const Instruction& instr) {
  if (instr.operand_count() != 1 || !instr.operand(0)->shape().IsBuffer()) {
    return InstrError(instr, "custom-call to Unpin must have one buffer operand");
  }
  if (!instr.shape().IsArray()) {
    return InstrError(instr, StrCat("custom-call to Unpin must have one array non-buffer result, "
                                    "not ",
                                    ShapeText(instr.shape())));
  }
  if (!instr.operand(0)->shape().tuple_elements[0]->Compatible(instr.shape())) {
    return InstrError(
        instr, StrCat("custom-call to Unpin must have the same shape as the operand: ",
                      ShapeText(instr.shape()), " unpins ", ShapeText(instr.operand(0)->shape())));
  }
  if (instr.output_to_operand_aliasing().size() != 1) {
    return InstrError(instr, "custom-call to Unpin must have one output-to-operand aliasing");
  }
  return absl::OkStatus();
}

// Each buffer operand of a custom-call is named by exactly one alias: a buffer the call reads
// and does not return would have no value after it, one returned twice two values in one
// storage.
absl::Status CheckBufferOperandsAliased(const Instruction& instr) {
  const auto aliasing = instr.output_to_operand_aliasing();
  for (int64_t i = 0; i < instr.operand_count(); ++i) {
    absl::Status status;
    ForEachSubshape(instr.operand(i)->shape(), [&](const Shape& sub, const ShapeIndex& index) {
      if (!status.ok() || !sub.IsBuffer()) return;
      std::vector<std::string> outputs;
      for (const OperandAlias& a : aliasing) {
        if (a.operand == i && a.operand_index == index) {
          outputs.push_back(ShapeIndexToString(a.output_index));
        }
      }
      if (outputs.empty()) {
        status = InstrError(
            instr, StrCat("custom-call reads buffer ", OperandRef(instr, i), " shape index ",
                          ShapeIndexToString(index),
                          " but no output_to_operand_aliasing entry returns it (XLA: buffer is "
                          "used in operands but not in results)"));
      } else if (outputs.size() > 1) {
        status = InstrError(
            instr, StrCat("custom-call output_to_operand_aliasing returns buffer ",
                          OperandRef(instr, i), " shape index ", ShapeIndexToString(index),
                          " as outputs ", StrJoin(outputs, " and "),
                          "; one buffer may be one output only (XLA: buffer is used in results "
                          "multiple times)"));
      }
    });
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

// Each buffer output of a custom-call is named by exactly one alias (only Pin and CreateBuffer
// make buffers), and each has one writer.
absl::Status CheckBufferResultsAliased(const Instruction& instr, const WriterCounter& writers) {
  const auto aliasing = instr.output_to_operand_aliasing();
  absl::Status status;
  ForEachSubshape(instr.shape(), [&](const Shape& sub, const ShapeIndex& index) {
    if (!status.ok() || !sub.IsBuffer()) return;
    const auto count = std::count_if(aliasing.begin(), aliasing.end(), [&](const OperandAlias& a) {
      return a.output_index == index;
    });
    if (count == 0) {
      status = InstrError(
          instr, StrCat("custom-call output ", ShapeText(sub), " at shape index ",
                        ShapeIndexToString(index),
                        " is a buffer but no output_to_operand_aliasing entry names it (XLA: "
                        "buffer is used in results but not in operands)"));
    } else if (count > 1) {
      status = InstrError(instr,
                          StrCat("custom-call output_to_operand_aliasing names output shape index ",
                                 ShapeIndexToString(index), " ", count,
                                 " times (XLA: buffer is used in operands multiple times)"));
    } else {
      status = writers.CheckUniqueWriter(instr, index);
    }
  });
  return status;
}

absl::Status CheckCustomCallBuffers(const Instruction& instr, const WriterCounter& writers) {
  const std::string_view target = instr.custom_call_target();
  if (target == "Pin") return CheckPin(instr, writers);
  if (target == "CreateBuffer") return CheckCreateBuffer(instr, writers);
  if (target == "Unpin") return CheckUnpin(instr);
  if (absl::Status s = CheckBufferOperandsAliased(instr); !s.ok()) return s;
  return CheckBufferResultsAliased(instr, writers);
}

// `what` names the shape ("shape", "operand 1 'x'"), `why` says why no buffer may be there.
absl::Status CheckNoBuffer(const Instruction& instr, const Shape& shape, std::string_view what,
                           std::string_view why) {
  absl::Status status;
  ForEachSubshape(shape, [&](const Shape& sub, const ShapeIndex& index) {
    if (status.ok() && sub.IsBuffer()) {
      status =
          InstrError(instr, StrCat(instr.PrintedOpcode(), " ", what, " has buffer ", ShapeText(sub),
                                   " at shape index ", ShapeIndexToString(index), ": ", why,
                                   " (XLA: buffers aren't allowed in this context)"));
    }
  });
  return status;
}

// XLA lets buffers appear only in custom-calls, tuples, get-tuple-elements, whiles, parameters
// of non-entry computations and a dynamic-update-slice's operand 0 and result (and async ops,
// whose wrapped computation is checked): anywhere else an op would read or copy the storage as
// if it were a value.
constexpr std::string_view kOnlyWhereAllowed =
    "buffers may be only in custom-calls, tuples, get-tuple-elements, whiles, parameters of "
    "computations other than the entry and a dynamic-update-slice's operand 0 and result";

absl::Status CheckNoBuffersInContext(const Instruction& instr, std::string_view why) {
  if (absl::Status s = CheckNoBuffer(instr, instr.shape(), "shape", why); !s.ok()) return s;
  for (int64_t i = 0; i < instr.operand_count(); ++i) {
    const Shape& shape = instr.operand(i)->shape();
    // The operand's name is spelled out only for the message (most operands hold no buffer).
    if (!shape.IsArray() && !CheckNoBuffer(instr, shape, "", why).ok()) {
      return CheckNoBuffer(instr, shape, OperandRef(instr, i), why);
    }
  }
  return absl::OkStatus();
}

// A dynamic-update-slice into a buffer writes it. That its other operands are arrays and its
// result is the same buffer is checked by its shape rule (verifier_shape_rules.cc), which runs
// first.
absl::Status CheckDynamicUpdateSliceBuffers(const Instruction& instr,
                                            const WriterCounter& writers) {
  if (instr.operand(0)->shape().IsBuffer()) return writers.CheckUniqueWriters(instr);
  return CheckNoBuffersInContext(instr, kOnlyWhereAllowed);
}

bool HasBufferCustomCall(const Module& module) {
  for (const Computation* c : module.computations()) {
    for (const Instruction* instr : c->instructions()) {
      if (instr->opcode() != Opcode::kCustomCall) continue;
      const std::string_view target = instr->custom_call_target();
      if (target == "Pin" || target == "Unpin" || target == "CreateBuffer") return true;
    }
  }
  return false;
}

absl::Status CheckInstructionBuffers(const Instruction& instr, const WriterCounter& writers) {
  switch (instr.opcode()) {
    case Opcode::kCustomCall:
      return CheckCustomCallBuffers(instr, writers);
    case Opcode::kWhile:
      return writers.CheckUniqueWriters(instr);
    case Opcode::kParameter:
      if (instr.parent()->is_entry()) {
        if (absl::Status s = CheckNoBuffersInContext(
                instr, "an entry parameter cannot be a buffer, its caller has none to pass");
            !s.ok()) {
          return s;
        }
      }
      return writers.CheckUniqueWriters(instr);
    case Opcode::kDynamicUpdateSlice:
      return CheckDynamicUpdateSliceBuffers(instr, writers);
    case Opcode::kGetTupleElement:
    case Opcode::kTuple:
      return absl::OkStatus();
    default:
      return CheckNoBuffersInContext(instr, kOnlyWhereAllowed);
  }
}

}  // namespace

absl::Status CheckBufferRules(const Module& module) {
  // Every rule below is about a b(...) shape somewhere, or about the custom-calls that make and
  // take buffers (which need one); without either there is nothing to check.
  if (!module.HasBufferShapes() && !HasBufferCustomCall(module)) return absl::OkStatus();
  const WriterCounter writers(module);
  for (const Computation* c : module.computations()) {
    if (writers.IsWrapped(c)) {
      const Instruction* root = c->root();
      if (root != nullptr && root->opcode() == Opcode::kCustomCall) {
        if (absl::Status s = CheckCustomCallBuffers(*root, writers); !s.ok()) return s;
      }
      continue;
    }
    for (const Instruction* instr : c->instructions()) {
      if (IsAsyncOp(instr->opcode()) || IsStreamAnnotatedCall(*instr)) continue;
      if (absl::Status s = CheckInstructionBuffers(*instr, writers); !s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

}  // namespace hloscope::verifier_internal
