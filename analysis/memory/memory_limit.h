// A device's memory limit held against a report's peaks: --memory-limit=80GiB answers "does it
// fit?" with "over by X" or "fits with X to spare", for each module and each stage.
//
//   absl::StatusOr<int64_t> limit = ParseMemorySize("80GiB");
//   std::string lines = MemoryLimitText(report, *limit);
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "analysis/memory/memory_profile.h"

namespace hloscope {

// A size: digits with an optional fraction and an optional unit, B, KB/MB/GB/TB (powers of
// 1000) or KiB/MiB/GiB/TiB (powers of 1024), case-insensitive ("80GiB", "1.5GB", "4096").
// Anything else, a negative size or one past int64 is an error naming the text.
absl::StatusOr<int64_t> ParseMemorySize(std::string_view text);

// "fits with X to spare" or "over by X", X in bytes and human units.
std::string LimitVerdict(int64_t peak_bytes, int64_t limit);

// What the limit is held against: the device's peak, without host-offloaded buffers
// (host_placement.h); the module's peak when it has none.
int64_t DevicePeakBytes(const ModuleMemory& m);
// The same for a pipeline stage: its device's part, the stage's peak when it has no host buffer.
int64_t DevicePeakBytes(const StageMemory& s);

// The text report's limit block: the limit, then one line per module and per stage.
std::string MemoryLimitText(const MemoryReport& report, int64_t limit);

}  // namespace hloscope
