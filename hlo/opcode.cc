#include "hlo/opcode.h"

#include <array>
#include <cstdint>

#include "hlo/string_hash.h"


namespace hloscope {
namespace {

constexpr std::array<OpcodeInfo, static_cast<size_t>(Opcode::kOpcodeCount)> kOpcodes = {{
#define HLO_OPCODE(enum_name, text, arity, flags) {Opcode::enum_name, text, arity, flags},
#include "hlo/opcodes.def"
#undef HLO_OPCODE
}};

}  // namespace

const OpcodeInfo& GetOpcodeInfo(Opcode op) { return kOpcodes[static_cast<size_t>(op)]; }

std::optional<Opcode> ParseOpcode(std::string_view name) {
  // Called once per instruction by the parser: an open-addressing table of opcode indices,
  // so a lookup is one inline hash, usually one probe and one inline compare.
  constexpr size_t kSlots = 512;  // a power of two, over 3x the opcode count
  static_assert(static_cast<size_t>(Opcode::kOpcodeCount) < kSlots / 2);
  using Table = std::array<uint16_t, kSlots>;  // opcode index + 1; 0 = empty
  static const Table* const kTable = [] {
    auto* t = new Table();
    for (size_t i = 0; i < kOpcodes.size(); ++i) {
      size_t h = StringViewHash{}(kOpcodes[i].name) & (kSlots - 1);
      while ((*t)[h] != 0) h = (h + 1) & (kSlots - 1);
      (*t)[h] = static_cast<uint16_t>(i + 1);
    }
    return t;
  }();
  for (size_t h = StringViewHash{}(name) & (kSlots - 1);; h = (h + 1) & (kSlots - 1)) {
    const uint16_t slot = (*kTable)[h];
    if (slot == 0) return std::nullopt;
    const OpcodeInfo& info = kOpcodes[slot - 1];
    if (StringViewEq{}(info.name, name)) return info.opcode;
  }
}

}  // namespace hloscope
