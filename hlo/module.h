// An HLO module: computations, the entry, header attributes, and the storage everything lives
// in. A Module owns its instructions, computations, interned shapes and strings; pointers into
// it stay valid for its lifetime.
//
//   absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text, "model.hlo");
//   for (Computation* c : (*m)->computations())
//     for (Instruction* i : c->instructions()) ...
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/types/span.h"
#include "hlo/computation.h"
#include "hlo/input_output_alias.h"
#include "hlo/instruction.h"
#include "hlo/object_pool.h"
#include "hlo/shape.h"
#include "hlo/string_arena.h"
#include "hlo/string_hash.h"

namespace hloscope {

// A header attribute `key=value` after `HloModule name,` kept as written.
struct ModuleAttribute {
  std::string_view key;
  std::string_view value;
};

class Module {
 public:
  explicit Module(std::string_view name);
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  ~Module();

  std::string_view name() const { return name_; }
  Computation* entry() const { return entry_; }
  // Computations in text order (callees usually before callers; not guaranteed).
  absl::Span<Computation* const> computations() const { return computations_; }
  Computation* FindComputation(std::string_view name) const;
  absl::Span<const ModuleAttribute> attributes() const { return attributes_; }
  std::optional<std::string_view> FindAttribute(std::string_view key) const;
  bool is_scheduled() const { return is_scheduled_; }
  // The header's input_output_alias={...}, decoded once by the parser (empty when absent);
  // checked against the entry computation by the verifier.
  absl::Span<const InputOutputAlias> input_output_aliases() const { return aliases_; }
  void set_input_output_aliases(std::vector<InputOutputAlias> aliases) {
    aliases_ = std::move(aliases);
  }
  // True while every computation's instruction names are known to be distinct: the parser
  // sets it (it rejects a name defined twice), and adding an instruction to a computation or
  // renaming one clears it. The verifier then skips its own per-computation name check.
  bool instruction_names_known_unique() const { return names_known_unique_; }
  void set_instruction_names_known_unique(bool v) { names_known_unique_ = v; }
  // Stack-frame tables (FileNames, FunctionNames, FileLocations, StackFrames) as written.
  std::string_view stack_frame_tables() const { return stack_frame_tables_; }

  // --- construction (parser, passes) ---
  StringArena& arena() { return arena_; }
  std::string_view Save(std::string_view s) { return arena_.Save(s); }
  // Returns the module's single copy of a shape equal to `shape`.
  const Shape* InternShape(Shape shape);
  // Whether any shape of the module holds a b(...) buffer at some depth. XLA's rules for
  // buffers then cost the verifier nothing on the modules without one (almost all).
  bool HasBufferShapes() const;
  Computation* AddComputation(std::string_view name);
  // Creates an instruction owned by the module; the caller adds it to a computation.
  Instruction* CreateInstruction(Opcode opcode, const Shape* shape, std::string_view name,
                                 Computation* parent);
  Metadata* CreateMetadata();
  ControlEdges* CreateControlEdges();
  // Copies a small array into the arena (8-byte aligned); lives as long as the module.
  template <typename T>
  absl::Span<const T> SaveArray(absl::Span<const T> items) {
    if (items.empty()) return {};
    char* raw = arena_.Allocate(items.size() * sizeof(T) + alignof(T));
    auto addr = reinterpret_cast<uintptr_t>(raw);
    T* out = reinterpret_cast<T*>((addr + alignof(T) - 1) & ~(uintptr_t{alignof(T)} - 1));
    std::copy(items.begin(), items.end(), out);
    return {out, items.size()};
  }
  InstructionDetails* CreateDetails();
  void set_entry(Computation* c);
  void set_name(std::string_view n) { name_ = n; }
  void AddAttribute(std::string_view key, std::string_view value);
  void SetAttribute(std::string_view key, std::string_view value);
  void set_is_scheduled(bool v) { is_scheduled_ = v; }
  void set_stack_frame_tables(std::string_view t) { stack_frame_tables_ = t; }
  // Removes computations no instruction calls (the entry is always kept). Returns how many.
  int64_t RemoveUnreachableComputations();
  // A name not yet used by any instruction of the module, derived from `base`.
  std::string_view UniqueInstructionName(std::string_view base);

