// Parses `key=value` attributes of instructions (and raw values of module header attributes).
//
// Every attribute's text is kept for printing. Keys that analyses read (index, dimensions,
// slice, kind, direction, metadata, custom_call_target, backend_config, ...) are also decoded
// into typed fields; computation names and control predecessors are recorded for resolution
// once all names are known.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "hlo/module.h"
#include "hlo/shape_parser.h"
#include "hlo/text_cursor.h"

namespace hloscope {

class AttributeParser {
 public:
  AttributeParser(TextCursor& cursor, Module& module, ShapeParser& shapes)
      : cur_(cursor), module_(module), shapes_(shapes) {}

  // At the key of `key=value` (after the separating comma).
  bool ParseAttribute(Instruction* instr);
  // A value whose structure is not interpreted: runs to a top-level ',' or whitespace, with
  // brackets balanced and strings skipped. *value views the input text: callers that keep it
  // save it in the module's arena.
  bool ParseRawValue(std::string_view key, std::string_view* value);

  struct PendingCall {
    Instruction* instr;
    size_t slot;  // index into the instruction's called computations
    std::string_view name;
    const char* at;
  };
  struct PendingControl {
    Instruction* instr;
    std::string_view name;
    const char* at;
  };
  std::vector<PendingCall> TakePendingCalls() { return std::move(pending_calls_); }
  std::vector<PendingControl> TakePendingControls() { return std::move(pending_controls_); }
  void RestorePendingControls(std::vector<PendingControl> controls) {
    pending_controls_ = std::move(controls);
  }
  // Parses `{ instructions }` written in place of a computation name; set by the Parser.
  using InlineComputationParser = std::function<bool(std::string_view base, Computation** out)>;
  void set_inline_computation_parser(InlineComputationParser p) { inline_parser_ = std::move(p); }
  // Name of the first computation `instr` calls, if it has one pending (for shape inference).
  std::string_view FirstCalleeName(const Instruction* instr) const;

 private:
  bool AtValue(std::string_view key);
  bool ParseComputationRefs(Instruction* instr, uint32_t key);
  bool ParseControlPredecessors(Instruction* instr);
  bool StartsInlineComputation() const;
  bool ParseIntList(absl::InlinedVector<int64_t, 4>* out, std::string_view what);
  bool ParseSlice(std::vector<SliceDim>* out);
  bool ParseOperandAliasing(std::vector<OperandAlias>* out);
  bool ParseShapeIndex(ShapeIndex* out);
  bool DecodeMetadata(std::string_view inner, Metadata* metadata);
  std::string_view Unquote(std::string_view raw);

  TextCursor& cur_;
  Module& module_;
  ShapeParser& shapes_;
  std::vector<PendingCall> pending_calls_;
  std::vector<PendingControl> pending_controls_;
  InlineComputationParser inline_parser_;
};

// Whether an attribute value as written holds line breaks or comments, and its one-line form
// without comments (strings untouched).
bool NeedsNormalizing(std::string_view text);
std::string NormalizeValueText(std::string_view text);
// The text the IR keeps for a value, literal or header attribute as written: `written` itself,
// or, when it needs normalizing, its one-line form (held in `storage`).
std::string_view CanonicalValueText(std::string_view written, std::string& storage);

// Extracts N from a backend_config containing "known_trip_count":{"n":"N"} (escaped or not):
// N, read whole; -1 when there is none; kTripCountTooLarge when N is past int64 (a count cut
// to fit would be a wrong number that looks known).
inline constexpr int64_t kTripCountTooLarge = -2;
int64_t FindKnownTripCount(std::string_view backend_config);

}  // namespace hloscope
