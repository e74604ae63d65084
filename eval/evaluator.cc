// The interpreter's driver: walks computations in operand order, hands array work to the
// kernels (kernels.h) and, in buffer mode, keeps every value in the storage of its HloBuffer.
#include "eval/evaluator.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <iterator>
#include <memory>
#include <optional>
#include <thread>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "analysis/alias.h"
#include "analysis/memory/instruction_sequence.h"
#include "eval/batch_norm.h"
#include "eval/block_scaled_dot.h"
#include "eval/buffers.h"
#include "eval/channel_order.h"
#include "eval/collectives.h"
#include "eval/custom_calls.h"
#include "eval/dynamic_shapes.h"
#include "eval/element_io.h"
#include "eval/elided_constants.h"
#include "eval/inplace_permute.h"
#include "eval/kernels.h"
#include "eval/layout_util.h"
#include "eval/mixed_precision.h"
#include "eval/opaque_custom_call.h"
#include "eval/operand_checks.h"
#include "eval/replicas.h"
#include "eval/rng.h"
#include "eval/scalar_signature.h"
#include "eval/scan.h"
#include "eval/send_recv_pairs.h"
#include "eval/sparse_convolution.h"
#include "eval/wrapped_ops.h"
#include "hlo/async_chain.h"
#include "hlo/attribute_values.h"
#include "hlo/computation.h"
#include "hlo/input_output_alias.h"
#include "support/checked_int.h"
#include "support/option_error.h"
#include "support/status_text.h"
#include "support/str_util.h"

