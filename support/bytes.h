// Byte counts for people: binary units (device memory is sized in them), one rule for choosing
// the unit, and a number of decimals chosen by the report. hlo-opt's reports print one decimal
// (HumanBytes: "1.5 MiB"), hlo-pipeline's two (FormatBytes: "1.50 MiB"); each tool's lit tests
// pin its own, so the two spellings stay and share everything else.
#pragma once

#include <cstdint>
#include <string>

namespace hloscope {

// `bytes` in B, KiB, MiB, GiB, TiB or PiB: the largest unit that leaves a magnitude of at least
// 1 (PiB at most), with `decimals` digits after the point; plain bytes have none ("512 B").
std::string FormatBinaryBytes(double bytes, int decimals);

// "512 B", "1.5 MiB", "-2.0 GiB": one decimal (hlo-opt's reports: memory, copy elision, --stats).
std::string HumanBytes(int64_t bytes);

// "100 B", "1.50 GiB", "512.00 MiB": two decimals (hlo-pipeline's reports).
std::string FormatBytes(double bytes);

}  // namespace hloscope
