#include "hlo/opcode.h"

#include <array>

#include "absl/container/flat_hash_map.h"
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
  static const auto* const kByName = [] {
    auto* m = new StringViewMap<Opcode>();
    for (const OpcodeInfo& info : kOpcodes) m->emplace(info.name, info.opcode);
    return m;
  }();
  auto it = kByName->find(name);
  if (it == kByName->end()) return std::nullopt;
  return it->second;
}

}  // namespace hloscope
