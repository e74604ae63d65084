#include "analysis/memory/xla_assignment_comparison.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
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
  std::optional<std::pair<int32_t, int32_t>> steps;  // live range on our entry schedule
  bool temp = false;
};

std::string XlaPlaceKind(const XlaAllocation& a) {
  if (a.is_entry_parameter) return fmt::format("parameter {}", a.parameter_number);
  if (a.is_constant) return "constant";
  if (a.is_thread_local) return "thread-local";
  if (a.maybe_live_out) return "maybe-live-out";
  return "temp";
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
  return p.steps ? fmt::format(", steps {}-{}", p.steps->first, p.steps->second) : "";
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

StepMap MapSteps(const Module& module, const ModuleMemory& ours) {
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
  for (const TimelinePoint& p : ours.timeline) {
    if (p.instruction == nullptr || p.instruction->parent() != module.entry()) continue;
    map.entry_step.try_emplace(p.instruction->name(), step);
    for (const Computation* callee : p.instruction->called_computations()) mark(callee, step);
    ++step;
  }
  map.steps = step;
  return map;
}

// XLA's live range of each value (by id) in its trace, on our entry steps; and the boxes of
// XLA's temp heap over its own event time.
void ReadTrace(const XlaBufferAssignment& xla, const StepMap& steps,
               absl::flat_hash_map<int64_t, std::pair<int32_t, int32_t>>& range,
               XlaAssignmentComparison& out) {
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
  int32_t tick = -1;
  const XlaHeapEvent* previous = nullptr;
  const int32_t last_step = std::max(steps.steps - 1, 0);
  for (const XlaHeapTrace& t : xla.heap_traces) {
    for (const XlaHeapEvent& e : t.events) {
      if (previous == nullptr || previous->instruction != e.instruction ||
          previous->computation != e.computation) {
        ++tick;
      }
      previous = &e;
      const std::optional<int32_t> step = steps.Find(e.computation, e.instruction);
      if (e.kind == XlaHeapEvent::Kind::kFree) {
        auto s = start_tick.find(e.value_id);
        if (s != start_tick.end()) {
          spans.push_back({e.value_id, s->second, tick});
          start_tick.erase(s);
        }
        auto st = start_step.find(e.value_id);
        if (st != start_step.end()) {
          if (step) range[e.value_id] = {st->second, *step};
          start_step.erase(st);
        }
      } else {
        start_tick.try_emplace(e.value_id, tick);
        if (step) start_step.try_emplace(e.value_id, *step);
      }
    }
  }
  // Never freed: live to the end.
  for (const auto& [id, first] : start_tick) spans.push_back({id, first, std::max(tick, 0)});
  for (const auto& [id, first] : start_step) range[id] = {first, last_step};
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
    case XlaValueDifferenceKind::kSizeDiffers:
      return "size differs";
    case XlaValueDifferenceKind::kLivesLonger:
      return "lives longer";
    case XlaValueDifferenceKind::kLivesShorter:
      return "lives shorter";
  }
  return "";
}

