// Recursive-descent parser for HLO text. Grammar (informal):
//
//   module      := 'HloModule' name (',' key '=' value)* frame_tables? computation*
//   computation := 'ENTRY'? name signature? '{' instruction* '}' (',' 'execution_thread=' str)?
//   signature   := '(' (name ':' shape (',' ...)*)? ')' '->' shape
//   instruction := 'ROOT'? name '=' shape? opcode '(' operands ')' (',' key '=' value)*
//
// Operands may be written `name`, `%name` or `shape %name`; names may be used before their
// definition inside a computation, and computations may be called before they are defined.
// Both are resolved at the end of the computation / module.
#include "hlo/parser.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <span>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "hlo/attribute_parser.h"
#include "hlo/input_kind.h"
#include "hlo/log_prefix.h"
#include "hlo/parser_derived_shapes.h"
#include "hlo/shape_inference.h"
#include "hlo/shape_parser.h"
#include "hlo/string_hash.h"
#include "hlo/text_cursor.h"
#include "support/escapes.h"
#include "support/option_error.h"
#include "support/status_text.h"
#include "support/str_util.h"

namespace hloscope {
namespace {

// The option a "second HloModule" error names: the splitter's, as the tools call their flag's
// field (`split_input_file`); each tool spells it as its flag (support/option_error.h).
constexpr std::string_view kSplitInputFileOption = "split_input_file";

// Ops that have their own -start and -done opcodes (all-reduce-start, copy-start, send, ...)
// and so are never the wrapped op of async-start: XLA's parser reads `copy-update`,
// `send-start`, `all-reduce-update` and the like as unknown opcodes, not as async sugar.
bool HasOwnAsyncOpcodes(Opcode op) {
  switch (op) {
    case Opcode::kAllGather:
    case Opcode::kAllReduce:
    case Opcode::kCollectivePermute:
    case Opcode::kCopy:
    case Opcode::kRecv:
    case Opcode::kSend:
      return true;
    default:
      return false;
  }
}

constexpr std::string_view kFrameTableNames[] = {"FileNames", "FunctionNames", "FileLocations",
                                                 "StackFrames"};

class Parser {
 public:
  Parser(std::string_view text, const ParseOptions& options)
      : cur_(text, options.filename, options.first_line),
        text_begin_(text.data()),
        module_(std::make_unique<Module>("")),
        shapes_(cur_, *module_),
        attrs_(cur_, *module_, shapes_) {
    attrs_.set_inline_computation_parser([this](std::string_view base, Computation** out) {
      return ParseInlineComputation(base, out);
    });
    module_->SetSource(options.filename, options.first_line);
  }

  void set_display_text(std::string_view display) { cur_.set_display_text(display); }

  absl::StatusOr<std::unique_ptr<Module>> Run(size_t text_size) {
    // Real modules average 60-100 bytes per instruction (more with metadata). Reserving for
    // one name per 128 bytes avoids most rehashing while keeping the table small: every insert
    // and every lookup of an older operand touches a random slot, and on a 4 MB module a table
    // twice this size made parsing 5% slower through cache misses alone. Denser text just
    // rehashes once.
    names_.reserve(text_size / 128);
    if (!ParseModule()) return cur_.status();
    return std::move(module_);
  }

 private:
  struct PendingOperand {
    Instruction* instr;
    size_t index;
    std::string_view name;
    const char* at;
  };

  bool ParseModule();
  bool ParseHeader();
  bool ParseFrameTables();
  int AtFrameTable() const;  // index in kFrameTableNames, or -1
  bool ParseFrameTableEntries(int table);
  bool ParseComputation();
  bool ParseSignature(const Shape** result, const char** result_at);
  bool ParseComputationBody(Computation* comp, const char* name_at);
  bool ParseInlineComputation(std::string_view base_name, Computation** out);
  bool RegisterParameters(Computation* comp, const char* name_at);
  // Parses from the opcode on: `opcode(operands)` and, when allowed, `, key=value` attributes.
  Instruction* ParseInstructionTail(Computation* comp, std::string_view name, const char* name_at,
                                    const Shape* shape, bool is_root, const char* start,
                                    const char** root_at, bool allow_attributes);
  bool ParseInstruction(Computation* comp, const char** root_at);
  bool ParseOperands(Instruction* instr);
  Instruction* ParseTupleElementOperand(Instruction* user, Instruction* base,
                                        std::string_view base_name, const char* at);
  bool SetTupleElementShape(Instruction* gte, const char* at, std::string_view tuple_text);
  bool ResolveTupleElementShapes();
  void NameTupleElements();
  bool ParseLiteralOperand(Instruction* instr);
  bool AtNestedInstruction() const;
  Instruction* ParseNestedInstruction(Instruction* user, const Shape* shape);
  bool ResolveForwardReferences(Computation* comp, const char* comp_start);
  bool SetParserBuiltShape(Instruction* instr, const char* opcode_at);
  bool CheckLateBuiltShapes();
  bool CheckAcyclic(Computation* comp, const char* comp_start);
  const char* FindDefinition(const char* from, std::string_view name) const;
  bool ResolveComputationReferences();

  TextCursor cur_;
  const char* text_begin_;  // source offsets of instructions count from here
  std::unique_ptr<Module> module_;
  ShapeParser shapes_;
  AttributeParser attrs_;
  // Instruction names → the latest instruction defined with that name, for the whole module.
  // An entry belongs to the current computation only if the instruction's parent is it; this
  // avoids clearing a table per computation (thousands of small fused computations).
  StringViewMap<Instruction*> names_;
  Instruction* FindLocal(std::string_view name, const Computation* comp) const {
    auto it = names_.find(name);
    return it != names_.end() && it->second->parent() == comp ? it->second : nullptr;
  }
  std::vector<PendingOperand> pending_;
  // Instructions whose shape XLA's parser builds from operand 0 (send, recv-done,
  // add-dependency) where that operand is defined after them: checked at the closing brace.
  struct LateShape {
    Instruction* instr;
    const char* opcode_at;
  };
  std::vector<LateShape> late_shapes_;
  bool computation_has_forward_refs_ = false;
  int nested_counter_ = 0;
  Computation* last_top_level_ = nullptr;
  uint32_t seen_frame_tables_ = 0;  // bit i: kFrameTableNames[i] was parsed
  // Nested operands and in-place computations recurse; bounding the depth keeps adversarial
  // input from exhausting the stack.
  static constexpr int kMaxNesting = 200;
  int nesting_ = 0;
  class DepthGuard {
   public:
    explicit DepthGuard(Parser* p) : p_(p) {
      ok_ = ++p_->nesting_ <= kMaxNesting;
      if (!ok_) {
        p_->cur_.ErrorHere(
            StrCat("instructions or computations nested more than ", kMaxNesting, " deep"));
      }
    }
    ~DepthGuard() { --p_->nesting_; }
    bool ok() const { return ok_; }

