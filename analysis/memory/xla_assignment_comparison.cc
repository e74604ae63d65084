#include "analysis/memory/xla_assignment_comparison.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "analysis/memory/xla_model_peak.h"
#include "fmt/format.h"
#include "hlo/computation.h"
#include "hlo/instruction.h"

namespace hloscope {
namespace {

std::string Key(std::string_view instruction, const std::vector<int64_t>& index) {
  std::string out(instruction);
  if (index.empty()) return out;
  out += '{';
  for (size_t i = 0; i < index.size(); ++i) {
    if (i) out += ',';
    out += std::to_string(index[i]);
  }
  return out + '}';
}

// Where a value sits, on either side, in words both sides share.
struct Place {
  int64_t allocation = -1;
  std::string kind;  // "parameter N", "constant", "maybe-live-out", "thread-local", "temp"
  int64_t offset = 0;
  int64_t bytes = 0;
  // Live range on our entry schedule: first step, last step; XLA's last step is known only
  // within [last, last_max] (see ReadTrace), ours exactly (last_max == last).
  struct Steps {
    int32_t first = 0;
    int32_t last = 0;
    int32_t last_max = 0;
  };
  std::optional<Steps> steps;
  bool temp = false;
  int64_t buffer = -1;  // ours: the buffer it shares with other values
};

std::string XlaPlaceKind(const XlaAllocation& a) {
  if (a.is_entry_parameter) return fmt::format("parameter {}", a.parameter_number);
  if (a.is_constant) return "constant";
  if (a.is_thread_local) return "thread-local";
  if (a.maybe_live_out) return "maybe-live-out";
  return "temp";
}

std::string ModelPlaceKind(const XlaModelAllocation& a) {
  if (a.parameter) return fmt::format("parameter {}", a.parameter_number);
  if (a.constant) return "constant";
  if (a.thread_local_) return "thread-local";
  if (a.maybe_live_out) return "maybe-live-out";
  return "temp";
}

// XLA's words for a modeled allocation's kinds (XlaAllocation::KindText).
std::string ModelKindText(const XlaModelAllocation& a) {
  XlaAllocation x;
  x.is_entry_parameter = a.parameter;
  x.parameter_number = a.parameter_number;
  x.parameter_index.assign(a.parameter_index.begin(), a.parameter_index.end());
  x.is_constant = a.constant;
  x.maybe_live_out = a.maybe_live_out;
  x.is_thread_local = a.thread_local_;
  x.is_tuple = a.tuple;
  return x.KindText();
}

std::string OurPlaceKind(const SimulatedAllocation& a) {
  switch (a.kind) {
    case SimulatedAllocation::Kind::kParameter:
      return fmt::format("parameter {}", a.parameter_number);
    case SimulatedAllocation::Kind::kConstant:
      return "constant";
    case SimulatedAllocation::Kind::kLiveOut:
      return "maybe-live-out";
    case SimulatedAllocation::Kind::kTemp:
      return "temp";
  }
  return "";
}

std::string Steps(const Place& p) {
  if (!p.steps) return "";
  if (p.steps->last_max > p.steps->last) {
    return fmt::format(", steps {}-{}..{}", p.steps->first, p.steps->last, p.steps->last_max);
  }
  return fmt::format(", steps {}-{}", p.steps->first, p.steps->last);
}

// The entry step each instruction runs at; an instruction of a control-flow callee (at any
// depth) runs at its calling entry instruction's step.
struct StepMap {
  absl::flat_hash_map<std::string_view, int32_t> entry_step;
  absl::flat_hash_map<std::string_view, int32_t> computation_step;  // callees
  std::string_view entry;
  int32_t steps = 0;