  // Attribute key interning: fixed ids for AttrKey values, new ids for other keys.
  uint32_t InternAttrKey(std::string_view key);
  std::string_view AttrKeyName(uint32_t key) const { return attr_key_names_[key]; }

  // --- size accounting (bytes of the in-memory IR) ---
  struct MemoryStats {
    int64_t instructions = 0;
    int64_t instruction_bytes = 0;      // Instruction objects incl. their lists' arena storage
    int64_t shape_bytes = 0;            // interned shapes
    int64_t string_bytes = 0;           // arena bytes in use (names, attribute and metadata text)
    int64_t metadata_string_bytes = 0;  // of string_bytes, metadata text
    int64_t other_bytes = 0;            // computations and their lists, details, metadata structs,
                                        // and list storage abandoned when a list grew
  };
  MemoryStats ComputeMemoryStats() const;
  int64_t instruction_count() const;
  // Every instruction's unique_id() is below this (ids are handed out in order and never
  // reused), so a per-instruction table can be a vector indexed by id.
  uint32_t instruction_id_bound() const { return next_instruction_id_; }

  // --- source positions (for messages that point into the text, e.g. the verifier's) ---
  // The byte offset of an instruction's name in the text it was parsed from (ParseModule's
  // `text`), kept in a side table indexed by unique_id(): 4 bytes per instruction, none in
  // Instruction itself. Instructions that passes create have none (nullopt), nor do offsets
  // past 4 GiB.
  void SetSourceOffset(const Instruction& instr, size_t offset);
  std::optional<size_t> SourceOffset(const Instruction& instr) const;
  // What the parser was given as ParseOptions::filename and first_line.
  void SetSource(std::string_view filename, int first_line) {
    source_filename_ = Save(filename);
    source_first_line_ = first_line;
  }
  std::string_view source_filename() const { return source_filename_; }
  int source_first_line() const { return source_first_line_; }

 private:
  struct ShapeHash {
    size_t operator()(const Shape* s) const;
  };
  struct ShapeEq {
    bool operator()(const Shape* a, const Shape* b) const { return *a == *b; }
  };

  std::string_view name_;
  Computation* entry_ = nullptr;
  bool is_scheduled_ = false;
  bool names_known_unique_ = false;
  std::vector<Computation*> computations_;
  std::vector<ModuleAttribute> attributes_;
  std::vector<InputOutputAlias> aliases_;
  std::string_view stack_frame_tables_;
  StringViewMap<Computation*> computation_by_name_;
  StringArena arena_;
  ObjectPool<Shape, 64> shapes_;
  absl::flat_hash_map<const Shape*, const Shape*, ShapeHash, ShapeEq> shape_set_;
  ObjectPool<Computation, 32> computation_storage_;
  ObjectPool<Instruction> instruction_storage_;
  ObjectPool<Metadata> metadata_storage_;
  ObjectPool<ControlEdges, 64> control_storage_;
  ObjectPool<InstructionDetails, 64> details_storage_;
  uint32_t InternAttrKeySlow(std::string_view key);
  struct AttrKeyCacheEntry {
    std::string_view name;
    uint32_t id = UINT32_MAX;
  };
  std::array<AttrKeyCacheEntry, 64> attr_key_cache_{};
  std::vector<std::string_view> attr_key_names_;
  StringViewMap<uint32_t> attr_key_ids_;
  StringViewMap<int> name_counters_;
  uint32_t next_instruction_id_ = 0;
  static constexpr uint32_t kNoSourceOffset = UINT32_MAX;
  std::vector<uint32_t> source_offsets_;  // by unique_id(); kNoSourceOffset when unknown
  std::string_view source_filename_;
  int source_first_line_ = 1;
};

}  // namespace hloscope
