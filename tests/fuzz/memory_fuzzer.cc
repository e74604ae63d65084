// libFuzzer target for the memory model (built with -DHLOSCOPE_FUZZ=ON; see
// `scripts/fuzz --fuzzer=memory`).
//
// The pipeline fuzzer asks the memory profiler for numbers and drops them; nothing there runs
// our model of XLA's buffer assignment (analysis/memory/xla_assignment_model.h), its rules for
// XLA:GPU's buffer sharing, or the memory report's printers. Here an input that parses and
// verifies goes through what `hlo-opt --memory-report --buffer-assignment` and
// `--xla-buffer-assignment` run:
//   - AssignLikeXla at an alignment of 1, 64 or 256 (picked from the input), once with the
//     sharing rule the module's marks choose and once with XLA:GPU's forced, and what the
//     model promises of its result is checked (CheckAssignment below);
//   - its listing in the layout of XLA's `-buffer-assignment.txt`, which must read back with
//     our reader of XLA's dumps to the same totals per kind and the same value placement, and
//     the second model of a second parse, which must print the same listing;
//   - the memory report (profile under the xla and liveness models, whole-program timeline
//     too) with the modeled listing beside it as "XLA's" assignment, printed in text, JSON, CSV
//     and HTML.
// An analysis may refuse a module with a status (a clean error). A crash, a sanitizer report,
// a hang (libFuzzer's -timeout) or a broken promise is a failure.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "analysis/alias.h"
#include "analysis/memory/memory_comparison.h"
#include "analysis/memory/memory_profile.h"
#include "analysis/memory/xla_assignment_model.h"
#include "analysis/memory/xla_buffer_assignment.h"
#include "fmt/format.h"
#include "hlo/parser.h"
#include "hlo/printer.h"
#include "hlo/verifier.h"
#include "support/status_text.h"