namespace hloscope::eval {
namespace {

// A run-time value: an array's bytes (physical order of `shape`) or a tuple of values. In value
// mode bytes are never written after creation, so values may share them freely; in buffer mode
// an array's bytes are its buffer's storage.
struct Value {
  const Shape* shape = nullptr;
  std::shared_ptr<Bytes> bytes;
  std::shared_ptr<const std::vector<Value>> elements;
  // A dynamic array's valid sizes (eval/dynamic_shapes.h); null: every dimension at its bound.
  std::shared_ptr<const DynamicSizes> sizes = nullptr;
};

// Computations nested deeper than this (call, while, conditional, fusion, to_apply) are
// refused: each level is a few native stack frames, and a 30,000-deep call chain would overflow
// the stack. Real modules nest a few dozen levels; 256 levels also fit the 8 MiB stack under
// ASan, whose frames are several times larger (1000 did not).
constexpr int64_t kMaxNestingDepth = 256;

absl::Status UnsupportedOpcode(const Instruction& instr) {
  return absl::UnimplementedError(StrCat("the interpreter does not support opcode '",
                                         instr.PrintedOpcode(), "' (instruction %", instr.name(),
                                         ")"));
}

absl::Status UnsupportedCustomCallTarget(const Instruction& instr) {
  return absl::UnimplementedError(StrCat("the interpreter does not support custom-call target '",
                                         instr.custom_call_target(), "' (instruction %",
                                         instr.name(), ")"));
}

// The refusal of custom-call (or custom-call-start) `instr`, lifted by custom_calls when the
// opaque mode would run it (eval/opaque_custom_call.h).
absl::Status RefusedCustomCall(const Instruction& instr, const EvalOptions& options) {
  EvalOptions opaque = options;
  opaque.custom_calls = CustomCalls::kOpaque;
  if (RunnableCustomCall(instr, opaque) != CustomCallRun::kOpaque) {
    return UnsupportedCustomCallTarget(instr);
  }
  return LiftedByOption(UnsupportedCustomCallTarget(instr), "custom_calls");
}

// The algorithm rng-bit-generator's rng_default runs as; "" (refused) by default.
std::string_view RngDefaultAlgorithm(RngDefault mode) {
  switch (mode) {
    case RngDefault::kPhilox:
      return "rng_philox";
    case RngDefault::kThreeFry:
      return "rng_three_fry";
    case RngDefault::kRefuse:
      break;
  }
  return "";
}

bool IsForwarding(Opcode op) {
  switch (op) {
    case Opcode::kTuple:
    case Opcode::kGetTupleElement:
    case Opcode::kBitcast:
    case Opcode::kOptBarrier:
    case Opcode::kDomain:
    case Opcode::kAddDependency:
    case Opcode::kCall:
    case Opcode::kWhile:
    case Opcode::kConditional:
      return true;
    default:
      return false;
  }
}

// Collectives, async pairs, channels, replica/partition ids and custom-calls: the opcodes
// EvalAsyncOrCollective runs (evaluator_async.inc), listed once for the dispatch and for
// IsSupportedOpcode.
bool IsAsyncOrCollective(Opcode op) {
  switch (op) {
    case Opcode::kCollectivePermute:
    case Opcode::kCollectivePermuteStart:
    case Opcode::kCollectivePermuteDone:
    case Opcode::kAllReduce:
    case Opcode::kAllReduceStart:
    case Opcode::kAllReduceDone:
    case Opcode::kAllGather:
    case Opcode::kAllGatherStart:
    case Opcode::kAllGatherDone:
    case Opcode::kReduceScatter:
    case Opcode::kAllToAll:
    case Opcode::kRaggedAllToAll:
    case Opcode::kCollectiveBroadcast:
    case Opcode::kReplicaId:
    case Opcode::kPartitionId:
    case Opcode::kAfterAll:
    case Opcode::kAddDependency:
    case Opcode::kAsyncStart:
    case Opcode::kAsyncUpdate:
    case Opcode::kAsyncDone:
    case Opcode::kCopyStart:
    case Opcode::kCopyDone:
    case Opcode::kSend:
    case Opcode::kSendDone:
    case Opcode::kRecv:
    case Opcode::kRecvDone:
    case Opcode::kCustomCall:
      return true;
    default:
      return false;
  }
}

// infeed and outfeed: run only with EvalOptions::host_io == kSeeded (eval/host_io.h).
bool IsHostIoOpcode(Opcode op) { return op == Opcode::kInfeed || op == Opcode::kOutfeed; }

// Saturates at kInt64Max (a sum that does not fit is more than any --max-bytes).
int64_t LeafBytes(const Shape& shape) {
  if (shape.IsArray()) return DenseBytes(shape);
  int64_t n = 0;
  for (const Shape* e : shape.tuple_elements) n = SaturatingAdd(n, LeafBytes(*e));
  return n;
}

// Whether hlo-run runs `<op>-start` (the async wrapper written with the wrapped op's name):
// calls, fusions (calls= names the fused computation), collectives, known custom-calls,
// slice, dynamic-slice, dynamic-update-slice and dot (eval/wrapped_ops.h) and elementwise ops whose
// meaning needs no attribute (compare's direction is not kept for the wrapped op).
bool IsRunnableWrapped(const Instruction& instr, const EvalOptions& options) {
  switch (instr.async_wrapped_opcode()) {
    case Opcode::kOpcodeCount:
    case Opcode::kCall:
    case Opcode::kFusion:
    case Opcode::kAllReduce:
    case Opcode::kAllGather:
    case Opcode::kReduceScatter:
    case Opcode::kAllToAll:
    case Opcode::kCollectiveBroadcast:
    case Opcode::kCollectivePermute:
      return true;
    case Opcode::kCustomCall:
      // The target is on the start; its -update and -done follow it.
      return instr.opcode() != Opcode::kAsyncStart ||
             RunnableCustomCall(instr, options) != CustomCallRun::kRefused;
    case Opcode::kCompare:
      return false;
    default:
      return IsSupportedElementwise(instr.async_wrapped_opcode()) ||
             IsWrappedArrayOp(instr.async_wrapped_opcode());
  }
}

// The collective-permute form that writes slices of its input into an output operand at
// offsets (slice_sizes=, tuple offsets). Several array operands without them are a combined
// permute: each operand permuted into its own result, which EvalCollective runs.
bool IsInPlaceCollectivePermute(const Instruction& instr) {
  if (instr.operand_count() == 1) return false;
  if (RawAttribute(instr, "slice_sizes").has_value() || !instr.dynamic_slice_sizes().empty()) {
    return true;
  }
  for (const Instruction* o : instr.operands()) {
    if (!o->shape().IsArray()) return true;
  }
  return false;
}

absl::Status CheckSupported(const Module& module, const EvalOptions& options) {
  for (const Computation* c : module.computations()) {
    for (const Instruction* instr : c->instructions()) {
      if (instr->opcode() == Opcode::kAsyncStart &&
          instr->async_wrapped_opcode() == Opcode::kCustomCall &&
          !IsRunnableWrapped(*instr, options)) {
        // custom-call-start: refused by its target, as the custom-call itself would be.
        return RefusedCustomCall(*instr, options);
      }
      if (IsHostIoOpcode(instr->opcode()) && options.host_io != HostIo::kSeeded) {
        return LiftedByOption(UnsupportedOpcode(*instr), "host_io");
      }
      if ((!IsSupportedOpcode(instr->opcode()) && !IsHostIoOpcode(instr->opcode())) ||
          !IsRunnableWrapped(*instr, options)) {
        return UnsupportedOpcode(*instr);
      }
      if (absl::Status s = CheckElidedConstant(*instr, options); !s.ok()) return s;
      if (instr->opcode() == Opcode::kCustomCall &&
          RunnableCustomCall(*instr, options) == CustomCallRun::kRefused) {
        return RefusedCustomCall(*instr, options);
      }
      if ((instr->opcode() == Opcode::kCollectivePermute ||
           instr->opcode() == Opcode::kCollectivePermuteStart) &&
          IsInPlaceCollectivePermute(*instr)) {
        absl::Status layout = CheckInPlacePermuteLayout(*instr);
        if (!layout.ok()) return layout;
      }
      if (instr->opcode() == Opcode::kRng && !options.rng_seed.has_value()) {
        return LiftedByOption(
            absl::UnimplementedError(StrCat(
                "the interpreter runs rng only with a seed (instruction %", instr->name(),
                "): XLA draws it from an engine seeded with the module's seed, and from a random "
                "one without")),
            "rng_seed");
      }
      absl::Status bad_type;
      ForEachSubshape(instr->shape(), [&](const Shape& s, const ShapeIndex&) {
        if (bad_type.ok() && (s.IsArray() || s.element_type == PrimitiveType::kOpaque) &&
            !IsSupportedElementType(s.element_type)) {
          bad_type = absl::UnimplementedError(
              StrCat("the interpreter does not support element type '",
                     PrimitiveTypeName(s.element_type), "' (instruction %", instr->name(), ")"));
        }
        if (bad_type.ok() && HasUnboundedDimension(s)) {
          bad_type = absl::UnimplementedError(
              StrCat("the interpreter does not support dynamic shapes with unbounded (?) "
                     "dimensions (instruction %",
                     instr->name(), ")"));
        }
      });
      if (!bad_type.ok()) return bad_type;
    }
  }
  return CheckBufferUses(module);
}

}  // namespace

int64_t RequiredBytes(const Module& module) {
  int64_t total = 0;
  for (const Computation* c : module.computations()) {
    for (const Instruction* instr : c->instructions()) {
      if (IsForwarding(instr->opcode())) continue;
      if (instr->opcode() == Opcode::kParameter && !c->is_entry()) continue;
      if (instr->opcode() == Opcode::kCopy && instr->shape().IsTuple()) continue;
      total = SaturatingAdd(total, LeafBytes(instr->shape()));
    }
  }
  return total;
}

namespace {

class Evaluator {
 public:
  Evaluator(const Module& module, const EvalOptions& options)
      : module_(module),
        options_(options),
        host_channels_(module),
        outside_reads_(options.host_io_seed) {
    if (options.rng_seed) rng_engine_.seed(*options.rng_seed);
  }

  // Runs as replica `replica` of `count`, meeting the others' collectives at `rendezvous`.
  void SetReplica(int64_t replica, int64_t count, Rendezvous* rendezvous) {
    replica_ = replica;
    replica_count_ = count;
    rendezvous_ = rendezvous;
  }

