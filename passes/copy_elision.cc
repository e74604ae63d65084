#include "passes/copy_elision.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "analysis/alias.h"
#include "analysis/analysis_cache.h"
#include "analysis/buffer_consistency.h"
#include "analysis/in_place_pairs.h"
#include "analysis/ordering.h"
#include "analysis/trip_count.h"
#include "analysis/value_liveness.h"
#include "fmt/format.h"
#include "hlo/computation.h"
#include "hlo/input_output_alias.h"
#include "hlo/parser.h"
#include "hlo/printer.h"
#include "hlo/reachable_computations.h"
#include "passes/control_edges.h"
#include "passes/copy_elision_report.h"
#include "passes/copy_region_interference.h"
#include "passes/in_flight_buffers.h"
#include "passes/schedule_order.h"
#include "support/checked_int.h"

namespace hloscope {

namespace {

// An instruction as HLO text refers to it, "%name", for the reasons in the copy report.
std::string InstructionRef(std::string_view name) { return fmt::format("%{}", name); }

// In a fusion that does not update operand `k` in place, the bitcast on the way from that
// parameter (or to the root) that hides the in-place update, if any.
const Instruction* HidingBitcast(const Instruction& fusion, int64_t k) {
  const Computation* fused = fusion.fused_computation();
  if (fused == nullptr || k >= fused->parameter_count()) return nullptr;
  std::vector<const Instruction*> work = {fused->parameter(k)};
  absl::flat_hash_set<const Instruction*> seen;
  while (!work.empty()) {
    const Instruction* at = work.back();
    work.pop_back();
    for (const Instruction* user : at->users()) {
      if (!seen.insert(user).second) continue;
      if (user->opcode() == Opcode::kBitcast) return user;
      if (user->opcode() == Opcode::kTuple || user->opcode() == Opcode::kGetTupleElement) {
        work.push_back(user);
      }
    }
  }
  return nullptr;
}

// Union-find over buffers, each representative holding the values of its merged buffer.
class MergedBuffers {
 public:
  using Values = absl::InlinedVector<ValueId, 2>;  // most buffers hold one or two values

  explicit MergedBuffers(const AliasAnalysis& alias) : alias_(alias) {
    const size_t n = alias.buffers().size();
    parent_.resize(n);
    members_.resize(n);
    outputs_.resize(n);
    for (const HloBuffer& b : alias.buffers()) {
      parent_[b.id] = b.id;
      members_[b.id].assign(b.values.begin(), b.values.end());
    }
  }
  BufferId Find(BufferId b) {
    while (parent_[b] != b) {
      parent_[b] = parent_[parent_[b]];
      b = parent_[b];
    }
    return b;
  }
  BufferId Of(ValueId v) { return Find(alias_.BufferOf(v).id); }
  const Values& Members(BufferId b) { return members_[Find(b)]; }
  // The entry's result positions (indices into the Elider's output list) the buffer is at.
  const absl::InlinedVector<int32_t, 1>& Outputs(BufferId b) { return outputs_[Find(b)]; }
  void AddOutput(BufferId b, int32_t output) {
    auto& o = outputs_[Find(b)];
    if (std::find(o.begin(), o.end(), output) == o.end()) o.push_back(output);
  }
  // Merges the two buffers and drops `gone` from the result.
  void Merge(BufferId a, BufferId b, ValueId gone) {
    a = Find(a);
    b = Find(b);
    if (a != b) {
      if (b < a) std::swap(a, b);
      parent_[b] = a;
      members_[a].insert(members_[a].end(), members_[b].begin(), members_[b].end());
      members_[b].clear();
      std::sort(members_[a].begin(), members_[a].end());
      for (int32_t o : outputs_[b]) AddOutput(a, o);
      outputs_[b].clear();
    }
    Values& m = members_[a];
    m.erase(std::remove(m.begin(), m.end(), gone), m.end());
  }

 private:
  const AliasAnalysis& alias_;
  std::vector<BufferId> parent_;
  std::vector<Values> members_;
  std::vector<absl::InlinedVector<int32_t, 1>> outputs_;
};

class Elider {
 public:
  Elider(Module& module, const AliasAnalysis& alias, ValueLiveness& live,
         absl::Span<const InputOutputAlias> donated, bool copy_read_only_at_definition = false,
         bool value_lists = false)
      : relocate_read_only_(copy_read_only_at_definition),
        value_lists_(value_lists),
        module_(module),
        flow_(alias.dataflow()),
        live_(live),
        buffers_(alias),
        donated_(donated.begin(), donated.end()),
        replaced_(flow_.values().size(), kNoValue) {
    FindEntryOutputs();
  }

  // Empty when `copy` may go; otherwise why it stays. *final is set when the answer cannot
  // change as other copies go. When empty, the live ranges already read as if the copy were
  // gone: the caller removes it from the module and calls Commit, or calls Abort.
  std::string Check(Instruction& copy, bool* final);
  void Commit();
  void Abort();
  // Read-only values that removals merged into a buffer with other values, in the order they
  // were merged: each is to be copied where it is defined (XLA's special-case copy).
  const std::vector<ValueId>& relocated() const { return relocated_; }

  // Set when the last Check failed on two values of the merged buffer that one control edge
  // would order: a reader of the older value and the writer of the newer one, in one
  // computation with no dependency either way (copy-elision's order_unordered_readers).
  struct OrderFix {
    Instruction* reader = nullptr;
    Instruction* writer = nullptr;
    std::string value;  // the older value, named as in the report
  };
  const std::optional<OrderFix>& fix() const { return fix_; }

  // Set when the last Check failed because an instruction reads a value of the merged buffer at
  // an operand it cannot write over (LiveRangeRule::kNotInPlace): that reader and operand.
  struct NotInPlace {
    const Instruction* reader = nullptr;
    int64_t operand = 0;
  };
  const std::optional<NotInPlace>& not_in_place() const { return not_in_place_; }

 private:
  // Whether read-only `r` may join the merged buffer through a copy at its definition: an
  // array parameter or constant of its own, not a root, without control edges, and not
  // already the copy's own operand (then that copy is the one XLA would add).
  bool Relocatable(ValueId r, const Instruction& copy) const;
  const bool relocate_read_only_;
  // XLA's ordered value lists (CopyElisionOptions::xla_region_analysis): each buffer's values in
  // the order XLA's CopyRemover keeps them, built when a buffer is first merged.
  const bool value_lists_;
  absl::flat_hash_map<BufferId, std::vector<ValueId>> lists_;
  std::vector<ValueId> pending_list_;  // the merged list, set by Check for Commit
  const std::vector<ValueId>& ListOf(BufferId root);
  // Why merging source value x's list into the destination's, in place of the copy's value vc,
  // does not fit XLA's order; sets pending_list_ when it fits.
  std::optional<std::string> ListProblem(ValueId x, ValueId vc);
  std::vector<ValueId> relocated_;
  absl::flat_hash_set<ValueId> relocated_set_;
  std::vector<ValueId> pending_relocations_;
  ValueId Resolve(ValueId v) const {
    while (replaced_[v] != kNoValue) v = replaced_[v];
    return v;
  }
  std::string Name(ValueId v) const;
  std::string Role(ValueId v) const;
  bool ReadOnly(ValueId v) const;
  bool Writes(ValueId v) const;
  std::string ReadOnlyWhat(ValueId v) const;
  void FindEntryOutputs();
  // Whether merging the source and destination buffers puts one buffer at two positions of
  // the entry's result (XLA gives each output its own buffer, and a donated parameter's
  // buffer belongs to its aliased output only); why, if so.
  std::optional<std::string> EntryOutputProblem();
  std::optional<std::string> Interference(ValueId a, ValueId b) const;
  // Records in fix_ the control edge that would put a before b or b before a, if one would.
  void NoteFix(ValueId a, ValueId b, const LiveRangeOrder& ab, const LiveRangeOrder& ba) const;
  std::string Explain(ValueId a, ValueId b, const LiveRangeOrder& why) const;
  // Every pair (a, x) for a in `others` (but `skip`) is interference-free; `others` sorted by
  // id. Walks from the latest value back, reusing what it proved: once a value is known to end
  // before the anchor, an earlier one that ends before it ends before the anchor too.
  std::optional<std::string> CheckAgainst(ValueId x, absl::Span<const ValueId> others,
                                          ValueId skip = kNoValue) const;

