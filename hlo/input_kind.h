// What a file that is not HLO text probably is, for the note under a parse error. Users hand
// hloscope what XLA and JAX gave them, and three look-alikes are common: a binary
// HloModuleProto or HloSnapshot (`--xla_dump_hlo_as_proto`), the same proto in protobuf text
// format, and StableHLO/MHLO MLIR (what JAX's `jit(f).lower(x).as_text()` returns). A parse
// error at `1:1` alone does not tell them what to do instead.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace hloscope {

// The option that forces the input's format, as the notes below name it ("... (input_format)"):
// a tool spells it as its flag (support/option_error.h; ParseModule records it).
inline constexpr std::string_view kInputFormatOption = "input_format";

// A one-sentence note naming what `text` looks like and how to get HLO text instead, or
// nullopt when it looks like HLO text (or like nothing in particular). Only called after a
// parse error, so it may look at the first few KB freely.
std::optional<std::string> NotHloTextNote(std::string_view text);

}  // namespace hloscope