  absl::StatusOr<Literal> Run(absl::Span<const Literal> arguments) {
    const Computation& entry = *module_.entry();
    if (static_cast<int64_t>(arguments.size()) != entry.parameter_count()) {
      return absl::InvalidArgumentError(StrCat("the entry computation takes ",
                                               entry.parameter_count(), " parameters but ",
                                               arguments.size(), " arguments were given"));
    }
    std::vector<Value> args;
    for (int64_t i = 0; i < entry.parameter_count(); ++i) {
      const Instruction& p = *entry.parameter(i);
      const Literal& a = arguments[static_cast<size_t>(i)];
      if (!a.shape().Compatible(p.shape())) {
        return absl::InvalidArgumentError(
            StrCat("argument ", i, " has shape ", a.shape().ToString(false), " but parameter %",
                   p.name(), " has shape ", p.shape().ToString(false)));
      }
      Value v = ToValue(a, p.shape());
      if (!a.dynamic_sizes().empty()) v = WithSizes(std::move(v), a.dynamic_sizes());
      args.push_back(std::move(v));
    }
    if (options_.mode == EvalMode::kBuffer) {
      absl::StatusOr<std::unique_ptr<AliasAnalysis>> aa =
          AliasAnalysis::Run(module_, options_.dataflow);
      if (!aa.ok()) {
        return absl::Status(aa.status().code(),
                            StrCat("buffer mode needs the alias analysis, which failed: ",
                                   StatusText(aa.status())));
      }
      alias_ = std::move(*aa);
      donated_.assign(module_.input_output_aliases().begin(), module_.input_output_aliases().end());
      for (const HloBuffer& b : alias_->buffers()) {
        int64_t bytes = 0;
        for (ValueId v : b.values) {
          const Shape* s = alias_->dataflow().value(v).shape;
          if (s != nullptr && s->IsArray()) bytes = std::max(bytes, DenseBytes(*s));
        }
        storage_.push_back(std::make_shared<Bytes>(static_cast<size_t>(bytes), 0));
        if (options_.read_only_overwrites != nullptr) {
          std::vector<const Instruction*>& read_only = read_only_in_buffer_.emplace_back();
          for (ValueId v : b.values) {
            const HloValue& value = alias_->dataflow().value(v);
            if (!value.is_phi && IsReadOnly(*value.instruction, value.index)) {
              read_only.push_back(value.instruction);
            }
          }
        }
      }
    }
    absl::StatusOr<Value> out = RunComputation(entry, args, options_.mode == EvalMode::kBuffer);
    if (!out.ok()) return out.status();
    if (options_.read_only_overwrites != nullptr) {
      std::vector<std::string>& names = *options_.read_only_overwrites;
      names.clear();
      for (const Instruction* r : overwritten_read_only_) names.push_back(StrCat("%", r->name()));
      std::sort(names.begin(), names.end());
    }
    if (options_.outside_writes != nullptr) *options_.outside_writes = std::move(outside_writes_);
    return ToLiteral(*out);
  }

 private:
  static Value ToValue(const Literal& lit, const Shape& target) {
    Value v;
    v.shape = &target;
    if (target.IsArray()) {
      v.bytes = std::make_shared<Bytes>(static_cast<size_t>(DenseBytes(target)));
      Relayout(lit.shape(), lit.data().data(), target, v.bytes->data());
    } else if (target.IsTuple()) {
      auto elements = std::make_shared<std::vector<Value>>();
      for (size_t i = 0; i < target.tuple_elements.size(); ++i) {
        elements->push_back(ToValue(lit.elements()[i], *target.tuple_elements[i]));
      }
      v.elements = std::move(elements);
    } else if (target.IsBuffer()) {  // `lit` is the array the buffer holds
      v.elements =
          std::make_shared<const std::vector<Value>>(1, ToValue(lit, *target.tuple_elements[0]));
    }
    return v;
  }

  // A buffer b(T) gives the array it holds (written: see UnwrittenBuffer).
  static Literal ToLiteral(const Value& v) {
    if (v.shape->IsBuffer()) return ToLiteral((*v.elements)[0]);
    if (v.shape->IsTuple()) {
      std::vector<Literal> elements;
      for (const Value& e : *v.elements) elements.push_back(ToLiteral(e));
      return Literal::MakeTuple(std::move(elements));
    }
    if (!v.shape->IsArray()) return Literal::Zeros(*v.shape);
    auto n = static_cast<size_t>(DenseBytes(*v.shape));
    Literal lit = Literal::FromBytes(
        *v.shape, Bytes(v.bytes->begin(), v.bytes->begin() + static_cast<std::ptrdiff_t>(n)));
    // As XLA's Literal: sizes only on a dynamic shape, a static dimension at its size (an
    // output declared static is the whole array, padding included).
    if (v.shape->IsDynamic()) lit.set_dynamic_sizes(OutputSizes(*v.shape, SizesOf(v)));
    return lit;
  }

  static Value ArrayValue(const Instruction& instr, Bytes bytes) {
    return Value{instr.shape_ptr(), std::make_shared<Bytes>(std::move(bytes)), nullptr};
  }

  // Text order made topological (the memory profiler's order for unscheduled modules): the
  // schedule itself when the text is one, and never an instruction before its operands.
  const std::vector<const Instruction*>& Order(const Computation& c) {
    auto [it, inserted] = orders_.try_emplace(&c);
    if (inserted) it->second = OrderSendsBeforeRecvs(InstructionSequence(c, /*scheduled=*/false));
    return it->second;
  }

  // Counts one level of nesting while a computation runs (see kMaxNestingDepth).
  struct NestingLevel {
    explicit NestingLevel(int64_t& depth) : depth(++depth) {}
    ~NestingLevel() { --depth; }
    int64_t& depth;
  };

  absl::StatusOr<Value> RunComputation(const Computation& c, absl::Span<const Value> params,
                                       bool buffered) {
    NestingLevel level(depth_);
    if (depth_ > kMaxNestingDepth) {
      return absl::ResourceExhaustedError(
          StrCat("computation ", c.name(), " is nested more than ", kMaxNestingDepth,
                 " levels deep (calls, loops, conditionals and fusions inside each other)"));
    }
    if (static_cast<int64_t>(params.size()) != c.parameter_count()) {
      return absl::InvalidArgumentError(StrCat("computation ", c.name(), " takes ",
                                               c.parameter_count(),
                                               " parameters but is called with ", params.size()));
    }
    absl::flat_hash_map<const Instruction*, Value> env;
    // Parameters hold their values before anything runs, wherever the text lists them: in
    // buffer mode a donated parameter listed after an instruction that shares its buffer
    // must not overwrite that instruction's result with the argument.
    for (const Instruction* instr : c.parameters()) {
      ++steps_;  // counted as when they ran in order; the budget is checked at the next step
      Value v = params[static_cast<size_t>(instr->parameter_number())];
      if (v.shape != instr->shape_ptr() && !v.shape->Compatible(instr->shape())) {
        return absl::InvalidArgumentError(StrCat("cannot run %", instr->name(), ": it receives ",
                                                 v.shape->ToString(false), " but has shape ",
                                                 instr->shape().ToString(false)));
      }
      if (buffered) {
        ShapeIndex index;
        Place(*instr, v, index);
      }
      env[instr] = std::move(v);
    }
    std::vector<Value> ops;
    for (const Instruction* instr : Order(c)) {
      if (instr->opcode() == Opcode::kParameter) continue;  // bound above
      // One budget for the whole run, not per loop: 200 nested 2-trip loops or a call graph
      // that fans out to 2^40 call sites would otherwise run for ever.
      if (++steps_ > options_.max_steps) {
        return LiftedByOption(
            absl::ResourceExhaustedError(StrCat("the run evaluated more than ", options_.max_steps,
                                                " instructions; stopped at %", instr->name(),
                                                " in computation ", c.name())),
            "max_steps");
      }
      ops.clear();
      for (const Instruction* o : instr->operands()) ops.push_back(env.at(o));
      absl::StatusOr<Value> r = Eval(*instr, ops, buffered);
      if (!r.ok()) return r.status();
      Value v = std::move(*r);
      if (buffered) {
        ShapeIndex index;
        Place(*instr, v, index);
      }
      env[instr] = std::move(v);
    }
    return env.at(c.root());
  }