  Module& module_;
  const DataflowAnalysis& flow_;
  ValueLiveness& live_;
  MergedBuffers buffers_;
  std::vector<InputOutputAlias> donated_;
  std::vector<ValueId> replaced_;    // a removed copy's value → the value its users now read
  std::vector<ShapeIndex> outputs_;  // the entry result's array positions
  // The tentative removal Check left in place until Commit or Abort.
  struct Pending {
    ValueLiveness::SavedValue x, c;
    ValueId vc = kNoValue;
  };
  std::optional<Pending> pending_;
  // Context of the copy being decided, for naming.
  const Instruction* source_ = nullptr;
  ValueId source_value_ = kNoValue;
  BufferId source_buffer_ = 0, dest_buffer_ = 0;
  bool same_buffer_ = false;
  absl::flat_hash_set<ValueId> in_source_;
  absl::flat_hash_set<const Instruction*> dest_definers_;
  mutable std::optional<OrderFix> fix_;
  mutable std::optional<NotInPlace> not_in_place_;
};

std::string Elider::Name(ValueId v) const {
  if (v == source_value_ && source_ != nullptr) return InstructionRef(source_->name());
  if (const Instruction* i = live_.NamingInstruction(v)) return InstructionRef(i->name());
  const HloValue& hv = flow_.value(v);
  return fmt::format("%{}{}", hv.instruction->name(), ShapeIndexToString(hv.index));
}

std::string Elider::Role(ValueId v) const {
  return in_source_.contains(v) ? "source" : "destination";
}

bool Elider::ReadOnly(ValueId v) const {
  if (relocated_set_.contains(v)) return false;  // its copy stands for it in the buffer
  return IsReadOnlyValue(flow_.value(v), module_, donated_);
}

bool Elider::Relocatable(ValueId r, const Instruction& copy) const {
  if (!relocate_read_only_) return false;
  const HloValue& hv = flow_.value(r);
  if (hv.is_phi || !hv.index.empty() || !hv.shape->IsArray()) return false;
  const Instruction& def = *hv.instruction;
  return def.parent()->root() != &def && def.control_predecessors().empty() &&
         def.control_successors().empty() && copy.operand(0) != &def;
}

bool Elider::Writes(ValueId v) const {
  if (relocated_set_.contains(v)) return true;  // its copy writes the buffer
  const HloValue& hv = flow_.value(v);
  return !hv.is_phi && hv.instruction->opcode() != Opcode::kParameter &&
         hv.instruction->opcode() != Opcode::kConstant;
}

std::string Elider::ReadOnlyWhat(ValueId v) const {
  const HloValue& hv = flow_.value(v);
  if (hv.instruction->opcode() == Opcode::kConstant) return "a constant";
  return fmt::format("entry parameter {}, not donated", hv.instruction->parameter_number());
}

void Elider::FindEntryOutputs() {
  const Instruction* root = module_.entry() ? module_.entry()->root() : nullptr;
  if (root == nullptr) return;
  const int32_t positions = flow_.PositionCount(*root);
  for (int32_t p = 0; p < positions; ++p) {
    bool added = false;
    for (ValueId v : flow_.ValuesAtPosition(*root, p)) {
      if (!flow_.value(v).shape->IsArray()) continue;
      if (!added) outputs_.push_back(flow_.IndexAt(*root, p));
      added = true;
      buffers_.AddOutput(buffers_.Of(v), static_cast<int32_t>(outputs_.size() - 1));
    }
  }
}

std::optional<std::string> Elider::EntryOutputProblem() {
  const auto& at_source = buffers_.Outputs(source_buffer_);
  const auto& at_dest = buffers_.Outputs(dest_buffer_);
  for (int32_t s : at_source) {
    for (int32_t d : at_dest) {
      if (s == d) continue;
      // A donated parameter in either buffer: name it and the output it belongs to.
      for (BufferId b : {source_buffer_, dest_buffer_}) {
        for (ValueId v : buffers_.Members(b)) {
          const HloValue& hv = flow_.value(v);
          if (hv.is_phi || hv.instruction->opcode() != Opcode::kParameter ||
              hv.instruction->parent() != module_.entry() || ReadOnly(v)) {
            continue;
          }
          for (const InputOutputAlias& a : donated_) {
            if (a.parameter != hv.instruction->parameter_number()) continue;
            const int32_t other = outputs_[s] == a.output_index ? d : s;
            if (outputs_[other] == a.output_index) continue;
            return fmt::format(
                "donated entry parameter {} would be at output {} too, but input_output_alias "
                "gives it output {} only",
                a.parameter, ShapeIndexToString(outputs_[other]),
                ShapeIndexToString(a.output_index));
          }
        }
      }
      return fmt::format(
          "entry outputs {} and {} would share one buffer (each output needs its own)",
          ShapeIndexToString(outputs_[std::min(s, d)]),
          ShapeIndexToString(outputs_[std::max(s, d)]));
    }
  }
  return std::nullopt;
}

std::string Elider::Explain(ValueId a, ValueId b, const LiveRangeOrder& why) const {
  const HloValue& bv = flow_.value(b);
  const bool b_is_dest =
      same_buffer_ ? dest_definers_.contains(bv.instruction) : !in_source_.contains(b);
  const std::string defines =
      b_is_dest ? "defines the destination"
                : (same_buffer_ ? "overwrites the merged buffer" : "overwrites the source");
  const std::string b_def = bv.is_phi ? Name(b) : InstructionRef(bv.instruction->name());
  switch (why.rule) {
    case LiveRangeRule::kReadAfter:
      if (bv.is_phi) {  // a merge value: it occupies the buffer from its loop or branch on
        return fmt::format("{} {} is read by %{} while {} holds the {}", Role(a), Name(a),
                           why.use->instruction->name(), b_def,
                           b_is_dest ? "destination" : "source");
      }
      return fmt::format("{} {} is read by %{} after {} {}", Role(a), Name(a),
                         why.use->instruction->name(), b_def, defines);
    case LiveRangeRule::kNotInPlace: {
      const Instruction& user = *why.use->instruction;
      std::string out = fmt::format("operand {} of %{} is not updated in place",
                                    why.use->operand_number, user.name());
      if (flow_.options().bitcast_defines_value && user.opcode() == Opcode::kFusion) {
        if (const Instruction* bc = HidingBitcast(user, why.use->operand_number)) {
          out += fmt::format(": %{} defines a new value", bc->name());
        }
      }
      return out;
    }
    case LiveRangeRule::kEveryIteration:
      return fmt::format("{} {} is read by %{} on every iteration of %{}, where {} {}", Role(a),
                         Name(a), why.use->instruction->name(), why.loop->name(), b_def, defines);
    case LiveRangeRule::kLiveOut:
      return fmt::format("{} {} would be live out of the entry, but {} overwrites its buffer",
                         Role(a), Name(a), b_def);
    case LiveRangeRule::kComputationRoot:
      return fmt::format("{} {} lives to the end of %{} (its root), where {} {}", Role(a), Name(a),
                         why.computation->name(), b_def, defines);
    case LiveRangeRule::kDefinedAfter:
    case LiveRangeRule::kBefore:
      break;
  }
  return fmt::format("{} {} and {} {} may be live at the same time", Role(a), Name(a), Role(b),
                     Name(b));
}

// The more telling of the two failed directions.
int Rank(LiveRangeRule r) {
  switch (r) {
    case LiveRangeRule::kNotInPlace:
      return 0;
    case LiveRangeRule::kReadAfter:
      return 1;
    case LiveRangeRule::kEveryIteration:
      return 2;
    case LiveRangeRule::kLiveOut:
      return 3;
    case LiveRangeRule::kComputationRoot:
      return 4;
    default:
      return 5;
  }
}

std::optional<std::string> Elider::Interference(ValueId a, ValueId b) const {
  const LiveRangeOrder ab = live_.StrictlyBefore(a, b);
  if (ab.before()) return std::nullopt;
  const LiveRangeOrder ba = live_.StrictlyBefore(b, a);
  if (ba.before()) return std::nullopt;
  NoteFix(a, b, ab, ba);
  const LiveRangeOrder& why = Rank(ab.rule) <= Rank(ba.rule) ? ab : ba;
  if (why.rule == LiveRangeRule::kNotInPlace && why.use != nullptr) {
    not_in_place_ = NotInPlace{why.use->instruction, why.use->operand_number};
  }
  return Rank(ab.rule) <= Rank(ba.rule) ? Explain(a, b, ab) : Explain(b, a, ba);
}

const std::vector<ValueId>& Elider::ListOf(BufferId root) {
  auto [it, added] = lists_.try_emplace(root);
  if (!added) return it->second;
  // XLA sorts a buffer's values by IsDefinedBefore. An insertion sort from id order: each value
  // goes before the first one it is defined before, so unordered values keep their id order.
  std::vector<ValueId>& list = it->second;
  for (ValueId v : buffers_.Members(root)) {
    auto at = list.begin();
    while (at != list.end() && !live_.IsDefinedBefore(v, *at)) ++at;
    list.insert(at, v);
  }
  return list;
}

std::optional<std::string> Elider::ListProblem(ValueId x, ValueId vc) {
  // Copies of the lists: ListOf may rehash lists_.
  const std::vector<ValueId> src = ListOf(source_buffer_);
  const std::vector<ValueId> dst = ListOf(dest_buffer_);
  const size_t i = static_cast<size_t>(std::find(src.begin(), src.end(), x) - src.begin());
  const size_t j = static_cast<size_t>(std::find(dst.begin(), dst.end(), vc) - dst.begin());
  if (i == src.size() || j == dst.size()) return std::nullopt;  // not tracked: no XLA order
  // XLA's LiveRangeBefore: every read of a ends before b is defined.
  auto all_before = [&](absl::Span<const ValueId> first,
                        absl::Span<const ValueId> then) -> std::optional<std::string> {
    for (ValueId b : then) {
      for (ValueId a : first) {
        const LiveRangeOrder order = live_.StrictlyBefore(a, b);
        if (!order.before()) {
          if (order.rule == LiveRangeRule::kNotInPlace && order.use != nullptr) {
            not_in_place_ = NotInPlace{order.use->instruction, order.use->operand_number};
          }
          return fmt::format(
              "XLA's copy removal keeps it: in its ordered value lists {} would have to end "
              "before {} is defined",
              Name(a), Name(b));
        }
      }
    }
    return std::nullopt;
  };
  const absl::Span<const ValueId> s(src), d(dst);
  pending_list_.clear();
  // Where the lists refuse, XLA asks its region analysis (CopyRemover::TryElideCopy), except
  // for a copy of a broadcast; if that finds no interference the lists are spliced all the
  // same.
  auto ask_regions = [&](std::string refusal, RegionMerge merge) -> std::optional<std::string> {
    if (source_ != nullptr && source_->opcode() == Opcode::kBroadcast) return refusal;
    std::vector<ValueId> from_x(src.begin() + static_cast<std::ptrdiff_t>(i), src.end());
    from_x.insert(from_x.end(), src.begin(), src.begin() + static_cast<std::ptrdiff_t>(i));
    std::vector<ValueId> from_c(dst.begin() + static_cast<std::ptrdiff_t>(j), dst.end());
    from_c.insert(from_c.end(), dst.begin(), dst.begin() + static_cast<std::ptrdiff_t>(j));
    if (auto why = RegionInterference(live_, from_x, from_c, merge)) {
      return fmt::format("{}, and its region analysis finds interference: {}", refusal, *why);
    }
    not_in_place_.reset();  // the lists' reason no longer decides
    return std::nullopt;
  };
  if (j == 0) {
    // The copy defines the destination's first value: the source's values up to x, then the
    // destination's after the copy, then the source's after x.
    std::optional<std::string> p = all_before(s.subspan(0, i + 1), d.subspan(1));
    if (!p) p = all_before(d, s.subspan(i + 1));
    if (p) p = ask_regions(*p, RegionMerge::kFirstDestInSource);
    if (p) return p;
    pending_list_.assign(src.begin(), src.begin() + static_cast<std::ptrdiff_t>(i) + 1);
    pending_list_.insert(pending_list_.end(), dst.begin() + 1, dst.end());
    pending_list_.insert(pending_list_.end(), src.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                         src.end());
    return std::nullopt;
  }
  if (i + 1 == src.size()) {
    // The copy reads the source's last value: the destination's values before the copy, the
    // whole source, then the destination's after the copy.
    std::optional<std::string> p = all_before(d.subspan(0, j), s);
    if (!p) p = all_before(s, d.subspan(j + 1));
    if (p) p = ask_regions(*p, RegionMerge::kLastSourceInDest);
    if (p) return p;
    pending_list_.assign(dst.begin(), dst.begin() + static_cast<std::ptrdiff_t>(j));
    pending_list_.insert(pending_list_.end(), src.begin(), src.end());
    pending_list_.insert(pending_list_.end(), dst.begin() + static_cast<std::ptrdiff_t>(j) + 1,
                         dst.end());
    return std::nullopt;
  }
  return fmt::format(
      "XLA's copy removal keeps it: in its ordered value lists it copies {} from the middle of "
      "one buffer's values into the middle of another's",
      Name(x));
}

void Elider::NoteFix(ValueId a, ValueId b, const LiveRangeOrder& ab,
                     const LiveRangeOrder& ba) const {
  const ExecutionOrdering& ordering = live_.ordering();
  if (ordering.sequential()) return;  // a schedule orders everything already
  // The older value's reads must end before the newer one is written: only that direction
  // can be forced without moving a definition.
  ValueId older = a, newer = b;
  const LiveRangeOrder* why = &ab;
  if (!live_.IsDefinedBefore(a, b)) {
    if (!live_.IsDefinedBefore(b, a)) return;
    older = b;
    newer = a;
    why = &ba;
  }
  if (why->rule != LiveRangeRule::kReadAfter || why->use == nullptr) return;
  // The input/output-alias case, where XLA's tests have its copy removal add edges: the older
  // value is a donated entry parameter, read by an instruction that is not itself a copy
  // (XLA's default pipelines run without this analysis, and its tests of other cases expect
  // the copies that stay without it). With XLA's region analysis asked for (value_lists_:
  // xla_region_analysis) any reader of a value that is not read-only, as its ForceRuntimeOrder
  // orders one: a copy moving a loop state element to another index (which
  // OrderLoopStatePairs leaves alone), or the reader of a loop state element whose parameter
  // copy XLA removes first, ordered before the root copy of that element
  // (RegionAnalysisNoCopyOfAddOutputInsideWhileBody). XLA skips that analysis for a copy of a
  // broadcast.
  const HloValue& old_value = flow_.value(older);
  const bool reader_is_copy = why->use->instruction->opcode() == Opcode::kCopy;
  const bool donated_case =
      !old_value.is_phi && old_value.instruction->opcode() == Opcode::kParameter &&
      old_value.instruction->parent() == module_.entry() && !ReadOnly(older) && !reader_is_copy;
  const bool copy_reader_case = value_lists_ && !ReadOnly(older) &&
                                (source_ == nullptr || source_->opcode() != Opcode::kBroadcast);
  if (!donated_case && !copy_reader_case) return;
  const HloValue& written = flow_.value(newer);
  if (written.is_phi) return;
  // The module is this pass's to edit; the analyses hand out const pointers into it.
  auto* reader = const_cast<Instruction*>(why->use->instruction);
  auto* writer = const_cast<Instruction*>(written.instruction);
  if (reader == writer || reader->parent() != writer->parent() ||
      writer->opcode() == Opcode::kParameter || reader->IsRoot() ||
      ordering.ExecutesBefore(*reader, *writer) || ordering.ExecutesBefore(*writer, *reader)) {
    return;
  }
  // As XLA's ForceRuntimeOrder: a reader that updates a copy's operand in place is not put
  // before that copy (the copy must read the operand first).
  if (writer->opcode() == Opcode::kCopy) {
    for (const InPlacePair& pair : GetInPlaceInputOutputPairs(*reader)) {
      if (reader->operand(pair.input.operand_number) == writer->operand(0)) return;
    }
  }
  fix_ = OrderFix{reader, writer, Name(older)};
}

std::optional<std::string> Elider::CheckAgainst(ValueId x, absl::Span<const ValueId> others,
                                                ValueId skip) const {
  ValueId anchor = x;
  for (auto it = others.rbegin(); it != others.rend(); ++it) {
    const ValueId s = *it;
    if (s == x || s == skip) continue;
    if (live_.StrictlyBefore(s, anchor).before()) {
      anchor = s;
      continue;
    }
    if (anchor != x && live_.StrictlyBefore(s, x).before()) {
      anchor = s;
      continue;
    }
    if (live_.StrictlyBefore(x, s).before()) continue;
    return Interference(x, s);
  }
  return std::nullopt;
}

std::string Elider::Check(Instruction& copy, bool* final) {
  *final = true;
  pending_.reset();
  fix_.reset();
  not_in_place_.reset();
  // Control edges between two copies are those copy-insertion adds (a while element's
  // parameter copy runs before its root copy): the live-range checks below decide, and a removed
  // copy takes its edges with it, as in XLA. An edge to anything else orders the program.
  for (absl::Span<Instruction* const> edges :
       {copy.control_predecessors(), copy.control_successors()}) {
    for (const Instruction* other : edges) {
      if (other->opcode() != Opcode::kCopy) return "has control dependencies";
    }
  }
  if (copy.operand_count() != 1) return "does not have one operand";
  Instruction& src = *copy.operand(0);
  // A pipelined transfer owns the copy's buffer until its *-done, in the next iteration; the
  // source read elsewhere too would share that buffer (XLA's copy removal keeps it).
  if (const Instruction* start = TransferReadingCopy(copy);
      start != nullptr && src.user_count() > 1) {
    return fmt::format(
        "%{} hands it to a transfer pipelined through a loop while %{} is still read",
        start->name(), src.name());
  }
  if (copy.shape().IsTuple()) return "copies a tuple (only its index table)";
  if (!(src.shape() == copy.shape())) {
    if (src.shape().element_type != copy.shape().element_type) {
      // A mixed-precision copy converts (the verifier lets it through as XLA's does).
      return fmt::format("converts {} to {}", PrimitiveTypeName(src.shape().element_type),
                         PrimitiveTypeName(copy.shape().element_type));
    }
    if (src.shape().layout.memory_space != copy.shape().layout.memory_space) {
      return fmt::format("changes the memory space: S({}) to S({})",
                         src.shape().layout.memory_space, copy.shape().layout.memory_space);
    }
    return fmt::format("changes the layout: {} to {}", src.shape().ToString(),
                       copy.shape().ToString());
  }
  *final = false;
  const ValueId vc = flow_.ValueDefinedAt(copy);
  if (vc == kNoValue) return "defines no value";
  std::vector<ValueId> sources;
  for (ValueId v : flow_.ValuesAt(src)) {
    const ValueId r = Resolve(v);
    if (std::find(sources.begin(), sources.end(), r) == sources.end()) sources.push_back(r);
  }
  if (sources.size() != 1) {
    return fmt::format("source %{} may hold {} different values", src.name(), sources.size());
  }
  const ValueId x = sources[0];
  source_ = &src;
  source_value_ = x;
  source_buffer_ = buffers_.Of(x);
  dest_buffer_ = buffers_.Of(vc);
  same_buffer_ = source_buffer_ == dest_buffer_;
  const MergedBuffers::Values source_values = buffers_.Members(source_buffer_);
  std::vector<ValueId> dest_values;
  for (ValueId v : buffers_.Members(dest_buffer_)) {
    if (v != vc) dest_values.push_back(v);
  }
  in_source_.clear();
  in_source_.insert(source_values.begin(), source_values.end());

  // Read-only data must not become written, or part of the result. (A read-only value in
  // the destination is already overwritten by the copy itself: no new harm there.) As in XLA,
  // which removes copies by live ranges alone and then copies such a value where it is
  // defined (AddSpecialCaseCopies), the value may join a buffer with others through that
  // copy, which then stands for it in the checks below.
  pending_relocations_.clear();
  if (!same_buffer_) {
    const bool others = source_values.size() + dest_values.size() > 1;
    for (ValueId r : source_values) {
      if (!ReadOnly(r)) continue;
      std::string refusal;
      for (ValueId w : dest_values) {
        if (Writes(w)) {
          refusal = fmt::format("source {} is read-only ({}), and {} would write the merged buffer",
                                Name(r), ReadOnlyWhat(r), Name(w));
          break;
        }
      }
      bool live_out = live_.live_out(vc);
      for (ValueId d : dest_values) live_out = live_out || live_.live_out(d);
      if (refusal.empty() && live_out) {
        refusal =
            fmt::format("source {} is read-only ({}), and the destination is live out of the entry",
                        Name(r), ReadOnlyWhat(r));
      }
      if (refusal.empty()) continue;
      if (others && Relocatable(r, copy)) {
        pending_relocations_.push_back(r);
        continue;
      }
      return refusal;
    }
  }
  // Instructions that read the copy: a value they define is "the destination" in messages.
  dest_definers_.clear();
  for (const ValueUse& u : live_.uses(vc)) dest_definers_.insert(u.instruction);

  // XLA's lists compare the values as they are, before the copy's reads move. A copy they
  // refuse still goes through the checks below, which may find the control edge that XLA's
  // region analysis would add (fix_) or the operand it would copy (not_in_place_).
  std::optional<std::string> list_problem;
  if (value_lists_ && !same_buffer_) list_problem = ListProblem(x, vc);
  // Tentatively let x take over the copy's uses, then check the merged buffer.
  ValueLiveness::SavedValue saved_x = live_.Save(x);
  ValueLiveness::SavedValue saved_c = live_.Save(vc);
  live_.ForwardUses(vc, x, &copy);
  // The source value against both buffers first (its reads are what changed, and it names
  // the copy's operand), then every other pair across the two buffers.
  std::optional<std::string> problem = CheckAgainst(x, dest_values);
  if (!problem && !same_buffer_) problem = CheckAgainst(x, source_values);
  for (size_t k = 0; !problem && !same_buffer_ && k < dest_values.size(); ++k) {
    problem = CheckAgainst(dest_values[k], source_values, x);
  }
  // Last: a more telling reason above names the instructions whose order is at stake.
  if (!problem && !same_buffer_) problem = EntryOutputProblem();
  if (problem || list_problem) {
    live_.Restore(std::move(saved_x));
    live_.Restore(std::move(saved_c));
    return problem ? *problem : *list_problem;
  }
  pending_ = Pending{std::move(saved_x), std::move(saved_c), vc};
  return "";
}

void Elider::Commit() {
  for (ValueId r : pending_relocations_) {
    if (relocated_set_.insert(r).second) relocated_.push_back(r);
  }
  pending_relocations_.clear();
  const BufferId old_source = buffers_.Find(source_buffer_), old_dest = buffers_.Find(dest_buffer_);
  buffers_.Merge(source_buffer_, dest_buffer_, pending_->vc);
  if (value_lists_ && !same_buffer_) {
    lists_.erase(old_source);
    lists_.erase(old_dest);
    lists_[buffers_.Find(old_source)] = std::move(pending_list_);
    pending_list_.clear();
  } else if (value_lists_) {
    // A copy within one buffer goes with its value (XLA's RemoveCopyValue): left in the list,
    // the removed copy's value would be a value later checks must order the others around.
    if (auto it = lists_.find(old_source); it != lists_.end()) {
      std::erase(it->second, pending_->vc);
    }
  }
  replaced_[pending_->vc] = source_value_;
  pending_.reset();
}

void Elider::Abort() {
  pending_relocations_.clear();
  if (!pending_) return;
  live_.Restore(std::move(pending_->x));
  live_.Restore(std::move(pending_->c));
  pending_.reset();
}

Instruction* FindByName(const Module& module, std::string_view computation, std::string_view name) {
  for (Computation* c : module.computations()) {
    if (c->name() != computation) continue;
    for (Instruction* i : c->instructions()) {
      if (i->name() == name) return i;
    }
  }
  return nullptr;
}

// XLA's region analysis for one loop state element (CopyElisionOptions::order_loop_readers):
// `param_copy` copies the body parameter's element, its readers are ordered before the
// instruction that computes the element's new value, which `root_copy` copies; both copies
// go. `readers` are param_copy's users.
void OrderLoopReaders(Instruction* param_copy, Instruction* root_copy,
                      const std::vector<Instruction*>& readers) {
  Instruction* source = param_copy->operand(0);
  Instruction* writer = root_copy->operand(0);
  for (Instruction* reader : readers) {
    for (int64_t k = 0; k < reader->operand_count(); ++k) {
      if (reader->operand(k) == param_copy) reader->ReplaceOperand(k, source);
    }
    AddPrintedControlEdge(reader, writer);
  }
  param_copy->RemoveAllControlEdges();
  root_copy->RemoveAllControlEdges();
  root_copy->ReplaceAllUsesWith(writer);
  Computation* body = param_copy->parent();
  (void)body->RemoveInstruction(root_copy);
  (void)body->RemoveInstruction(param_copy);
  body->CompactInstructions();
}

// The default view's analyses and Elider. At first the cache's analyses; a removal that adds
// control edges replaces them with analyses of the changed module (ExecutionOrdering reads the
// edges, and the removals made so far are then in the module itself).
struct DefaultView {
  std::unique_ptr<AliasAnalysis> own_alias;
  std::unique_ptr<ExecutionOrdering> own_ordering;
  std::unique_ptr<ValueLiveness> live;
  std::unique_ptr<Elider> elider;
};

// The instructions of `c` in their current order, to put back with RestoreOrder.
std::vector<Instruction*> OrderOf(const Computation& c) {
  return std::vector<Instruction*>(c.instructions().begin(), c.instructions().end());
}

void RestoreOrder(Computation& c, const std::vector<Instruction*>& order) {
  std::vector<std::pair<Instruction*, Instruction*>> moves;
  moves.reserve(order.size());
  for (size_t k = 0; k < order.size(); ++k) {
    moves.emplace_back(order[k], k + 1 < order.size() ? order[k + 1] : nullptr);
  }
  c.MoveAllBefore(moves);
}

// CopyElisionOptions::order_unordered_readers: removes a copy that the default view keeps only
// because a reader and a writer of its merged buffer are unordered, by adding control edges
// reader -> writer, each removal decided again on analyses of the module with the edges in
// place (so every rule of the Elider holds with them), and the whole module still buffer-safe
// in its new text order. An attempt that fails takes back its edges and its reordering.
class UnorderedReaderOrdering {
 public:
  UnorderedReaderOrdering(Module& module, absl::Span<const InputOutputAlias> donated,
                          bool skip_check, bool value_lists)
      : module_(module), donated_(donated), skip_check_(skip_check), value_lists_(value_lists) {
    int64_t size = 0;
    for (const Computation* c : module.computations()) {
      size += static_cast<int64_t>(c->instructions().size());
    }
    size_ = std::max<int64_t>(size, 1);
  }

