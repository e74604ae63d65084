// Byte counts for people: binary units (device memory is sized in them), one rule for choosing
// the unit, and a number of decimals chosen by the report. hlo-opt's reports print one decimal
// (HumanBytes: "1.5 MiB"), hlo-pipeline's two (FormatBytes: "1.50 MiB"); each tool's lit tests
// pin its own, so the two spellings stay and share everything else. A count or byte sum that
// saturated at kInt64Max (support/checked_int.h) has one spelling everywhere: kSaturatedText.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace hloscope {

// `bytes` in B, KiB, MiB, GiB, TiB or PiB: the largest unit that leaves a magnitude of at least
// 1 (PiB at most), with `decimals` digits after the point; plain bytes have none ("512 B").
std::string FormatBinaryBytes(double bytes, int decimals);

// "512 B", "1.5 MiB", "-2.0 GiB": one decimal (hlo-opt's reports: memory, copy elision, --stats).
std::string HumanBytes(int64_t bytes);

// "100 B", "1.50 GiB", "512.00 MiB": two decimals (hlo-pipeline's reports).
std::string FormatBytes(double bytes);

// How every report spells a figure that saturated at kInt64Max: the true value did not fit in
// int64, so the number itself would mislead.
inline constexpr std::string_view kSaturatedText = "overflow (2^63 or more)";

// "42", or kSaturatedText for a count that saturated.
std::string FormatCount(int64_t n);

// HumanBytes(bytes), or kSaturatedText for a byte sum that saturated.
std::string HumanBytesOrOverflow(int64_t bytes);

}  // namespace hloscope