absl::StatusOr<XlaAssignmentComparison> CompareWithXla(const Module& module,
                                                       const ModuleMemory& ours,
                                                       const XlaBufferAssignment& xla, int top) {
  if (absl::Status s = ResolveXlaBufferAssignment(xla, module); !s.ok()) return s;
  XlaAssignmentComparison out;
  out.module = std::string(module.name());
  out.source = xla.source;
  out.has_heap_trace = !xla.heap_traces.empty();

  const XlaAllocationTotals t = xla.Totals();
  const AllocationSummary& a = ours.allocations;
  out.totals = {{"parameter", a.parameter_bytes, t.parameter_bytes},
                {"constant", a.constant_bytes, t.constant_bytes},
                {"maybe-live-out", a.maybe_live_out_bytes, t.maybe_live_out_bytes},
                {"thread-local", 0, t.thread_local_bytes},
                {"preallocated-temp", a.temp_bytes, t.preallocated_temp_bytes},
                {"total", a.total_bytes, t.total_bytes}};

  const StepMap steps = MapSteps(module, ours);
  absl::flat_hash_map<int64_t, std::pair<int32_t, int32_t>> xla_range;
  ReadTrace(xla, steps, xla_range, out);

  // Every value, by name, on each side.
  absl::flat_hash_map<std::string, Place> xla_place, our_place;
  std::vector<std::string> xla_order, our_order;
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
      if (xla_place.try_emplace(key, std::move(p)).second) xla_order.push_back(std::move(key));
    }
  }
  for (size_t i = 0; i < ours.simulated_allocations.size(); ++i) {
    const SimulatedAllocation& s = ours.simulated_allocations[i];
    for (const SimulatedValue& v : s.values) {
      Place p{.allocation = static_cast<int64_t>(i),
              .kind = OurPlaceKind(s),
              .offset = v.offset,
              .bytes = v.bytes,
              .steps = std::make_pair(v.first, v.last),
              .temp = s.kind == SimulatedAllocation::Kind::kTemp};
      std::string key = Key(v.instruction, v.index);
      if (our_place.try_emplace(key, std::move(p)).second) our_order.push_back(std::move(key));
    }
  }

  // The allocations side by side: each of XLA's beside ours holding most of its bytes.
  std::vector<bool> matched(ours.simulated_allocations.size(), false);
  for (const XlaAllocation& x : xla.allocations) {
    XlaAllocationPair row;
    row.xla_index = x.index;
    row.xla_kind = x.KindText();
    row.xla_bytes = x.bytes;
    row.xla_values = static_cast<int64_t>(x.values.size());
    absl::flat_hash_map<int64_t, int64_t> shared;
    const XlaAssignedValue* largest = nullptr;
    for (const XlaAssignedValue& v : x.values) {
      if (largest == nullptr || v.bytes > largest->bytes) largest = &v;
      auto it = our_place.find(Key(v.instruction, v.index));
      if (it != our_place.end()) shared[it->second.allocation] += std::max<int64_t>(v.bytes, 1);
    }
    int64_t best = -1, best_bytes = 0;
    for (const auto& [index, bytes] : shared) {
      if (bytes > best_bytes || (bytes == best_bytes && index < best)) {
        best = index;
        best_bytes = bytes;
      }
    }
    if (best >= 0) {
      const SimulatedAllocation& s = ours.simulated_allocations[best];
      matched[best] = true;
      row.ours_index = best;
      row.ours_kind = s.KindText();
      row.ours_bytes = s.bytes;
      row.ours_values = static_cast<int64_t>(s.values.size());
      for (const XlaAssignedValue& v : x.values) {
        auto it = our_place.find(Key(v.instruction, v.index));
        if (it != our_place.end() && it->second.allocation == best) {
          row.example_value = Key(v.instruction, v.index);
          break;
        }
      }
    } else if (largest != nullptr) {
      row.example_value = Key(largest->instruction, largest->index);
    }
    out.allocations.push_back(std::move(row));
  }
  for (size_t i = 0; i < ours.simulated_allocations.size(); ++i) {
    if (matched[i]) continue;
    const SimulatedAllocation& s = ours.simulated_allocations[i];
    XlaAllocationPair row;
    row.ours_index = static_cast<int64_t>(i);
    row.ours_kind = s.KindText();
    row.ours_bytes = s.bytes;
    row.ours_values = static_cast<int64_t>(s.values.size());
    const SimulatedValue* largest = nullptr;
    for (const SimulatedValue& v : s.values) {
      if (largest == nullptr || v.bytes > largest->bytes) largest = &v;
    }
    if (largest != nullptr) row.example_value = Key(largest->instruction, largest->index);
    out.allocations.push_back(std::move(row));
  }

  // The values responsible for the difference.
  absl::flat_hash_map<std::string_view, const Computation*> computation_of;
  for (const Computation* c : module.computations()) {
    for (const Instruction* in : c->instructions()) computation_of.try_emplace(in->name(), c);
  }
  auto xla_where = [&](const Place& p) {
    return fmt::format("allocation {} ({}) at {}{}", p.allocation,
                       xla.allocations[p.allocation].KindText(), p.offset, Steps(p));
  };
  auto our_where = [&](const Place& p) {
    return fmt::format("{} at {}{}", ours.simulated_allocations[p.allocation].KindText(), p.offset,
                       Steps(p));
  };
  std::vector<XlaValueDifference> all;
  for (const std::string& key : xla_order) {
    const Place& x = xla_place.at(key);
    auto it = our_place.find(key);
    if (it == our_place.end()) {
      if (x.bytes <= 0) continue;
      std::string why = "not placed";
      const std::string_view name = std::string_view(key).substr(0, key.find('{'));
      auto c = computation_of.find(name);
      if (c != computation_of.end() && c->second != module.entry()) {
        why = x.kind == "thread-local"
                  ? fmt::format("not placed (in '{}': no thread-local allocations here)",
                                c->second->name())
                  : fmt::format("not placed (in '{}': counted in its callee peak at the call)",
                                c->second->name());
      }
      all.push_back({XlaValueDifferenceKind::kMissingInOurs, key, x.bytes, xla_where(x), why});
      continue;
    }
    const Place& o = it->second;
    const int64_t bytes = std::max(x.bytes, o.bytes);
    if (x.kind != o.kind) {
      all.push_back(
          {XlaValueDifferenceKind::kPlacedElsewhere, key, bytes, xla_where(x), our_where(o)});
    } else if (x.bytes != o.bytes) {
      all.push_back({XlaValueDifferenceKind::kSizeDiffers, key, bytes, xla_where(x), our_where(o)});
    } else if (x.temp && o.temp && x.steps && o.steps) {
      const int64_t xl = x.steps->second - x.steps->first;
      const int64_t ol = o.steps->second - o.steps->first;
      if (ol != xl) {
        all.push_back(
            {ol > xl ? XlaValueDifferenceKind::kLivesLonger : XlaValueDifferenceKind::kLivesShorter,
             key, bytes, xla_where(x), our_where(o)});
      }
    }
  }
  for (const std::string& key : our_order) {
    const Place& o = our_place.at(key);
    if (o.bytes <= 0 || xla_place.contains(key)) continue;
    all.push_back(
        {XlaValueDifferenceKind::kMissingInXla, key, o.bytes, "not placed", our_where(o)});
  }
  std::stable_sort(
      all.begin(), all.end(),
      [](const XlaValueDifference& x, const XlaValueDifference& y) { return x.bytes > y.bytes; });
  out.differing_values = static_cast<int64_t>(all.size());
  for (const XlaValueDifference& d : all) out.differing_bytes += d.bytes;
  if (all.size() > static_cast<size_t>(std::max(top, 0))) all.resize(std::max(top, 0));
  out.differences = std::move(all);
  return out;
}

}  // namespace hloscope
