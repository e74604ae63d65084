#include "analysis/memory/xla_live_range.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "analysis/memory/instruction_sequence.h"
#include "fmt/format.h"
#include "hlo/computation.h"
#include "hlo/input_output_alias.h"

namespace hloscope {
namespace {

bool IsAsyncChainOp(const Instruction& in) {
  return in.opcode() == Opcode::kAsyncStart || in.opcode() == Opcode::kAsyncUpdate ||
         in.opcode() == Opcode::kAsyncDone;
}

// The async-start a chain op belongs to (operand 0 links update and done to what came before).
const Instruction* ChainStart(const Instruction* in) {
  while (in != nullptr && in->opcode() != Opcode::kAsyncStart) {
    if (!IsAsyncChainOp(*in) || in->operand_count() == 0) return nullptr;
    in = in->operand(0);
  }
  return in;
}

const Computation* WrappedComputation(const Instruction& in) {
  const Instruction* start = ChainStart(&in);
  if (start == nullptr) return nullptr;
  if (const Computation* c = start->CalledComputation(kAttrCalls)) return c;
  return start->called_computations().empty() ? nullptr : start->called_computations()[0];
}

// The async-done ending the chain `in` is part of, or nullptr.
const Instruction* ChainDone(const Instruction* in) {
  while (in != nullptr && in->opcode() != Opcode::kAsyncDone) {
    const Instruction* next = nullptr;
    for (const Instruction* u : in->users()) {
      if ((u->opcode() == Opcode::kAsyncUpdate || u->opcode() == Opcode::kAsyncDone) &&
          u->operand_count() > 0 && u->operand(0) == in) {
        next = u;
        break;
      }
    }
    in = next;
  }
  return in;
}

// Whether the chain op's operand tuple ({0}) holds every parameter of the wrapped computation
// and its result ({1}) is the computation's result; an async-done always has both.
bool FullyBound(const Instruction& in, const Computation& wrapped) {
  if (in.opcode() == Opcode::kAsyncDone) return true;
  const Shape& s = in.shape();
  if (!s.IsTuple() || s.tuple_elements.size() < 2) return false;
  const Shape& operands = *s.tuple_elements[0];
  if (!operands.IsTuple() ||
      static_cast<int64_t>(operands.tuple_elements.size()) != wrapped.parameter_count()) {
    return false;
  }
  for (int64_t i = 0; i < wrapped.parameter_count(); ++i) {
    if (!operands.tuple_elements[i]->Compatible(wrapped.parameter(i)->shape())) return false;
  }
  return wrapped.root() != nullptr && s.tuple_elements[1]->Compatible(wrapped.root()->shape());
}

bool IsFirstFullyBound(const Instruction& in, const Computation& wrapped) {
  if (!FullyBound(in, wrapped)) return false;
  if (in.opcode() == Opcode::kAsyncStart) return true;
  return in.operand_count() > 0 && IsAsyncChainOp(*in.operand(0)) &&
         !FullyBound(*in.operand(0), wrapped);
}

// XLA's MayUseOperandValue.
bool XlaMayUse(const Instruction& user, const ShapeIndex& index) {
  switch (user.opcode()) {
    case Opcode::kGetTupleElement:
    case Opcode::kCopy:
      return index.empty();
    case Opcode::kDomain:
    case Opcode::kTuple:
      return false;
    default:
      return true;
  }
}

class Flattener {
 public:
  Flattener(const Module& module, const XlaLiveRangeOptions& options, XlaLiveRanges& out)
      : module_(module), options_(options), out_(out) {}

  absl::Status Flatten(const Computation& c, const Computation* async_context) {
    if (!ThreadIncluded(c) || out_.span.contains(&c)) return absl::OkStatus();
    if (async_context != nullptr) in_async_context[&c] = async_context;
    const int64_t start = out_.end_time();
    out_.span[&c] = {start, start};  // marks it as being flattened (a callee cycle stops here)
    for (const Instruction* in : InstructionSequence(c, module_.is_scheduled())) {
      if (in->opcode() == Opcode::kCall || in->opcode() == Opcode::kConditional) {
        for (const Computation* callee : in->called_computations()) {
          if (absl::Status s = Flatten(*callee, async_context); !s.ok()) return s;
        }
      } else if (IsAsyncChainOp(*in)) {
        const Computation* wrapped = WrappedComputation(*in);
        // A wrapped form (`custom-call-start`, ...) has no computation of its own to flatten.
        if (wrapped != nullptr && IsFirstFullyBound(*in, *wrapped)) {
          if (absl::Status s = Flatten(*wrapped, wrapped); !s.ok()) return s;
        }
      } else if (in->opcode() == Opcode::kWhile) {
        for (const Computation* callee : {in->while_condition(), in->while_body()}) {
          if (callee == nullptr) continue;
          if (absl::Status s = Flatten(*callee, async_context); !s.ok()) return s;
        }
      }
      out_.time[in] = out_.end_time();
      out_.sequence.push_back(in);
    }
    out_.span[&c] = {start, out_.end_time()};
    return absl::OkStatus();
  }

  absl::flat_hash_map<const Computation*, const Computation*> in_async_context;

 private:
  bool ThreadIncluded(const Computation& c) const {
    if (options_.execution_threads.empty()) return true;
    const std::string_view thread = c.execution_thread().empty() ? "main" : c.execution_thread();
    return std::find(options_.execution_threads.begin(), options_.execution_threads.end(),
                     thread) != options_.execution_threads.end();
  }

