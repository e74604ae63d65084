// The proto side of hlo/proto_writer (this header includes the generated xla_hlo.pb.h, which
// installed headers do not), and the parts that decode attribute text into proto fields; one file
// each for instruction attributes, literals and sharding. Errors say what was expected; the caller
// prefixes the instruction and attribute they came from.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hlo/instruction.h"
#include "hlo/proto_writer.h"
#include "hlo/shape.h"
#include "hlo/xla_hlo.pb.h"

namespace hloscope {

namespace xla_proto = ::hloscope::xla;

// Builds the HloModuleProto of `module` (WriteModuleProto before serializing). Instruction ids
// are 1, 2, ... in text order and computation ids follow them, so ids are unique in the module;
// called computations come before their callers, as XLA's loader requires.
absl::StatusOr<xla_proto::HloModuleProto> ModuleToProto(const Module& module);
// The same with the config attributes of the module header (replica_count, num_partitions,
// allow_spmd_sharding_propagation_*) in `config`, set only when the header has any.
absl::StatusOr<xla_proto::HloModuleProtoWithConfig> ModuleToProtoWithConfig(const Module& module);

}  // namespace hloscope

namespace hloscope::proto_writer {

// Our element type as XLA's enum value.
xla_proto::PrimitiveType ToProtoType(PrimitiveType type);
// A shape with its layout (tiles, memory space, dynamic dimensions, ...).
absl::Status ShapeToProto(const Shape& shape, xla_proto::ShapeProto* out);

// `constant(...)`'s text (the literal as written) with its shape → LiteralProto.
absl::Status LiteralToProto(std::string_view text, const Shape& shape,
                            xla_proto::LiteralProto* out);

// The text inside `sharding={...}` → OpSharding (also used for domain entry/exit shardings).
absl::Status ShardingToProto(std::string_view inner, xla_proto::OpSharding* out);
// The text inside `metadata={...}` → OpMetadata.
absl::Status MetadataToProto(std::string_view inner, xla_proto::OpMetadata* out);
// The text inside `frontend_attributes={...}` → the map of FrontendAttributes.
absl::Status FrontendAttributesToProto(std::string_view inner, xla_proto::FrontendAttributes* out);

// Sets the field(s) of `out` that instruction attribute `key` (value text as written) maps
// to, for an instruction of opcode `op` (instr's own, or the one an async op wraps).
// Computation-valued attributes and control-predecessors are handled by the caller.
absl::Status AttributeToProto(const Instruction& instr, Opcode op, std::string_view key,
                              std::string_view value, xla_proto::HloInstructionProto* out);

// --- small readers shared by the files above ---

// `"..."` → its unescaped body; an error when `text` is not one quoted string.
absl::StatusOr<std::string> Unquoted(std::string_view text);
// `{1,2}`, `{}` or `3` → the integers; an error for anything else.
absl::StatusOr<std::vector<int64_t>> IntList(std::string_view text);
// One integer, all of `text`.
absl::StatusOr<int64_t> OneInt(std::string_view text);
// `true` / `false`.
absl::StatusOr<bool> OneBool(std::string_view text);
// Splits `text` at top-level separators `sep` (brackets and quoted strings are not split);
// pieces are trimmed of spaces; an empty text gives no pieces.
std::vector<std::string_view> SplitTopLevel(std::string_view text, char sep);
// `{...}` → what is inside; an error when `text` is not braced.
absl::StatusOr<std::string_view> BraceBody(std::string_view text);
// `key=value` pairs separated by spaces or commas at the top level (metadata, windows,
// frontend attributes, domain): key, value as written.
absl::StatusOr<std::vector<std::pair<std::string_view, std::string_view>>> KeyValues(
    std::string_view text);

}  // namespace hloscope::proto_writer
