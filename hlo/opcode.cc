#include "hlo/opcode.h"

#include <array>
#include <vector>


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
  // Called once per instruction by the parser: opcodes are bucketed by length, so a lookup is a
  // handful of first-character checks and one memcmp, with no hashing.
  constexpr size_t kMaxLength = 32;
  struct Buckets {
    std::array<std::vector<const OpcodeInfo*>, kMaxLength + 1> by_length;
  };
  static const Buckets* const kBuckets = [] {
    auto* b = new Buckets();
    for (const OpcodeInfo& info : kOpcodes) {
      if (info.name.size() <= kMaxLength) b->by_length[info.name.size()].push_back(&info);
    }
    return b;
  }();
  if (name.empty() || name.size() > kMaxLength) return std::nullopt;
  for (const OpcodeInfo* info : kBuckets->by_length[name.size()]) {
    if (info->name[0] == name[0] && info->name == name) return info->opcode;
  }
  return std::nullopt;
}

}  // namespace hloscope