  // Buffer mode: every array that `instr` defines is written into its buffer's storage, and the
  // value then refers to that storage. Forwarded arrays already refer to it.
  // A buffer b(T) is one position for the dataflow analysis (XLA's b(T) is one leaf), so its
  // array goes to the storage of the buffer's own position: the storage its in-place pairs
  // share with the pinned array (Pin, the custom-calls that update it, Unpin).
  void Place(const Instruction& instr, Value& v, ShapeIndex& index) {
    if (v.shape->IsTuple() || v.shape->IsBuffer()) {
      if (v.elements == nullptr) return;
      const bool buffer = v.shape->IsBuffer();
      std::vector<Value> elements = *v.elements;
      bool changed = false;
      for (size_t i = 0; i < elements.size(); ++i) {
        if (!buffer) index.push_back(static_cast<int64_t>(i));
        std::shared_ptr<Bytes> before = elements[i].bytes;
        Place(instr, elements[i], index);
        changed |= elements[i].bytes != before || !elements[i].shape->IsArray();
        if (!buffer) index.pop_back();
      }
      if (changed) v.elements = std::make_shared<const std::vector<Value>>(std::move(elements));
      return;
    }
    if (!v.shape->IsArray() || v.bytes == nullptr || IsReadOnly(instr, index)) return;
    ValueId id = alias_->dataflow().ValueDefinedAt(instr, index);
    if (id == kNoValue) return;
    const BufferId buffer = alias_->BufferOf(id).id;
    std::shared_ptr<Bytes>& storage = storage_[buffer];
    if (storage == v.bytes) return;
    if (buffer < read_only_in_buffer_.size()) {
      overwritten_read_only_.insert(read_only_in_buffer_[buffer].begin(),
                                    read_only_in_buffer_[buffer].end());
    }
    auto n = static_cast<size_t>(DenseBytes(*v.shape));
    if (storage->size() < n) storage->resize(n);
    // The result was computed into its own bytes first, so an op whose output buffer is one
    // of its inputs has read them all before this write.
    // Not for 0 bytes: an empty array's vectors may hold null pointers (UB for memcpy).
    if (n > 0) std::memcpy(storage->data(), v.bytes->data(), n);
    v.bytes = storage;
  }

  // Constants and the entry parameters that no output aliases (input_output_alias) are
  // read-only on a device: nothing is ever written over them, so they keep their own bytes
  // even when the alias analysis puts them in a buffer with values that are written (XLA's
  // copy insertion copies them first). Every other value of that buffer uses its storage.
  bool IsReadOnly(const Instruction& instr, const ShapeIndex& index) const {
    if (instr.opcode() == Opcode::kConstant) return true;
    if (instr.opcode() != Opcode::kParameter || !instr.parent()->is_entry()) return false;
    for (const InputOutputAlias& a : donated_) {
      if (a.parameter == instr.parameter_number() && a.parameter_index == index) return false;
    }
    return true;
  }

  absl::StatusOr<std::vector<Scalar>> ApplyScalar(const Computation& comp,
                                                  absl::Span<const Scalar> args) {
    const Instruction* root = comp.root();
    if (static_cast<int64_t>(args.size()) != comp.parameter_count()) {
      return CheckScalarSignature(comp, args.size());
    }
    // Fast path: a single binary op on the two parameters (add, maximum, ...).
    if (args.size() == 2 && root->shape().IsArray() && root->shape().rank() == 0 &&
        root->operand_count() == 2 && IsSupportedElementwise(root->opcode()) &&
        root->opcode() != Opcode::kCompare && root->opcode() != Opcode::kSelect &&
        root->operand(0)->opcode() == Opcode::kParameter &&
        root->operand(1)->opcode() == Opcode::kParameter &&
        root->shape().element_type == root->operand(0)->shape().element_type) {
      size_t a = static_cast<size_t>(root->operand(0)->parameter_number());
      size_t b = static_cast<size_t>(root->operand(1)->parameter_number());
      return std::vector<Scalar>{
          ApplyBinary(root->opcode(), root->shape().element_type, args[a], args[b])};
    }
    if (absl::Status s = CheckScalarSignature(comp, args.size()); !s.ok()) return s;
    std::vector<Value> params;
    for (size_t i = 0; i < args.size(); ++i) {
      const Shape& s = comp.parameter(static_cast<int64_t>(i))->shape();
      auto bytes = std::make_shared<Bytes>(static_cast<size_t>(ElementBytes(s.element_type)));
      StoreScalar(s.element_type, bytes->data(), args[i]);
      params.push_back(Value{&s, std::move(bytes), nullptr});
    }
    absl::StatusOr<Value> r = RunComputation(comp, params, /*buffered=*/false);
    if (!r.ok()) return r.status();
    std::vector<Scalar> out;
    if (r->shape->IsTuple()) {
      for (const Value& e : *r->elements)
        out.push_back(LoadScalar(e.shape->element_type, e.bytes->data()));
    } else {
      out.push_back(LoadScalar(r->shape->element_type, r->bytes->data()));
    }
    return out;
  }

