// Byte and number text used by the pipeline reports and flags: "80GiB", "1.5e9", "512 MiB".
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace hloscope::pipeline {

// A non-negative byte count with an optional unit: B, KB/MB/GB/TB (powers of 1000) or
// KiB/MiB/GiB/TiB (powers of 1024), case-insensitive, spaces allowed before the unit.
absl::StatusOr<double> ParseBytes(std::string_view text);

// A double as JSON wants it: shortest round-trip text, never "nan" or "inf" (those become null).
std::string JsonNumber(double value);

}  // namespace hloscope::pipeline
