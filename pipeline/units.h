// Byte and number text used by the pipeline reports and flags: "80GiB", "1.5e9", "512 MiB".
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace hloscope::pipeline {

// A non-negative byte count with an optional unit: B, KB/MB/GB/TB (powers of 1000) or
// KiB/MiB/GiB/TiB (powers of 1024), case-insensitive, spaces allowed before the unit.
absl::StatusOr<double> ParseBytes(std::string_view text);

// "1.50 GiB", "512.00 MiB", "100 B" (binary units: device memory is sized in them), two
// decimals, as hlo-pipeline's reports print sizes; hlo-opt's print one ("1.5 GiB",
// hlo/str_util.h's HumanBytes), and each tool's lit tests pin its own.
std::string FormatBytes(double bytes);

// A double as JSON wants it: shortest round-trip text, never "nan" or "inf" (those become null).
std::string JsonNumber(double value);
// A quoted, escaped JSON string.
std::string JsonString(std::string_view text);

}  // namespace hloscope::pipeline