  // Whether `copy` is at an edge this class added: it is then decided here only, without that
  // edge (the default view's ordering still has it, and an edge goes with a removed copy).
  bool Touches(const Instruction* copy) const {
    return std::any_of(edges_.begin(), edges_.end(),
                       [&](const Edge& e) { return e.reader == copy || e.writer == copy; });
  }
  bool CanTry() const { return attempts_ < kMaxAttempts && spent_ + size_ <= kBudget; }

  // Replaces `view` with analyses of the module as it is now. False, with `view` unchanged,
  // when the budget is spent or the module is not buffer-safe in its text order.
  bool Rebuild(std::unique_ptr<DefaultView>& view) {
    if (spent_ + size_ > kBudget) return false;
    absl::StatusOr<std::unique_ptr<DefaultView>> built = Build();
    if (!built.ok()) return false;
    view = std::move(*built);
    return true;
  }

  // Tries to remove `copy` with control edges, starting from `first` (the default view's fix,
  // when it has one). "" when the copy is gone: `view` is then the analyses of the changed
  // module. Otherwise why it stays (`kept` when nothing better is known).
  std::string TryRemove(Instruction& copy, std::optional<Elider::OrderFix> first,
                        std::unique_ptr<DefaultView>& view, std::string kept);

  // The edges still in the module, in the order they were added, for the report.
  void Report(CopyElisionReport& report) const;