namespace {

using hloscope::StatusText;

[[noreturn]] void Fail(std::string_view what, std::string_view module_text,
                       std::string_view message) {
  std::fprintf(stderr, "%.*s\n--- module ---\n%.*s\n--- message ---\n%.*s\n",
               static_cast<int>(what.size()), what.data(), static_cast<int>(module_text.size()),
               module_text.data(), static_cast<int>(message.size()), message.data());
  std::abort();
}

bool AddOverflows(int64_t a, int64_t b, int64_t* sum) { return __builtin_add_overflow(a, b, sum); }

// What xla_assignment_model.h promises of an assignment of `module`:
//  - allocations are numbered by their place; each value lies inside its allocation;
//  - every value of the model's dataflow that has an allocation (value_allocation) is listed in
//    exactly that one, and every value the entry defines has one (the entry's computation is
//    always assigned); values of one alias buffer share an allocation;
//  - two values of different buffers in one allocation whose bytes overlap are never live at
//    once, beyond one shared step (a result taking over an operand that dies where it starts);
//  - a value of the entry's result is in a maybe-live-out allocation;
//  - the totals add the allocations by kind, and a heap's peak fits in its allocation.
void CheckAssignment(const hloscope::Module& module, const hloscope::XlaModelAssignment& a,
                     std::string_view text, std::string_view label) {
  auto fail = [&](const std::string& message) {
    // Each value's live range and buffer too, which the listing in XLA's layout leaves out.
    std::string values;
    for (const hloscope::XlaModelAllocation& m : a.allocations) {
      for (const hloscope::XlaModelValue& v : m.values) {
        values += fmt::format("allocation {}: {} [{}, +{}) live [{}, {}] buffer {}\n", m.index,
                              v.name, v.offset, v.size, v.start, v.end, v.buffer);
      }
    }
    Fail(fmt::format("the XLA assignment model broke a promise ({})", label), text,
         message + "\n--- assignment ---\n" + hloscope::XlaAssignmentToString(a) +
             "--- values ---\n" + values);
  };
  absl::StatusOr<std::unique_ptr<hloscope::AliasAnalysis>> alias =
      hloscope::AliasAnalysis::Run(module, hloscope::XlaModelDataflowOptions());
  if (!alias.ok())
    fail("the model ran, but its alias analysis fails: " + StatusText(alias.status()));
  const hloscope::DataflowAnalysis& flow = (*alias)->dataflow();
  const size_t n = flow.values().size();
  if (a.value_allocation.size() != n) {
    fail(
        fmt::format("value_allocation has {} entries for {} values", a.value_allocation.size(), n));
  }
  std::vector<int> listed(n, 0);
  absl::flat_hash_map<int64_t, int64_t> allocation_of_buffer;
  hloscope::XlaModelTotals sums;
  for (size_t i = 0; i < a.allocations.size(); ++i) {
    const hloscope::XlaModelAllocation& m = a.allocations[i];
    if (m.index != static_cast<int64_t>(i)) {
      fail(fmt::format("allocation {} is numbered {}", i, m.index));
    }
    if (m.size < 0) fail(fmt::format("allocation {} has size {}", i, m.size));
    if (m.peak_bytes < 0 || m.peak_bytes > m.size) {
      fail(fmt::format("allocation {}'s peak {} is not within its size {}", i, m.peak_bytes,
                       m.size));
    }
    for (const hloscope::XlaModelValue& v : m.values) {
      int64_t end = 0;
      if (v.offset < 0 || v.size < 0 || AddOverflows(v.offset, v.size, &end) || end > m.size) {
        fail(fmt::format("value {} at [{}, +{}) is outside allocation {} of {} bytes", v.name,
                         v.offset, v.size, i, m.size));
      }
      if (v.start > v.end) fail(fmt::format("value {} lives [{}, {}]", v.name, v.start, v.end));
      // The table a short-form async-start's wrapped tuple op has in XLA (no value of ours).
      if (v.buffer == -1) continue;
      if (v.id < 0 || static_cast<size_t>(v.id) >= n) {
        fail(fmt::format("value {} has id {} of {}", v.name, v.id, n));
      }
      ++listed[v.id];
      if (a.value_allocation[v.id] != static_cast<int64_t>(i)) {
        fail(fmt::format("value {} is listed in allocation {} but value_allocation says {}", v.name,
                         i, a.value_allocation[v.id]));
      }
      const hloscope::HloBuffer& b = (*alias)->BufferOf(static_cast<hloscope::ValueId>(v.id));
      if (v.buffer != static_cast<int64_t>(b.id)) {
        fail(fmt::format("value {} names buffer {}, alias analysis {}", v.name, v.buffer, b.id));
      }
      auto [it, inserted] = allocation_of_buffer.emplace(v.buffer, static_cast<int64_t>(i));
      if (!inserted && it->second != static_cast<int64_t>(i)) {
        fail(fmt::format("buffer {} is split between allocations {} and {}", v.buffer, it->second,
                         i));
      }
    }
    // Overlapping bytes of different buffers: by offset, each value against those after it
    // that start inside it.
    std::vector<const hloscope::XlaModelValue*> by_offset;
    for (const hloscope::XlaModelValue& v : m.values) {
      if (v.size > 0) by_offset.push_back(&v);
    }
    std::sort(by_offset.begin(), by_offset.end(),
              [](const auto* x, const auto* y) { return x->offset < y->offset; });
    for (size_t j = 0; j < by_offset.size(); ++j) {
      const hloscope::XlaModelValue& x = *by_offset[j];
      for (size_t k = j + 1; k < by_offset.size() && by_offset[k]->offset < x.offset + x.size;
           ++k) {
        const hloscope::XlaModelValue& y = *by_offset[k];
        if (x.buffer == y.buffer && x.buffer != -1) continue;
        if (std::max(x.start, y.start) < std::min(x.end, y.end)) {
          fail(fmt::format(
              "allocation {}: {} [{}, +{}) live [{}, {}] and {} [{}, +{}) live [{}, {}] overlap", i,
              x.name, x.offset, x.size, x.start, x.end, y.name, y.offset, y.size, y.start, y.end));
        }
      }
    }
    if (m.parameter) sums.parameter_bytes += m.size;
    if (m.constant) sums.constant_bytes += m.size;
    if (m.maybe_live_out) sums.maybe_live_out_bytes += m.size;
    if (m.thread_local_) sums.thread_local_bytes += m.size;
    if (m.preallocated_temp) sums.preallocated_temp_bytes += m.size;
    sums.total_bytes += m.size;
  }
  for (size_t v = 0; v < n; ++v) {
    const int64_t at = a.value_allocation[v];
    if (at < -1 || at >= static_cast<int64_t>(a.allocations.size())) {
      fail(fmt::format("value {} has allocation {}", flow.values()[v].ToString(), at));
    }
    if ((at >= 0) != (listed[v] == 1)) {
      fail(fmt::format("value {} is listed {} times, value_allocation {}",
                       flow.values()[v].ToString(), listed[v], at));
    }
    const hloscope::HloValue& hv = flow.values()[v];
    if (at < 0 && hv.instruction->parent() == module.entry()) {
      fail(fmt::format("the entry's value {} has no allocation", hv.ToString()));
    }
  }
  const hloscope::Instruction* root = module.entry()->root();
  for (int32_t p = 0; p < flow.PositionCount(*root); ++p) {
    for (hloscope::ValueId v : flow.ValuesAtPosition(*root, p)) {
      const int64_t at = a.value_allocation[v];
      if (at >= 0 && !a.allocations[at].maybe_live_out) {
        fail(fmt::format("the result's value {} is in allocation {}, not maybe-live-out",
                         flow.value(v).ToString(), at));
      }
    }
  }
  const hloscope::XlaModelTotals& t = a.totals;
  if (t.parameter_bytes != sums.parameter_bytes || t.constant_bytes != sums.constant_bytes ||
      t.maybe_live_out_bytes != sums.maybe_live_out_bytes ||
      t.thread_local_bytes != sums.thread_local_bytes ||
      t.preallocated_temp_bytes != sums.preallocated_temp_bytes ||
      t.total_bytes != sums.total_bytes) {
    fail(fmt::format("the totals are not the allocations' sums:\n{}--- sums ---\n{}",
                     hloscope::XlaAssignmentStatsString(t),
                     hloscope::XlaAssignmentStatsString(sums)));
  }
  if (t.ideal_temp_bytes < 0) fail(fmt::format("ideal temp {} bytes", t.ideal_temp_bytes));
  // XLA's temp fragmentation (the heap less its no-fragmentation peak) is negative only where
  // values of one buffer are counted twice as one hands over to the next; with every
  // temporary alone in its buffer the heap holds at least what is live at any one call.
  bool alone = true;
  absl::flat_hash_map<int64_t, int> temp_buffers;
  for (const hloscope::XlaModelAllocation& m : a.allocations) {
    if (!m.preallocated_temp) continue;
    for (const hloscope::XlaModelValue& v : m.values) {
      if (v.buffer == -1 || ++temp_buffers[v.buffer] > 1) alone = false;
    }
  }
  // (-1 stands for no heap at all.)
  if (alone && t.temp_fragmentation_bytes < 0 && t.temp_fragmentation_bytes != -1) {
    fail(fmt::format("temp fragmentation {} with every temporary alone in its buffer",
                     t.temp_fragmentation_bytes));
  }
}

// The listing in XLA's layout reads back with our reader of XLA's dumps to the same
// allocations: sizes, kinds and each value's allocation and offset.
void CheckListingReadsBack(const hloscope::XlaModelAssignment& a, std::string_view text,
                           const std::string& listing) {
  absl::StatusOr<hloscope::XlaBufferAssignment> read =
      hloscope::ParseXlaBufferAssignment(listing, "<modeled listing>");
  if (!read.ok()) {
    Fail("the modeled listing does not read back as XLA's", text,
         StatusText(read.status()) + "\n--- listing ---\n" + listing);
  }
  const hloscope::XlaAllocationTotals r = read->Totals();
  const hloscope::XlaModelTotals& t = a.totals;
  if (r.parameter_bytes != t.parameter_bytes || r.constant_bytes != t.constant_bytes ||
      r.maybe_live_out_bytes != t.maybe_live_out_bytes ||
      r.thread_local_bytes != t.thread_local_bytes ||
      r.preallocated_temp_bytes != t.preallocated_temp_bytes || r.total_bytes != t.total_bytes ||
      r.allocations != static_cast<int64_t>(a.allocations.size())) {
    Fail("the modeled listing reads back to other totals", text,
         fmt::format("read: parameter {} constant {} live-out {} thread-local {} temp {} total {} "
                     "allocations {}\n--- model ---\n{}--- listing ---\n{}",
                     r.parameter_bytes, r.constant_bytes, r.maybe_live_out_bytes,
                     r.thread_local_bytes, r.preallocated_temp_bytes, r.total_bytes, r.allocations,
                     hloscope::XlaAssignmentStatsString(t), listing));
  }
}

// The memory report with the model's own listing beside it as XLA's, in every format.
void RunMemoryReport(const hloscope::Module& module, std::string_view text,
                     const std::string& listing, int64_t alignment) {
  for (const hloscope::MemoryOptions::Model model :
       {hloscope::MemoryOptions::Model::kXla, hloscope::MemoryOptions::Model::kLiveness}) {
    hloscope::MemoryOptions options;
    options.model = model;
    options.list_allocations = true;
    options.whole_program_timeline = model == hloscope::MemoryOptions::Model::kLiveness;
    absl::StatusOr<hloscope::MemoryComparison> c =
        hloscope::ProfileBeforeAfter({&module}, nullptr, "", options);
    if (!c.ok()) continue;  // a clean refusal (an unbounded dynamic dimension, say)
    for (const hloscope::ModuleMemory& m : c->before.modules) {
      if (!m.saturated && m.heap_bytes < m.peak_bytes) {
        Fail("the profile's heap is smaller than its peak", text,
             fmt::format("heap {} peak {}", m.heap_bytes, m.peak_bytes));
      }
    }
    const bool with_model = model == hloscope::MemoryOptions::Model::kXla;
    if (absl::Status s = hloscope::AddXlaBufferAssignment(*c, module, listing, "<modeled listing>",
                                                          10, with_model, alignment);
        !s.ok()) {
      Fail("the modeled listing is refused beside its own module", text,
           StatusText(s) + "\n--- listing ---\n" + listing);
    }
    // The model against its own listing: nothing differs.
    if (with_model && !c->xla.empty()) {
      const hloscope::XlaAssignmentComparison& x = c->xla.back();
      for (const hloscope::XlaKindTotal& k : x.totals) {
        if (k.difference() != 0) {
          Fail("the model differs from its own listing", text,
               fmt::format("{}: ours {} listing {}\n--- listing ---\n{}", k.kind, k.ours, k.xla,
                           listing));
        }
      }
    }
    absl::StatusOr<hloscope::XlaModelAssignment> listed =
        hloscope::AssignLikeXla(module, {.alignment = alignment});
    if (listed.ok()) {
      c->xla_models.push_back({std::string(module.name()), *std::move(listed), alignment});
    }
    for (const hloscope::MemoryFormat format :
         {hloscope::MemoryFormat::kText, hloscope::MemoryFormat::kJson,
          hloscope::MemoryFormat::kCsv, hloscope::MemoryFormat::kHtml}) {
      absl::StatusOr<std::string> printed = hloscope::PrintMemoryComparison(
          *c, {.format = format, .buffer_assignment = true, .memory_limit = int64_t{1} << 20});
      if (!printed.ok()) {
        Fail("the memory report does not print", text, StatusText(printed.status()));
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto module = hloscope::ParseModule(text);
  if (!module.ok() || !hloscope::VerifyModule(**module).ok()) return 0;

  // The alignment from the input, so that each is reached (XLA's tests use 1, XLA:GPU 256).
  constexpr int64_t kAlignments[] = {1, 64, 256};
  const int64_t alignment = kAlignments[size % 3];
  std::string listing;
  for (const bool force_gpu : {false, true}) {
    hloscope::XlaModelOptions options{.alignment = alignment};
    if (force_gpu) options.gpu_buffer_sharing = true;
    absl::StatusOr<hloscope::XlaModelAssignment> a = hloscope::AssignLikeXla(**module, options);
    if (!a.ok()) return 0;  // a clean refusal
    const std::string label =
        fmt::format("alignment {}{}", alignment, force_gpu ? ", XLA:GPU sharing" : "");
    CheckAssignment(**module, *a, text, label);
    std::string printed = hloscope::XlaAssignmentToString(*a) + hloscope::XlaPeakBuffersString(*a) +
                          hloscope::XlaAssignmentStatsString(a->totals);
    (void)printed;
    if (!force_gpu) {
      listing = hloscope::XlaAssignmentToString(*a);
      CheckListingReadsBack(*a, text, listing);
      // The same module parsed again is assigned the same way (no order from pointers).
      auto again = hloscope::ParseModule(text);
      if (!again.ok()) Fail("the module no longer parses", text, StatusText(again.status()));
      absl::StatusOr<hloscope::XlaModelAssignment> b = hloscope::AssignLikeXla(**again, options);
      if (!b.ok() || hloscope::XlaAssignmentToString(*b) != listing) {
        Fail("a second parse of the module is assigned otherwise", text,
             listing + "\n--- second ---\n" +
                 (b.ok() ? hloscope::XlaAssignmentToString(*b) : StatusText(b.status())));
      }
    }
  }
  RunMemoryReport(**module, text, listing, alignment);
  return 0;
}
