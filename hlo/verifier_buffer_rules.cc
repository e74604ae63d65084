// b(...) buffers (XLA's Pin/Unpin chains): XLA's verifier rules on who may write a buffer value
// (hlo_verifier.cc, VerifyBuffers), two of them:
//
//  - A custom-call may alias one buffer operand with one output only: the same buffer returned
//    twice would be two live values in one storage ("buffer is used in results multiple
//    times", XLA's VerifyBuffersBufferInResultMultipleTimes).
//  - A buffer value has at most one writer: a custom-call that aliases it, a while or
//    conditional, a call or fusion, a dynamic-update-slice into it, or the root of a while
//    body that hands it to the next iteration. Two writers of one value would each update the
//    storage the other still reads ("an HLO buffer value has more than one writers (or
//    unpins)", XLA's VerifyBuffersBufferWithTwoWrites*). The writers are counted as XLA counts
//    them, through tuples and get-tuple-elements, without looking into called computations:
//    such a user is taken to write every buffer it receives. The values whose writers are
//    counted are the ones XLA counts: the buffer outputs a custom-call aliases (Pin and
//    CreateBuffer included), and the buffer elements of while results and of parameters.
//
// As in XLA, async-start/-update/-done and calls with the stream annotation are not checked
// (their wrapped computation is), and in a computation an async op wraps only the root
// custom-call is. Not checked here: XLA's other buffer rules (buffers where only arrays are
// allowed, a buffer operand or output no alias names, Pin/Unpin's own shapes).
#include <algorithm>
#include <string>
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

// A custom-call aliases each buffer operand with one output at most, and each buffer output it
// aliases has one writer.
absl::Status CheckCustomCallBuffers(const Instruction& instr, const WriterCounter& writers) {
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
      if (outputs.size() > 1) {
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
  // CreateBuffer makes a buffer from nothing: no alias names its output.
  if (instr.custom_call_target() == "CreateBuffer" && instr.shape().IsBuffer()) {
    return writers.CheckUniqueWriter(instr, {});
  }
  for (const OperandAlias& a : aliasing) {
    const Shape* out = Subshape(instr.shape(), a.output_index);
    if (out == nullptr || !out->IsBuffer()) continue;
    if (absl::Status s = writers.CheckUniqueWriter(instr, a.output_index); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckBufferWriters(const Module& module) {
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
      absl::Status s;
      switch (instr->opcode()) {
        case Opcode::kCustomCall:
          s = CheckCustomCallBuffers(*instr, writers);
          break;
        case Opcode::kWhile:
        case Opcode::kParameter:
          s = writers.CheckUniqueWriters(*instr);
          break;
        case Opcode::kDynamicUpdateSlice:
          if (instr->operand(0)->shape().IsBuffer()) s = writers.CheckUniqueWriters(*instr);
          break;
        default:
          break;
      }
      if (!s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

}  // namespace hloscope::verifier_internal
