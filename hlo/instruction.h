// One HLO instruction: opcode, result shape, operands, users, called computations and
// attributes.
//
// Memory layout (see docs/ir.md): instructions live in a per-module ObjectPool
// (blocks of 256, never moved, so pointers stay valid for the module's lifetime), hold
// interned shapes (`const Shape*`), names and attribute text as string_views into the module's
// StringArena, and operands/users in small inline vectors. Attributes that analyses read are
// decoded once at parse time into typed fields (index, dimensions, slice, ...); every
// attribute is also kept as text in source order so printing loses nothing.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "hlo/arena_vector.h"
#include "hlo/opcode.h"
#include "hlo/shape.h"

namespace hloscope {

class Computation;
class Instruction;
class Module;

enum class FusionKind : uint8_t { kNone, kLoop, kInput, kOutput, kCustom };
std::string_view FusionKindName(FusionKind kind);  // "kLoop", ...
std::optional<FusionKind> ParseFusionKind(std::string_view name);

enum class ComparisonDirection : uint8_t { kNone, kEq, kNe, kLt, kLe, kGt, kGe };
std::string_view ComparisonDirectionName(ComparisonDirection d);  // "EQ", ...
std::optional<ComparisonDirection> ParseComparisonDirection(std::string_view name);

// Attribute keys are interned per module (Module::AttrKeyName). The keys below have fixed ids.
enum AttrKey : uint32_t {
  kAttrIndex,
  kAttrDimensions,
  kAttrSlice,
  kAttrDynamicSliceSizes,
  kAttrKind,
  kAttrDirection,
  kAttrOutputToOperandAliasing,
  kAttrCustomCallTarget,
  kAttrBackendConfig,
  kAttrMetadata,
  kAttrFrontendAttributes,
  kAttrControlPredecessors,
  kAttrSharding,
  kAttrCalls,
  kAttrToApply,
  kAttrCondition,
  kAttrBody,
  kAttrBranchComputations,
  kAttrTrueComputation,
  kAttrFalseComputation,
  kAttrCalledComputations,
  kAttrSelect,
  kAttrScatter,
  kAttrComparator,
  kAttrFirstUnknown,  // ids from here on are keys seen in the input
};

// One `key=value` attribute. `value` is the printed text of the value (for strings, with
// quotes and escapes as written). Computation-valued attributes (calls=, body=, ...) and
// control-predecessors are printed from the instruction's typed lists instead: for those,
// `value` is empty and `first`/`count` select the called computations they name.
struct Attribute {
  uint32_t key;
  uint16_t first = 0;  // computation-valued: index into called_computations()
  uint16_t count = 0;  // computation-valued: how many
  std::string_view value;
  bool is_computation_ref = false;
  bool is_list = false;  // computation-valued and printed as `{a, b}`
  bool is_control_predecessors = false;
};

struct SliceDim {
  int64_t start = 0;
  int64_t limit = 0;
  int64_t stride = 1;
  // Elements selected: ceil((limit - start) / stride), for 0 <= start <= limit and stride > 0
  // (written so that no stride overflows it).
  int64_t size() const { return limit == start ? 0 : (limit - start - 1) / stride + 1; }
};

// output_to_operand_aliasing={{output_index}: (operand, {operand_index}), ...}
struct OperandAlias {
  ShapeIndex output_index;
  int64_t operand = 0;
  ShapeIndex operand_index;
};

// metadata={op_type="..." op_name="..." source_file="..." source_line=N ...}. The decoded
// fields are views into `text` (or into the arena when the value had escapes).
struct Metadata {
  std::string_view text;  // everything between the braces, as written
  std::string_view op_type;
  std::string_view op_name;
  std::string_view source_file;
  int64_t source_line = -1;
};

// Control dependencies of one instruction; most instructions have none, so they live outside.
struct ControlEdges {
  std::vector<Instruction*> preds;
  std::vector<Instruction*> succs;
};

// Decoded attributes that only some instructions have; allocated on demand. Integer lists
// live in the module's arena (see Module::SaveArray).
struct InstructionDetails {
  absl::Span<const int64_t> dimensions;
  absl::Span<const SliceDim> slice;
  absl::Span<const int64_t> dynamic_slice_sizes;
  std::vector<OperandAlias> output_to_operand_aliasing;
  std::string_view custom_call_target;   // unquoted
  std::string_view sharding;             // text inside the braces
  std::string_view frontend_attributes;  // text inside the braces
  std::string_view backend_config;       // value as written (quoted string or {json})
  int64_t known_trip_count = -1;         // from backend_config {"known_trip_count":{"n":"N"}}
};

class Instruction {
 public:
  Instruction(Opcode opcode, const Shape* shape, std::string_view name, Computation* parent)
      : opcode_(opcode), shape_(shape), parent_(parent), name_(name) {}
  Instruction(const Instruction&) = delete;
  Instruction& operator=(const Instruction&) = delete;

