#include "analysis/memory/stash_buffers.h"

#include "absl/container/flat_hash_set.h"
#include "hlo/async_chain.h"
#include "hlo/computation.h"
#include "hlo/module.h"

namespace hloscope {
namespace {

const Instruction* SkipBitcasts(const Instruction* in) {
  while (in->opcode() == Opcode::kBitcast && in->operand_count() == 1) in = in->operand(0);
  return in;
}

const Instruction* SkipCopiesAndBitcasts(const Instruction* in) {
  while ((in->opcode() == Opcode::kBitcast || in->opcode() == Opcode::kCopy) &&
         in->operand_count() == 1) {
    in = in->operand(0);
  }
  return in;
}

// Whether `in` is get-tuple-element `index` of the body's parameter.
bool IsStateElement(const Instruction* in, const Computation& body, int64_t index) {
  in = SkipCopiesAndBitcasts(in);
  return in->opcode() == Opcode::kGetTupleElement && in->tuple_index() == index &&
         body.parameter_count() == 1 && in->operand(0) == body.parameter(0);
}

struct Write {
  const Instruction* dus = nullptr;
  const Instruction* writer = nullptr;
};

// The DUS that writes loop-state element `index` of `body`, or {} when there is none.
Write FindWrite(const Computation& body, int64_t index) {
  const Instruction* root = body.root();
  if (root == nullptr || root->opcode() != Opcode::kTuple || index >= root->operand_count()) {
    return {};
  }
  const Instruction* out = SkipCopiesAndBitcasts(root->operand(index));
  if (out->opcode() == Opcode::kDynamicUpdateSlice) {
    if (IsStateElement(out->operand(0), body, index)) return {out, out};
    return {};
  }
  int64_t output = -1;
  const Instruction* fusion = out;
  if (out->opcode() == Opcode::kGetTupleElement) {
    output = out->tuple_index();
    fusion = out->operand(0);
  }
  // The result of an asynchronous fusion is its done's.
  if (fusion->opcode() == Opcode::kAsyncDone && fusion->operand_count() == 1) {
    fusion = fusion->operand(0);
  }
  // A fusion, or XLA:GPU's asynchronous one in either form (hlo/async_chain.h).
  const Computation* fused = FusedComputationRunBy(*fusion);
  if (fused == nullptr) return {};
  const Instruction* fused_root = fused->root();
  if (output >= 0) {
    if (fused_root->opcode() != Opcode::kTuple || output >= fused_root->operand_count()) return {};
    fused_root = fused_root->operand(output);
  }
  const Instruction* dus = SkipBitcasts(fused_root);
  if (dus->opcode() != Opcode::kDynamicUpdateSlice) return {};
  const Instruction* param = SkipBitcasts(dus->operand(0));
  if (param->opcode() != Opcode::kParameter ||
      param->parameter_number() >= fusion->operand_count()) {
    return {};
  }
  if (!IsStateElement(fusion->operand(param->parameter_number()), body, index)) return {};
  return {dus, fusion};
}

// Whether `param` (a fused parameter) reaches a dynamic-slice's operand 0 through bitcasts.
bool FeedsDynamicSlice(const Instruction* param) {
  std::vector<const Instruction*> work = {param};
  while (!work.empty()) {
    const Instruction* in = work.back();
    work.pop_back();
    for (const Instruction* user : in->users()) {
      if (user->opcode() == Opcode::kDynamicSlice && user->operand(0) == in) return true;
      if (user->opcode() == Opcode::kBitcast) work.push_back(user);
    }
  }
  return false;
}

// Buffers some dynamic-slice reads (outside fusions, or through a fused parameter).
absl::flat_hash_set<BufferId> BuffersReadByDynamicSlice(const AliasAnalysis& alias) {
  absl::flat_hash_set<BufferId> read;
  const Module& module = alias.dataflow().module();
  absl::flat_hash_set<const Computation*> fused;
  for (const Computation* c : module.computations()) {
    for (const Instruction* in : c->instructions()) {
      if (const Computation* f = FusedComputationRunBy(*in); f != nullptr) {
        fused.insert(f);
        // A long-form async fusion's wrapped computation: its fusion is the start's.
        if (in->opcode() == Opcode::kAsyncStart && in->fused_computation() != f) {
          fused.insert(in->fused_computation());
        }
      }
    }
  }
  auto mark = [&](const Instruction& operand) {
    for (BufferId b : alias.BuffersAt(operand)) read.insert(b);
  };
  for (const Computation* c : module.computations()) {
    if (fused.contains(c)) continue;
    for (const Instruction* in : c->instructions()) {
      if (in->opcode() == Opcode::kDynamicSlice) {
        mark(*in->operand(0));
      } else if (const Computation* f = FusedComputationRunBy(*in); f != nullptr) {
        for (int64_t p = 0; p < f->parameter_count() && p < in->operand_count(); ++p) {
          if (FeedsDynamicSlice(f->parameter(p))) mark(*in->operand(p));
        }
      }
    }
  }
  return read;
}

}  // namespace

std::vector<StashBuffer> FindStashBuffers(const AliasAnalysis& alias,
                                          const std::function<int64_t(const Shape&)>& array_bytes,
                                          bool forward_only) {
  std::vector<StashBuffer> out;
  const Module& module = alias.dataflow().module();
  absl::flat_hash_set<BufferId> read;
  bool read_computed = false;
  for (const Computation* c : module.computations()) {
    for (const Instruction* loop : c->instructions()) {
      if (loop->opcode() != Opcode::kWhile || loop->while_body() == nullptr) continue;
      const Computation& body = *loop->while_body();
      const Shape& state = loop->shape();
      if (!state.IsTuple()) continue;
      for (int64_t k = 0; k < static_cast<int64_t>(state.tuple_elements.size()); ++k) {
        Write w = FindWrite(body, k);
        if (w.dus == nullptr) continue;
        const Shape& buf = w.dus->operand(0)->shape();
        const Shape& upd = w.dus->operand(1)->shape();
        if (!buf.IsArray() || buf.rank() != upd.rank() ||
            w.dus->operand_count() != 2 + buf.rank()) {
          continue;
        }
        auto is_constant = [&](int64_t d) {
          return w.dus->operand(2 + d)->opcode() == Opcode::kConstant;
        };
        int64_t mb = -1;
        for (int64_t d = 0; d < buf.rank(); ++d) {
          if (upd.dims[d] < buf.dims[d] && !is_constant(d)) {
            mb = d;
            break;
          }
        }
        if (mb < 0) continue;
        std::vector<BufferId> at = alias.BuffersAt(*loop, {k});
        if (at.empty()) continue;
        if (!read_computed) {
          read = BuffersReadByDynamicSlice(alias);
          // A forward-only program's backward runs as another program: the stash it returns
          // is read back there. (With a backward pass in the module, a returned per-microbatch
          // buffer is the stage's output to its neighbour, not a stash.)
          const Instruction* root = module.entry() ? module.entry()->root() : nullptr;
          if (forward_only && root != nullptr) {
            const DataflowAnalysis& flow = alias.dataflow();
            for (int32_t p = 0; p < flow.PositionCount(*root); ++p) {
              for (ValueId v : flow.ValuesAtPosition(*root, p)) read.insert(alias.BufferOf(v).id);
            }
          }
          read_computed = true;
        }
        StashBuffer s;
        s.read_back = read.contains(at.front());
        s.buffer = at.front();
        s.loop = loop;
        s.tuple_index = k;
        s.writer = w.writer;
        s.update_bytes = array_bytes(upd);
        s.slots = buf.dims[mb];
        const int64_t sd = mb + 1;
        if (sd < buf.rank() && is_constant(sd) &&
            (buf.dims[sd] == 1 || upd.dims[sd] < buf.dims[sd])) {
          s.stages = buf.dims[sd];
          s.stage_extent_of_update = upd.dims[sd] > 0 ? upd.dims[sd] : 1;
        }
        out.push_back(s);
      }
    }
  }
  // Rows nobody reads back still count when a multi-output fusion writes them together with
  // rows that are read: the step reserves them for the backward pass all the same.
  absl::flat_hash_set<const Instruction*> confirmed_writers;
  for (const StashBuffer& s : out) {
    if (s.read_back && FusedComputationRunBy(*s.writer) != nullptr) {
      confirmed_writers.insert(s.writer);
    }
  }
  std::erase_if(out, [&](const StashBuffer& s) {
    return !s.read_back && !confirmed_writers.contains(s.writer);
  });
  return out;
}

}  // namespace hloscope
