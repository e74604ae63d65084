// XLA's buffer assignment: the model's helpers, the HloProto reader and the match to a module.
// The text readers are xla_buffer_assignment_text.cc.
#include "analysis/memory/xla_buffer_assignment.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "analysis/memory/xla_buffer_assignment.pb.h"
#include "analysis/memory/xla_peak_memory.h"
#include "fmt/format.h"
#include "google/protobuf/descriptor.h"

namespace hloscope {
namespace {
// How a wrapped tuple-shaped instruction's own table is named on the async-start.
constexpr std::string_view kWrappedTupleTableSuffix = "{1}.wrapped";

std::string IndexText(const std::vector<int64_t>& index) {
  std::string out = "{";
  for (size_t i = 0; i < index.size(); ++i) {
    if (i) out += ',';
    out += std::to_string(index[i]);
  }
  return out + "}";
}

// Where the protobuf wire format of `d` breaks in bytes [pos, end): the offset and what is
// wrong, or nullopt. protobuf's parser says only that it failed; a user with a truncated or
// damaged dump needs the place. Fields of `d` that are messages are walked into; the others,
// and unknown fields, are skipped by their wire type.
struct WireError {
  size_t offset;
  std::string what;
};

bool ReadVarint(std::string_view bytes, size_t& pos, size_t end, uint64_t* out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pos >= end) return false;
    const uint8_t b = static_cast<uint8_t>(bytes[pos++]);
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) {
      *out = v;
      return true;
    }
  }
  return false;
}

// Nesting deeper than protobuf's parser takes (its default recursion limit) is an error
// before any deeper walk: the schema nests itself (a shape's tuple elements).
constexpr int kMaxMessageDepth = 100;

std::optional<WireError> FirstWireError(std::string_view bytes, size_t pos, size_t end,
                                        const google::protobuf::Descriptor* d, int depth = 0) {
  if (depth > kMaxMessageDepth) {
    return WireError{
        pos, fmt::format("messages nested more than {} deep (protobuf's limit)", kMaxMessageDepth)};
  }
  while (pos < end) {
    const size_t field_start = pos;
    uint64_t tag = 0;
    if (!ReadVarint(bytes, pos, end, &tag)) {
      return WireError{field_start, "a field tag runs past the end of its message"};
    }
    const uint64_t number = tag >> 3;
    const int wire_type = static_cast<int>(tag & 7);
    if (number == 0) return WireError{field_start, "field number 0 (not a protobuf)"};
    uint64_t skip = 0;
    switch (wire_type) {
      case 0: {
        uint64_t v = 0;
        if (!ReadVarint(bytes, pos, end, &v)) {
          return WireError{
              field_start,
              fmt::format("field {}: a varint runs past the end of its message", number)};
        }
        continue;
      }
      case 1:
        skip = 8;
        break;
      case 5:
        skip = 4;
        break;
      case 2: {
        uint64_t length = 0;
        if (!ReadVarint(bytes, pos, end, &length)) {
          return WireError{field_start, fmt::format("field {}: its length runs past the end of "
                                                    "its message",
                                                    number)};
        }
        if (length > end - pos) {
          return WireError{field_start,
                           fmt::format("field {} of {} bytes runs past the end of its message "
                                       "({} bytes left)",
                                       number, length, end - pos)};
        }
        const google::protobuf::FieldDescriptor* f =
            d == nullptr ? nullptr : d->FindFieldByNumber(static_cast<int>(number));
        if (f != nullptr && f->type() == google::protobuf::FieldDescriptor::TYPE_MESSAGE) {
          if (std::optional<WireError> e =
                  FirstWireError(bytes, pos, pos + length, f->message_type(), depth + 1)) {
            return e;
          }
        }
        pos += length;
        continue;
      }
      default:
        return WireError{field_start,
                         fmt::format("field {} has wire type {}, which this format never uses",
                                     number, wire_type)};
    }
    if (skip > end - pos) {
      return WireError{field_start,
                       fmt::format("field {}: a fixed-size value runs past the end", number)};
    }
    pos += skip;
  }
  return std::nullopt;
}

// The numbers of the top-level fields, in order, when the bytes are a protobuf at that level;
// nullopt otherwise.
std::optional<std::vector<uint64_t>> TopLevelFields(std::string_view bytes) {
  if (FirstWireError(bytes, 0, bytes.size(), nullptr)) return std::nullopt;
  std::vector<uint64_t> out;
  size_t pos = 0;
  while (pos < bytes.size()) {
    uint64_t tag = 0, v = 0;
    ReadVarint(bytes, pos, bytes.size(), &tag);
    out.push_back(tag >> 3);
    switch (tag & 7) {
      case 0:
        ReadVarint(bytes, pos, bytes.size(), &v);
        break;
      case 1:
        pos += 8;
        break;
      case 5:
        pos += 4;
        break;
      default:  // 2: checked above
        ReadVarint(bytes, pos, bytes.size(), &v);
        pos += v;
    }
  }
  return out;
}