 private:
  struct Edge {
    Instruction* reader;
    Instruction* writer;
    std::string computation, reader_name, writer_name, detail;
  };
  // At most this many copies tried, edges per copy, and instructions analysed over all tries
  // (each round rebuilds the analyses of the whole module).
  static constexpr int kMaxAttempts = 64;
  static constexpr size_t kMaxEdgesPerCopy = 8;
  static constexpr int64_t kBudget = 8'000'000;

  // Analyses of the module as it is now; with `check_safe`, an error when the module is not
  // buffer-safe in its current text order.
  absl::StatusOr<std::unique_ptr<DefaultView>> Build(bool check_safe = true);

  Module& module_;
  absl::Span<const InputOutputAlias> donated_;
  bool skip_check_;
  // XLA's ordered value lists (xla_region_analysis): a rebuilt view starts them afresh from
  // the changed module.
  bool value_lists_;
  int64_t size_ = 1;
  int64_t spent_ = 0;
  int attempts_ = 0;
  std::vector<Edge> edges_;
};

absl::StatusOr<std::unique_ptr<DefaultView>> UnorderedReaderOrdering::Build(bool check_safe) {
  spent_ += size_;
  for (Computation* c : module_.computations()) c->CompactInstructions();
  auto view = std::make_unique<DefaultView>();
  absl::StatusOr<std::unique_ptr<AliasAnalysis>> alias =
      AliasAnalysis::Run(module_, DataflowOptions{.bitcast_defines_value = false});
  if (!alias.ok()) return alias.status();
  view->own_alias = std::move(*alias);
  absl::StatusOr<std::unique_ptr<ExecutionOrdering>> ordering = ExecutionOrdering::Run(module_);
  if (!ordering.ok()) return ordering.status();
  view->own_ordering = std::move(*ordering);
  view->live = std::make_unique<ValueLiveness>(view->own_alias->dataflow(), *view->own_ordering);
  // The text order moved with the edges: what the module leaves unordered elsewhere must still
  // be safe in it (reads that only the text order puts before a write).
  if (check_safe && FindBufferConflict(*view->own_alias, *view->live, donated_)) {
    return absl::FailedPreconditionError("not buffer-safe in the new order");
  }
  view->elider = std::make_unique<Elider>(module_, *view->own_alias, *view->live, donated_,
                                          /*copy_read_only_at_definition=*/false, value_lists_);
  return view;
}

std::string UnorderedReaderOrdering::TryRemove(Instruction& copy,
                                               std::optional<Elider::OrderFix> first,
                                               std::unique_ptr<DefaultView>& view,
                                               std::string kept) {
  ++attempts_;
  Computation* home = copy.parent();
  // Edges added for earlier removals at this copy go if it goes (as XLA strips a removed
  // copy's edges): decide without them.
  std::vector<Edge> detached;
  for (auto it = edges_.begin(); it != edges_.end();) {
    if (it->reader == &copy || it->writer == &copy) {
      RemoveControlEdge(it->reader, it->writer);
      detached.push_back(std::move(*it));
      it = edges_.erase(it);
    } else {
      ++it;
    }
  }
  if (!detached.empty()) first.reset();  // found with those edges in place
  std::vector<Edge> added;
  absl::flat_hash_map<Computation*, std::vector<Instruction*>> orders;  // to put back
  std::unique_ptr<DefaultView> fresh;
  std::string reason = std::move(kept);
  std::optional<Elider::OrderFix> fix = std::move(first);
  bool removed = false;
  while (true) {
    if (fix) {
      Instruction* reader = fix->reader;
      Instruction* writer = fix->writer;
      if (added.size() == kMaxEdgesPerCopy || reader == &copy || writer == &copy ||
          RunsBefore(writer, reader)) {
        break;
      }
      Computation* c = writer->parent();
      if (!orders.contains(c)) {
        c->CompactInstructions();
        orders.emplace(c, OrderOf(*c));
      }
      AddPrintedControlEdge(reader, writer);
      RestoreScheduleOrder(*c);  // the text order follows the edge (the interpreter's order)
      added.push_back(
          {reader, writer, std::string(c->name()), std::string(reader->name()),
           std::string(writer->name()),
           fmt::format("%{} -> %{} in {}: reads {} before %{} overwrites its buffer (XLA's copy "
                       "removal orders unordered instructions), instead of %{}",
                       reader->name(), writer->name(), c->name(), fix->value, writer->name(),
                       copy.name())});
      if (skip_check_) {  // the broken variant: the first edge, not decided again
        Instruction* src = copy.operand(0);
        copy.RemoveAllControlEdges();
        copy.ReplaceAllUsesWith(src);
        removed = home->RemoveInstruction(&copy);
        if (removed) {
          absl::StatusOr<std::unique_ptr<DefaultView>> built = Build(/*check_safe=*/false);
          if (built.ok()) view = std::move(*built);
        }
        break;
      }
    }
    if (spent_ + size_ > kBudget) break;
    absl::StatusOr<std::unique_ptr<DefaultView>> built = Build();
    if (!built.ok()) break;
    fresh = std::move(*built);
    bool final = false;
    std::string why = fresh->elider->Check(copy, &final);
    if (why.empty()) {
      Instruction* src = copy.operand(0);
      copy.RemoveAllControlEdges();
      copy.ReplaceAllUsesWith(src);
      if (!home->RemoveInstruction(&copy)) {
        fresh->elider->Abort();
        break;
      }
      fresh->elider->Commit();
      view = std::move(fresh);
      removed = true;
      break;
    }
    reason = std::move(why);
    fix = fresh->elider->fix();
    if (!fix) break;
  }
  if (removed) {
    for (Edge& e : added) edges_.push_back(std::move(e));
    home->CompactInstructions();
    return "";
  }
  for (auto it = added.rbegin(); it != added.rend(); ++it)
    RemoveControlEdge(it->reader, it->writer);
  for (auto& [c, order] : orders) RestoreOrder(*c, order);
  for (Edge& e : detached) {
    AddPrintedControlEdge(e.reader, e.writer);
    edges_.push_back(std::move(e));
  }
  return reason;
}

void UnorderedReaderOrdering::Report(CopyElisionReport& report) const {
  for (const Edge& e : edges_) {
    if (e.reader->parent() == nullptr || e.writer->parent() == nullptr ||
        !HasControlEdge(*e.reader, *e.writer)) {
      continue;
    }
    report.added_edges.push_back(e.detail);
    report.added_edge_names.push_back({e.computation, e.reader_name, e.writer_name});
  }
}

// A copy of `def` (not a root) that every reader of it reads instead, placed right after it or
// before its first reader, whichever comes first (a parameter may be listed after instructions
// that read it), as XLA's special-case copies are. Returns the copy.
Instruction* CopyAfter(Module& module, Instruction* def) {
  Computation* comp = def->parent();
  const absl::flat_hash_set<const Instruction*> readers(def->users().begin(), def->users().end());
  Instruction* before = nullptr;
  bool after_def = false;
  for (Instruction* i : comp->instructions()) {
    if (after_def || readers.contains(i)) {
      before = i;
      break;
    }
    after_def = i == def;
  }
  Instruction* copy = module.CreateInstruction(Opcode::kCopy, def->shape_ptr(),
                                               module.UniqueInstructionName("copy"), comp);
  comp->AddInstruction(copy);
  def->ReplaceAllUsesWith(copy);
  copy->AppendOperand(def);
  comp->MoveBefore(copy, before);
  return copy;
}

// XLA's special-case copy of a read-only value (a constant or an entry parameter that is not
// donated) that shares a buffer with other values.
Instruction* CopyWhereDefined(Module& module, const HloValue& value) {
  return CopyAfter(module, const_cast<Instruction*>(value.instruction));
}

// The product of the trip counts of the loops around `copy`. A product past int64 (200 nested
// 2-trip loops) is kInt64Max with *known false, never a wrapped value; so is a nest deeper than
// the walk follows.
int64_t ExecutionsPerStep(const Instruction& copy, const ExecutionOrdering& ordering, bool* known) {
  int64_t product = 1;
  *known = true;
  const Instruction* at = &copy;
  for (int guard = 0; at != nullptr; ++guard) {
    if (guard == 100'000) {
      *known = false;
      break;
    }
    const Instruction* caller = ordering.CallerOf(*at->parent());
    if (caller == nullptr) {
      // Reached the entry, or a computation with several callers: unknown beyond here.
      if (at->parent() != at->module()->entry()) *known = false;
      break;
    }
    if (caller->opcode() == Opcode::kWhile && caller->while_body() == at->parent()) {
      if (std::optional<int64_t> trips = WhileTripCount(*caller)) {
        std::optional<int64_t> next = CheckedMul(product, *trips);
        if (!next) {
          *known = false;
          return kInt64Max;
        }
        product = *next;
      } else {
        *known = false;
      }
    }
    at = caller;
  }
  return product;
}

// One run of copy-elision: the analyses it decides with, the copies in module order and what
// was decided for each. Not movable: the Eliders keep references to `live` and `donated`.
struct ElisionRun {
  ElisionRun(Module& m, const ExecutionOrdering& o, const DataflowAnalysis& f)
      : module(m),
        ordering(o),
        flow(f),
        donated(m.input_output_aliases().begin(), m.input_output_aliases().end()),
        live(f, o) {}
  ElisionRun(const ElisionRun&) = delete;
  ElisionRun& operator=(const ElisionRun&) = delete;