  Opcode opcode() const { return opcode_; }
  // For async ops written in the wrapped form (`custom-call-start`, `fusion-done`, ...): the
  // wrapped opcode; kOpcodeCount for the plain `async-start` form and for all other ops.
  Opcode async_wrapped_opcode() const { return wrapped_; }
  // The opcode as printed: `async-start`, or `custom-call-start` for wrapped forms.
  std::string PrintedOpcode() const;
  const Shape& shape() const { return *shape_; }
  const Shape* shape_ptr() const { return shape_; }
  std::string_view name() const { return name_; }
  Computation* parent() const { return parent_; }
  Module* module() const;
  uint32_t unique_id() const { return id_; }

  absl::Span<Instruction* const> operands() const { return operands_; }
  Instruction* operand(int64_t i) const { return operands_[static_cast<size_t>(i)]; }
  int64_t operand_count() const { return static_cast<int64_t>(operands_.size()); }
  absl::Span<Instruction* const> users() const { return users_; }
  int64_t user_count() const { return static_cast<int64_t>(users_.size()); }
  absl::Span<Computation* const> called_computations() const { return called_; }
  absl::Span<Instruction* const> control_predecessors() const {
    return control_ ? absl::Span<Instruction* const>(control_->preds)
                    : absl::Span<Instruction* const>();
  }
  absl::Span<Instruction* const> control_successors() const {
    return control_ ? absl::Span<Instruction* const>(control_->succs)
                    : absl::Span<Instruction* const>();
  }
  absl::Span<const Attribute> attributes() const { return attrs_; }
  const Attribute* FindAttribute(uint32_t key) const;

  // Called computations by role (nullptr / empty when the instruction has none in that role).
  Computation* CalledComputation(uint32_t attr_key) const;
  Computation* while_condition() const { return CalledComputation(kAttrCondition); }
  Computation* while_body() const { return CalledComputation(kAttrBody); }
  Computation* to_apply() const { return CalledComputation(kAttrToApply); }
  Computation* fused_computation() const { return CalledComputation(kAttrCalls); }
  // Conditional branches in branch order: branch_computations={...}, or {true, false}.
  std::vector<Computation*> branch_computations() const;

  bool IsRoot() const;
  bool HasSideEffect() const;

  // Typed fields. Meaningful for the opcodes noted; zero/empty otherwise.
  int64_t tuple_index() const { return number_; }        // get-tuple-element index=
  int64_t parameter_number() const { return number_; }   // parameter(N)
  std::string_view literal() const { return literal_; }  // constant(...) text; iota etc. empty
  FusionKind fusion_kind() const { return fusion_kind_; }
  ComparisonDirection comparison_direction() const { return direction_; }
  const Metadata* metadata() const { return metadata_; }
  const InstructionDetails* details() const { return details_; }
  absl::Span<const int64_t> dimensions() const;
  absl::Span<const SliceDim> slice() const;
  absl::Span<const int64_t> dynamic_slice_sizes() const;
  absl::Span<const OperandAlias> output_to_operand_aliasing() const;
  std::string_view custom_call_target() const;
  std::string_view sharding() const;
  std::string_view frontend_attributes() const;
  // Value of one frontend attribute (`key="value"`), unquoted; nullopt when absent.
  std::optional<std::string_view> FrontendAttribute(std::string_view key) const;
  std::string_view backend_config() const;
  std::optional<int64_t> known_trip_count() const;