  std::optional<int32_t> Find(std::string_view computation, std::string_view instruction) const {
    if (computation == entry || computation.empty()) {
      auto it = entry_step.find(instruction);
      if (it != entry_step.end()) return it->second;
      if (!computation.empty()) return std::nullopt;
    }
    auto it = computation_step.find(computation);
    if (it != computation_step.end()) return it->second;
    return std::nullopt;
  }
};

// `sequence`: our timeline; its entry instructions, in order, are the steps.
StepMap MapSteps(const Module& module, const std::vector<const Instruction*>& sequence) {
  StepMap map;
  if (module.entry() == nullptr) return map;
  map.entry = module.entry()->name();
  std::function<void(const Computation*, int32_t)> mark = [&](const Computation* c, int32_t step) {
    if (!map.computation_step.try_emplace(c->name(), step).second) return;
    for (const Instruction* in : c->instructions()) {
      for (const Computation* callee : in->called_computations()) mark(callee, step);
    }
  };
  int32_t step = 0;
  for (const Instruction* in : sequence) {
    if (in == nullptr || in->parent() != module.entry()) continue;
    map.entry_step.try_emplace(in->name(), step);
    for (const Computation* callee : in->called_computations()) mark(callee, step);
    ++step;
  }
  map.steps = step;
  return map;
}

// Our side of the comparison, whichever model made it: its allocations with the values in
// each (named as XLA names them), its per-kind totals and the timeline its steps are on.
struct OurValue {
  std::string key;  // "name" or "name{1}"
  int64_t offset = 0;
  int64_t bytes = 0;
  std::optional<Place::Steps> steps = std::nullopt;  // entry steps; a buffer's value: the buffer's
  int64_t buffer = -1;
};
struct OurAllocation {
  std::string kind_text;   // XLA's words
  std::string place_kind;  // Place::kind's words
  int64_t bytes = 0;
  bool temp = false;
  std::vector<OurValue> values = {};
};
struct OurSide {
  std::vector<OurAllocation> allocations;
  int64_t parameter = 0, constant = 0, maybe_live_out = 0, thread_local_bytes = 0, temp = 0,
          total = 0;
  std::vector<const Instruction*> sequence;
  // The liveness profile counts a control-flow callee's buffers as one block at its call and
  // has no thread-local allocations: why it lacks a callee's values.
  bool callee_blocks = false;
};

// XLA's live range of each value (by id) in its trace, on our entry steps; and the boxes of
// XLA's temp heap over its own event time.
void ReadTrace(const XlaBufferAssignment& xla, const StepMap& steps,
               absl::flat_hash_map<int64_t, Place::Steps>& range, XlaAssignmentComparison& out) {
  struct TempPlace {
    int64_t offset;  // in the temp allocations laid end to end
    const XlaAssignedValue* value;
  };
  absl::flat_hash_map<int64_t, TempPlace> place;  // by value id
  int64_t base = 0;
  for (const XlaAllocation& a : xla.allocations) {
    if (!a.is_preallocated_temp()) continue;
    for (const XlaAssignedValue& v : a.values) place[v.id] = {base + v.offset, &v};
    base += a.bytes;
  }
  out.xla_heap_bytes = base;
  absl::flat_hash_map<int64_t, int32_t> start_tick;
  absl::flat_hash_map<int64_t, int32_t> start_step;
  struct Span {
    int64_t id;
    int32_t first, last;
  };
  std::vector<Span> spans;
  // The events are in XLA's time order, but each names the instruction that *defines* its
  // value, a free's too (heap_simulator.cc frees at time i with the value's own instruction).
  // So time shows only in allocations: a new defining instruction is a new tick (and its step
  // on our schedule the current step). XLA frees at time i after allocating what i defines,
  // so a free lies at or after the last allocation before it and before the next one: its
  // step is known within those two (the next one's, less one when that is an entry
  // instruction; the last step when none follows).
  int32_t tick = -1;
  std::optional<int32_t> step;  // our entry step of the current time, once known
  const XlaHeapEvent* previous_alloc = nullptr;
  const int32_t last_step = std::max(steps.steps - 1, 0);
  std::vector<int64_t> freed_since_alloc;  // values whose free step awaits its upper bound
  auto bound_frees = [&](int32_t upper) {
    for (int64_t id : freed_since_alloc) {
      Place::Steps& r = range[id];
      r.last_max = std::max(r.last, upper);
    }
    freed_since_alloc.clear();
  };
  for (const XlaHeapTrace& t : xla.heap_traces) {
    for (const XlaHeapEvent& e : t.events) {
      if (e.kind == XlaHeapEvent::Kind::kFree) {
        if (tick < 0) continue;  // nothing allocated yet: no time to free at
        auto s = start_tick.find(e.value_id);
        if (s != start_tick.end()) {
          spans.push_back({e.value_id, s->second, tick});
          start_tick.erase(s);
        }
        auto st = start_step.find(e.value_id);
        if (st != start_step.end()) {
          if (step) {
            range[e.value_id] = {st->second, *step, *step};
            freed_since_alloc.push_back(e.value_id);
          }
          start_step.erase(st);
        }
        continue;
      }
      // A result taking over a dying operand's chunk: XLA frees the operand just before the
      // ShareWith, at the result's own time (HeapSimulator::RunComputation), so that free
      // lies at the result's step, not somewhere before it.
      std::optional<int64_t> freed_for_share;
      if (e.kind == XlaHeapEvent::Kind::kShareWith) {
        auto f = std::find(freed_since_alloc.begin(), freed_since_alloc.end(), e.share_with);
        if (f != freed_since_alloc.end()) {
          freed_for_share = e.share_with;
          freed_since_alloc.erase(f);
        }
      }
      if (previous_alloc == nullptr || previous_alloc->instruction != e.instruction ||
          previous_alloc->computation != e.computation) {
        ++tick;
        if (std::optional<int32_t> at = steps.Find(e.computation, e.instruction)) {
          const bool in_entry = e.computation == steps.entry || e.computation.empty();
          bound_frees(in_entry ? *at - 1 : *at);
          step = std::max(step.value_or(0), *at);
        }
      }
      if (freed_for_share && step) {
        if (auto r = range.find(*freed_for_share); r != range.end()) {
          r->second.last = r->second.last_max = *step;
        }
      }
      previous_alloc = &e;
      start_tick.try_emplace(e.value_id, tick);
      if (step) start_step.try_emplace(e.value_id, *step);
    }
  }
  bound_frees(last_step);
  // Never freed: live to the end.
  for (const auto& [id, first] : start_tick) spans.push_back({id, first, std::max(tick, 0)});
  for (const auto& [id, first] : start_step) range[id] = {first, last_step, last_step};
  out.xla_heap_steps = tick + 1;
  std::vector<XlaHeapBox> boxes;
  for (const Span& s : spans) {
    auto p = place.find(s.id);
    if (p == place.end() || p->second.value->bytes <= 0) continue;
    boxes.push_back({s.first, s.last, p->second.offset, p->second.value->bytes,
                     XlaValueName(*p->second.value)});
  }
  constexpr size_t kMaxBoxes = 2000;
  std::stable_sort(boxes.begin(), boxes.end(),
                   [](const XlaHeapBox& x, const XlaHeapBox& y) { return x.bytes > y.bytes; });
  if (boxes.size() > kMaxBoxes) boxes.resize(kMaxBoxes);
  out.xla_heap = std::move(boxes);
}

}  // namespace

std::string_view XlaValueDifferenceName(XlaValueDifferenceKind kind) {
  switch (kind) {
    case XlaValueDifferenceKind::kMissingInOurs:
      return "missing in ours";
    case XlaValueDifferenceKind::kMissingInXla:
      return "missing in XLA's";
    case XlaValueDifferenceKind::kPlacedElsewhere:
      return "placed elsewhere";
    case XlaValueDifferenceKind::kOtherAllocation:
      return "other allocation";
    case XlaValueDifferenceKind::kSizeDiffers:
      return "size differs";
    case XlaValueDifferenceKind::kLivesLonger:
      return "lives longer";
    case XlaValueDifferenceKind::kLivesShorter:
      return "lives shorter";
  }
  return "";
}

namespace {

// Every value, by name, on each side, and each side's order of them.
struct Places {
  absl::flat_hash_map<std::string, Place> xla, ours;
  std::vector<std::string> xla_order, our_order;
};

Places PlaceValues(const XlaBufferAssignment& xla,
                   const absl::flat_hash_map<int64_t, Place::Steps>& xla_range,
                   const OurSide& ours) {
  Places out;
  for (const XlaAllocation& x : xla.allocations) {
    for (const XlaAssignedValue& v : x.values) {
      Place p;
      p.allocation = x.index;
      p.kind = XlaPlaceKind(x);
      p.offset = v.offset;
      p.bytes = v.bytes;
      p.temp = x.is_preallocated_temp();
      if (auto r = xla_range.find(v.id); r != xla_range.end()) p.steps = r->second;
      std::string key = Key(v.instruction, v.index);
      if (out.xla.try_emplace(key, std::move(p)).second) out.xla_order.push_back(std::move(key));
    }
  }
  for (size_t i = 0; i < ours.allocations.size(); ++i) {
    const OurAllocation& s = ours.allocations[i];
    for (const OurValue& v : s.values) {
      Place p{.allocation = static_cast<int64_t>(i),
              .kind = s.place_kind,
              .offset = v.offset,
              .bytes = v.bytes,
              .steps = v.steps,
              .temp = s.temp,
              .buffer = v.buffer};
      if (out.ours.try_emplace(v.key, std::move(p)).second) out.our_order.push_back(v.key);
    }
  }
  return out;
}

// The allocation of the other side that holds most of an allocation's bytes (a value of 0
// bytes counts 1), ties to the lower index; -1 when it shares no value.
int64_t MostShared(const absl::flat_hash_map<int64_t, int64_t>& shared) {
  int64_t best = -1, best_bytes = 0;
  for (const auto& [index, bytes] : shared) {
    if (bytes > best_bytes || (bytes == best_bytes && index < best)) {
      best = index;
      best_bytes = bytes;
    }
  }
  return best;
}

// Which allocation each side's allocation is beside on the other side (-1: none), counting
// only the values both sides place in the same kind of allocation: the pairs a value is held
// against for "other allocation" (a value in another kind is already "placed elsewhere").
struct Pairing {
  absl::flat_hash_map<int64_t, int64_t> ours_of_xla;  // by XLA's index
  std::vector<int64_t> xla_of_ours;                   // by our index
};

// The allocations side by side (out.allocations): each of XLA's beside ours holding most of
// its bytes, then ours that none of XLA's chose.
Pairing PairAllocations(const XlaBufferAssignment& xla, const OurSide& ours, const Places& places,
                        XlaAssignmentComparison& out) {
  Pairing pairing;
  std::vector<absl::flat_hash_map<int64_t, int64_t>> same_kind_by_ours(ours.allocations.size());
  std::vector<bool> matched(ours.allocations.size(), false);
  for (const XlaAllocation& x : xla.allocations) {
    XlaAllocationPair row;
    row.xla_index = x.index;
    row.xla_kind = x.KindText();
    row.xla_bytes = x.bytes;
    row.xla_values = static_cast<int64_t>(x.values.size());
    absl::flat_hash_map<int64_t, int64_t> shared, same_kind;
    const XlaAssignedValue* largest = nullptr;
    for (const XlaAssignedValue& v : x.values) {
      if (largest == nullptr || v.bytes > largest->bytes) largest = &v;
      const std::string key = Key(v.instruction, v.index);
      auto it = places.ours.find(key);
      if (it == places.ours.end()) continue;
      const int64_t bytes = std::max<int64_t>(v.bytes, 1);
      shared[it->second.allocation] += bytes;
      if (it->second.kind == places.xla.at(key).kind) {
        same_kind[it->second.allocation] += bytes;
        same_kind_by_ours[it->second.allocation][x.index] += bytes;
      }
    }
    pairing.ours_of_xla[x.index] = MostShared(same_kind);
    const int64_t best = MostShared(shared);
    if (best >= 0) {
      const OurAllocation& s = ours.allocations[best];
      matched[best] = true;
      row.ours_index = best;
      row.ours_kind = s.kind_text;
      row.ours_bytes = s.bytes;
      row.ours_values = static_cast<int64_t>(s.values.size());
      for (const XlaAssignedValue& v : x.values) {
        auto it = places.ours.find(Key(v.instruction, v.index));
        if (it != places.ours.end() && it->second.allocation == best) {
          row.example_value = Key(v.instruction, v.index);
          break;
        }
      }
    } else if (largest != nullptr) {
      row.example_value = Key(largest->instruction, largest->index);
    }
    out.allocations.push_back(std::move(row));
  }
  for (const auto& same_kind : same_kind_by_ours) {
    pairing.xla_of_ours.push_back(MostShared(same_kind));
  }
  for (size_t i = 0; i < ours.allocations.size(); ++i) {
    if (matched[i]) continue;
    const OurAllocation& s = ours.allocations[i];
    XlaAllocationPair row;
    row.ours_index = static_cast<int64_t>(i);
    row.ours_kind = s.kind_text;
    row.ours_bytes = s.bytes;
    row.ours_values = static_cast<int64_t>(s.values.size());
    const OurValue* largest = nullptr;
    for (const OurValue& v : s.values) {
      if (largest == nullptr || v.bytes > largest->bytes) largest = &v;
    }
    if (largest != nullptr) row.example_value = largest->key;
    out.allocations.push_back(std::move(row));
  }
  return pairing;
}

// Where a value is, in each side's words, for the differences.
struct Where {
  const XlaBufferAssignment& xla;
  const OurSide& ours;
  std::string Xla(const Place& p) const {
    return fmt::format("allocation {} ({}) at {}{}", p.allocation,
                       xla.allocations[p.allocation].KindText(), p.offset, Steps(p));
  }
  std::string Ours(const Place& p) const {
    return fmt::format("{} at {}{}", ours.allocations[p.allocation].kind_text, p.offset, Steps(p));
  }
};

// Why a value XLA placed is missing in ours: the liveness profile counts a control-flow
// callee's buffers as one block at its call and has no thread-local allocations.
// `computation_of`: each instruction's computation, by name.
std::string WhyMissing(
    const Module& module, const OurSide& ours,
    const absl::flat_hash_map<std::string_view, const Computation*>& computation_of,
    std::string_view key, const Place& x) {
  const std::string_view name = key.substr(0, key.find('{'));
  auto c = computation_of.find(name);
  if (c == computation_of.end() || c->second == module.entry() || !ours.callee_blocks) {
    return "not placed";
  }
  return x.kind == "thread-local"
             ? fmt::format("not placed (in '{}': no thread-local allocations here)",
                           c->second->name())
             : fmt::format("not placed (in '{}': counted in its callee peak at the call)",
                           c->second->name());
}

// A value in an allocation of the same kind on both sides, but not in the one beside XLA's:
// "in allocation N here, M in XLA's", and which allocation of ours is beside XLA's M (or which
// of XLA's is beside our N). Nothing when the two allocations are each other's pair.
std::optional<std::string> OtherAllocation(const Place& x, const Place& o, const Pairing& pairing) {
  auto it = pairing.ours_of_xla.find(x.allocation);
  const int64_t ours_beside = it == pairing.ours_of_xla.end() ? -1 : it->second;
  const int64_t xla_beside = pairing.xla_of_ours[o.allocation];
  if (ours_beside == o.allocation && xla_beside == x.allocation) return std::nullopt;
  std::string why = fmt::format("in allocation {} here, {} in XLA's", o.allocation, x.allocation);
  if (ours_beside != o.allocation) {
    why += ours_beside < 0 ? fmt::format("; none of ours is beside XLA's {}", x.allocation)
                           : fmt::format("; XLA's {} is beside our {}", x.allocation, ours_beside);
  } else {
    why += fmt::format("; our {} is beside XLA's {}", o.allocation, xla_beside);
  }
  return why;
}

// Values both place, held against each other: in another kind of allocation, in another
// allocation of the kind, of another size. Values in the temp allocations of both are
// gathered by our buffer (in XLA's order; std::map keeps the report's order deterministic)
// for their live ranges.
void PlacementDifferences(const Module& module, const OurSide& ours, const Places& places,
                          const Pairing& pairing, const Where& where,
                          std::vector<XlaValueDifference>& all,
                          std::map<int64_t, std::vector<const std::string*>>& by_buffer) {
  absl::flat_hash_map<std::string_view, const Computation*> computation_of;
  for (const Computation* c : module.computations()) {
    for (const Instruction* in : c->instructions()) computation_of.try_emplace(in->name(), c);
  }
  for (const std::string& key : places.xla_order) {
    const Place& x = places.xla.at(key);
    auto it = places.ours.find(key);
    if (it == places.ours.end()) {
      if (x.bytes <= 0) continue;
      all.push_back({XlaValueDifferenceKind::kMissingInOurs, key, x.bytes, where.Xla(x),
                     WhyMissing(module, ours, computation_of, key, x)});
      continue;
    }
    const Place& o = it->second;
    const int64_t bytes = std::max(x.bytes, o.bytes);
    if (x.kind != o.kind) {
      all.push_back(
          {XlaValueDifferenceKind::kPlacedElsewhere, key, bytes, where.Xla(x), where.Ours(o)});
    } else if (std::optional<std::string> other = OtherAllocation(x, o, pairing)) {
      all.push_back(
          {XlaValueDifferenceKind::kOtherAllocation, key, bytes, where.Xla(x),
           fmt::format("allocation {} ({}) at {}{} ({})", o.allocation,
                       ours.allocations[o.allocation].kind_text, o.offset, Steps(o), *other)});
    } else if (x.bytes != o.bytes) {
      all.push_back(
          {XlaValueDifferenceKind::kSizeDiffers, key, bytes, where.Xla(x), where.Ours(o)});
    } else if (x.temp && o.temp && x.steps && o.steps) {
      by_buffer[o.buffer].push_back(&key);
    }
  }
}

// Live ranges, a buffer at a time: our span is the buffer's (a loop's state, say, holds the
// init, the body's values and the result), so it is held against the union of XLA's ranges of
// the same values. Only what the trace settles is a difference: ours longer than XLA's longest
// possible, or shorter than its shortest.
void LiveRangeDifferences(const Places& places, const Where& where,
                          const std::map<int64_t, std::vector<const std::string*>>& by_buffer,
                          std::vector<XlaValueDifference>& all) {
  for (const auto& [buffer, keys] : by_buffer) {
    const Place& o = places.ours.at(*keys.front());
    Place x = places.xla.at(*keys.front());
    for (const std::string* key : keys) {
      const Place::Steps& s = *places.xla.at(*key).steps;
      x.steps->first = std::min(x.steps->first, s.first);
      x.steps->last = std::max(x.steps->last, s.last);
      x.steps->last_max = std::max(x.steps->last_max, s.last_max);
    }
    const int64_t ours_length = o.steps->last - o.steps->first;
    XlaValueDifferenceKind kind;
    if (ours_length > x.steps->last_max - x.steps->first) {
      kind = XlaValueDifferenceKind::kLivesLonger;
    } else if (ours_length < x.steps->last - x.steps->first) {
      kind = XlaValueDifferenceKind::kLivesShorter;
    } else {
      continue;
    }
    std::string xla_where = where.Xla(x);
    std::string ours_where = where.Ours(o);
    if (keys.size() > 1) {
      xla_where += fmt::format(" (the union of its buffer's {} values)", keys.size());
      ours_where += fmt::format(" (one buffer of {} values)", keys.size());
    }
    all.push_back({kind, *keys.front(), std::max(x.bytes, o.bytes), std::move(xla_where),
                   std::move(ours_where)});
  }
}

// The differences, largest first: all counted, the `top` largest kept.
void KeepLargest(std::vector<XlaValueDifference> all, int top, XlaAssignmentComparison& out) {
  std::stable_sort(
      all.begin(), all.end(),
      [](const XlaValueDifference& x, const XlaValueDifference& y) { return x.bytes > y.bytes; });
  out.differing_values = static_cast<int64_t>(all.size());
  for (const XlaValueDifference& d : all) out.differing_bytes += d.bytes;
  if (all.size() > static_cast<size_t>(std::max(top, 0))) all.resize(std::max(top, 0));
  out.differences = std::move(all);
}

absl::StatusOr<XlaAssignmentComparison> Compare(const Module& module, const OurSide& ours,
                                                const XlaBufferAssignment& dumped, int top) {
  absl::StatusOr<XlaBufferAssignment> mapped = MapXlaBufferAssignmentOntoModule(dumped, module);
  if (!mapped.ok()) return mapped.status();
  const XlaBufferAssignment& xla = *mapped;
  XlaAssignmentComparison out;
  out.module = std::string(module.name());
  out.source = xla.source;
  out.has_heap_trace = !xla.heap_traces.empty();
  out.xla_peak_bytes = xla.peak_bytes;
  out.xla_peak_unpadded_bytes = xla.peak_unpadded_bytes;
  out.xla_peak_unpadded_unknown = xla.peak_unpadded_unknown;
  out.xla_memory_spaces = xla.MemorySpaces();

  const XlaAllocationTotals t = xla.Totals();
  out.totals = {{"parameter", ours.parameter, t.parameter_bytes},
                {"constant", ours.constant, t.constant_bytes},
                {"maybe-live-out", ours.maybe_live_out, t.maybe_live_out_bytes},
                {"thread-local", ours.thread_local_bytes, t.thread_local_bytes},
                {"preallocated-temp", ours.temp, t.preallocated_temp_bytes},
                {"total", ours.total, t.total_bytes}};

  const StepMap steps = MapSteps(module, ours.sequence);
  absl::flat_hash_map<int64_t, Place::Steps> xla_range;
  ReadTrace(xla, steps, xla_range, out);

  const Places places = PlaceValues(xla, xla_range, ours);
  const Pairing pairing = PairAllocations(xla, ours, places, out);

  const Where where{xla, ours};
  std::vector<XlaValueDifference> all;
  std::map<int64_t, std::vector<const std::string*>> by_buffer;
  PlacementDifferences(module, ours, places, pairing, where, all, by_buffer);
  LiveRangeDifferences(places, where, by_buffer, all);
  for (const std::string& key : places.our_order) {
    const Place& o = places.ours.at(key);
    if (o.bytes <= 0 || places.xla.contains(key)) continue;
    all.push_back(
        {XlaValueDifferenceKind::kMissingInXla, key, o.bytes, "not placed", where.Ours(o)});
  }
  KeepLargest(std::move(all), top, out);
  return out;
}

// The model's temp heap as XLA's is drawn: its preallocated temp allocations laid end to end,
// each value a box over its live range on the whole-module timeline.
void DrawModelHeap(const XlaModelAssignment& model, XlaAssignmentComparison& out) {
  std::vector<XlaHeapBox> boxes;
  int64_t base = 0;
  for (const XlaModelAllocation& a : model.allocations) {
    if (!a.preallocated_temp) continue;
    for (const XlaModelValue& v : a.values) {
      if (v.size <= 0) continue;
      boxes.push_back({static_cast<int32_t>(v.start), static_cast<int32_t>(v.end), base + v.offset,
                       v.size, v.name});
    }
    base += a.size;
  }
  constexpr size_t kMaxBoxes = 2000;
  std::stable_sort(boxes.begin(), boxes.end(),
                   [](const XlaHeapBox& x, const XlaHeapBox& y) { return x.bytes > y.bytes; });
  if (boxes.size() > kMaxBoxes) boxes.resize(kMaxBoxes);
  out.ours_heap = std::move(boxes);
  out.ours_heap_steps = static_cast<int32_t>(model.timeline.size());
  out.ours_heap_bytes = base;
}

}  // namespace

absl::StatusOr<XlaAssignmentComparison> CompareWithXla(const Module& module,
                                                       const ModuleMemory& ours,
                                                       const XlaBufferAssignment& xla, int top) {
  OurSide side;
  side.callee_blocks = true;
  const AllocationSummary& a = ours.allocations;
  side.parameter = a.parameter_bytes;
  side.constant = a.constant_bytes;
  side.maybe_live_out = a.maybe_live_out_bytes;
  side.temp = a.temp_bytes;
  side.total = a.total_bytes;
  for (const TimelinePoint& p : ours.timeline) side.sequence.push_back(p.instruction);
  for (const SimulatedAllocation& s : ours.simulated_allocations) {
    OurAllocation o{.kind_text = s.KindText(),
                    .place_kind = OurPlaceKind(s),
                    .bytes = s.bytes,
                    .temp = s.kind == SimulatedAllocation::Kind::kTemp};
    for (const SimulatedValue& v : s.values) {
      o.values.push_back({.key = Key(v.instruction, v.index),
                          .offset = v.offset,
                          .bytes = v.bytes,
                          .steps = Place::Steps{v.first, v.last, v.last},
                          .buffer = v.buffer});
    }
    side.allocations.push_back(std::move(o));
  }
  absl::StatusOr<XlaAssignmentComparison> out = Compare(module, side, xla, top);
  if (out.ok()) out->ours_model = "liveness";
  return out;
}

absl::StatusOr<XlaAssignmentComparison> CompareModelWithXla(const Module& module,
                                                            const XlaModelAssignment& ours,
                                                            const XlaBufferAssignment& xla,
                                                            int top) {
  OurSide side;
  const XlaModelTotals& t = ours.totals;
  side.parameter = t.parameter_bytes;
  side.constant = t.constant_bytes;
  side.maybe_live_out = t.maybe_live_out_bytes;
  side.thread_local_bytes = t.thread_local_bytes;
  side.temp = t.preallocated_temp_bytes;
  side.total = t.total_bytes;
  side.sequence = ours.timeline;
  // The model's times are on the whole-module timeline, where a callee's instructions come
  // just before its calling instruction: each time maps to the entry step at or after it.
  std::vector<int32_t> step_at(ours.timeline.size() + 1, 0);
  {
    int32_t entry_steps = 0;
    for (const Instruction* in : ours.timeline) {
      if (in != nullptr && in->parent() == module.entry()) ++entry_steps;
    }
    int32_t next = std::max(entry_steps - 1, 0);
    step_at[ours.timeline.size()] = next;
    for (size_t t = ours.timeline.size(); t-- > 0;) {
      const Instruction* in = ours.timeline[t];
      if (in != nullptr && in->parent() == module.entry()) next = --entry_steps;
      step_at[t] = std::max(next, 0);
    }
  }
  auto step = [&](int64_t time) {
    return step_at[std::clamp<int64_t>(time, 0, static_cast<int64_t>(ours.timeline.size()))];
  };
  // A buffer's span: the union of its values' ranges, as the comparison holds each buffer
  // against the union of XLA's ranges of the same values.
  absl::flat_hash_map<int64_t, std::pair<int64_t, int64_t>> span;
  for (const XlaModelAllocation& a : ours.allocations) {
    for (const XlaModelValue& v : a.values) {
      auto [it, first] = span.try_emplace(v.buffer, v.start, v.end);
      if (!first) {
        it->second.first = std::min(it->second.first, v.start);
        it->second.second = std::max(it->second.second, v.end);
      }
    }
  }
  for (const XlaModelAllocation& a : ours.allocations) {
    OurAllocation o{.kind_text = ModelKindText(a),
                    .place_kind = ModelPlaceKind(a),
                    .bytes = a.size,
                    .temp = a.preallocated_temp};
    for (const XlaModelValue& v : a.values) {
      const auto& [first, last] = span.at(v.buffer);
      o.values.push_back({.key = v.name,
                          .offset = v.offset,
                          .bytes = v.size,
                          .steps = Place::Steps{step(first), step(last), step(last)},
                          .buffer = v.buffer});
    }
    side.allocations.push_back(std::move(o));
  }
  absl::StatusOr<XlaAssignmentComparison> out = Compare(module, side, xla, top);
  if (!out.ok()) return out.status();
  out->ours_model = "xla";
  absl::StatusOr<XlaModelPeak> peak = XlaModelPeakMemory(ours);
  if (!peak.ok()) return peak.status();
  out->modeled_xla_peak_bytes = peak->peak_bytes;
  out->modeled_xla_peak_static_bytes = peak->static_bytes;
  DrawModelHeap(ours, *out);
  return out;
}

}  // namespace hloscope
