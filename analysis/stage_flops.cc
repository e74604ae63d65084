#include "analysis/stage_flops.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "analysis/trip_count.h"
#include "hlo/attribute_values.h"
#include "hlo/computation.h"
#include "re2/re2.h"
#include "support/checked_int.h"
#include "support/str_util.h"

namespace hloscope {
namespace {

using Dims = std::vector<int64_t>;

Dims DimsOf(const Shape& shape) { return Dims(shape.dims.begin(), shape.dims.end()); }

double DotFlops(const Instruction& dot) {
  const Shape& lhs = dot.operand(0)->shape();
  double contracted = 1;
  for (int64_t d : ReadDotDimensionNumbers(dot).lhs_contracting) {
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

// Numbers of call paths grow as 2^depth (a computation called from two sites of a computation
// called from two sites runs four times); they stop at the largest int64 (SaturatingAdd).

// What one execution of a computation (with its callees) contributes.
struct Profile {
  struct Use {
    double executions = 0;  // times the contraction runs per microbatch
    int64_t sites = 0;      // call paths that reach it (each counted as one dot, as before)
  };
  absl::flat_hash_map<const Instruction*, Use> contractions;
  int64_t unknown_trip_counts = 0;  // per call path, like `sites`

  void Add(const Profile& callee, double times) {
    for (const auto& [instr, use] : callee.contractions) {
      Use& mine = contractions[instr];
      mine.executions += use.executions * times;
      mine.sites = SaturatingAdd(mine.sites, use.sites);
    }
    unknown_trip_counts = SaturatingAdd(unknown_trip_counts, callee.unknown_trip_counts);
  }
};

class Counter {
 public:
  Counter(const RE2& backward) : backward_(backward) {}

  // The profile of `c`, once per computation and loop context: a computation called from many
  // sites (fan-out call graphs, 2^40 paths in the hostile-input suite) is walked once.
  const Profile& Get(const Computation& c, bool in_loop) {
    const auto key = std::make_pair(&c, in_loop);
    if (auto it = memo_.find(key); it != memo_.end()) return *it->second;
    auto profile = std::make_unique<Profile>();
    Build(c, in_loop, *profile);
    return *memo_.emplace(key, std::move(profile)).first->second;
  }

  void Finish(const Profile& entry, StageFlops& out) const {
    absl::flat_hash_set<Dims> weight_dims;
    for (const Instruction* w : weights_) weight_dims.insert(DimsOf(w->shape()));
    for (const auto& [instr, use] : entry.contractions) {
      const double flops =
          instr->opcode() == Opcode::kDot ? DotFlops(*instr) : ConvolutionFlops(*instr);
      const double total = flops * use.executions;
      out.dots = SaturatingAdd(out.dots, use.sites);
      if (!IsBackward(*instr)) {
        out.forward += total;
      } else if (weight_dims.contains(DimsOf(instr->shape()))) {
        out.backward_weight += total;
      } else {
        out.backward_input += total;
      }
    }
    out.unknown_trip_counts = entry.unknown_trip_counts;
  }

 private:
  // `c` executed once; `in_loop` once inside a microbatch loop (the outermost while's body).
  void Build(const Computation& c, bool in_loop, Profile& out) {
    for (const Instruction* instr : c.instructions()) {
      if (instr->shape().IsArray() && IsWeight(*instr)) weights_.insert(instr);
      if (IsContraction(*instr)) {
        Profile::Use& use = out.contractions[instr];
        use.executions += 1;
        use.sites = SaturatingAdd(use.sites, 1);
        continue;
      }
      switch (instr->opcode()) {
        case Opcode::kWhile: {
          double inner = 1;
          if (in_loop) {
            std::optional<int64_t> n = WhileTripCount(*instr);
            if (!n) out.unknown_trip_counts = SaturatingAdd(out.unknown_trip_counts, 1);
            inner = static_cast<double>(n.value_or(1));
          }
          if (const Computation* body = instr->while_body()) out.Add(Get(*body, true), inner);
          break;
        }
        case Opcode::kConditional: {
          // The most expensive branch counts; every branch's unknown loops are reported.
          const Profile* best = nullptr;
          double best_flops = -1;
          for (const Computation* branch : instr->branch_computations()) {
            if (branch == nullptr) continue;
            const Profile& p = Get(*branch, in_loop);
            out.unknown_trip_counts = SaturatingAdd(out.unknown_trip_counts, p.unknown_trip_counts);
            double sum = 0;
            for (const auto& [k, use] : p.contractions) {
              sum += (k->opcode() == Opcode::kDot ? DotFlops(*k) : ConvolutionFlops(*k)) *
                     use.executions;
            }
            if (sum > best_flops) {
              best_flops = sum;
              best = &p;
            }
          }
          if (best != nullptr) {
            Profile chosen;
            chosen.contractions = best->contractions;  // unknown loops were added above
            out.Add(chosen, 1);
          }
          break;
        }
        default:
          // Fusions, calls, async wrappers: their computations run once per execution.
          // Reduce's and sort's to_apply hold scalar code, never a dot.
          for (const Computation* callee : instr->called_computations()) {
            if (callee != nullptr && instr->opcode() != Opcode::kReduce &&
                instr->opcode() != Opcode::kSort) {
              out.Add(Get(*callee, in_loop), 1);
            }
          }
      }
    }
  }

  bool IsBackward(const Instruction& instr) const {
    const Metadata* m = instr.metadata();
    if (m == nullptr || m->op_name.empty()) return false;
    return RE2::PartialMatch(re2::StringPiece(m->op_name.data(), m->op_name.size()), backward_);
  }

  const RE2& backward_;
  absl::flat_hash_map<std::pair<const Computation*, bool>, std::unique_ptr<Profile>> memo_;
  absl::flat_hash_set<const Instruction*> weights_;
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
  counter.Finish(counter.Get(*module.entry(), false), out);
  return out;
}

}  // namespace hloscope