  const Module& module_;
  const XlaLiveRangeOptions& options_;
  XlaLiveRanges& out_;
};

}  // namespace

absl::StatusOr<XlaLiveRanges> ComputeXlaLiveRanges(const Module& module, const AliasAnalysis& alias,
                                                   const XlaLiveRangeOptions& options) {
  XlaLiveRanges out;
  const Computation* entry = module.entry();
  if (entry == nullptr) {
    return absl::InvalidArgumentError(fmt::format("module '{}' has no entry", module.name()));
  }
  Flattener flattener(module, options, out);
  if (absl::Status s = flattener.Flatten(*entry, nullptr); !s.ok()) return s;

  const DataflowAnalysis& flow = alias.dataflow();
  const size_t n = flow.values().size();
  // Every position of every value, over the whole module (defining one included).
  struct Position {
    const Instruction* instruction;
    int32_t position;
  };
  std::vector<std::vector<Position>> positions(n);
  for (const Computation* c : module.computations()) {
    for (const Instruction* in : c->instructions()) {
      for (int32_t p = 0; p < flow.PositionCount(*in); ++p) {
        for (ValueId v : flow.ValuesAtPosition(*in, p)) positions[v].push_back({in, p});
      }
    }
  }
  absl::flat_hash_set<std::pair<int64_t, std::string>> donated;  // (parameter, index)
  for (const InputOutputAlias& a : module.input_output_aliases()) {
    donated.insert({a.parameter, ShapeIndexToString(a.parameter_index)});
  }
  auto time_of = [&](const Instruction* in) -> int64_t {
    auto it = out.time.find(in);
    return it == out.time.end() ? -1 : it->second;
  };
  auto last_use = [&](ValueId v) {
    int64_t end = -1;
    for (const Position& pos : positions[v]) {
      const ShapeIndex index = flow.IndexAt(*pos.instruction, pos.position);
      for (const Instruction* user : pos.instruction->users()) {
        bool uses = false;
        for (const Instruction* op : user->operands()) {
          if (op == pos.instruction && XlaMayUse(*user, index)) uses = true;
        }
        if (!uses) continue;
        const Instruction* at = user;
        if (user->opcode() == Opcode::kCall && user->to_apply() != nullptr &&
            out.span.contains(user->to_apply())) {
          continue;  // the callee's reads count instead
        }
        if (user->opcode() == Opcode::kWhile && user->while_body() != nullptr &&
            out.span.contains(user->while_body()) && user->while_body()->parameter_count() > 0) {
          at = user->while_body()->parameter(0);  // the init value ends where the body starts
        }
        end = std::max(end, time_of(at));
      }
    }
    return end;
  };

  out.ranges.assign(n, {});
  for (const Instruction* in : out.sequence) {
    const Computation* c = in->parent();
    const auto [span_start, span_end] = out.span.at(c);
    int64_t start = in->opcode() == Opcode::kParameter ? span_start : out.time.at(in);
    int64_t definition_end = in->IsRoot() ? span_end : out.time.at(in);
    if (auto it = flattener.in_async_context.find(c); it != flattener.in_async_context.end()) {
      // Every chain op calling the wrapped computation holds it open to its async-done, from
      // the start of the computation that holds the chain.
      for (const Computation* holder : module.computations()) {
        for (const Instruction* caller : holder->instructions()) {
          if (!IsAsyncChainOp(*caller) || WrappedComputation(*caller) != it->second) continue;
          const Instruction* done = ChainDone(caller);
          const int64_t done_time = done == nullptr ? -1 : time_of(done);
          definition_end = std::max(definition_end, done_time >= 0 ? done_time : span_end);
          if (auto outer = out.span.find(holder); outer != out.span.end()) {
            start = std::min(start, outer->second.first);
          }
        }
      }
    }
    for (int32_t p = 0; p < flow.PositionCount(*in); ++p) {
      const ShapeIndex index = flow.IndexAt(*in, p);
      const ValueId v = flow.ValueDefinedAt(*in, index);
      if (v == kNoValue) continue;
      int64_t end = definition_end;
      const Instruction* end_instruction = in;
      int32_t end_position = p;
      for (const Position& pos : positions[v]) {
        if (pos.instruction == in && pos.position == p) continue;
        int64_t t = -1;
        if (pos.instruction->IsRoot()) {
          auto s = out.span.find(pos.instruction->parent());
          if (s != out.span.end()) t = s->second.second;
        } else {
          t = time_of(pos.instruction);
        }
        if (t > end) {
          end = t;
          end_instruction = pos.instruction;
          end_position = pos.position;
        }
      }
      if (in->opcode() == Opcode::kParameter && c == entry &&
          !donated.contains({in->parameter_number(), ShapeIndexToString(index)})) {
        end = out.end_time();
      } else {
        end = std::max(end, last_use(v));
      }
      out.ranges[v] = {true, start, end, end_instruction, end_position};
    }
  }

  // Values of one buffer one after another: (start, end, id) order, each ending where the
  // next begins.
  absl::flat_hash_map<BufferId, std::vector<ValueId>> by_buffer;
  for (ValueId v = 0; v < n; ++v) {
    if (out.ranges[v].defined) by_buffer[alias.BufferOf(v).id].push_back(v);
  }
  for (auto& [buffer, values] : by_buffer) {
    std::sort(values.begin(), values.end(), [&](ValueId a, ValueId b) {
      return std::tie(out.ranges[a].start, out.ranges[a].end, a) <
             std::tie(out.ranges[b].start, out.ranges[b].end, b);
    });
    for (size_t i = 0; i + 1 < values.size(); ++i) {
      XlaLiveRange& first = out.ranges[values[i]];
      XlaLiveRange& second = out.ranges[values[i + 1]];
      second.end = std::max(first.end, second.end);
      first.end = std::min(first.end, second.start);
    }
  }
  return out;
}

}  // namespace hloscope