  // The kernels that call scalar computations (to_apply, select, scatter); one result per
  // output.
  absl::StatusOr<std::vector<Bytes>> EvalWithComputations(const Instruction& instr,
                                                          absl::Span<const ArrayRef> arrays) {
    auto scalar_fn = [this](const Computation* c) -> ScalarComputation {
      return [this, c](absl::Span<const Scalar> args) { return ApplyScalar(*c, args); };
    };
    switch (instr.opcode()) {
      case Opcode::kScatter:
        return EvalScatter(instr, arrays, scalar_fn(instr.to_apply()));
      case Opcode::kMap: {
        absl::StatusOr<Bytes> r = EvalMap(instr, arrays, scalar_fn(instr.to_apply()));
        if (!r.ok()) return r.status();
        return std::vector<Bytes>{std::move(*r)};
      }
      case Opcode::kTopk:
        return EvalTopK(instr, arrays);
      case Opcode::kRngBitGenerator:
        return EvalRngBitGenerator(instr, arrays, RngDefaultAlgorithm(options_.rng_default));
      case Opcode::kReduceWindow:
        return EvalReduceWindow(instr, arrays, scalar_fn(instr.to_apply()));
      case Opcode::kSort: {
        const Computation* compare = instr.to_apply();
        if (compare == nullptr) compare = instr.CalledComputation(kAttrComparator);
        if (compare == nullptr) {
          return absl::InvalidArgumentError(
              StrCat("cannot run %", instr.name(), ": sort needs a comparator (to_apply=)"));
        }
        return EvalSort(instr, arrays, scalar_fn(compare));
      }
      case Opcode::kSelectAndScatter: {
        const Computation* select = instr.CalledComputation(kAttrSelect);
        const Computation* scatter = instr.CalledComputation(kAttrScatter);
        if (select == nullptr || scatter == nullptr) {
          return absl::InvalidArgumentError(StrCat(
              "cannot run %", instr.name(), ": select-and-scatter needs select= and scatter="));
        }
        absl::StatusOr<Bytes> r =
            EvalSelectAndScatter(instr, arrays, scalar_fn(select), scalar_fn(scatter));
        if (!r.ok()) return r.status();
        return std::vector<Bytes>{std::move(*r)};
      }
      default:
        return EvalReduce(instr, arrays, scalar_fn(instr.to_apply()));
    }
  }

  absl::StatusOr<Value> Eval(const Instruction& instr, absl::Span<const Value> ops, bool buffered) {
    std::vector<Value> converted;  // mixed precision's operands (eval/mixed_precision.h)
    if (absl::StatusOr<bool> mixed = ConvertMixedPrecision(instr, ops, converted); !mixed.ok()) {
      return mixed.status();
    } else if (*mixed) {
      ops = converted;
    }
    std::vector<ArrayRef> arrays;
    for (const Value& o : ops)
      arrays.push_back(ArrayRef{o.shape, o.bytes ? o.bytes->data() : nullptr});
    Opcode op = instr.opcode();
    if (NeedsDynamicEval(instr, ops)) return EvalDynamic(instr, ops, buffered);
    if (IsBufferOp(instr)) return EvalBuffer(instr, ops);
    if (IsAsyncOrCollective(op)) return EvalAsyncOrCollective(instr, ops, buffered);
    switch (op) {
      case Opcode::kConstant: {
        auto [it, inserted] = constants_.try_emplace(&instr);
        if (inserted) {
          absl::StatusOr<Literal> lit = ConstantValue(instr, options_);
          if (!lit.ok()) {
            constants_.erase(&instr);
            return absl::InvalidArgumentError(
                StrCat("constant %", instr.name(), ": ", StatusText(lit.status())));
          }
          it->second = ToValue(*lit, instr.shape());
        }
        return it->second;
      }
      case Opcode::kTuple:
        return Value{instr.shape_ptr(), nullptr,
                     std::make_shared<const std::vector<Value>>(ops.begin(), ops.end())};
      case Opcode::kGetTupleElement:
        return (*ops[0].elements)[static_cast<size_t>(instr.tuple_index())];
      case Opcode::kBitcast:
        // XLA's evaluator lets a bitcast shrink (HandleBitcast: the backend's buffer sizes may
        // agree where the dense sizes do not) and reads the first bytes; it may not grow.
        if (DenseBytes(instr.shape()) > DenseBytes(*ops[0].shape)) {
          return absl::InvalidArgumentError(
              StrCat("bitcast %", instr.name(), " grows the size from ", DenseBytes(*ops[0].shape),
                     " to ", DenseBytes(instr.shape()), " bytes"));
        }
        // The same bytes (their first ones) read under the new shape and layout.
        return Value{instr.shape_ptr(), ops[0].bytes, nullptr};
      case Opcode::kOptBarrier:
      case Opcode::kDomain:  // a sharding-domain marker: its operand, unchanged
        return ops[0];
      case Opcode::kCopy:
        if (instr.shape().IsTuple()) {
          // XLA's HandleCopy clones a tuple unconverted, after checking the shapes agree.
          if (!instr.shape().Compatible(*ops[0].shape)) {
            return absl::InvalidArgumentError(
                StrCat("cannot run %", instr.name(), ": copy of ", ops[0].shape->ToString(false),
                       " to ", instr.shape().ToString(false),
                       " changes element types inside a tuple, which XLA's evaluator does not"));
          }
          return Value{instr.shape_ptr(), nullptr, ops[0].elements};
        }
        break;
      case Opcode::kCall:
        return RunComputation(*instr.to_apply(), ops, buffered);
      case Opcode::kScan:
        return EvalScanOp(instr, arrays);
      case Opcode::kFusion:
        // A fusion's inside lives in registers: evaluated by value, its outputs then stored.
        return RunComputation(*instr.fused_computation(), ops, /*buffered=*/false);
      case Opcode::kWhile: {
        Value state = ops[0];
        // Endless loops (a broken pass can make one) end on the run's step budget.
        for (;;) {
          absl::StatusOr<Value> go = RunComputation(*instr.while_condition(), {state}, buffered);
          if (!go.ok()) return go.status();
          if (LoadInt(PrimitiveType::kPred, go->bytes->data()) == 0) break;
          absl::StatusOr<Value> next = RunComputation(*instr.while_body(), {state}, buffered);
          if (!next.ok()) return next.status();
          state = std::move(*next);
        }
        return state;
      }
      case Opcode::kConditional: {
        std::vector<Computation*> branches = instr.branch_computations();
        const Value& selector = ops[0];
        int64_t n = static_cast<int64_t>(branches.size());
        int64_t b;
        if (selector.shape->element_type == PrimitiveType::kPred) {
          b = LoadInt(PrimitiveType::kPred, selector.bytes->data()) != 0 ? 0 : 1;
        } else {
          b = LoadInt(selector.shape->element_type, selector.bytes->data());
          if (b < 0 || b >= n) b = n - 1;  // out-of-range indices run the last branch
        }
        return RunComputation(*branches[static_cast<size_t>(b)], {ops[static_cast<size_t>(b + 1)]},
                              buffered);
      }
      case Opcode::kRngGetAndUpdateState:
        return RngGetAndUpdateState(instr);
      case Opcode::kInfeed:
        return EvalInfeed(instr);
      case Opcode::kOutfeed:
        return EvalOutfeed(instr, ops);
      case Opcode::kRng: {
        absl::StatusOr<Bytes> r = EvalRng(
            instr, arrays, rng_engine_, options_.rng_empty_range == RngEmptyRange::kBackendFormula);
        if (!r.ok()) return r.status();
        return ArrayValue(instr, std::move(*r));
      }
      case Opcode::kScaledDot: {
        absl::StatusOr<Bytes> r = EvalBlockScaledDot(instr, arrays, ReadDotDimensionNumbers(instr));
        if (!r.ok()) return r.status();
        return ArrayValue(instr, std::move(*r));
      }
      case Opcode::kRaggedDot:
      case Opcode::kDot: {
        if (absl::Status s = CheckArrayOperands(instr, ops); !s.ok()) return s;
        absl::StatusOr<Bytes> r =
            op == Opcode::kDot ? EvalDot(instr, arrays) : EvalRaggedDot(instr, arrays);
        if (!r.ok()) return r.status();
        return ArrayValue(instr, std::move(*r));
      }
      case Opcode::kConvolution:
        if (IsSparseConvolution(instr, ShapesOf(ops))) return SparseConvolution(instr, ops);
        break;
      case Opcode::kReduce:
      case Opcode::kScatter:
      case Opcode::kMap:
      case Opcode::kReduceWindow:
      case Opcode::kSelectAndScatter:
      case Opcode::kSort:
      case Opcode::kTopk:
      case Opcode::kRngBitGenerator: {
        if (absl::Status s = CheckArrayOperands(instr, ops); !s.ok()) return s;
        absl::StatusOr<std::vector<Bytes>> r = EvalWithComputations(instr, arrays);
        if (!r.ok()) return r.status();
        return ResultsValue(instr.shape(), *std::move(r));
      }
      case Opcode::kBatchNormTraining:
      case Opcode::kBatchNormInference:
      case Opcode::kBatchNormGrad: {
        absl::StatusOr<std::vector<Bytes>> r = EvalBatchNorm(instr, arrays);
        if (!r.ok()) return r.status();
        return ResultsValue(instr.shape(), *std::move(r));
      }
      default:
        break;
    }
    absl::StatusOr<Bytes> r;
    if (absl::Status s = CheckArrayOperands(instr, ops); !s.ok()) return s;
    if (IsSupportedElementwise(op)) {
      r = EvalElementwise(instr, arrays);
    } else if (IsSupportedDataMovement(op)) {
      r = EvalDataMovement(instr, arrays);
    } else if (IsSupportedArrayOp(op)) {
      r = EvalArrayOp(instr, arrays);
    } else {
      return UnsupportedOpcode(instr);
    }
    if (!r.ok()) return r.status();
    return ArrayValue(instr, std::move(*r));
  }