  // Graph edits. They keep operand/user lists consistent.
  void AppendOperand(Instruction* operand);
  void ReplaceOperand(int64_t index, Instruction* new_operand);
  // Makes every user of this instruction (and the root slot) use `replacement` instead.
  void ReplaceAllUsesWith(Instruction* replacement);
  void AddControlPredecessor(Instruction* pred);
  void RemoveAllControlEdges();
  // Drops operands (updating users) so a dead instruction can be removed.
  void DetachOperands();

  // Attribute edits (text is copied into the module's arena).
  void SetAttribute(uint32_t key, std::string_view value);

 private:
  friend class Module;
  friend class Computation;
  friend class InstructionBuilder;
  void RemoveUser(Instruction* user);
  // Whether this instruction is already in `operand`'s user list.
  bool IsUserOf(const Instruction* operand) const;

  // The module's arena, where lists that outgrow their inline slots get storage. Lists are
  // grown through this instruction's own module (never through an operand's), so a removed
  // instruction, whose parent is null, only ever shrinks.
  StringArena& ListArena() const;
  auto ListArenaFn() const {
    return [this]() -> StringArena& { return ListArena(); };
  }

  // Field order is by cache line (the object is 192 bytes, 64-byte aligned in the module's
  // pool). The first line holds what a *user* touches when the parser links an operand (name,
  // parent, users) along with opcode, id and shape, so an operand defined far back costs one
  // cache miss, not two.
  Opcode opcode_;
  Opcode wrapped_ = Opcode::kOpcodeCount;
  FusionKind fusion_kind_ = FusionKind::kNone;
  ComparisonDirection direction_ = ComparisonDirection::kNone;
  uint32_t id_ = 0;
  const Shape* shape_;
  Computation* parent_;
  std::string_view name_;
  ArenaVector<Instruction*, 2> users_;
  // Second line: the rest of what the verifier reads for every instruction.
  ArenaVector<Instruction*, 2> operands_;
  ControlEdges* control_ = nullptr;  // allocated by the module when the first edge is added
  std::string_view literal_;
  ArenaVector<Computation*, 1> called_;
  // Third line: attributes, opcode-specific fields and side structs.
  int64_t number_ = 0;
  ArenaVector<Attribute, 1> attrs_;
  Metadata* metadata_ = nullptr;
  InstructionDetails* details_ = nullptr;
};

// Builder used by the parser and by passes that create instructions: it sets the private
// typed fields in one place so Instruction's invariants are kept.
class InstructionBuilder {
 public:
  explicit InstructionBuilder(Instruction* instr) : instr_(instr) {}
  void set_wrapped_opcode(Opcode op) { instr_->wrapped_ = op; }
  // Clears the module's instruction_names_known_unique() (defined in instruction.cc).
  void set_name(std::string_view name);
  void set_number(int64_t n) { instr_->number_ = n; }
  void set_literal(std::string_view text) { instr_->literal_ = text; }
  void set_fusion_kind(FusionKind k) { instr_->fusion_kind_ = k; }
  void set_direction(ComparisonDirection d) { instr_->direction_ = d; }
  void set_metadata(Metadata* m) { instr_->metadata_ = m; }
  InstructionDetails& details();
  void AddCalledComputation(Computation* c) { instr_->called_.push_back(c, instr_->ListArenaFn()); }
  void AddAttribute(const Attribute& a) { instr_->attrs_.push_back(a, instr_->ListArenaFn()); }
  void set_shape(const Shape* s) { instr_->shape_ = s; }
  // Parser support for names used before their definition: reserve a slot, fill it later.
  void AppendOperandPlaceholder() { instr_->operands_.push_back(nullptr, instr_->ListArenaFn()); }
  void SetOperand(size_t index, Instruction* operand) {
    bool already_user = instr_->IsUserOf(operand);
    instr_->operands_[index] = operand;
    if (!already_user) operand->users_.push_back(instr_, instr_->ListArenaFn());
  }
  void SetCalledComputation(size_t slot, Computation* c) { instr_->called_[slot] = c; }

 private:
  Instruction* instr_;
};

}  // namespace hloscope
