// libFuzzer target for the readers of XLA's binary dumps (built with -DHLOSCOPE_FUZZ=ON; see
// `scripts/fuzz --fuzzer=proto`).
//
// An `.hlo.pb` dump is an HloProto: the module (field 1) and XLA's BufferAssignmentProto
// (field 3) with its heap-simulator traces. No other target reads binary protos, and what
// hlo-opt's side-by-side report computes from them (XLA's peak replayed from the traces, padded
// and unpadded; bytes per memory space; analysis/memory/xla_peak_memory.h) trusts ids, sizes,
// shapes and event orders that come from the file. Here the fuzzed bytes go through what
// `hlo-opt --memory-report --xla-buffer-assignment=FILE.hlo.pb FILE.hlo.pb` runs:
//   - HasXlaBufferAssignment and ReadXlaBufferAssignmentProto (XLA's peak, its totals and
//     memory spaces);
//   - the module read from the same bytes (ParseModuleProto), and when it verifies, the memory
//     report under our model of XLA's assignment with XLA's assignment beside it, printed in
//     text, JSON and HTML.
// A status of any kind is a clean answer (a damaged dump must get an error naming the byte or
// the id); a crash, a sanitizer report, a hang or a negative peak is a failure.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "analysis/memory/memory_comparison.h"
#include "analysis/memory/memory_profile.h"
#include "analysis/memory/xla_buffer_assignment.h"
#include "fmt/format.h"
#include "hlo/proto_reader.h"
#include "hlo/verifier.h"

namespace {

[[noreturn]] void Fail(std::string_view what) {
  std::fprintf(stderr, "%.*s\n", static_cast<int>(what.size()), what.data());
  std::abort();
}

void ReadAssignment(std::string_view bytes) {
  (void)hloscope::HasXlaBufferAssignment(bytes);
  absl::StatusOr<hloscope::XlaBufferAssignment> read =
      hloscope::ReadXlaBufferAssignmentProto(bytes, "<fuzzed>.hlo.pb");
  if (!read.ok()) return;
  // A peak is a running total of sizes the reader refuses when negative.
  if (read->peak_bytes && *read->peak_bytes < 0) {
    Fail(fmt::format("XLA's padded peak is negative: {}", *read->peak_bytes));
  }
  if (read->peak_unpadded_bytes && *read->peak_unpadded_bytes < 0) {
    Fail(fmt::format("XLA's unpadded peak is negative: {}", *read->peak_unpadded_bytes));
  }
  (void)read->Totals();
  (void)read->MemorySpaces();
}

// The side-by-side report on the module of the same dump, the way hlo-opt makes it.
void SideBySide(std::string_view bytes) {
  absl::StatusOr<std::unique_ptr<hloscope::Module>> module =
      hloscope::ParseModuleProto(bytes, hloscope::InputFormat::kBinaryProto, "<fuzzed>.hlo.pb");
  if (!module.ok() || !hloscope::VerifyModule(**module).ok()) return;
  for (const bool with_model : {true, false}) {
    hloscope::MemoryOptions options;
    options.model = with_model ? hloscope::MemoryOptions::Model::kXla
                               : hloscope::MemoryOptions::Model::kLiveness;
    options.list_allocations = true;
    absl::StatusOr<hloscope::MemoryComparison> c =
        hloscope::ProfileBeforeAfter({module->get()}, nullptr, "", options);
    if (!c.ok()) continue;  // a clean refusal
    if (!hloscope::AddXlaBufferAssignment(*c, **module, bytes, "<fuzzed>.hlo.pb", 10, with_model)
             .ok()) {
      continue;
    }
    for (const hloscope::MemoryFormat format :
         {hloscope::MemoryFormat::kText, hloscope::MemoryFormat::kJson,
          hloscope::MemoryFormat::kHtml}) {
      (void)hloscope::PrintMemoryComparison(
          *c, {.format = format, .buffer_assignment = true, .memory_limit = int64_t{1} << 20});
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  ReadAssignment(bytes);
  SideBySide(bytes);
  return 0;
}