   private:
    Parser* p_;
    bool ok_;
  };
  // Parameters of the current computation with where their number was written; checked and
  // registered at the closing brace (numbers are not trusted to size a table before that).
  struct ParamAt {
    Instruction* instr;
    const char* at;
  };
  std::vector<ParamAt> params_;
  // Instructions that got a generated name (nested operands); renamed if the input later
  // defines the same name itself.
  absl::flat_hash_set<const Instruction*> generated_;
  // `%t#i` operands (XLA's printer folds get-tuple-element into its users): the instruction
  // made for each distinct (tuple, index) of the current computation, so every use of one
  // element shares one get-tuple-element. Keyed by the tuple instruction (or the element
  // taken before, for `t#1#0`); by the name as written while `t` is not yet defined.
  absl::flat_hash_map<std::pair<const Instruction*, int64_t>, Instruction*> tuple_elements_;
  absl::flat_hash_map<std::pair<std::string_view, int64_t>, Instruction*> forward_elements_;
  // Those whose tuple is defined after their first use: shaped at the closing brace.
  struct PendingElement {
    Instruction* gte;
    const char* at;               // the '#'
    std::string_view tuple_text;  // the operand as written before that '#' (input text)
  };
  std::vector<PendingElement> pending_elements_;
  // Every get-tuple-element made for a `#` operand, named once the whole module is known.
  std::vector<Instruction*> synthesized_elements_;
};

bool Parser::ParseModule() {
  if (!cur_.SkipSpace()) return false;
  if (cur_.TryConsumeWord("HloModule")) {
    if (!ParseHeader()) return false;
  } else {
    // XLA's tools also accept bare computations (lit tests of single fusions do this).
    if (!cur_.ok()) return false;
    if (cur_.AtEnd()) return cur_.ErrorHere("empty input: expected 'HloModule' or a computation");
    module_->set_name(module_->Save("module"));
  }
  if (!ParseFrameTables()) return false;
  while (true) {
    if (!cur_.SkipSpace()) return false;
    if (cur_.AtEnd()) break;
    if (cur_.TryConsumeWord("HloModule")) {
      // The library's splitter is SplitInputFile; a tool names its flag instead.
      return cur_.OptionError(cur_.pos() - 9,
                              "a second 'HloModule' in the same input; separate modules with a "
                              "'// -----' line and use ",
                              kSplitInputFileOption, "");
    }
    if (AtFrameTable() >= 0) {  // tables after the computations
      if (!ParseFrameTables()) return false;
      continue;
    }
    if (!ParseComputation()) return false;
  }
  if (module_->computations().empty()) {
    return cur_.ErrorHere("module has no computations");
  }
  // Without ENTRY the last computation written at the top level is the entry (computations
  // written in place inside an instruction are added after their caller and do not count).
  if (module_->entry() == nullptr) module_->set_entry(last_top_level_);
  if (!ResolveComputationReferences()) return false;
  if (!synthesized_elements_.empty()) NameTupleElements();
  // Every instruction went through names_, which refuses a name defined twice in one
  // computation: the verifier need not check that again.
  module_->set_instruction_names_known_unique(true);
  return true;
}

bool Parser::ParseHeader() {
  std::string_view name;
  cur_.SkipBlanks();
  if (cur_.AtEnd() || cur_.Peek() == '\n' || cur_.Peek() == '\r') {
    return cur_.ErrorHere("expected a module name after 'HloModule'");
  }
  if (!cur_.ParseName(&name, "a module name")) return false;
  module_->set_name(module_->Save(name));
  cur_.TryConsume(':');  // some old tests write `HloModule name:`
  while (cur_.TryConsume(',')) {
    std::string_view key, value;
    if (!cur_.ParseWord(&key, "a module attribute name")) return false;
    if (!(cur_.TryConsume('=') || cur_.Expect('=', StrCat("after module attribute '", key, "'"))))
      return false;
    if (!attrs_.ParseRawValue(key, &value)) return false;
    if (key == "input_output_alias") {  // decoded once, here, for every analysis
      size_t offset = 0;
      absl::StatusOr<std::vector<InputOutputAlias>> aliases = ParseInputOutputAlias(value, &offset);
      if (!aliases.ok()) {
        return cur_.Error(value.data() + std::min(offset, value.size()),
                          StatusText(aliases.status()));
      }
      module_->set_input_output_aliases(*std::move(aliases));
    }
    std::string storage;  // one line, without comments
    module_->AddAttribute(key, CanonicalValueText(value, storage));
  }
  return cur_.ok();
}

int Parser::AtFrameTable() const {
  // A table keyword alone on its line; `FileNames {` would be a computation of that name.
  const char* p = cur_.pos();
  for (int t = 0; t < static_cast<int>(std::size(kFrameTableNames)); ++t) {
    std::string_view table = kFrameTableNames[t];
    if (static_cast<size_t>(cur_.end() - p) < table.size() ||
        std::string_view(p, table.size()) != table) {
      continue;
    }
    const char* q = p + table.size();
    while (q < cur_.end() && (*q == ' ' || *q == '\t' || *q == '\r')) ++q;
    if (q == cur_.end() || *q == '\n') return t;
  }
  return -1;
}

bool Parser::ParseFrameTables() {
  // The stack-frame tables XLA prints after the header (`FileNames`, `FunctionNames`,
  // `FileLocations`, `StackFrames`; metadata points into them with stack_frame_id) are kept
  // verbatim, since printing them back needs nothing else; they are checked here as the proto
  // writer will read them, so a damaged table is an error with its position now.
  if (!cur_.SkipSpace()) return false;
  const char* start = cur_.pos();
  const char* end = start;
  while (true) {
    if (!cur_.SkipSpace()) return false;
    const int table = AtFrameTable();
    if (table < 0) break;
    const std::string_view table_name = kFrameTableNames[table];
    if (seen_frame_tables_ & (1u << table)) {
      return cur_.ErrorHere(StrCat("stack-frame table '", table_name, "' is given twice"));
    }
    seen_frame_tables_ |= 1u << table;
    cur_.set_pos(cur_.pos() + table_name.size());
    if (!ParseFrameTableEntries(table)) return false;
    end = cur_.pos();
    while (end > start && (end[-1] == '\n' || end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
      --end;
  }
  if (end > start) {
    std::string_view tables(start, static_cast<size_t>(end - start));
    // Tables after the computations join those before them; all are printed after the header.
    module_->set_stack_frame_tables(
        module_->stack_frame_tables().empty()
            ? module_->Save(tables)
            : module_->Save(StrCat(module_->stack_frame_tables(), "\n\n", tables)));
  }
  return true;
}

bool Parser::ParseFrameTableEntries(int table) {
  // `N "name"` (FileNames, FunctionNames) or `N {key=int ...}` (FileLocations, StackFrames),
  // one per line, numbered 1, 2, ... as XLA numbers them (ids in metadata and in the other
  // tables count from 1).
  static constexpr std::string_view kLocationKeys[] = {
      "file_name_id", "function_name_id", "line", "end_line", "column", "end_column"};
  static constexpr std::string_view kFrameKeys[] = {"file_location_id", "parent_frame_id"};
  const std::string_view table_name = kFrameTableNames[table];
  const bool names = table <= 1;
  int64_t expected = 1;
  while (true) {
    cur_.SkipBlanks();
    if (cur_.Peek() == '\r') cur_.set_pos(cur_.pos() + 1);
    if (cur_.Peek() != '\n') {
      if (cur_.AtEnd()) return true;
      return cur_.ErrorHere(StrCat("expected the end of the line in '", table_name, "', found ",
                                   DescribeChar(cur_.pos(), cur_.end())));
    }
    const char* line_start = cur_.pos() + 1;
    cur_.set_pos(line_start);
    cur_.SkipBlanks();
    const char c = cur_.Peek();
    if (c < '0' || c > '9') {
      cur_.set_pos(line_start);
      return true;
    }
    const char* id_at = cur_.pos();
    int64_t id;
    if (!cur_.ParseInt(&id, StrCat("an entry number in '", table_name, "'"))) return false;
    if (id != expected) {
      return cur_.Error(id_at, StrCat("expected entry ", expected, " of '", table_name,
                                      "', found entry ", id, " (entries are numbered 1, 2, ...)"));
    }
    ++expected;
    cur_.SkipBlanks();
    if (names) {
      if (cur_.Peek() != '"') {
        return cur_.ErrorHere(StrCat("expected a quoted name in '", table_name, "', found ",
                                     DescribeChar(cur_.pos(), cur_.end())));
      }
      std::string_view ignored;
      if (!cur_.ParseQuoted(&ignored)) return false;
      continue;
    }
    if (cur_.Peek() != '{') {
      return cur_.ErrorHere(StrCat("expected '{key=value ...}' in '", table_name, "', found ",
                                   DescribeChar(cur_.pos(), cur_.end())));
    }
    cur_.set_pos(cur_.pos() + 1);
    while (true) {
      cur_.SkipBlanks();
      if (cur_.Peek() == '}') {
        cur_.set_pos(cur_.pos() + 1);
        break;
      }
      const char* key_at = cur_.pos();
      const char* key_end = key_at;
      while (key_end < cur_.end() && TextCursor::IsNameChar(*key_end)) ++key_end;
      std::string_view key(key_at, static_cast<size_t>(key_end - key_at));
      if (key.empty()) {
        return cur_.ErrorHere(StrCat("expected a key or '}' in '", table_name, "', found ",
                                     DescribeChar(cur_.pos(), cur_.end())));
      }
      const auto& keys = table == 2 ? std::span<const std::string_view>(kLocationKeys)
                                    : std::span<const std::string_view>(kFrameKeys);
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
        std::string known;
        for (std::string_view k : keys) StrAppend(&known, known.empty() ? "" : ", ", k);
        return cur_.Error(
            key_at, StrCat("unknown key '", key, "' in '", table_name, "' (known: ", known, ")"));
      }
      cur_.set_pos(key_end);
      if (cur_.Peek() != '=') {
        return cur_.ErrorHere(
            StrCat("expected '=' after '", key, "', found ", DescribeChar(cur_.pos(), cur_.end())));
      }
      cur_.set_pos(cur_.pos() + 1);
      const char* value_at = cur_.pos();
      const char v = cur_.Peek();
      if (v < '0' || v > '9') {
        return cur_.ErrorHere(StrCat("expected a non-negative integer after '", key, "=', found ",
                                     DescribeChar(cur_.pos(), cur_.end())));
      }
      int64_t value;
      if (!cur_.ParseInt(&value, StrCat("'", key, "'"))) return false;
      if (value > std::numeric_limits<int32_t>::max()) {
        return cur_.Error(value_at, StrCat("'", key, "' is out of range for a 32-bit integer"));
      }
    }
  }
}

bool Parser::ParseSignature(const Shape** result, const char** result_at) {
  // `(p0: f32[2], p1: (s32[], f32[])) -> shape`; the parameter instructions carry the same
  // information, so the parameters are only checked for syntax. The result shape is compared
  // with the root's once the body is parsed, as XLA's parser does (ParseComputation).
  if (!cur_.TryConsume(')')) {
    if (!cur_.ok()) return false;
    while (true) {
      std::string_view pname;
      if (!cur_.ParseName(&pname, "a parameter name in the signature")) return false;
      // XLA accepts the colon as optional: `(operand f64[2])` is a signature too.
      if (!cur_.TryConsume(':') && !cur_.ok()) return false;
      const Shape* ignored;
      if (!shapes_.Parse(&ignored)) return false;
      if (cur_.TryConsume(',')) continue;
      if (!cur_.Expect(')', "to close the signature")) return false;
      break;
    }
  }
  if (!cur_.SkipSpace()) return false;
  if (!(cur_.Peek() == '-' && cur_.PeekAt(1) == '>')) {
    return cur_.ErrorHere(StrCat("expected '->' after the signature's parameters, found ",
                                 DescribeChar(cur_.pos(), cur_.end())));
  }
  cur_.set_pos(cur_.pos() + 2);
  if (!cur_.SkipSpace()) return false;
  *result_at = cur_.pos();
  return shapes_.Parse(result);
}

bool Parser::ParseComputation() {
  bool is_entry = cur_.TryConsumeWord("ENTRY");
  if (!cur_.ok()) return false;
  if (!cur_.SkipSpace()) return false;
  const char* name_at = cur_.pos();
  std::string_view name;
  if (!cur_.ParseName(&name, "a computation name or 'ENTRY'")) return false;
  if (module_->FindComputation(name) != nullptr) {
    return cur_.Error(name_at, StrCat("computation '", name, "' is defined twice"));
  }
  Computation* comp = module_->AddComputation(name);
  if (is_entry) {
    if (module_->entry() != nullptr) {
      return cur_.Error(name_at, StrCat("second ENTRY computation '", name, "'; '",
                                        module_->entry()->name(), "' is already the entry"));
    }
    module_->set_entry(comp);
  }
  const Shape* signature_result = nullptr;
  const char* signature_result_at = nullptr;
  if (cur_.TryConsume('(')) {
    comp->set_had_signature(true);
    if (!ParseSignature(&signature_result, &signature_result_at)) return false;
  }
  if (!cur_.ok() ||
      !(cur_.TryConsume('{') || cur_.Expect('{', StrCat("to open computation '", name, "'")))) {
    return false;
  }
  if (!ParseComputationBody(comp, name_at)) return false;
  // XLA compares layouts-ignored (ShapeUtil::Compatible); the root's shape may be one the
  // parser built (send-done's token[]), not the one written.
  if (signature_result != nullptr && !comp->root()->shape().Compatible(*signature_result)) {
    return cur_.Error(
        signature_result_at,
        StrCat("the shape of computation '", name, "', ", signature_result->ToString(),
               ", is not compatible with that of its root instruction '", comp->root()->name(),
               "', ", comp->root()->shape().ToString()));
  }
  last_top_level_ = comp;
  // `}, execution_thread="host"` after the closing brace.
  const char* before = cur_.pos();
  if (cur_.TryConsume(',')) {
    std::string_view key, value;
    if (!cur_.ParseWord(&key, "'execution_thread'")) return false;
    if (key != "execution_thread") {
      return cur_.Error(before,
                        StrCat("unexpected attribute '", key, "' after computation '", name, "'"));
    }
    if (!cur_.Expect('=', "after 'execution_thread'")) return false;
    if (!cur_.SkipSpace()) return false;
    if (cur_.Peek() != '"') return cur_.ErrorHere("expected a quoted execution thread name");
    if (!cur_.ParseQuoted(&value)) return false;
    comp->set_execution_thread(module_->Save(value.substr(1, value.size() - 2)));
  }
  return cur_.ok();
}

bool Parser::ParseComputationBody(Computation* comp, const char* name_at) {
  // After the opening brace; parses instructions up to and including the closing brace.
  std::string_view name = comp->name();
  pending_.clear();
  late_shapes_.clear();
  tuple_elements_.clear();
  forward_elements_.clear();
  pending_elements_.clear();
  computation_has_forward_refs_ = false;
  const char* root_at = nullptr;
  while (true) {
    if (!cur_.SkipSpace()) return false;
    if (cur_.AtEnd()) {
      return cur_.Error(name_at, StrCat("computation '", name,
                                        "' is not closed: missing '}' before end of input"));
    }
    if (cur_.Peek() == '}') {
      cur_.set_pos(cur_.pos() + 1);
      break;
    }
    if (!ParseInstruction(comp, &root_at)) return false;
  }
  if (comp->instructions().empty()) {
    return cur_.Error(name_at, StrCat("computation '", name, "' has no instructions"));
  }
  if (comp->root() == nullptr) comp->set_root(comp->instructions().back());
  if (!RegisterParameters(comp, name_at)) return false;
  if (!ResolveForwardReferences(comp, name_at)) return false;
  if (!pending_elements_.empty() && !ResolveTupleElementShapes()) return false;
  return late_shapes_.empty() || CheckLateBuiltShapes();
}

bool Parser::RegisterParameters(Computation* comp, const char* name_at) {
  // Usually already in order; otherwise sorted by number, then by position in the text so a
  // duplicate number is reported at its second use (std::stable_sort would allocate a buffer
  // for every computation).
  auto before = [](const ParamAt& a, const ParamAt& b) {
    const int64_t na = a.instr->parameter_number(), nb = b.instr->parameter_number();
    return na != nb ? na < nb : a.at < b.at;
  };
  if (!std::is_sorted(params_.begin(), params_.end(), before)) {
    std::sort(params_.begin(), params_.end(), before);
  }
  for (size_t i = 0; i < params_.size(); ++i) {
    int64_t number = params_[i].instr->parameter_number();
    if (i > 0 && number == params_[i - 1].instr->parameter_number()) {
      return cur_.Error(params_[i].at,
                        StrCat("parameter number ", number, " is used twice in computation '",
                               comp->name(), "'"));
    }
    if (number != static_cast<int64_t>(i)) {
      return cur_.Error(name_at, StrCat("computation '", comp->name(), "' has no parameter(", i,
                                        ") but has a parameter with a higher number"));
    }
    comp->SetParameter(params_[i].instr);
  }
  params_.clear();
  return true;
}

bool Parser::ParseInlineComputation(std::string_view base_name, Computation** out) {
  DepthGuard guard(this);
  if (!guard.ok()) return false;
  // `to_apply={ p = f32[] parameter(0) ... }`: an unnamed computation written in place. It
  // gets a fresh name and its own instruction scope; the enclosing scope is restored after.
  const char* at = cur_.pos();
  cur_.set_pos(at + 1);
  std::string name(base_name);
  for (int n = 1; module_->FindComputation(name) != nullptr; ++n) name = StrCat(base_name, ".", n);
  Computation* comp = module_->AddComputation(name);
  auto saved_names = std::move(names_);
  auto saved_pending = std::move(pending_);
  auto saved_late_shapes = std::move(late_shapes_);
  late_shapes_ = {};
  auto saved_params = std::move(params_);
  params_ = {};
  auto saved_elements = std::move(tuple_elements_);
  auto saved_forward_elements = std::move(forward_elements_);
  auto saved_pending_elements = std::move(pending_elements_);
  tuple_elements_ = {};
  forward_elements_ = {};
  pending_elements_ = {};
  bool saved_forward = computation_has_forward_refs_;
  auto saved_controls = attrs_.TakePendingControls();
  names_ = {};
  pending_ = {};
  bool ok = ParseComputationBody(comp, at);
  names_ = std::move(saved_names);
  pending_ = std::move(saved_pending);
  late_shapes_ = std::move(saved_late_shapes);
  params_ = std::move(saved_params);
  tuple_elements_ = std::move(saved_elements);
  forward_elements_ = std::move(saved_forward_elements);
  pending_elements_ = std::move(saved_pending_elements);
  computation_has_forward_refs_ = saved_forward;
  attrs_.RestorePendingControls(std::move(saved_controls));
  *out = comp;
  return ok;
}

bool Parser::ParseInstruction(Computation* comp, const char** root_at) {
  const char* start = cur_.pos();
  bool is_root = cur_.TryConsumeWord("ROOT");
  if (!cur_.ok()) return false;
  if (!cur_.SkipSpace()) return false;
  const char* name_at = cur_.pos();
  std::string_view name;
  if (!cur_.ParseName(&name, "an instruction name")) return false;
  // The name goes into names_ once the opcode is known. In a large computation its slot is a
  // cache miss; starting the load now overlaps it with parsing the shape and opcode.
  names_.prefetch(name);
  if (!(cur_.TryConsume('=') || cur_.Expect('=', StrCat("after instruction name '", name, "'"))))
    return false;
  if (!cur_.SkipSpace()) return false;
  const Shape* shape = nullptr;
  if (!shapes_.ParseIfShape(&shape)) return false;
  return ParseInstructionTail(comp, name, name_at, shape, is_root, start, root_at,
                              /*allow_attributes=*/true) != nullptr;
}

Instruction* Parser::ParseInstructionTail(Computation* comp, std::string_view name,
                                          const char* name_at, const Shape* shape, bool is_root,
                                          const char* start, const char** root_at,
                                          bool allow_attributes) {
  if (!cur_.SkipSpace()) return nullptr;
  const char* opcode_at = cur_.pos();
  std::string_view opcode_text;
  if (!cur_.ParseWord(&opcode_text, "an opcode")) return nullptr;
  std::optional<Opcode> opcode = ParseOpcode(opcode_text);
  Opcode wrapped = Opcode::kOpcodeCount;
  if (!opcode) {
    // Async sugar: `custom-call-start(...)` is an async-start wrapping a custom-call.
    for (auto [suffix, async_op] : {std::pair{std::string_view("-start"), Opcode::kAsyncStart},
                                    std::pair{std::string_view("-update"), Opcode::kAsyncUpdate},
                                    std::pair{std::string_view("-done"), Opcode::kAsyncDone}}) {
      if (opcode_text.size() > suffix.size() && opcode_text.ends_with(suffix)) {
        if (auto inner = ParseOpcode(opcode_text.substr(0, opcode_text.size() - suffix.size()))) {
          if (HasOwnAsyncOpcodes(*inner)) {
            // XLA's parser refuses this sugar too (ParseOpcode in xla/hlo/parser/hlo_parser.cc:
            // "Unknown opcode"): these ops are never wrapped in async-start.
            cur_.Error(opcode_at,
                       StrCat("unknown opcode '", opcode_text, "': ", OpcodeName(*inner),
                              " is not wrapped in async ops; it has its own start and done "
                              "opcodes"));
            return nullptr;
          }
          opcode = async_op;
          wrapped = *inner;
        }
      }
    }
    if (!opcode) {
      cur_.Error(opcode_at, StrCat("unknown opcode '", opcode_text, "'"));
      return nullptr;
    }
  }
  std::string_view saved_name = module_->Save(name);
  Instruction* instr = module_->CreateInstruction(*opcode, shape, saved_name, comp);
  module_->SetSourceOffset(*instr, static_cast<size_t>(name_at - text_begin_));
  InstructionBuilder builder(instr);
  if (wrapped != Opcode::kOpcodeCount) builder.set_wrapped_opcode(wrapped);
  auto [slot, inserted] = names_.try_emplace(saved_name, instr);
  if (!inserted && slot->second->parent() != comp) {
    slot->second = instr;  // same name in another computation: this one shadows it
    inserted = true;
  }
  if (!inserted && generated_.contains(slot->second)) {
    // The input names an instruction like one we generated for a nested operand: the
    // input's name wins and the generated one moves aside.
    Instruction* moved = slot->second;
    slot->second = instr;
    inserted = true;
    std::string fresh;
    do {
      fresh = StrCat(moved->name(), ".", ++nested_counter_);
    } while (FindLocal(fresh, comp) != nullptr);
    std::string_view fresh_saved = module_->Save(fresh);
    InstructionBuilder(moved).set_name(fresh_saved);
    names_.emplace(fresh_saved, moved);
  }
  if (!inserted) {
    cur_.Error(name_at, StrCat("instruction '", name, "' is defined twice in computation '",
                               comp->name(), "'"));
    return nullptr;
  }
  if (is_root) {
    if (*root_at != nullptr) {
      cur_.Error(start,
                 StrCat("computation '", comp->name(),
                        "' has two ROOT instructions; the first is '", comp->root()->name(), "'"));
      return nullptr;
    }
    *root_at = start;
    comp->set_root(instr);
  }
  if (!(cur_.TryConsume('(') || cur_.Expect('(', StrCat("after opcode '", opcode_text, "'"))))
    return nullptr;
  if (*opcode == Opcode::kConstant) {
    if (!ParseLiteralOperand(instr)) return nullptr;
  } else if (*opcode == Opcode::kParameter) {
    const char* at = cur_.pos();
    int64_t number;
    if (!cur_.ParseInt(&number, "a parameter number")) return nullptr;
    if (number < 0) {
      cur_.Error(at, "parameter number must not be negative");
      return nullptr;
    }
    builder.set_number(number);
    if (!cur_.Expect(')', "after the parameter number")) return nullptr;
    params_.push_back({instr, at});
  } else if (!ParseOperands(instr)) {
    return nullptr;
  }
  while (allow_attributes) {
    // Attributes follow on the same logical line: `, key=value`.
    const char* before = cur_.pos();
    if (!cur_.SkipSpace()) return nullptr;
    if (cur_.Peek() != ',') {
      cur_.set_pos(before);
      break;
    }
    cur_.set_pos(cur_.pos() + 1);
    if (!attrs_.ParseAttribute(instr)) return nullptr;
  }
  if (instr->shape_ptr() != nullptr && ParserBuildsShape(*opcode) &&
      !SetParserBuiltShape(instr, opcode_at)) {
    return nullptr;
  }
  if (instr->shape_ptr() == nullptr) {
    std::string error;
    const Computation* callee = nullptr;
    if (!instr->called_computations().empty()) callee = instr->called_computations()[0];
    if (callee == nullptr) {
      std::string_view callee_name = attrs_.FirstCalleeName(instr);
      if (!callee_name.empty()) callee = module_->FindComputation(callee_name);
    }
    const Shape* inferred = InferShape(*instr, callee, *module_, &error);
    if (inferred == nullptr) {
      cur_.Error(opcode_at, error);
      return nullptr;
    }
    // As for a written shape: the printed module must parse again.
    if (inferred->IsArray() && !inferred->SizeFits()) {
      cur_.Error(opcode_at, StrCat("the inferred result shape of '", instr->name(), "', ",
                                   inferred->ToString(false),
                                   ", is too large: its size does not fit in 64 bits"));
      return nullptr;
    }
    builder.set_shape(inferred);
  }
  // Appended only now, after its operands: instructions nested in the operand list were
  // appended while parsing them and so come first, at any depth.
  comp->AddInstruction(instr);
  return instr;
}

bool Parser::SetParserBuiltShape(Instruction* instr, const char* opcode_at) {
  // XLA's parser gives these opcodes the shape its Create* helper builds, not the written one,
  // and checks a -done's channel against its operand's (hlo/parser_derived_shapes.h). Operand 0
  // defined later (or a `t#i` of a tuple defined later) has no shape yet: both wait for the
  // closing brace, where the written shape must then be the built one, since instructions
  // parsed in between may already have read it.
  const Opcode op = instr->opcode();
  const bool operand_ready =
      instr->operand_count() == 0 ||
      (instr->operand(0) != nullptr && instr->operand(0)->shape_ptr() != nullptr);
  if (!operand_ready && (ParserShapeNeedsOperand(op) || ParserChecksOperandChannel(op))) {
    late_shapes_.push_back({instr, opcode_at});
  }
  if (operand_ready || !ParserShapeNeedsOperand(op)) {
    std::string error;
    const Shape* built = ParserBuiltShape(*instr, *module_, &error);
    if (built == nullptr) return cur_.Error(opcode_at, error);
    InstructionBuilder(instr).set_shape(built);
  }
  if (operand_ready) {
    std::string mismatch = ParserChannelMismatch(*instr, *module_);
    if (!mismatch.empty()) return cur_.Error(opcode_at, mismatch);
  }
  return true;
}

bool Parser::CheckLateBuiltShapes() {
  for (const LateShape& late : late_shapes_) {
    Instruction* instr = late.instr;
    std::string mismatch = ParserChannelMismatch(*instr, *module_);
    if (!mismatch.empty()) return cur_.Error(late.opcode_at, mismatch);
    if (!ParserShapeNeedsOperand(instr->opcode())) continue;
    std::string error;
    const Shape* built = ParserBuiltShape(*instr, *module_, &error);
    if (built == nullptr) return cur_.Error(late.opcode_at, error);
    if (built != instr->shape_ptr()) {
      // A `t#i` operand is a get-tuple-element not named yet: named as it was written.
      const Instruction* operand = instr->operand(0);
      std::string suffix;
      while (operand->name().empty() && operand->opcode() == Opcode::kGetTupleElement) {
        suffix = StrCat("#", operand->tuple_index(), suffix);
        operand = operand->operand(0);
      }
      return cur_.Error(late.opcode_at,
                        StrCat("the shape of '", instr->name(), "' (", instr->PrintedOpcode(),
                               ") is built from its operand '", operand->name(), suffix,
                               "', which is defined after it: XLA's parser makes it ",
                               built->ToString(), ", not the written ", instr->shape().ToString(),
                               "; define the operand first or write that shape"));
    }
  }
  late_shapes_.clear();
  return true;
}

bool Parser::ParseLiteralOperand(Instruction* instr) {
  // The literal is kept as text: `constant(1)`, `constant({...})`, `constant({ {1,2},{3,4} })`.
  cur_.set_pos(cur_.pos() - 1);
  std::string_view raw;
  if (!cur_.ParseBalanced(&raw)) return false;
  std::string_view body = raw.substr(1, raw.size() - 2);
  while (!body.empty() && (body.front() == ' ' || body.front() == '\n')) body.remove_prefix(1);
  while (!body.empty() && (body.back() == ' ' || body.back() == '\n')) body.remove_suffix(1);
  if (body.empty()) return cur_.Error(raw.data() + 1, "constant has no literal value");
  // Over several lines or with comments: kept as one canonical line without them, as attribute
  // values are (a comment kept at the end would swallow the printed closing parenthesis).
  std::string storage;
  InstructionBuilder(instr).set_literal(module_->Save(CanonicalValueText(body, storage)));
  return true;
}

bool Parser::ParseOperands(Instruction* instr) {
  if (cur_.TryConsume(')')) return true;
  if (!cur_.ok()) return false;
  while (true) {
    if (!cur_.SkipSpace()) return false;
    if (shapes_.AtShape()) {  // legacy `f32[2]{0} %x`, or a nested `f32[] constant(0)`
      const Shape* operand_shape;
      if (!shapes_.Parse(&operand_shape)) return false;
      if (!cur_.SkipSpace()) return false;
      if (AtNestedInstruction()) {
        Instruction* nested = ParseNestedInstruction(instr, operand_shape);
        if (nested == nullptr) return false;
        instr->AppendOperand(nested);
        if (cur_.TryConsume(',')) continue;
        return cur_.Expect(')', "to close the operand list");
      }
    }
    if (!cur_.SkipSpace()) return false;
    const char* at = cur_.pos();
    std::string_view name;
    if (!cur_.ParseName(&name, "an operand name")) return false;
    if (cur_.Peek() == '(' && *at != '%') {  // nested `add(a, b)` without a shape
      cur_.set_pos(at);
      Instruction* nested = ParseNestedInstruction(instr, nullptr);
      if (nested == nullptr) return false;
      instr->AppendOperand(nested);
      if (cur_.TryConsume(',')) continue;
      return cur_.Expect(')', "to close the operand list");
    }
    Instruction* found = FindLocal(name, instr->parent());
    if (found == instr) {
      return cur_.Error(at, StrCat("instruction '", name, "' uses itself as an operand"));
    }
    if (cur_.Peek() == '#') {  // `%t#1`: element 1 of the tuple `t`
      Instruction* element = ParseTupleElementOperand(instr, found, name, at);
      if (element == nullptr) return false;
      instr->AppendOperand(element);
    } else if (found != nullptr) {
      instr->AppendOperand(found);
    } else {
      // Possibly defined later in this computation; resolved at the closing brace.
      pending_.push_back({instr, static_cast<size_t>(instr->operand_count()), name, at});
      InstructionBuilder(instr).AppendOperandPlaceholder();
      computation_has_forward_refs_ = true;
    }
    if (cur_.TryConsume(',')) continue;
    return cur_.Expect(')', "to close the operand list");
  }
}

Instruction* Parser::ParseTupleElementOperand(Instruction* user, Instruction* base,
                                              std::string_view base_name, const char* at) {
  // XLA's printer writes `%t#1` for a get-tuple-element of `t` with index 1 and omits the
  // get-tuple-element line; `%t#1#0` takes element 0 of that. Each step becomes one
  // get-tuple-element, shared by every use of the same text in this computation and placed
  // before its first user, so a scheduled module's text order stays a valid schedule.
  Computation* comp = user->parent();
  if (base != nullptr && base->shape_ptr() == nullptr) {
    // Only the instruction being parsed (or one a nested operand sits in) has no shape yet.
    cur_.Error(at, StrCat("instruction '", base_name, "' uses itself as an operand"));
    return nullptr;
  }
  Instruction* element = nullptr;
  while (cur_.Peek() == '#') {
    const char* hash_at = cur_.pos();
    // What this step selects from, as written: `t`, or `t#1` for the next step of `t#1#0`.
    const std::string_view tuple_text(base_name.data(),
                                      static_cast<size_t>(hash_at - base_name.data()));
    cur_.set_pos(hash_at + 1);
    char c = cur_.Peek();
    if (c < '0' || c > '9') {
      cur_.ErrorHere(StrCat("expected a tuple element index after '#', found ",
                            DescribeChar(cur_.pos(), cur_.end())));
      return nullptr;
    }
    int64_t index;
    if (!cur_.ParseInt(&index, "a tuple element index")) return nullptr;
    const Instruction* tuple_key = element != nullptr ? element : base;
    Instruction** slot = nullptr;
    if (element == nullptr && !forward_elements_.empty()) {
      // `t#i` used before `t` was defined shares that element with the uses after it.
      auto forward = forward_elements_.find({base_name, index});
      if (forward != forward_elements_.end()) slot = &forward->second;
    }
    if (slot == nullptr) {
      slot = tuple_key == nullptr ? &forward_elements_[{base_name, index}]
                                  : &tuple_elements_[{tuple_key, index}];
    }
    if (*slot != nullptr) {
      element = *slot;
      continue;
    }
    Instruction* gte = module_->CreateInstruction(Opcode::kGetTupleElement, nullptr, "", comp);
    *slot = gte;
    module_->SetSourceOffset(*gte, static_cast<size_t>(hash_at - text_begin_));
    InstructionBuilder builder(gte);
    builder.set_number(index);
    Attribute attr;
    attr.key = kAttrIndex;
    attr.value = module_->Save(StrCat(index));
    builder.AddAttribute(attr);
    Instruction* tuple = element != nullptr ? element : base;
    if (tuple != nullptr) {
      gte->AppendOperand(tuple);
    } else {
      // `t` is defined later in this computation: linked at the closing brace, shaped after.
      pending_.push_back({gte, 0, base_name, at});
      builder.AppendOperandPlaceholder();
      computation_has_forward_refs_ = true;
    }
    if (tuple != nullptr && tuple->shape_ptr() != nullptr) {
      if (!SetTupleElementShape(gte, hash_at, tuple_text)) return nullptr;
    } else {
      pending_elements_.push_back({gte, hash_at, tuple_text});
    }
    comp->AddInstruction(gte);
    synthesized_elements_.push_back(gte);
    element = gte;
  }
  return element;
}

bool Parser::SetTupleElementShape(Instruction* gte, const char* at, std::string_view tuple_name) {
  const Shape& shape = gte->operand(0)->shape();
  if (!shape.IsTuple()) {
    return cur_.Error(at, StrCat("'#", gte->tuple_index(), "' selects a tuple element, but '",
                                 tuple_name, "' has shape ", shape.ToString(), ", not a tuple"));
  }
  if (gte->tuple_index() >= static_cast<int64_t>(shape.tuple_elements.size())) {
    return cur_.Error(
        at + 1,
        StrCat("tuple element index ", gte->tuple_index(), " is out of range: '", tuple_name,
               "' has ", shape.tuple_elements.size(),
               shape.tuple_elements.size() == 1 ? " element, " : " elements, ", shape.ToString()));
  }
  InstructionBuilder(gte).set_shape(shape.tuple_elements[static_cast<size_t>(gte->tuple_index())]);
  return true;
}

bool Parser::ResolveTupleElementShapes() {
  // In creation order, so the inner step of a chain is shaped before the outer one.
  for (const PendingElement& p : pending_elements_) {
    if (!SetTupleElementShape(p.gte, p.at, p.tuple_text)) return false;
  }
  pending_elements_.clear();
  return true;
}

void Parser::NameTupleElements() {
  // Named only now: a name the input uses anywhere in the module, even after the `#` operand
  // or in a later computation, must not be taken.
  for (Instruction* gte : synthesized_elements_) {
    InstructionBuilder(gte).set_name(module_->UniqueInstructionName("get-tuple-element"));
  }
}

bool Parser::AtNestedInstruction() const {
  // `opcode(` right after an operand's shape: an instruction written inside the operand list.
  const char* p = cur_.pos();
  if (p < cur_.end() && *p == '%') return false;
  while (p < cur_.end() && TextCursor::IsNameChar(*p)) ++p;
  return p < cur_.end() && p > cur_.pos() && *p == '(';
}

Instruction* Parser::ParseNestedInstruction(Instruction* user, const Shape* shape) {
  DepthGuard guard(this);
  if (!guard.ok()) return nullptr;
  // The nested instruction gets a generated name and is placed right before its user, which
  // is what printing it back as a separate line needs.
  Computation* comp = user->parent();
  const char* at = cur_.pos();
  std::string name;
  do {
    name = StrCat(user->name(), ".operand.", ++nested_counter_);
  } while (FindLocal(name, comp) != nullptr);
  Instruction* nested = ParseInstructionTail(comp, name, at, shape, false, at, nullptr,
                                             /*allow_attributes=*/false);
  if (nested != nullptr) generated_.insert(nested);
  return nested;
}

bool Parser::ResolveForwardReferences(Computation* comp, const char* comp_start) {
  for (const PendingOperand& p : pending_) {
    Instruction* found = FindLocal(p.name, comp);
    if (found == nullptr) {
      return cur_.Error(p.at, StrCat("use of undefined instruction '", p.name, "' in computation '",
                                     comp->name(), "'"));
    }
    InstructionBuilder(p.instr).SetOperand(p.index, found);
  }
  for (const AttributeParser::PendingControl& p : attrs_.TakePendingControls()) {
    Instruction* found = FindLocal(p.name, comp);
    if (found == nullptr) {
      return cur_.Error(
          p.at, StrCat("control predecessor '", p.name, "' is not an instruction of computation '",
                       comp->name(), "'"));
    }
    if (found == p.instr) {
      return cur_.Error(p.at, StrCat("instruction '", p.name, "' is its own control predecessor"));
    }
    p.instr->AddControlPredecessor(found);
    computation_has_forward_refs_ = true;
  }
  return computation_has_forward_refs_ ? CheckAcyclic(comp, comp_start) : true;
}

const char* Parser::FindDefinition(const char* from, std::string_view name) const {
  // Only used for error messages, so a plain scan of the computation text is fine: the
  // definition is a line starting with [ROOT] [%]name followed by '='.
  for (const char* p = from; p < cur_.pos(); ++p) {
    if (*p != '\n') continue;
    const char* q = p + 1;
    while (q < cur_.pos() && (*q == ' ' || *q == '\t')) ++q;
    const char* line = q;
    if (cur_.pos() - q > 5 && std::string_view(q, 5) == "ROOT ") q += 5;
    if (q < cur_.pos() && *q == '%') ++q;
    if (static_cast<size_t>(cur_.pos() - q) > name.size() &&
        std::string_view(q, name.size()) == name && !TextCursor::IsNameChar(q[name.size()])) {
      const char* r = q + name.size();
      while (r < cur_.pos() && *r == ' ') ++r;
      if (r < cur_.pos() && *r == '=') return line;
    }
  }
  return cur_.pos() - 1;
}

bool Parser::CheckAcyclic(Computation* comp, const char* comp_start) {
  // Iterative DFS over operands and control predecessors; 0 = new, 1 = on stack, 2 = done.
  absl::flat_hash_map<const Instruction*, uint8_t> state;
  state.reserve(comp->instructions().size());
  std::vector<std::pair<const Instruction*, size_t>> stack;
  for (const Instruction* start : comp->instructions()) {
    if (state[start] != 0) continue;
    stack.push_back({start, 0});
    state[start] = 1;
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      size_t n_ops = node->operands().size();
      size_t total = n_ops + node->control_predecessors().size();
      if (next == total) {
        state[node] = 2;
        stack.pop_back();
        continue;
      }
      const Instruction* dep =
          next < n_ops ? node->operands()[next] : node->control_predecessors()[next - n_ops];
      ++next;
      uint8_t& s = state[dep];
      if (s == 1) {
        return cur_.Error(
            FindDefinition(comp_start, dep->name()),
            StrCat("computation '", comp->name(), "' has a cycle through '", dep->name(), "'"));
      }
      if (s == 0) {
        s = 1;
        stack.push_back({dep, 0});
      }
    }
  }
  return true;
}

bool Parser::ResolveComputationReferences() {
  for (const AttributeParser::PendingCall& p : attrs_.TakePendingCalls()) {
    Computation* callee = module_->FindComputation(p.name);
    if (callee == nullptr) {
      return cur_.Error(p.at, StrCat("instruction '", p.instr->name(),
                                     "' calls undefined computation '", p.name, "'"));
    }
    InstructionBuilder(p.instr).SetCalledComputation(p.slot, callee);
  }
  return true;
}

}  // namespace

namespace {
absl::StatusOr<std::unique_ptr<Module>> ParseText(std::string_view text,
                                                  const ParseOptions& options) {
  // Text pasted from a log: parse a blanked copy (the module keeps no view of the input).
  if (std::optional<std::string> blanked = BlankLogPrefixes(text)) {
    Parser parser(*blanked, options);
    parser.set_display_text(text);  // errors quote the line with its prefix, as in the file
    return parser.Run(blanked->size());
  }
  Parser parser(text, options);
  return parser.Run(text.size());
}
}  // namespace

absl::StatusOr<std::unique_ptr<Module>> ParseModule(std::string_view text,
                                                    const ParseOptions& options) {
  absl::StatusOr<std::unique_ptr<Module>> module = ParseText(text, options);
  if (module.ok()) return module;
  // A proto or MLIR file fails at its first line; say what it is and what to use instead.
  std::optional<std::string> note = NotHloTextNote(text);
  if (!note) return module;
  const std::string before =
      StrCat(StatusText(module.status()), "\n", EscapeControlBytes(options.filename), ": note: ");
  // A note that ends "(input_format)" names the option that forces the format, for a tool to
  // spell as its flag (support/option_error.h).
  const std::string option_end = StrCat("(", kInputFormatOption, ")");
  if (absl::IsInvalidArgument(module.status()) && std::string_view(*note).ends_with(option_end)) {
    std::string_view text_before(*note);
    text_before.remove_suffix(option_end.size() - 1);
    return InvalidOptionError(StrCat(before, text_before), kInputFormatOption, ")");
  }
  return absl::Status(module.status().code(), StrCat(before, *note));
}

namespace {

int CountNewlines(std::string_view text) {
  int n = 0;
  for (const char *p = text.data(), *end = text.data() + text.size();
       (p = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)))) !=
       nullptr;
       ++p) {
    ++n;
  }
  return n;
}

