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

namespace {

// Called once per instruction by the parser, so the lookup is an open-addressing table of
// opcode indices keyed by a cheap hash of the length and the first and last two bytes (which
// tell today's opcodes apart well), then one inline compare.
constexpr size_t kOpcodeSlots = 1024;  // a power of two, over 7x the opcode count
static_assert(static_cast<size_t>(Opcode::kOpcodeCount) < kOpcodeSlots / 4);

size_t OpcodeSlot(std::string_view name) {
  const auto byte = [&](size_t i) { return static_cast<uint64_t>(static_cast<uint8_t>(name[i])); };
  const size_t n = name.size();
  uint64_t h = n * 0x9E3779B97F4A7C15ull;
  h ^= ((byte(0) << 8) | byte(1)) * 0xBF58476D1CE4E5B9ull;
  h ^= ((byte(n - 2) << 8) | byte(n - 1)) * 0x94D049BB133111EBull;
  return static_cast<size_t>(h >> 54) & (kOpcodeSlots - 1);  // the well-mixed high bits
}

using OpcodeTable = std::array<uint16_t, kOpcodeSlots>;  // opcode index + 1; 0 = empty

const OpcodeTable kOpcodeTable = [] {
  OpcodeTable t{};
  for (size_t i = 0; i < kOpcodes.size(); ++i) {
    size_t h = OpcodeSlot(kOpcodes[i].name);
    while (t[h] != 0) h = (h + 1) & (kOpcodeSlots - 1);
    t[h] = static_cast<uint16_t>(i + 1);
  }
  return t;
}();

}  // namespace

std::optional<Opcode> ParseOpcode(std::string_view name) {
  if (name.size() < 2) return std::nullopt;  // every opcode has at least two letters
  for (size_t h = OpcodeSlot(name);; h = (h + 1) & (kOpcodeSlots - 1)) {
    const uint16_t slot = kOpcodeTable[h];
    if (slot == 0) return std::nullopt;
    const OpcodeInfo& info = kOpcodes[slot - 1];
    if (StringViewEq{}(info.name, name)) return info.opcode;
  }
}

}  // namespace hloscope