  Module& module;
  const ExecutionOrdering& ordering;
  // The default view's first dataflow: the relocations are placed with it, whatever later
  // rebuilds of the view (UnorderedReaderOrdering) replaced.
  const DataflowAnalysis& flow;
  const std::vector<InputOutputAlias> donated;
  ValueLiveness live;
  std::unique_ptr<DefaultView> view;
  // With bitcasts as new values, a second view of the same module, whose answers only add
  // reasons to keep a copy (a fusion that cannot update in place through a bitcast).
  std::unique_ptr<ValueLiveness> bitcast_live;
  std::unique_ptr<Elider> bitcast_elider;
  // With bitcasts as new values, the copies the default removes: only those may go.
  std::optional<absl::flat_hash_set<std::string>> default_removes;
  std::vector<Instruction*> copies;
  std::vector<CopyDecision> decisions;
  // Per copy, when its last try failed on an instruction that cannot write over an operand.
  std::vector<std::optional<Elider::NotInPlace>> not_in_place;
  // Computations that lost instructions, to compact at the end.
  std::vector<Computation*> touched;
  // The copies of read-only values placed where they are defined so far (PlaceRelocations),
  // and whether placing them before control edges are tried failed once (then the remaining
  // relocations are placed at the end and no more edges are tried).
  std::vector<Instruction*> relocation_copies;
  bool relocations_stay = false;
};

// The copies that copy-elision with its defaults removes from a copy of `module`. With
// bitcasts as new values, the pass removes only those (the documented subset property):
// removal is greedy, so which of two interfering copies goes depends on what went before, and
// a copy the bitcast view keeps could let the default's kept partner go. A twin that does not
// parse or run bounds the run to removing nothing.
absl::flat_hash_set<std::string> CopiesTheDefaultRemoves(const Module& module) {
  absl::flat_hash_set<std::string> removes;
  absl::StatusOr<std::unique_ptr<Module>> twin = ParseModule(PrintModule(module));
  if (!twin.ok()) return removes;
  CopyElision by_default;
  absl::StatusOr<bool> ran = by_default.Run(**twin);
  if (!ran.ok()) return removes;
  for (const CopyDecision& d : by_default.report().copies) {
    if (d.removed) removes.insert(d.name);
  }
  return removes;
}

// The copies in computations that run as control flow, with a decision each (kept, no reason
// yet). Inside fusions and reducers a copy has no buffer of its own, and a computation that
// nothing reachable from the entry calls never runs: its copies cost nothing and are neither
// removed nor reported.
void CollectCopies(ElisionRun& run) {
  const absl::flat_hash_set<const Computation*> runs = ReachableComputations(run.module);
  for (Computation* c : run.module.computations()) {
    if (run.flow.call_graph().IsEmbedded(c) || !runs.contains(c)) continue;
    for (Instruction* i : c->instructions()) {
      if (i->opcode() == Opcode::kCopy) run.copies.push_back(i);
    }
  }
  run.decisions.resize(run.copies.size());
  run.not_in_place.resize(run.copies.size());
  for (size_t i = 0; i < run.copies.size(); ++i) {
    CopyDecision& d = run.decisions[i];
    d.name = std::string(run.copies[i]->name());
    d.computation = std::string(run.copies[i]->parent()->name());
    d.bytes = run.copies[i]->shape().ByteSize();
    d.executions_per_step = ExecutionsPerStep(*run.copies[i], run.ordering, &d.executions_known);
  }
}

// Empty when every view lets `copy` go (it is then gone from the module); otherwise why it
// stays.
std::string TryRemove(ElisionRun& run, Instruction& copy, bool* final) {
  Elider& elider = *run.view->elider;
  Elider* bitcast = run.bitcast_elider.get();
  std::string reason;
  if (bitcast != nullptr) {
    reason = bitcast->Check(copy, final);
    if (!reason.empty()) return reason;
  }
  reason = elider.Check(copy, final);
  if (!reason.empty()) {
    if (bitcast != nullptr) {
      bitcast->Abort();
      reason = "at run time a bitcast shares its operand's bytes: " + reason;
    }
    return reason;
  }
  if (run.default_removes.has_value() && !run.default_removes->contains(std::string(copy.name()))) {
    elider.Abort();
    if (bitcast != nullptr) bitcast->Abort();
    *final = true;
    return "copy-elision with its defaults keeps it (with bitcasts as new values only copies "
           "it removes may go)";
  }
  Instruction& src = *copy.operand(0);
  copy.RemoveAllControlEdges();
  copy.ReplaceAllUsesWith(&src);
  if (!copy.parent()->RemoveInstruction(&copy)) {
    // Cannot happen after ReplaceAllUsesWith; keep the analyses true if it does.
    elider.Abort();
    if (bitcast != nullptr) bitcast->Abort();
    return "could not be detached from its users";
  }
  elider.Commit();
  if (bitcast != nullptr) bitcast->Commit();
  return "";
}

// Places the copy of each read-only value the view relocated (XLA's special-case copy) and
// returns them. Only the run's first view relocates (a rebuilt one never does), so the values
// are the run's first dataflow's; a view's relocations are placed all at once, before the view
// is rebuilt or at the end.
std::vector<Instruction*> PlaceRelocations(ElisionRun& run) {
  std::vector<Instruction*> placed;
  for (ValueId r : run.view->elider->relocated()) {
    placed.push_back(CopyWhereDefined(run.module, run.flow.value(r)));
  }
  return placed;
}

// The inverse of CopyWhereDefined: the readers read the value itself again.
void TakeBackCopy(Instruction* copy) {
  Instruction* def = copy->operand(0);
  Computation* comp = copy->parent();
  copy->ReplaceAllUsesWith(def);
  (void)comp->RemoveInstruction(copy);
  comp->CompactInstructions();
}

// Before control edges are tried on a view that has relocated read-only values: places their
// copies into the module and rebuilds the view from it, so that the orderer's analyses (which
// read the module) see them. The view's record and the module then agree; the rebuilt view
// relocates nothing more. False when the rebuild fails: the copies are taken back, the view is
// kept, and no edges are tried in this run from then on (its relocations go in at the end).
bool PlaceRelocationsForOrdering(ElisionRun& run, UnorderedReaderOrdering& orderer) {
  if (run.relocations_stay) return false;
  std::vector<Instruction*> placed = PlaceRelocations(run);
  if (orderer.Rebuild(run.view)) {
    run.relocation_copies.insert(run.relocation_copies.end(), placed.begin(), placed.end());
    return true;
  }
  for (auto it = placed.rbegin(); it != placed.rend(); ++it) TakeBackCopy(*it);
  run.relocations_stay = true;
  return false;
}

// Sweeps over the copies until a sweep removes none, each removal through TryRemove or, with
// `orderer`, with control edges (XLA's copy removal forcing the order of unordered readers).
//
// The orderer rebuilds the view's analyses from the module, where a read-only value's copy
// at its definition (Elider::Relocatable) is only a record of the view: before edges are tried
// for a view that has relocated values, their copies are placed and the view rebuilt
// (PlaceRelocationsForOrdering), so no rebuilt analysis misses a copy still to be placed.
void SweepCopies(ElisionRun& run, std::optional<UnorderedReaderOrdering>& orderer,
                 int64_t* sweeps) {
  std::vector<bool> settled(run.copies.size(), false);
  // The number of removals so far, and for each copy the number at its last failed attempt
  // with edges: nothing changed since, so it would fail again.
  int64_t generation = 0;
  std::vector<int64_t> order_failed_at(run.copies.size(), -1);
  for (bool progress = true; progress;) {
    progress = false;
    ++*sweeps;
    for (size_t i = 0; i < run.copies.size(); ++i) {
      if (settled[i]) continue;
      Instruction* copy = run.copies[i];
      CopyDecision& decision = run.decisions[i];
      Computation* parent = copy->parent();
      bool final = false;
      const bool at_added_edge = orderer.has_value() && orderer->Touches(copy);
      std::string reason;
      if (at_added_edge) {  // decided by the orderer only, without its edges (Touches)
        reason = decision.reason.empty() ? "has control edges added to remove other copies"
                                         : decision.reason;
      } else {
        reason = TryRemove(run, *copy, &final);
        if (!reason.empty() && run.bitcast_elider == nullptr) {
          run.not_in_place[i] = run.view->elider->not_in_place();
        }
      }
      if (!reason.empty() && orderer.has_value() &&
          (at_added_edge || (!final && run.view->elider->fix().has_value())) &&
          order_failed_at[i] != generation && orderer->CanTry()) {
        std::optional<Elider::OrderFix> first;
        if (!at_added_edge) first = run.view->elider->fix();
        bool may_order = true;
        if (!run.view->elider->relocated().empty()) {
          // The fix was found before the relocation copies were in the module: the orderer
          // starts again from the rebuilt view's own answer.
          may_order = PlaceRelocationsForOrdering(run, *orderer);
          first.reset();
        }
        if (may_order) {
          reason = orderer->TryRemove(*copy, std::move(first), run.view, std::move(reason));
          if (!reason.empty()) order_failed_at[i] = generation;
        }
      }
      if (reason.empty()) {
        ++generation;
        decision.removed = true;
        decision.reason.clear();
        settled[i] = true;
        progress = true;
        run.touched.push_back(parent);
      } else {
        decision.reason = std::move(reason);
        settled[i] = final;
      }
    }
  }
}

// Places the view's remaining relocations and reports every relocation copy as an added copy.
void PlaceRelocatedCopies(ElisionRun& run) {
  std::vector<Instruction*> placed = PlaceRelocations(run);
  run.relocation_copies.insert(run.relocation_copies.end(), placed.begin(), placed.end());
  for (Instruction* copy : run.relocation_copies) {
    CopyDecision d;
    d.name = std::string(copy->name());
    d.computation = std::string(copy->parent()->name());
    // Names the parameter as the read-only rule does ("(entry parameter N, not donated)"):
    // donating it would make this copy unnecessary, and the copy report's opportunities
    // (passes/copy_opportunities.h) read that phrase.
    const Instruction& def = *copy->operand(0);
    const std::string what =
        def.opcode() == Opcode::kConstant
            ? std::string("a constant")
            : fmt::format("entry parameter {}, not donated", def.parameter_number());
    d.reason = fmt::format(
        "added: read-only %{} ({}) joins a buffer with other values through this copy, taken "
        "where it is defined (XLA's special-case copy), so the copies that kept it apart could go",
        def.name(), what);
    d.bytes = copy->shape().ByteSize();
    d.executions_per_step = ExecutionsPerStep(*copy, run.ordering, &d.executions_known);
    run.copies.push_back(copy);
    run.decisions.push_back(std::move(d));
    // Kept parallel to `copies`: CopyOperandsInstead reads it for every copy, these included.
    run.not_in_place.emplace_back();
  }
}

// A kept parameter/root copy pair of one loop state element whose readers control edges could
// order before the writer of the element's new value (XLA's region analysis).
struct LoopStatePair {
  size_t param_index = 0;  // in ElisionRun::copies
  size_t root_index = 0;
  const Instruction* loop = nullptr;
  Instruction* writer = nullptr;
  std::vector<Instruction*> readers;
};

// The pair whose parameter copy is copies[i], when it is one that edges could remove.
std::optional<LoopStatePair> FindLoopStatePair(const ElisionRun& run, size_t i) {
  if (run.decisions[i].removed) return std::nullopt;
  Instruction* param_copy = run.copies[i];
  Computation* body = param_copy->parent();
  const Instruction* source = param_copy->operand(0);
  if (source->opcode() != Opcode::kGetTupleElement ||
      source->operand(0)->opcode() != Opcode::kParameter) {
    return std::nullopt;
  }
  const Instruction* caller = run.ordering.CallerOf(*body);
  if (caller == nullptr || caller->opcode() != Opcode::kWhile || caller->while_body() != body) {
    return std::nullopt;
  }
  if (!param_copy->control_predecessors().empty() || param_copy->control_successors().size() != 1) {
    return std::nullopt;
  }
  Instruction* root_copy = param_copy->control_successors()[0];
  const size_t j = static_cast<size_t>(std::find(run.copies.begin(), run.copies.end(), root_copy) -
                                       run.copies.begin());
  if (j == run.copies.size() || run.decisions[j].removed) return std::nullopt;
  if (root_copy->control_predecessors().size() != 1 || !root_copy->control_successors().empty()) {
    return std::nullopt;
  }
  Instruction* writer = root_copy->operand(0);
  const Opcode w = writer->opcode();
  if (writer->parent() != body || w == Opcode::kGetTupleElement || w == Opcode::kParameter ||
      w == Opcode::kConstant || w == Opcode::kTuple || w == Opcode::kCopy) {
    return std::nullopt;
  }
  std::vector<Instruction*> readers(param_copy->users().begin(), param_copy->users().end());
  if (readers.empty()) return std::nullopt;
  for (Instruction* reader : readers) {
    // A reader that is itself a copy moves the element elsewhere in the loop state (a
    // swizzle): XLA keeps that pair, and so does this.
    if (reader == root_copy || reader == body->root() || reader == writer ||
        reader->opcode() == Opcode::kCopy || RunsBefore(writer, reader) ||
        // A schedule is kept as it is: the reader must already come first.
        (run.ordering.sequential() &&
         run.ordering.Position(*reader) > run.ordering.Position(*writer))) {
      return std::nullopt;
    }
  }
  return LoopStatePair{i, j, caller, writer, std::move(readers)};
}

// Whether a changed copy of the module (a twin: reparsed, then given a candidate change) passes
// copy-elision's buffer-safety check, run without the orderings that could change it further.
bool TwinBufferSafe(Module& twin) {
  CopyElisionOptions check;
  check.order_loop_readers = false;
  check.order_unordered_readers = false;
  CopyElision checker(check);
  absl::StatusOr<bool> ran = checker.Run(twin);
  return ran.ok() && checker.report().buffer_safe;
}

// Whether removing `pair` with its edges leaves a reparsed copy of the module buffer-safe.
bool LoopStatePairSafe(const ElisionRun& run, const LoopStatePair& pair) {
  const Instruction& param_copy = *run.copies[pair.param_index];
  const Instruction& root_copy = *run.copies[pair.root_index];
  const std::string_view body = param_copy.parent()->name();
  absl::StatusOr<std::unique_ptr<Module>> twin = ParseModule(PrintModule(run.module));
  if (!twin.ok()) return false;
  Instruction* tp = FindByName(**twin, body, param_copy.name());
  Instruction* tr = FindByName(**twin, body, root_copy.name());
  if (tp == nullptr || tr == nullptr) return false;
  std::vector<Instruction*> twin_readers(tp->users().begin(), tp->users().end());
  OrderLoopReaders(tp, tr, twin_readers);
  return TwinBufferSafe(**twin);
}

// XLA's region analysis in while bodies (CopyElisionOptions::order_loop_readers): a kept
// parameter/root copy pair of one element goes when the body's readers of the old element can
// all run before the writer of the new one. Each candidate is tried on a reparsed copy of the
// module first (unless `skip_check`) and applied only if the result passes the buffer-safety
// check. At most kMaxOrderings tries, to bound the cost.
void OrderLoopStatePairs(ElisionRun& run, bool skip_check, CopyElisionReport& report) {
  constexpr int kMaxOrderings = 16;
  int tries = 0;
  for (size_t i = 0; i < run.copies.size() && tries < kMaxOrderings; ++i) {
    std::optional<LoopStatePair> pair = FindLoopStatePair(run, i);
    if (!pair.has_value()) continue;
    ++tries;
    if (!skip_check && !LoopStatePairSafe(run, *pair)) continue;
    Instruction* param_copy = run.copies[pair->param_index];
    Instruction* root_copy = run.copies[pair->root_index];
    Computation* body = param_copy->parent();
    for (Instruction* reader : pair->readers) {
      report.added_edges.push_back(fmt::format(
          "%{} -> %{} in {}: reads loop state of %{} before %{} writes its next value (XLA's "
          "region analysis), instead of %{} and %{}",
          reader->name(), pair->writer->name(), body->name(), pair->loop->name(),
          pair->writer->name(), param_copy->name(), root_copy->name()));
      report.added_edge_names.push_back({std::string(body->name()), std::string(reader->name()),
                                         std::string(pair->writer->name())});
    }
    OrderLoopReaders(param_copy, root_copy, pair->readers);
    for (size_t k : {pair->param_index, pair->root_index}) {
      run.decisions[k].removed = true;
      run.decisions[k].reason.clear();
    }
    run.touched.push_back(body);
  }
}

// A kept copy of an instruction's result that XLA's region analysis lets go, its special-case
// phase then copying the operand the instruction cannot write over (CopyOperandsInstead).
struct OperandCopy {
  size_t index = 0;  // of the kept copy, in ElisionRun::copies
  Instruction* reader = nullptr;
  int64_t operand = 0;
};

std::optional<OperandCopy> FindOperandCopy(const ElisionRun& run, size_t i) {
  if (run.decisions[i].removed || !run.not_in_place[i].has_value()) return std::nullopt;
  Instruction* copy = run.copies[i];
  const Elider::NotInPlace& why = *run.not_in_place[i];
  Instruction* reader = copy->operand(0);
  // XLA's region analysis skips copies of broadcasts.
  if (why.reader != reader || reader->opcode() == Opcode::kBroadcast || why.operand < 0 ||
      why.operand >= reader->operand_count()) {
    return std::nullopt;
  }
  const Instruction* operand = reader->operand(why.operand);
  if (!copy->control_predecessors().empty() || !copy->control_successors().empty() ||
      !operand->shape().IsArray() || !(operand->shape() == reader->shape()) ||
      operand->parent() != reader->parent() || operand->IsRoot() ||
      !operand->control_successors().empty()) {
    return std::nullopt;
  }
  return OperandCopy{i, reader, why.operand};
}

// The change itself: the operand copied where it is defined (every reader of it reads the
// copy, as XLA's special-case copy), and the kept copy gone. Returns the new copy.
Instruction* MoveCopyToOperand(Module& module, Instruction* copy, Instruction* reader,
                               int64_t operand) {
  Instruction* added = CopyAfter(module, reader->operand(operand));
  copy->ReplaceAllUsesWith(reader);
  Computation* home = copy->parent();
  (void)home->RemoveInstruction(copy);
  home->CompactInstructions();
  return added;
}

// Whether `change` leaves a reparsed copy of the module buffer-safe, with no read-only value in
// the reader's buffer (XLA would copy it again) and that buffer at one entry output at most.
bool OperandCopySafe(const ElisionRun& run, const OperandCopy& change) {
  const Instruction& copy = *run.copies[change.index];
  absl::StatusOr<std::unique_ptr<Module>> twin = ParseModule(PrintModule(run.module));
  if (!twin.ok()) return false;
  Instruction* tc = FindByName(**twin, copy.parent()->name(), copy.name());
  Instruction* tr = FindByName(**twin, change.reader->parent()->name(), change.reader->name());
  if (tc == nullptr || tr == nullptr || tc->operand(0) != tr) return false;
  MoveCopyToOperand(**twin, tc, tr, change.operand);
  if (!TwinBufferSafe(**twin)) return false;
  absl::StatusOr<std::unique_ptr<AliasAnalysis>> alias = AliasAnalysis::Run(**twin);
  if (!alias.ok()) return false;
  const DataflowAnalysis& flow = (*alias)->dataflow();
  const ValueId written = flow.ValueDefinedAt(*tr);
  if (written == kNoValue) return false;
  const HloBuffer& buffer = (*alias)->BufferOf(written);
  for (ValueId v : buffer.values) {
    if (IsReadOnlyValue(flow.value(v), **twin, (*twin)->input_output_aliases())) return false;
  }
  const Instruction* root = (*twin)->entry() != nullptr ? (*twin)->entry()->root() : nullptr;
  int outputs = 0;
  for (int32_t p = 0; root != nullptr && p < flow.PositionCount(*root); ++p) {
    for (ValueId v : flow.ValuesAtPosition(*root, p)) {
      if ((*alias)->BufferOf(v).id == buffer.id) {
        ++outputs;
        break;
      }
    }
  }
  return outputs <= 1;
}

// CopyElisionOptions::xla_region_analysis: a copy kept only because the instruction it copies
// cannot write over one of its operands, a value of the merged buffer, goes, and that operand
// is copied instead: XLA's region analysis removes such a copy, and its special-case phase
// copies the operand back (CanShareOperandBufferWithUser is false). One copy for one, placed
// as XLA places it; each tried on a reparsed copy of the module first (unless `skip_check`).
void CopyOperandsInstead(ElisionRun& run, bool skip_check) {
  constexpr int kMaxTries = 16;
  int tries = 0;
  const size_t kept_before = run.copies.size();
  for (size_t i = 0; i < kept_before && tries < kMaxTries; ++i) {
    std::optional<OperandCopy> change = FindOperandCopy(run, i);
    if (!change.has_value()) continue;
    ++tries;
    if (!skip_check && !OperandCopySafe(run, *change)) continue;
    Instruction* copy = run.copies[i];
    const std::string copy_name(copy->name());
    Computation* home = copy->parent();
    const Instruction& operand = *change->reader->operand(change->operand);
    const std::string operand_name(operand.name());
    Instruction* added = MoveCopyToOperand(run.module, copy, change->reader, change->operand);
    run.decisions[i].removed = true;
    run.decisions[i].reason.clear();
    run.touched.push_back(home);
    CopyDecision d;
    d.name = std::string(added->name());
    d.computation = std::string(added->parent()->name());
    d.reason = fmt::format(
        "added: %{} cannot write over its operand %{}, so that is copied instead of its result "
        "%{} (XLA's region analysis removes the copy of the result, and its special-case copy "
        "takes the operand)",
        change->reader->name(), operand_name, copy_name);
    d.bytes = added->shape().ByteSize();
    d.executions_per_step = ExecutionsPerStep(*added, run.ordering, &d.executions_known);
    run.copies.push_back(added);
    run.decisions.push_back(std::move(d));
    run.not_in_place.emplace_back();
  }
}

// The report's totals over `decisions`, which it then holds.
void Tally(std::vector<CopyDecision> decisions, CopyElisionReport& report) {
  for (const CopyDecision& d : decisions) {
    // Saturating: kInt64Max reads as "overflow" in the report, never as a wrapped count.
    const int64_t traffic = SaturatingMul(d.bytes, d.executions_per_step);
    if (d.removed) {
      ++report.removed;
      report.bytes_saved_per_step = SaturatingAdd(report.bytes_saved_per_step, traffic);
    } else {
      ++report.kept;
      report.bytes_kept_per_step = SaturatingAdd(report.bytes_kept_per_step, traffic);
    }
  }
  report.copies = std::move(decisions);
}

}  // namespace

CopyElision::CopyElision(CopyElisionOptions options) : options_(options) {
  mutable_pass_options().AddBool(
      "bitcast-defines-value", &options_.dataflow.bitcast_defines_value,
      "Also require every removal to be safe when a bitcast defines a new value (keeps more "
      "copies, never fewer).");
  mutable_pass_options().AddBool(
      "order-unordered-readers", &options_.order_unordered_readers,
      "Remove a copy kept only because a reader of a donated entry parameter and the writer "
      "of its buffer are unordered, ordering them with control edges named in the pass's report "
      "(XLA's copy removal does).");
  mutable_pass_options().AddBool(
      "region-analysis", &options_.xla_region_analysis,
      "Decide as XLA's copy insertion with region analysis on (use_region_based_live_range_"
      "analysis=-1, as many of XLA's tests run it): a removal must also fit XLA's ordered value "
      "lists or, where they refuse, pass XLA's region-based interference test; an unordered reader "
      "of a value that is not read-only may be ordered before the "
      "writer with a control edge, and a copy kept only because the instruction it copies cannot "
      "write over "
      "its operand is moved to that operand.");
}

std::unique_ptr<PassReport> CopyElision::LastReport() const {
  return std::make_unique<CopyElisionPassReport>(report_);
}

absl::StatusOr<bool> CopyElision::RunOnModule(Module& module, AnalysisCache& analyses) {
  report_ = CopyElisionReport{};
  const bool bitcast_values = options_.dataflow.bitcast_defines_value;
  report_.bitcast_defines_value = bitcast_values;
  // Storage as it is at run time, whatever the option: a bitcast reinterprets its operand's
  // bytes. Every removal must be safe here (the option may only keep more copies).
  // Every analysis is taken here, before the first removal; the removals then keep their own
  // record on top of them (Elider::Commit), and Run invalidates the cache once the pass is done.
  absl::StatusOr<const AliasAnalysis*> alias =
      analyses.Alias(DataflowOptions{.bitcast_defines_value = false});
  if (!alias.ok()) return alias.status();
  absl::StatusOr<const ExecutionOrdering*> ordering = analyses.Ordering();
  if (!ordering.ok()) return ordering.status();
  ElisionRun run(module, **ordering, (*alias)->dataflow());
  // Removal reasons from buffers that already hold a conflict: its answers would be noise.
  if (std::optional<BufferConflict> conflict = FindBufferConflict(**alias, run.live, run.donated)) {
    report_.buffer_safe = false;
    report_.not_buffer_safe = std::move(conflict->message);
    return false;
  }
  if (bitcast_values) run.default_removes = CopiesTheDefaultRemoves(module);
  // XLA's placement of read-only copies (Elider::Relocatable) in the default view only: with
  // bitcasts as values the pass keeps such copies where they are.
  run.view = std::make_unique<DefaultView>();
  run.view->elider =
      std::make_unique<Elider>(module, **alias, run.live, run.donated,
                               /*copy_read_only_at_definition=*/!bitcast_values,
                               /*value_lists=*/options_.xla_region_analysis && !bitcast_values);
  if (bitcast_values) {
    absl::StatusOr<const AliasAnalysis*> bitcast_alias =
        analyses.Alias(DataflowOptions{.bitcast_defines_value = true});
    if (!bitcast_alias.ok()) return bitcast_alias.status();
    run.bitcast_live = std::make_unique<ValueLiveness>((*bitcast_alias)->dataflow(), **ordering);
    run.bitcast_elider =
        std::make_unique<Elider>(module, **bitcast_alias, *run.bitcast_live, run.donated);
    // A module that overwrites a live value when bitcasts are values is left alone too.
    if (std::optional<BufferConflict> conflict =
            FindBufferConflict(**bitcast_alias, *run.bitcast_live, run.donated)) {
      report_.buffer_safe = false;
      report_.not_buffer_safe = "with bitcasts as new values, " + conflict->message;
      return false;
    }
  }

  CollectCopies(run);
  // XLA's copy removal forcing the order of unordered instructions (order_unordered_readers):
  // a copy kept for want of an order goes with control edges. Not where a schedule orders
  // everything, nor with bitcasts as values (that variant removes a subset of the default's).
  std::optional<UnorderedReaderOrdering> orderer;
  if (options_.order_unordered_readers && !bitcast_values && !(*ordering)->sequential()) {
    orderer.emplace(module, run.donated, options_.skip_order_check, options_.xla_region_analysis);
  }
  SweepCopies(run, orderer, &report_.sweeps);
  if (orderer.has_value()) orderer->Report(report_);
  PlaceRelocatedCopies(run);
  if (options_.order_loop_readers && !bitcast_values) {
    OrderLoopStatePairs(run, options_.skip_order_check, report_);
  }
  if (options_.xla_region_analysis && !bitcast_values)
    CopyOperandsInstead(run, options_.skip_order_check);
  std::sort(run.touched.begin(), run.touched.end());
  run.touched.erase(std::unique(run.touched.begin(), run.touched.end()), run.touched.end());
  for (Computation* c : run.touched) c->CompactInstructions();

  Tally(std::move(run.decisions), report_);
  return report_.removed > 0 || !report_.added_edges.empty();
}

}  // namespace hloscope