bool AllOf(std::string_view text, std::string_view allowed) {
  return text.find_first_not_of(allowed) == std::string_view::npos;
}

}  // namespace

// A separator is a line that is `// -----` with only spaces or tabs before it and only spaces or
// carriage returns after it. The marker is searched for directly (memchr-speed) rather than
// line by line, which took ~45 ms of --jobs's serial part on a 200 MB file; line numbers are
// counted only between separators.
std::vector<InputChunk> SplitInputFile(std::string_view text) {
  constexpr std::string_view kMarker = "// -----";
  std::vector<InputChunk> chunks;
  size_t chunk_start = 0;
  int chunk_line = 1;
  size_t counted_to = 0;  // newlines before this offset are counted in `line`
  int line = 1;           // line number at offset `counted_to`
  for (size_t hit = text.find(kMarker); hit != std::string_view::npos;) {
    const size_t newline_before = hit == 0 ? std::string_view::npos : text.rfind('\n', hit - 1);
    const size_t line_start = newline_before == std::string_view::npos ? 0 : newline_before + 1;
    const size_t newline_after = text.find('\n', hit + kMarker.size());
    const size_t line_end = newline_after == std::string_view::npos ? text.size() : newline_after;
    if (AllOf(text.substr(line_start, hit - line_start), " \t") &&
        AllOf(text.substr(hit + kMarker.size(), line_end - hit - kMarker.size()), " \r")) {
      line += CountNewlines(text.substr(counted_to, line_start - counted_to));
      counted_to = line_start;
      chunks.push_back({text.substr(chunk_start, line_start - chunk_start), chunk_line});
      chunk_start = std::min(line_end + 1, text.size());
      chunk_line = line + 1;
    }
    if (newline_after == std::string_view::npos) break;
    hit = text.find(kMarker, line_end);
  }
  chunks.push_back({text.substr(std::min(chunk_start, text.size())), chunk_line});
  return chunks;
}

}  // namespace hloscope