// Why `bytes` is not an HloProto with a buffer assignment, judged by its top-level fields (an
// HloProto has the module, field 1, and the assignment, field 3, once each), or "".
// XLA's HloModuleProto also uses fields 1 and 3 (its name and its computations), so without
// this a module proto would be misread as an assignment.
std::string NotAnHloProto(std::string_view bytes) {
  std::optional<std::vector<uint64_t>> fields = TopLevelFields(bytes);
  if (!fields) return "";  // the parser's error, with its offset, says more
  int assignments = 0;
  for (uint64_t f : *fields) {
    if (f == 3) ++assignments;
    if (f != 1 && f != 3) {
      return fmt::format(
          "it has top-level field {}, which an HloProto (fields 1 and 3) does "
          "not: an HloModuleProto, the module without XLA's buffer assignment?",
          f);
    }
  }
  if (assignments > 1) {
    return fmt::format(
        "field 3 appears {} times (an HloProto has one buffer assignment; an "
        "HloModuleProto's computations are field 3)",
        assignments);
  }
  return "";
}

// The root of each computation an async-start calls, with that async-start. Only the start
// holds the wrapped output ({1}); an async-update or -done calling the same computation adds
// nothing.
std::vector<XlaAsyncWrapping> AsyncWrappings(const xla_ba::ModuleNameView& module) {
  struct Caller {
    const std::string* name;
    const std::string* computation;
  };
  absl::flat_hash_map<int64_t, Caller> async_start_of;
  for (const xla_ba::ComputationNameView& c : module.computations()) {
    for (const xla_ba::InstructionNameView& i : c.instructions()) {
      if (i.opcode() != "async-start") continue;
      for (int64_t callee : i.called_computation_ids()) {
        async_start_of.try_emplace(callee, Caller{&i.name(), &c.name()});
      }
    }
  }
  std::vector<XlaAsyncWrapping> out;
  for (const xla_ba::ComputationNameView& c : module.computations()) {
    auto caller = async_start_of.find(c.id());
    if (caller == async_start_of.end()) continue;
    for (const xla_ba::InstructionNameView& i : c.instructions()) {
      if (i.id() != c.root_id()) continue;
      out.push_back({.wrapped_instruction = i.name(),
                     .wrapped_computation = c.name(),
                     .async_start = *caller->second.name,
                     .async_start_computation = *caller->second.computation});
    }
  }
  return out;
}

absl::Status ProtoError(std::string_view filename, std::string what) {
  return absl::InvalidArgumentError(fmt::format("{}: error: {}", filename, what));
}

}  // namespace