  // Pin, Unpin, CreateBuffer and dynamic-update-slice into a buffer (eval/buffers.h): a buffer
  // is a value of one element, its array (bytes nullptr while nothing wrote it).
  absl::StatusOr<Value> EvalBuffer(const Instruction& instr, absl::Span<const Value> ops) {
    std::vector<ArrayRef> arrays;
    for (const Value& o : ops) {
      const Value& a = o.shape->IsBuffer() ? (*o.elements)[0] : o;
      arrays.push_back(ArrayRef{a.shape, a.bytes ? a.bytes->data() : nullptr});
    }
    absl::StatusOr<BufferContents> r = EvalBufferOp(instr, arrays);
    if (!r.ok()) return r.status();
    Value array{r->shape, r->bytes ? std::make_shared<Bytes>(*std::move(r->bytes)) : nullptr,
                nullptr};
    if (!instr.shape().IsBuffer()) return array;
    return Value{instr.shape_ptr(), nullptr, std::make_shared<const std::vector<Value>>(1, array)};
  }

  // rng-get-and-update-state, delta=D: XLA's CPU and GPU runtimes keep a 128-bit state per
  // instruction, 0x7012395 when the program is loaded; each run returns it as u64[2] (low
  // word, high word) and then adds D. So a run gives what a freshly loaded program's first
  // execution gives: 0x7012395 at the first evaluation of each such instruction, D more at each
  // further one (a loop's iterations).
  absl::StatusOr<Value> RngGetAndUpdateState(const Instruction& instr) {
    const Shape& shape = instr.shape();
    const std::optional<int64_t> delta = IntAttribute(instr, "delta");
    if (!shape.IsArray() || shape.element_type != PrimitiveType::kU64 || shape.dims.size() != 1 ||
        shape.dims[0] != 2 || !delta.has_value()) {
      return absl::InvalidArgumentError(
          StrCat("cannot run %", instr.name(),
                 ": rng-get-and-update-state gives u64[2] and needs an integer delta="));
    }
    auto [it, inserted] = rng_states_.try_emplace(&instr, RngState{0x7012395, 0});
    RngState& state = it->second;
    Bytes bytes(16);
    StoreInt(PrimitiveType::kU64, bytes.data(), static_cast<int64_t>(state.low));
    StoreInt(PrimitiveType::kU64, bytes.data() + 8, static_cast<int64_t>(state.high));
    // state += delta, in 128 bits (delta sign-extended).
    const auto d = static_cast<uint64_t>(*delta);
    const uint64_t low = state.low + d;
    state.high += (*delta < 0 ? ~uint64_t{0} : 0) + (low < state.low ? 1 : 0);
    state.low = low;
    return ArrayValue(instr, std::move(bytes));
  }

