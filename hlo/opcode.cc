#include "hlo/opcode.h"

#include <array>
#include <cstdint>
#include <cstring>

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

// Called once per instruction by the parser, so the lookup is an open-addressing table keyed
// by a cheap hash of the length and the first and last two bytes (which tell today's opcodes
// apart well). Each slot holds the name itself: a lookup touches one cache line of the table
// and compares inline, with no second load from the opcode table.
constexpr size_t kOpcodeSlots = 256;  // a power of two, nearly 2x the opcode count
static_assert(static_cast<size_t>(Opcode::kOpcodeCount) < kOpcodeSlots * 3 / 5);

size_t OpcodeSlot(std::string_view name) {
  const auto byte = [&](size_t i) { return static_cast<uint64_t>(static_cast<uint8_t>(name[i])); };
  const size_t n = name.size();
  uint64_t h = n * 0x9E3779B97F4A7C15ull;
  h ^= ((byte(0) << 8) | byte(1)) * 0xBF58476D1CE4E5B9ull;
  h ^= ((byte(n - 2) << 8) | byte(n - 1)) * 0x94D049BB133111EBull;
  return static_cast<size_t>(h >> 56) & (kOpcodeSlots - 1);  // the well-mixed high bits
}

struct alignas(32) OpcodeSlotEntry {
  char name[30];
  uint8_t length = 0;  // 0: empty
  uint8_t opcode = 0;
};
static_assert(sizeof(OpcodeSlotEntry) == 32);

using OpcodeTable = std::array<OpcodeSlotEntry, kOpcodeSlots>;

const OpcodeTable kOpcodeTable = [] {
  OpcodeTable t{};
  for (size_t i = 0; i < kOpcodes.size(); ++i) {
    std::string_view name = kOpcodes[i].name;
    size_t h = OpcodeSlot(name);
    while (t[h].length != 0) h = (h + 1) & (kOpcodeSlots - 1);
    std::memcpy(t[h].name, name.data(), name.size());  // every name is under 30 bytes
    t[h].length = static_cast<uint8_t>(name.size());
    t[h].opcode = static_cast<uint8_t>(i);
  }
  return t;
}();

static_assert(static_cast<size_t>(Opcode::kOpcodeCount) <= 256);

}  // namespace

std::optional<Opcode> ParseOpcode(std::string_view name) {
  // Every opcode has at least two letters and fewer than 30.
  if (name.size() < 2 || name.size() >= sizeof(OpcodeSlotEntry::name)) return std::nullopt;
  for (size_t h = OpcodeSlot(name);; h = (h + 1) & (kOpcodeSlots - 1)) {
    const OpcodeSlotEntry& e = kOpcodeTable[h];
    if (e.length == 0) return std::nullopt;
    if (StringViewEq{}(std::string_view(e.name, e.length), name)) {
      return static_cast<Opcode>(e.opcode);
    }
  }
}

}  // namespace hloscope