std::string XlaAllocation::KindText() const {
  std::vector<std::string> parts;
  if (is_entry_parameter) {
    parts.push_back(fmt::format("parameter {} {}", parameter_number, IndexText(parameter_index)));
  }
  if (is_constant) parts.push_back("constant");
  if (is_thread_local) parts.push_back("thread-local");
  if (maybe_live_out) parts.push_back("maybe-live-out");
  if (is_preallocated_temp()) parts.push_back("preallocated-temp");
  if (is_tuple) parts.push_back("tuple");
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

std::string XlaValueName(const XlaAssignedValue& value) {
  return value.index.empty() ? value.instruction : value.instruction + IndexText(value.index);
}

XlaAllocationTotals XlaBufferAssignment::Totals() const {
  XlaAllocationTotals t;
  for (const XlaAllocation& a : allocations) {
    if (a.is_entry_parameter) t.parameter_bytes += a.bytes;
    if (a.is_constant) t.constant_bytes += a.bytes;
    if (a.maybe_live_out) t.maybe_live_out_bytes += a.bytes;
    if (a.is_thread_local) t.thread_local_bytes += a.bytes;
    if (a.is_preallocated_temp()) t.preallocated_temp_bytes += a.bytes;
    t.total_bytes += a.bytes;
    ++t.allocations;
  }
  return t;
}

std::vector<XlaMemorySpaceTotals> XlaBufferAssignment::MemorySpaces() const {
  std::map<int64_t, XlaMemorySpaceTotals> by_space;
  for (const XlaAllocation& a : allocations) {
    XlaMemorySpaceTotals& t = by_space[a.color];
    t.memory_space = a.color;
    t.total_bytes += a.bytes;
    if (!a.is_preallocated_temp()) t.indefinite_bytes += a.bytes;
    ++t.allocations;
  }
  std::vector<XlaMemorySpaceTotals> out;
  for (const auto& [space, t] : by_space) out.push_back(t);
  return out;
}

const XlaAssignedValue* XlaBufferAssignment::FindValue(int64_t id) const {
  for (const XlaAllocation& a : allocations) {
    for (const XlaAssignedValue& v : a.values) {
      if (v.id == id) return &v;
    }
  }
  return nullptr;
}

absl::StatusOr<XlaBufferAssignment> ReadXlaBufferAssignmentProto(std::string_view bytes,
                                                                 std::string_view filename) {
  xla_ba::HloProtoBufferAssignment proto;
  if (std::string why = NotAnHloProto(bytes); !why.empty()) {
    return ProtoError(filename, "not an HloProto with XLA's buffer assignment: " + why);
  }
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
    return ProtoError(filename,
                      fmt::format("{} bytes is more than protobuf reads (2 GiB)", bytes.size()));
  }
  if (!proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    std::optional<WireError> e = FirstWireError(bytes, 0, bytes.size(), proto.GetDescriptor());
    if (e) {
      return ProtoError(
          filename, fmt::format("not a valid HloProto: at byte offset {}: {}", e->offset, e->what));
    }
    return ProtoError(filename,
                      "not a valid HloProto: protobuf's parser refused it (a name "
                      "that is not UTF-8?)");
  }
  if (!proto.has_buffer_assignment()) {
    return ProtoError(filename,
                      "no buffer assignment in this HloProto (field 3): XLA writes one into the "
                      "after-optimizations dump (--xla_dump_hlo_as_proto)");
  }
  XlaBufferAssignment out;
  out.source = std::string(filename);
  out.module_name = proto.hlo_module().name();
  absl::flat_hash_map<int64_t, const std::string*> name_of_id;
  for (const xla_ba::ComputationNameView& c : proto.hlo_module().computations()) {
    for (const xla_ba::InstructionNameView& i : c.instructions()) {
      name_of_id.emplace(i.id(), &i.name());
      out.instruction_ids.emplace(i.name(), i.id());
    }
  }
  out.async_wrappings = AsyncWrappings(proto.hlo_module());
  const xla_ba::BufferAssignmentProto& ba = proto.buffer_assignment();
  struct Defined {
    std::string instruction;
    std::vector<int64_t> index;
  };
  absl::flat_hash_map<int64_t, Defined> buffers;
  for (const xla_ba::LogicalBuffer& b : ba.logical_buffers()) {
    Defined d;
    d.index.assign(b.defined_at().shape_index().begin(), b.defined_at().shape_index().end());
    if (!b.defined_at().instruction_name().empty()) {
      d.instruction = b.defined_at().instruction_name();
    } else if (auto it = name_of_id.find(b.defined_at().instruction_id()); it != name_of_id.end()) {
      d.instruction = *it->second;
    } else {
      return ProtoError(filename,
                        fmt::format("logical buffer {} is defined at instruction id {}, which "
                                    "the HloProto's module does not have",
                                    b.id(), b.defined_at().instruction_id()));
    }
    if (!buffers.emplace(b.id(), std::move(d)).second) {
      return ProtoError(filename, fmt::format("logical buffer {} is defined twice", b.id()));
    }
  }
  for (const xla_ba::BufferAllocation& a : ba.buffer_allocations()) {
    XlaAllocation x;
    x.index = a.index();
    x.bytes = a.size();
    x.color = a.color();
    x.is_entry_parameter = a.is_entry_computation_parameter();
    if (x.is_entry_parameter) {
      x.parameter_number = a.parameter_number();
      x.parameter_index.assign(a.parameter_shape_index().begin(), a.parameter_shape_index().end());
    }
    x.is_constant = a.is_constant();
    x.maybe_live_out = a.maybe_live_out();
    x.is_thread_local = a.is_thread_local();
    x.is_tuple = a.is_tuple();
    if (x.index != static_cast<int64_t>(out.allocations.size())) {
      return ProtoError(filename, fmt::format("allocation {} is listed at position {} (XLA writes "
                                              "them by index)",
                                              x.index, out.allocations.size()));
    }
    if (x.bytes < 0) {
      return ProtoError(filename,
                        fmt::format("allocation {} has a negative size {}", x.index, x.bytes));
    }
    for (const xla_ba::AssignedBuffer& assigned : a.assigned()) {
      auto it = buffers.find(assigned.logical_buffer_id());
      if (it == buffers.end()) {
        return ProtoError(filename, fmt::format("allocation {} holds logical buffer {}, which "
                                                "the buffer assignment does not define",
                                                x.index, assigned.logical_buffer_id()));
      }
      // As XLA's BufferAllocation::AddAssignment (since FromProtoRejectsNegativeOffset and
      // FromProtoRejectsNegativeSize): a negative offset or size is named as such, not taken
      // for a value inside the allocation.
      if (assigned.offset() < 0) {
        return ProtoError(filename,
                          fmt::format("allocation {} holds logical buffer {} at a "
                                      "negative offset {}",
                                      x.index, assigned.logical_buffer_id(), assigned.offset()));
      }
      if (assigned.size() < 0) {
        return ProtoError(filename,
                          fmt::format("allocation {} holds logical buffer {} with a "
                                      "negative size {}",
                                      x.index, assigned.logical_buffer_id(), assigned.size()));
      }
      if (assigned.size() > x.bytes || assigned.offset() > x.bytes - assigned.size()) {
        return ProtoError(
            filename, fmt::format("allocation {} of {} bytes holds logical buffer {} at "
                                  "offset {} with {} bytes: past its end",
                                  x.index, x.bytes, assigned.logical_buffer_id(), assigned.offset(),
                                  assigned.size()));
      }
      x.values.push_back({.id = assigned.logical_buffer_id(),
                          .instruction = it->second.instruction,
                          .index = it->second.index,
                          .offset = assigned.offset(),
                          .bytes = assigned.size()});
    }
    std::sort(x.values.begin(), x.values.end(),
              [](const XlaAssignedValue& l, const XlaAssignedValue& r) { return l.id < r.id; });
    out.allocations.push_back(std::move(x));
  }
  for (const xla_ba::HeapSimulatorTrace& t : ba.heap_simulator_traces()) {
    XlaHeapTrace trace;
    trace.allocation_index = t.buffer_allocation_index();
    trace.whole_module = t.whole_module_simulation();
    for (const xla_ba::HeapSimulatorEvent& e : t.events()) {
      if (!buffers.contains(e.buffer_id())) {
        return ProtoError(filename,
                          fmt::format("a heap-simulator event names logical buffer {}, which the "
                                      "buffer assignment does not define",
                                      e.buffer_id()));
      }
      XlaHeapEvent event;
      switch (e.kind()) {
        case xla_ba::HeapSimulatorEvent::ALLOC:
          event.kind = XlaHeapEvent::Kind::kAlloc;
          break;
        case xla_ba::HeapSimulatorEvent::FREE:
          event.kind = XlaHeapEvent::Kind::kFree;
          break;
        case xla_ba::HeapSimulatorEvent::SHARE_WITH:
          event.kind = XlaHeapEvent::Kind::kShareWith;
          event.share_with = e.share_with_canonical_id();
          break;
        default:
          return ProtoError(filename, fmt::format("a heap-simulator event of unknown kind {}",
                                                  static_cast<int>(e.kind())));
      }
      event.value_id = e.buffer_id();
      event.computation = e.computation_name();
      event.instruction = e.instruction_name();
      trace.events.push_back(std::move(event));
    }
    // The allocation the trace packed (checked after its events), as XLA's Slice::FromProto
    // checks a slice's allocation.
    if (trace.allocation_index < 0 ||
        trace.allocation_index >= static_cast<int64_t>(out.allocations.size())) {
      return ProtoError(filename, fmt::format("a heap-simulator trace names allocation {}, which "
                                              "the buffer assignment does not have (it has {})",
                                              trace.allocation_index, out.allocations.size()));
    }
    out.heap_traces.push_back(std::move(trace));
  }
  absl::StatusOr<int64_t> peak = XlaPaddedPeakMemory(ba);
  if (!peak.ok()) {
    return ProtoError(filename, fmt::format("XLA's peak memory cannot be computed: {}",
                                            std::string(peak.status().message())));
  }
  out.peak_bytes = *peak;
  absl::StatusOr<XlaPeakMemory> sizes = XlaPeakMemorySizes(ba, proto.hlo_module());
  if (sizes.ok()) {
    out.peak_unpadded_bytes = sizes->unpadded;
  } else {
    out.peak_unpadded_unknown = std::string(sizes.status().message());
  }
  return out;
}