  // scan: the body runs by value once per step (like a fusion's inside, its values are the
  // scan's own business); the scan's results are then stored as any op's.
  absl::StatusOr<Value> EvalScanOp(const Instruction& instr, absl::Span<const ArrayRef> arrays) {
    std::vector<const Shape*> results;
    if (instr.shape().IsTuple()) {
      results = instr.shape().tuple_elements;
    } else {
      results.push_back(instr.shape_ptr());
    }
    const Computation* body = instr.to_apply();
    ScanBody run = [&](absl::Span<const ArrayRef> args) -> absl::StatusOr<ScanStepResult> {
      std::vector<Value> params;
      for (size_t i = 0; i < args.size(); ++i) {
        const auto n = static_cast<size_t>(DenseBytes(*args[i].shape));
        params.push_back(
            Value{args[i].shape, std::make_shared<Bytes>(args[i].data, args[i].data + n), nullptr});
      }
      absl::StatusOr<Value> r = RunComputation(*body, params, /*buffered=*/false);
      if (!r.ok()) return r.status();
      ScanStepResult step;
      std::vector<Value> leaves;
      if (r->shape->IsTuple()) {
        leaves = *r->elements;
      } else {
        leaves.push_back(*r);
      }
      for (const Value& v : leaves) {
        if (!v.shape->IsArray() || v.bytes == nullptr) {
          return absl::InvalidArgumentError(
              StrCat("cannot run scan %", instr.name(), ": its body returns a nested tuple"));
        }
        step.shapes.push_back(v.shape);
        step.arrays.emplace_back(v.bytes->begin(), v.bytes->begin() + DenseBytes(*v.shape));
      }
      return step;
    };
    absl::StatusOr<std::vector<Bytes>> r = EvalScan(instr, arrays, results, run);
    if (!r.ok()) return r.status();
    return ResultsValue(instr.shape(), *std::move(r));
  }

  static std::vector<const Shape*> ShapesOf(absl::Span<const Value> ops) {
    std::vector<const Shape*> shapes;
    for (const Value& o : ops) shapes.push_back(o.shape);
    return shapes;
  }

  // A convolution with a sparse (values, indices) tuple operand (eval/sparse_convolution.h).
  absl::StatusOr<Value> SparseConvolution(const Instruction& instr, absl::Span<const Value> ops) {
    std::vector<std::vector<ArrayRef>> leaves;
    for (const Value& o : ops) {
      std::vector<ArrayRef>& mine = leaves.emplace_back();
      if (o.elements == nullptr) {
        mine.push_back(ArrayRef{o.shape, o.bytes ? o.bytes->data() : nullptr});
        continue;
      }
      for (const Value& e : *o.elements) {
        if (e.elements != nullptr || e.bytes == nullptr) {
          return absl::InvalidArgumentError(
              StrCat("cannot run %", instr.name(), ": a sparse operand is (values, indices)"));
        }
        mine.push_back(ArrayRef{e.shape, e.bytes->data()});
      }
    }
    absl::StatusOr<Bytes> r = EvalSparseConvolution(instr, leaves, options_.max_bytes);
    if (!r.ok()) return r.status();
    return ArrayValue(instr, std::move(*r));
  }

  // Whether `instr` mixes floating-point types: then, with mixed_precision = kConvertOperands,
  // *converted gets its operands in the types eval/mixed_precision.h gives (true); by default
  // the operand check's refusal, lifted by mixed_precision.
  absl::StatusOr<bool> ConvertMixedPrecision(const Instruction& instr, absl::Span<const Value> ops,
                                             std::vector<Value>& converted) {
    // Nothing can be mixed (the common case, asked on every instruction, so without building
    // the operands' shape list): every array operand is of the result's type or pred (a
    // select's predicate), or the result is pred and the operands are of one type (compare).
    const PrimitiveType out = instr.shape().element_type;
    if (!instr.shape().IsArray()) return false;
    const auto array_type = [](const Value& o) {
      return o.shape == nullptr || !o.shape->IsArray() ? PrimitiveType::kInvalid
                                                       : o.shape->element_type;
    };
    const auto result_or_pred = [&](const Value& o) {
      const PrimitiveType t = array_type(o);
      return t == PrimitiveType::kInvalid || t == out || t == PrimitiveType::kPred;
    };
    const auto one_type = [&](const Value& o) {
      const PrimitiveType t = array_type(o);
      return t == PrimitiveType::kInvalid || ops.empty() || t == array_type(ops[0]);
    };
    if (std::all_of(ops.begin(), ops.end(), result_or_pred) ||
        (out == PrimitiveType::kPred && std::all_of(ops.begin(), ops.end(), one_type))) {
      return false;
    }
    std::vector<PrimitiveType> types = MixedPrecisionOperandTypes(instr, ShapesOf(ops));
    if (types.empty()) return false;
    if (options_.mixed_precision == MixedPrecision::kRefuse) {
      if (absl::Status s = CheckArrayOperands(instr, ops); !s.ok()) {
        return LiftedByOption(s, "mixed_precision");
      }
      return false;
    }
    for (size_t k = 0; k < ops.size(); ++k) converted.push_back(ConvertedTo(ops[k], types[k]));
    return true;
  }

  // `v` with its elements converted to `to` (mixed precision; the same value when it is of
  // that type already, or holds no array).
  Value ConvertedTo(Value v, PrimitiveType to) {
    if (v.shape != nullptr && v.bytes != nullptr && v.shape->element_type != to) {
      v.bytes = std::make_shared<Bytes>(ConvertElements(*v.shape, v.bytes->data(), to));
      v.shape = converted_shapes_.Get(*v.shape, to);
    }
    return v;
  }

  static absl::Status CheckArrayOperands(const Instruction& instr, absl::Span<const Value> ops) {
    std::vector<const Shape*> shapes;
    for (const Value& o : ops) shapes.push_back(o.shape);
    return CheckOperands(instr, shapes);
  }

#include "eval/evaluator_async.inc"
#include "eval/evaluator_dynamic.inc"
#include "eval/evaluator_host_io.inc"
#include "eval/evaluator_late_bound_async.inc"

