#include "hlo/input_kind.h"

#include <algorithm>
#include <array>

namespace hloscope {
namespace {

// Binary when the head has a NUL byte or more than 1 in 64 control bytes (text has tabs,
// line breaks and little else below 0x20).
bool LooksBinary(std::string_view head) {
  size_t control = 0;
  for (unsigned char c : head) {
    if (c == 0) return true;
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f') || c == 0x7f) ++control;
  }
  return control * 64 > head.size();
}

// The first line that is not blank, a `//` comment or a `#` line (lit RUN lines, MLIR
// attribute aliases), without leading spaces.
std::string_view FirstSignificantLine(std::string_view text) {
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string_view::npos) continue;
    line.remove_prefix(first);
    if (line.starts_with("//") || line.starts_with('#')) continue;
    return line;
  }
  return {};
}

bool StartsWithWord(std::string_view line, std::string_view word) {
  if (!line.starts_with(word)) return false;
  if (line.size() == word.size()) return true;
  char next = line[word.size()];
  return next == ' ' || next == '\t' || next == ':' || next == '{' || next == '@' || next == '\r';
}

// Top-level fields of HloModuleProto (and HloProto / HloSnapshot, which wrap it) as protobuf
// text format writes them: `name: "..."`, `computations {`. A computation may be called
// `computations` too, so the text must also have a quoted scalar field somewhere, which HLO
// text never writes outside a string.
bool LooksLikeTextProto(std::string_view line, std::string_view head) {
  static constexpr std::array<std::string_view, 12> kFields = {"hlo_module",
                                                               "hlo",
                                                               "name",
                                                               "entry_computation_name",
                                                               "entry_computation_id",
                                                               "computations",
                                                               "id",
                                                               "schedule",
                                                               "host_program_shape",
                                                               "input_output_alias",
                                                               "arguments",
                                                               "execution_platform"};
  bool field = false;
  for (std::string_view name : kFields) {
    if (!line.starts_with(name)) continue;
    std::string_view rest = line.substr(name.size());
    size_t k = rest.find_first_not_of(" \t");
    if (k != std::string_view::npos && (rest[k] == ':' || rest[k] == '{')) field = true;
  }
  return field && (head.find("name: \"") != std::string_view::npos ||
                   head.find("opcode: \"") != std::string_view::npos);
}

bool LooksLikeMlir(std::string_view line, std::string_view head) {
  bool opener = StartsWithWord(line, "module") || line.starts_with("func.func") ||
                line.starts_with("\"builtin.module\"");
  if (!opener) return false;
  // `module {` could also be a computation named module; MLIR has ops with a dialect prefix.
  for (std::string_view marker : {"func.func", "stablehlo.", "mhlo.", "\"func.", "func @"}) {
    if (head.find(marker) != std::string_view::npos) return true;
  }
  return false;
}

}  // namespace

std::optional<std::string> NotHloTextNote(std::string_view text) {
  constexpr size_t kHead = 64 * 1024;
  std::string_view head = text.substr(0, std::min(text.size(), kHead));
  if (head.empty()) return std::nullopt;
  std::string_view line = FirstSignificantLine(head);
  // HLO text, however damaged later on, gets no note.
  if (StartsWithWord(line, "HloModule") || StartsWithWord(line, "ENTRY")) return std::nullopt;
  if (LooksBinary(head.substr(0, std::min<size_t>(head.size(), 1024)))) {
    return std::string(
        "the input is binary, not HLO text (an HloModuleProto or HloSnapshot .pb?); hloscope "
        "reads an HloProto or HloModuleProto as a proto unless the input format is forced "
        "to HLO text (input_format)");
  }
  if (LooksLikeTextProto(line, head)) {
    return std::string(
        "this looks like an HloModuleProto in protobuf text format, not HLO text; hloscope "
        "reads it as a proto unless the input format is forced to HLO text (input_format)");
  }
  if (LooksLikeMlir(line, head)) {
    return std::string(
        "this looks like MLIR (StableHLO or MHLO), not HLO text; from JAX, "
        "jax.jit(f).lower(...).as_text(dialect=\"hlo\") gives HLO text, "
        ".lower(...).compile().as_text() the optimized module, and "
        "XLA_FLAGS=--xla_dump_to=DIR every module XLA compiles");
  }
  return std::nullopt;
}

}  // namespace hloscope