bool HasXlaBufferAssignment(std::string_view bytes) {
  if (!NotAnHloProto(bytes).empty()) return false;
  std::optional<std::vector<uint64_t>> fields = TopLevelFields(bytes);
  return fields && std::find(fields->begin(), fields->end(), 3) != fields->end();
}

absl::StatusOr<XlaBufferAssignment> ParseXlaBufferAssignment(std::string_view contents,
                                                             std::string_view filename) {
  const size_t first = contents.find_first_not_of(" \t\r\n");
  const std::string_view head =
      first == std::string_view::npos ? std::string_view() : contents.substr(first);
  if (head.starts_with("Total bytes used:")) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: error: this is XLA's memory usage report, whose sizes are rounded; give the "
        "-buffer-assignment.txt or the .hlo.pb of the same module",
        filename));
  }
  if (head.starts_with("HloModule")) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: error: this is an HLO module, not XLA's buffer assignment: give the module's "
        "-buffer-assignment.txt or .hlo.pb from the same XLA dump",
        filename));
  }
  if (head.starts_with("BufferAssignment") || head.starts_with("allocation ")) {
    return ParseXlaBufferAssignmentText(contents, filename);
  }
  if (contents.empty()) {
    return absl::InvalidArgumentError(
        fmt::format("{}: error: empty file: no buffer assignment", filename));
  }
  return ReadXlaBufferAssignmentProto(contents, filename);
}