  const Module& module_;
  EvalOptions options_;
  std::unique_ptr<AliasAnalysis> alias_;
  std::vector<std::shared_ptr<Bytes>> storage_;  // by BufferId
  std::vector<InputOutputAlias> donated_;        // entry parameters the outputs may overwrite
  // With options_.read_only_overwrites: by BufferId, the read-only values in the buffer, and
  // those whose buffer was written.
  std::vector<std::vector<const Instruction*>> read_only_in_buffer_;
  absl::flat_hash_set<const Instruction*> overwritten_read_only_;
  absl::flat_hash_map<const Computation*, std::vector<const Instruction*>> orders_;
  absl::flat_hash_map<const Instruction*, Value> constants_;
  // --replicas: this replica, how many there are, where collectives meet, and how often each
  // collective has run here (its k-th run meets the others' k-th run).
  int64_t replica_ = 0;
  int64_t replica_count_ = 0;
  Rendezvous* rendezvous_ = nullptr;
  absl::flat_hash_map<const Instruction*, int64_t> collective_runs_;
  // send -> recv within the module: the values sent on each channel_id, not yet received.
  absl::flat_hash_map<int64_t, std::deque<Value>> channels_;
  // send/recv between replicas: sends made to each target, receives posted from each source,
  // and every receive posted (a recv's context holds 1 + its index).
  absl::flat_hash_map<int64_t, int64_t> sends_to_;
  absl::flat_hash_map<int64_t, int64_t> receives_from_;
  std::vector<PostedReceive> posted_receives_;
  ConvertedShapes converted_shapes_;  // operand shapes of mixed_precision = kConvertOperands
  std::minstd_rand0 rng_engine_;      // rng's engine, seeded with options_.rng_seed
  // rng-get-and-update-state's 128-bit state, per instruction.
  struct RngState {
    uint64_t low = 0, high = 0;
  };
  absl::flat_hash_map<const Instruction*, RngState> rng_states_;
  // Reads from and writes to outside the program (EvalOptions::host_io).
  HostChannels host_channels_;
  OutsideReads outside_reads_;
  std::vector<OutsideWrite> outside_writes_;
  // Side-effecting opaque custom-calls run so far (eval/opaque_custom_call.h).
  int64_t opaque_side_effects_ = 0;
  absl::flat_hash_map<const Instruction*, int64_t> outside_write_counts_;
  int64_t depth_ = 0;  // computations running inside each other now
  int64_t steps_ = 0;  // instructions evaluated so far in this run
};

}  // namespace

bool IsSupportedOpcode(Opcode op) {
  if (IsSupportedElementwise(op) || IsSupportedDataMovement(op)) return true;
  if (IsSupportedArrayOp(op) || IsAsyncOrCollective(op)) return true;
  switch (op) {
    case Opcode::kConstant:
    case Opcode::kParameter:
    case Opcode::kTuple:
    case Opcode::kGetTupleElement:
    case Opcode::kBitcast:
    case Opcode::kOptBarrier:
    case Opcode::kDomain:
    case Opcode::kGetDimensionSize:
    case Opcode::kSetDimensionSize:
    case Opcode::kDynamicReshape:
    case Opcode::kCall:
    case Opcode::kFusion:
    case Opcode::kWhile:
    case Opcode::kConditional:
    case Opcode::kDot:
    case Opcode::kRaggedDot:
    case Opcode::kScaledDot:
    case Opcode::kReduce:
    case Opcode::kScatter:
    case Opcode::kMap:
    case Opcode::kReduceWindow:
    case Opcode::kSelectAndScatter:
    case Opcode::kSort:
    case Opcode::kTopk:
    case Opcode::kRngBitGenerator:
    case Opcode::kRng:
    case Opcode::kRngGetAndUpdateState:
    case Opcode::kScan:
      return true;
    default:
      return IsBatchNorm(op);
  }
}

absl::Status CheckRunnable(const Module& module, const EvalOptions& options) {
  if (module.entry() == nullptr)
    return absl::InvalidArgumentError("the module has no entry computation");
  if (absl::Status s = CheckSupported(module, options); !s.ok()) return s;
  int64_t need = RequiredBytes(module);
  if (need > options.max_bytes) {
    return LiftedByOption(
        absl::ResourceExhaustedError(StrCat("the module needs about ", need,
                                            " bytes to run, more than the limit of ",
                                            options.max_bytes, " bytes")),
        "max_bytes");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Literal>> EvaluateReplicas(
    const Module& module, absl::Span<const std::vector<Literal>> arguments,
    const EvalOptions& options) {
  if (absl::Status s = CheckRunnable(module, options); !s.ok()) return s;
  const auto n = static_cast<int64_t>(arguments.size());
  if (n < 1) return absl::InvalidArgumentError("EvaluateReplicas needs at least one replica");
  Rendezvous rendezvous(n);
  std::vector<std::optional<absl::StatusOr<Literal>>> outs(static_cast<size_t>(n));
  // Each replica lists its own read-only overwrites (one vector per thread); merged below.
  std::vector<std::vector<std::string>> overwrites(static_cast<size_t>(n));
  std::vector<std::vector<OutsideWrite>> writes(static_cast<size_t>(n));
  std::vector<std::thread> threads;
  for (int64_t r = 0; r < n; ++r) {
    threads.emplace_back([&, r] {
      EvalOptions mine = options;
      if (options.read_only_overwrites != nullptr)
        mine.read_only_overwrites = &overwrites[static_cast<size_t>(r)];
      // Each replica reads its own stream (seed + R) and logs its own writes.
      mine.host_io_seed = options.host_io_seed + static_cast<uint64_t>(r);
      if (options.outside_writes != nullptr) mine.outside_writes = &writes[static_cast<size_t>(r)];
      Evaluator evaluator(module, mine);
      evaluator.SetReplica(r, n, &rendezvous);
      outs[static_cast<size_t>(r)] = evaluator.Run(arguments[static_cast<size_t>(r)]);
      rendezvous.Finished(r);
    });
  }
  for (std::thread& t : threads) t.join();
  if (options.read_only_overwrites != nullptr) {
    std::vector<std::string>& names = *options.read_only_overwrites;
    names.clear();
    for (const std::vector<std::string>& o : overwrites)
      names.insert(names.end(), o.begin(), o.end());
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
  }
  if (options.outside_writes != nullptr) {
    options.outside_writes->clear();
    for (std::vector<OutsideWrite>& w : writes) {
      std::move(w.begin(), w.end(), std::back_inserter(*options.outside_writes));
    }
  }
  std::vector<Literal> results;
  // The first replica that failed for its own reason, rather than one that waited on it.
  std::optional<absl::Status> first;
  for (int64_t r = 0; r < n; ++r) {
    const absl::StatusOr<Literal>& out = *outs[static_cast<size_t>(r)];
    if (out.ok()) {
      results.push_back(*out);
      continue;
    }
    // The option that would lift a refusal (support/option_error.h) stays with it.
    absl::Status s = PrefixError(out.status(), StrCat("replica ", r, ": "));
    if (!first.has_value() || (first->code() == absl::StatusCode::kFailedPrecondition &&
                               s.code() != absl::StatusCode::kFailedPrecondition)) {
      first = s;
    }
  }
  if (first.has_value()) return *first;
  return results;
}

absl::StatusOr<Literal> Evaluate(const Module& module, absl::Span<const Literal> arguments,
                                 const EvalOptions& options) {
  if (absl::Status s = CheckRunnable(module, options); !s.ok()) return s;
  Evaluator evaluator(module, options);
  return evaluator.Run(arguments);
}

}  // namespace hloscope::eval
