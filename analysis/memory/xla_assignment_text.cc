// XlaAssignmentToString (xla_assignment_model.h): XLA's BufferAllocation::ToString layout,
// as its `*-buffer-assignment.txt` dumps print it:
//
//   allocation 0: size 1024, parameter 0, shape |f32[16,16]| at ShapeIndex {}:
//    value: <0 p0 @0> (size=1024,offset=0): f32[16,16]{1,0}
//   allocation 1: size 64, output shape is |f32[16]|, maybe-live-out:
//   ...
//   Total bytes used: 1088 (1.06KiB)
#include <algorithm>
#include <string>

#include "analysis/memory/xla_assignment_model.h"
#include "fmt/format.h"
#include "fmt/ranges.h"

namespace hloscope {
namespace {

// XLA's HumanReadableNumBytes: B under 1 KiB, else two decimals of the largest binary unit.
std::string HumanBytes(int64_t bytes) {
  if (bytes < 1024) return fmt::format("{}B", bytes);
  const char* units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes) / 1024.0;
  int u = 0;
  while (v >= 1024.0 && u < 5) {
    v /= 1024.0;
    ++u;
  }
  return fmt::format("{:.2f}{}", v, units[u]);
}

}  // namespace

std::string XlaPeakBuffersString(const XlaModelAssignment& assignment) {
  std::string out = "\nPeak buffers:\n";
  for (const XlaModelAllocation& a : assignment.allocations) {
    out += fmt::format(" allocation {}: {}\n", a.index, fmt::join(a.peak_values, ", "));
  }
  return out;
}

std::string XlaAssignmentStatsString(const XlaModelTotals& t) {
  auto percent = [](int64_t part, int64_t whole) {
    return whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
  };
  std::string out = "\nBufferAssignment stats:\n";
  out += fmt::format("             parameter allocation: {:>10}\n", HumanBytes(t.parameter_bytes));
  out += fmt::format("              constant allocation: {:>10}\n", HumanBytes(t.constant_bytes));
  out += fmt::format("        maybe_live_out allocation: {:>10}\n",
                     HumanBytes(t.maybe_live_out_bytes));
  out += fmt::format("     preallocated temp allocation: {:>10}\n",
                     HumanBytes(t.preallocated_temp_bytes));
  if (t.temp_fragmentation_bytes >= 0) {
    out += fmt::format("  preallocated temp fragmentation: {:>10} ({:.2f}%)\n",
                       HumanBytes(t.temp_fragmentation_bytes),
                       percent(t.temp_fragmentation_bytes, t.preallocated_temp_bytes));
  }
  out += fmt::format("                 total allocation: {:>10}\n", HumanBytes(t.total_bytes));
  if (t.total_fragmentation_bytes >= 0) {
    out += fmt::format("              total fragmentation: {:>10} ({:.2f}%)\n",
                       HumanBytes(t.total_fragmentation_bytes),
                       percent(t.total_fragmentation_bytes, t.total_bytes));
  }
  return out;
}

std::string XlaAssignmentToString(const XlaModelAssignment& assignment) {
  std::string out;
  // A wrapped tuple table (buffer -1: no value of ours) carries the id of the async-start's
  // {1} value it stands beside, which keeps it in that value's place in the listing; it is
  // printed under an id past all of ours, since XLA's layout gives each value its own and the
  // reader of XLA's text refuses one assigned twice.
  int64_t next_table_id = static_cast<int64_t>(assignment.value_allocation.size());
  for (const XlaModelAllocation& a : assignment.allocations) {
    out += fmt::format("allocation {}: size {}", a.index, a.size);
    if (a.memory_space != 0) out += fmt::format(", color {}", a.memory_space);
    if (a.parameter) {
      out += fmt::format(", parameter {}, shape |{}| at ShapeIndex {}", a.parameter_number,
                         a.parameter_shape, ShapeIndexToString(a.parameter_index));
    }
    if (!a.output_shape.empty()) out += fmt::format(", output shape is |{}|", a.output_shape);
    if (a.constant) out += ", constant";
    if (a.thread_local_) out += ", thread-local";
    if (a.maybe_live_out) out += ", maybe-live-out";
    if (a.preallocated_temp) out += ", preallocated-temp";
    out += ":\n";
    std::vector<const XlaModelValue*> values;
    for (const XlaModelValue& v : a.values) values.push_back(&v);
    std::sort(values.begin(), values.end(),
              [](const XlaModelValue* x, const XlaModelValue* y) { return x->id < y->id; });
    for (const XlaModelValue* v : values) {
      const int64_t id = v->buffer == -1 ? next_table_id++ : v->id;
      out += fmt::format(" value: <{} {}{} @{}> (size={},offset={}): {}\n", id, v->name,
                         v->phi ? " (phi)" : "", a.memory_space, v->size, v->offset, v->shape);
    }
  }
  out += fmt::format("\nTotal bytes used: {} ({})\n", assignment.totals.total_bytes,
                     HumanBytes(assignment.totals.total_bytes));
  // Not in XLA's file (after it, so a diff of the allocations stays aligned): where each temp
  // allocation's heap peaks.
  for (const XlaModelAllocation& a : assignment.allocations) {
    if (a.peak_instruction.empty()) continue;
    out += fmt::format("\nPeak of allocation {}: {} bytes at {} in computation {}: {}\n", a.index,
                       a.peak_bytes, a.peak_instruction, a.peak_computation,
                       fmt::join(a.heap_peak_values, ", "));
  }
  return out;
}

}  // namespace hloscope