absl::StatusOr<XlaBufferAssignment> MapXlaBufferAssignmentOntoModule(
    const XlaBufferAssignment& assignment, const Module& module) {
  absl::flat_hash_set<std::string_view> names;
  for (const Computation* c : module.computations()) {
    for (const Instruction* i : c->instructions()) names.insert(i->name());
  }
  // Only wrappings whose wrapped instruction our module lacks and whose async-start it has:
  // a module that prints the wrapped computation in full keeps XLA's names as they are.
  absl::flat_hash_map<std::string_view, const XlaAsyncWrapping*> wrapping_of;
  for (const XlaAsyncWrapping& w : assignment.async_wrappings) {
    if (!names.contains(w.wrapped_instruction) && names.contains(w.async_start)) {
      wrapping_of.try_emplace(w.wrapped_instruction, &w);
    }
  }
  // A wrapped instruction with values below its top level returns a tuple: its own tuple
  // table (its top-level value) is not the async-start's {1}, which XLA defines apart; the
  // XLA assignment model names it `<async-start>{1}.wrapped` (xla_assignment_model.cc).
  absl::flat_hash_set<std::string_view> wrapped_tuples;
  for (const XlaAllocation& a : assignment.allocations) {
    for (const XlaAssignedValue& v : a.values) {
      if (!v.index.empty() && wrapping_of.contains(v.instruction)) {
        wrapped_tuples.insert(v.instruction);
      }
    }
  }
  XlaBufferAssignment out = assignment;
  for (XlaAllocation& a : out.allocations) {
    for (XlaAssignedValue& v : a.values) {
      auto w = wrapping_of.find(v.instruction);
      if (w == wrapping_of.end()) continue;
      if (v.index.empty() && wrapped_tuples.contains(v.instruction)) {
        v.instruction = w->second->async_start + std::string(kWrappedTupleTableSuffix);
        continue;
      }
      v.instruction = w->second->async_start;
      v.index.insert(v.index.begin(), 1);
    }
  }
  for (XlaHeapTrace& t : out.heap_traces) {
    for (XlaHeapEvent& e : t.events) {
      auto w = wrapping_of.find(e.instruction);
      if (w == wrapping_of.end() || e.computation != w->second->wrapped_computation) continue;
      e.instruction = w->second->async_start;
      e.computation = w->second->async_start_computation;
    }
  }
  for (const XlaAllocation& a : out.allocations) {
    for (const XlaAssignedValue& v : a.values) {
      std::string_view name = v.instruction;
      if (name.size() > kWrappedTupleTableSuffix.size() &&
          name.substr(name.size() - kWrappedTupleTableSuffix.size()) == kWrappedTupleTableSuffix) {
        name.remove_suffix(kWrappedTupleTableSuffix.size());
      }
      if (!names.contains(name)) {
        return absl::InvalidArgumentError(
            fmt::format("{}: error: buffer assignment does not match module '{}': no instruction "
                        "'{}' (allocation {})",
                        assignment.source, module.name(), v.instruction, a.index));
      }
    }
  }
  return out;
}

absl::Status ResolveXlaBufferAssignment(const XlaBufferAssignment& assignment,
                                        const Module& module) {
  return MapXlaBufferAssignmentOntoModule(assignment, module).status();
}

}  // namespace hloscope
