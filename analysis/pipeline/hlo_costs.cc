#include "analysis/pipeline/hlo_costs.h"

#include <algorithm>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "analysis/trip_count.h"
#include "hlo/attribute_values.h"
#include "hlo/computation.h"
#include "hlo/str_util.h"
#include "re2/re2.h"

namespace hloscope::pipeline {
namespace {

using Dims = std::vector<int64_t>;

Dims DimsOf(const Shape& shape) { return Dims(shape.dims.begin(), shape.dims.end()); }

double DotFlops(const Instruction& dot) {
  const Shape& lhs = dot.operand(0)->shape();
  double contracted = 1;
  for (int64_t d : IntListAttribute(dot, "lhs_contracting_dims")) {
    if (d >= 0 && d < lhs.rank())
      contracted *= static_cast<double>(lhs.dims[static_cast<size_t>(d)]);
  }
  return 2.0 * static_cast<double>(dot.shape().ElementCount()) * contracted;
}

// The kernel's output-feature dimension is the position of 'o' in the kernel part of
// dim_labels (`b01f_01io->b01f`); every kernel element but those feeds each output element.
double ConvolutionFlops(const Instruction& conv) {
  const Shape& kernel = conv.operand(1)->shape();
  double per_output = static_cast<double>(kernel.ElementCount());
  if (std::optional<std::string_view> labels = RawAttribute(conv, "dim_labels")) {
    size_t first = labels->find('_');
    size_t arrow = labels->find("->");
    if (first != std::string_view::npos && arrow != std::string_view::npos && arrow > first) {
      std::string_view kernel_labels = labels->substr(first + 1, arrow - first - 1);
      size_t o = kernel_labels.find('o');
      if (o != std::string_view::npos && static_cast<int64_t>(o) < kernel.rank() &&
          kernel.dims[o] > 0) {
        per_output /= static_cast<double>(kernel.dims[o]);
      }
    }
  }
  return 2.0 * static_cast<double>(conv.shape().ElementCount()) * per_output;
}

bool IsContraction(const Instruction& instr) {
  return instr.opcode() == Opcode::kDot || instr.opcode() == Opcode::kConvolution;
}

// An entry parameter, or a loop-state element that the body root passes on unchanged
// (get-tuple-element of the body parameter at the same index).
bool IsWeight(const Instruction& instr) {
  if (instr.opcode() == Opcode::kParameter) return instr.parent()->is_entry();
  if (instr.opcode() != Opcode::kGetTupleElement) return false;
  const Instruction* param = instr.operand(0);
  if (param->opcode() != Opcode::kParameter || param->parent()->is_entry()) return false;
  const Instruction* root = param->parent()->root();
  if (root == nullptr || root->opcode() != Opcode::kTuple) return false;
  const int64_t index = instr.tuple_index();
  if (index < 0 || index >= root->operand_count()) return false;
  const Instruction* passed = root->operand(index);
  return passed->opcode() == Opcode::kGetTupleElement && passed->operand(0) == param &&
         passed->tuple_index() == index;
}

struct Contraction {
  const Instruction* instr;
  double flops;  // one execution
  double executions;
  bool backward;
};

class Counter {
 public:
  Counter(const RE2& backward) : backward_(backward) {}

  // Visits `c` executed `times` per microbatch; `in_loop` once inside a microbatch loop.
  void Visit(const Computation& c, double times, bool in_loop, StageFlops& out) {
    for (const Instruction* instr : c.instructions()) {
      if (instr->shape().IsArray() && IsWeight(*instr)) weights_.push_back(instr);
      if (IsContraction(*instr)) {
        double flops =
            instr->opcode() == Opcode::kDot ? DotFlops(*instr) : ConvolutionFlops(*instr);
        found_.push_back({instr, flops, times, IsBackward(*instr)});
        continue;
      }
      switch (instr->opcode()) {
        case Opcode::kWhile: {
          double inner = times;
          if (in_loop) {
            std::optional<int64_t> n = WhileTripCount(*instr);
            if (!n) ++out.unknown_trip_counts;
            inner *= static_cast<double>(n.value_or(1));
          }
          if (const Computation* body = instr->while_body()) Visit(*body, inner, true, out);
          break;
        }
        case Opcode::kConditional: {
          // The most expensive branch: count each into its own list, keep the largest.
          size_t before = found_.size();
          std::vector<Contraction> best;
          double best_flops = -1;
          for (const Computation* branch : instr->branch_computations()) {
            if (branch == nullptr) continue;
            Visit(*branch, times, in_loop, out);
            double sum = 0;
            for (size_t i = before; i < found_.size(); ++i)
              sum += found_[i].flops * found_[i].executions;
            if (sum > best_flops) {
              best_flops = sum;
              best.assign(found_.begin() + static_cast<std::ptrdiff_t>(before), found_.end());
            }
            found_.resize(before);
          }
          found_.insert(found_.end(), best.begin(), best.end());
          break;
        }
        default:
          // Fusions, calls, async wrappers: their computations run once per execution.
          // Reduce's and sort's to_apply hold scalar code, never a dot.
          for (const Computation* callee : instr->called_computations()) {
            if (callee != nullptr && instr->opcode() != Opcode::kReduce &&
                instr->opcode() != Opcode::kSort) {
              Visit(*callee, times, in_loop, out);
            }
          }
      }
    }
  }

  void Finish(StageFlops& out) const {
    absl::flat_hash_set<Dims> weight_dims;
    for (const Instruction* w : weights_) weight_dims.insert(DimsOf(w->shape()));
    for (const Contraction& k : found_) {
      const double total = k.flops * k.executions;
      ++out.dots;
      if (!k.backward) {
        out.forward += total;
      } else if (weight_dims.contains(DimsOf(k.instr->shape()))) {
        out.backward_weight += total;
      } else {
        out.backward_input += total;
      }
    }
  }

 private:
  bool IsBackward(const Instruction& instr) const {
    const Metadata* m = instr.metadata();
    if (m == nullptr || m->op_name.empty()) return false;
    return RE2::PartialMatch(re2::StringPiece(m->op_name.data(), m->op_name.size()), backward_);
  }

  const RE2& backward_;
  std::vector<Contraction> found_;
  std::vector<const Instruction*> weights_;
};

}  // namespace

absl::StatusOr<StageFlops> CountStageFlops(const Module& module, const FlopOptions& options) {
  RE2 backward(options.backward_regex, RE2::Quiet);
  if (!backward.ok()) {
    return absl::InvalidArgumentError(StrCat("bad backward regular expression '",
                                             options.backward_regex, "': ", backward.error()));
  }
  StageFlops out;
  if (module.entry() == nullptr) return out;
  Counter counter(backward);
  counter.Visit(*module.entry(), 1.0, false, out);
  counter.Finish(out);
  return out;
}

}  // namespace hloscope::pipeline
