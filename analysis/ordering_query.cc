#include "analysis/ordering_query.h"

#include <limits>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "analysis/ordering_report.h"
#include "analysis/value_liveness.h"
#include "fmt/format.h"
#include "hlo/computation.h"
#include "support/option_error.h"
#include "support/str_util.h"

namespace hloscope {

namespace {

enum class ArgForm : uint8_t { kInstruction, kValue, kUse };

struct QuerySyntax {
  std::string_view name;
  OrderingQueryKind kind;
  ArgForm first;  // the form of the first argument
  ArgForm rest;   // and of the others
  int min_args;
  int max_args;
  std::string_view usage;
};

constexpr int kAnyCount = std::numeric_limits<int>::max();

constexpr QuerySyntax kQueries[] = {
    {"executes-before", OrderingQueryKind::kExecutesBefore, ArgForm::kInstruction,
     ArgForm::kInstruction, 2, 2, "executes-before:A,B (two instruction names)"},
    {"execution-constraint", OrderingQueryKind::kExecutionConstraint, ArgForm::kInstruction,
     ArgForm::kInstruction, 2, 2, "execution-constraint:A,B (two instruction names)"},
    {"defined-before", OrderingQueryKind::kDefinedBefore, ArgForm::kValue, ArgForm::kValue, 2, 2,
     "defined-before:V,W (two values, NAME or NAME{INDEX})"},
    {"live-range-strictly-before", OrderingQueryKind::kLiveRangeStrictlyBefore, ArgForm::kValue,
     ArgForm::kValue, 2, 2, "live-range-strictly-before:V,W (two values, NAME or NAME{INDEX})"},
    {"may-interfere", OrderingQueryKind::kMayInterfere, ArgForm::kValue, ArgForm::kValue, 2, 2,
     "may-interfere:V,W (two values, NAME or NAME{INDEX})"},
    {"uses", OrderingQueryKind::kUses, ArgForm::kValue, ArgForm::kValue, 1, 1,
     "uses:V (one value, NAME or NAME{INDEX})"},
    {"uses-before-def", OrderingQueryKind::kUsesBeforeDef, ArgForm::kValue, ArgForm::kUse, 2,
     kAnyCount,
     "uses-before-def:V,USE[,USE...] (a value, then uses NAME:OPERAND or NAME:OPERAND{INDEX})"},
};

const QuerySyntax& SyntaxOf(OrderingQueryKind kind) {
  for (const QuerySyntax& q : kQueries) {
    if (q.kind == kind) return q;
  }
  return kQueries[0];
}

absl::Status QueryError(std::string_view text, std::string_view message) {
  return InvalidOptionError("option '", "ordering_query",
                            fmt::format("' in '{}': {}", text, message));
}

// The arguments between commas outside braces ("a{0,1},b" is two).
absl::StatusOr<std::vector<std::string_view>> SplitArgs(std::string_view text,
                                                        std::string_view args) {
  std::vector<std::string_view> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= args.size(); ++i) {
    const char c = i < args.size() ? args[i] : ',';
    if (c == '{') {
      if (++depth > 1) return QueryError(text, "an index has a '{' inside it");
    } else if (c == '}') {
      if (--depth < 0) return QueryError(text, "a '}' closes no '{'");
    } else if (c == ',' && depth == 0) {
      if (i == start) return QueryError(text, "an argument is empty");
      out.push_back(args.substr(start, i - start));
      start = i + 1;
    }
  }
  if (depth != 0) return QueryError(text, "a '{' is not closed");
  return out;
}

// The index of `arg` from its '{' (`braces`), which must end it.
absl::StatusOr<ShapeIndex> ParseIndex(std::string_view text, std::string_view arg,
                                      std::string_view braces) {
  if (braces.size() < 2 || braces.back() != '}') {
    return QueryError(text, fmt::format("'{}' has text after its index", arg));
  }
  ShapeIndex index;
  const std::string_view inner = braces.substr(1, braces.size() - 2);
  if (inner.empty()) return index;
  for (std::string_view piece : Split(inner, ',')) {
    int64_t i = 0;
    if (!ParseInteger(piece, &i) || i < 0) {
      return QueryError(
          text, fmt::format("index {} has '{}', not a non-negative integer", braces, piece));
    }
    index.push_back(i);
  }
  return index;
}

bool IsName(std::string_view name) {
  return !name.empty() && name.find_first_of(":{}") == std::string_view::npos;
}

absl::StatusOr<OrderingQueryArg> ParseArg(std::string_view text, std::string_view arg,
                                          ArgForm form) {
  OrderingQueryArg out;
  const size_t brace = arg.find('{');
  std::string_view head = arg.substr(0, brace);
  if (brace != std::string_view::npos) {
    if (form == ArgForm::kInstruction) {
      return QueryError(text,
                        fmt::format("'{}' should be an instruction name, with no index", arg));
    }
    absl::StatusOr<ShapeIndex> index = ParseIndex(text, arg, arg.substr(brace));
    if (!index.ok()) return index.status();
    out.index = *std::move(index);
  }
  if (form == ArgForm::kUse) {
    const size_t colon = head.rfind(':');
    int64_t n = 0;
    if (colon == std::string_view::npos || !ParseInteger(head.substr(colon + 1), &n) || n < 0) {
      return QueryError(
          text, fmt::format("'{}' should be a use, NAME:OPERAND or NAME:OPERAND{{INDEX}}", arg));
    }
    out.operand_number = n;
    head = head.substr(0, colon);
  }
  if (head.find(':') != std::string_view::npos) {
    return QueryError(text, fmt::format("'{}' should be {}", arg,
                                        form == ArgForm::kValue ? "a value, NAME or NAME{INDEX}"
                                                                : "an instruction name"));
  }
  if (!IsName(head)) {
    return QueryError(text, fmt::format("'{}' has no instruction name", arg));
  }
  out.instruction = std::string(head);
  return out;
}

std::string QueryNames() {
  std::string out;
  for (const QuerySyntax& q : kQueries) {
    if (!out.empty()) out += ", ";
    out += q.name;
  }
  return out;
}

const char* Bool(bool b) { return b ? "true" : "false"; }

// Resolves the names and positions of the queries against one module.
class Resolver {
 public:
  Resolver(const DataflowAnalysis& flow, const OrderingQuery& query) : flow_(flow), query_(query) {
    for (const Computation* c : flow.module().computations()) {
      for (const Instruction* i : c->instructions()) by_name_.try_emplace(i->name(), i);
    }
  }

  absl::StatusOr<const Instruction*> Instr(const OrderingQueryArg& arg) const {
    auto it = by_name_.find(arg.instruction);
    if (it == by_name_.end()) {
      return Error(fmt::format("no instruction named '{}' in module {}", arg.instruction,
                               flow_.module().name()));
    }
    return it->second;
  }

  absl::StatusOr<ValueId> Value(const OrderingQueryArg& arg) const {
    absl::StatusOr<const Instruction*> instr = Instr(arg);
    if (!instr.ok()) return instr.status();
    const std::string where = fmt::format("{}{}", arg.instruction, ShapeIndexToString(arg.index));
    if (Subshape((*instr)->shape(), arg.index) == nullptr) {
      return Error(fmt::format("{} has no output index {} (its shape is {})", arg.instruction,
                               ShapeIndexToString(arg.index), (*instr)->shape().ToString()));
    }
    absl::Span<const ValueId> values = flow_.ValuesAt(**instr, arg.index);
    if (values.size() != 1) {
      std::string names;
      for (ValueId v : values) names += (names.empty() ? "" : ", ") + flow_.value(v).ToString();
      return Error(fmt::format("{} holds {} values{}; a query needs a position with one value",
                               where, values.size(),
                               values.empty() ? "" : fmt::format(" ({})", names)));
    }
    return values[0];
  }

  absl::StatusOr<ValueUse> Use(const OrderingQueryArg& arg) const {
    absl::StatusOr<const Instruction*> instr = Instr(arg);
    if (!instr.ok()) return instr.status();
    const Instruction& user = **instr;
    if (arg.operand_number >= user.operand_count()) {
      return Error(fmt::format("{} has {} operand{}: {}:{} names none", user.name(),
                               user.operand_count(), user.operand_count() == 1 ? "" : "s",
                               user.name(), arg.operand_number));
    }
    const Instruction& operand = *user.operand(arg.operand_number);
    if (Subshape(operand.shape(), arg.index) == nullptr) {
      return Error(fmt::format("operand {} of {} ({}) has no index {} (its shape is {})",
                               arg.operand_number, user.name(), operand.name(),
                               ShapeIndexToString(arg.index), operand.shape().ToString()));
    }
    return ValueUse{&user, arg.operand_number, arg.index};
  }

  absl::Status Error(std::string_view message) const {
    return InvalidOptionError("", "ordering_query", fmt::format(" '{}': {}", query_.text, message));
  }

 private:
  const DataflowAnalysis& flow_;
  const OrderingQuery& query_;
  absl::flat_hash_map<std::string_view, const Instruction*> by_name_;
};

std::string UsesLine(const DataflowAnalysis& flow, const ValueLiveness& live, ValueId v) {
  std::string out = fmt::format("uses({}):", flow.value(v).ToString());
  const char* sep = " ";
  for (const ValueUse& use : live.uses(v)) {
    out += sep;
    out += UseText(use);
    sep = ", ";
  }
  if (live.uses(v).empty()) out += " none";
  out += live.live_out(v) ? " (live out)\n" : "\n";
  return out;
}

bool AsksAboutInstructions(OrderingQueryKind kind) {
  return kind == OrderingQueryKind::kExecutesBefore ||
         kind == OrderingQueryKind::kExecutionConstraint;
}

// executes-before and execution-constraint: the ordering alone.
absl::StatusOr<std::string> AnswerOfInstructions(const ExecutionOrdering& ordering,
                                                 const Resolver& r, const OrderingQuery& q) {
  absl::StatusOr<const Instruction*> a = r.Instr(q.args[0]);
  if (!a.ok()) return a.status();
  absl::StatusOr<const Instruction*> b = r.Instr(q.args[1]);
  if (!b.ok()) return b.status();
  const std::string answer = q.kind == OrderingQueryKind::kExecutesBefore
                                 ? Bool(ordering.ExecutesBefore(**a, **b))
                                 : ExecutionConstraintName(ordering.Constraint(**a, **b));
  return fmt::format("{}({}, {}): {}\n", SyntaxOf(q.kind).name, (*a)->name(), (*b)->name(), answer);
}

// uses-before-def: each use with each value at the position it reads (one in SSA form); the
// first that is not before the value decides.
absl::StatusOr<std::string> AnswerUsesBeforeDef(const DataflowAnalysis& flow,
                                                const ValueLiveness& live, const Resolver& r,
                                                const OrderingQuery& q) {
  absl::StatusOr<ValueId> b = r.Value(q.args[0]);
  if (!b.ok()) return b.status();
  std::vector<ValueUse> uses;
  for (size_t i = 1; i < q.args.size(); ++i) {
    absl::StatusOr<ValueUse> use = r.Use(q.args[i]);
    if (!use.ok()) return use.status();
    uses.push_back(*std::move(use));
  }
  std::string listed;
  LiveRangeOrder first_failure;
  for (const ValueUse& use : uses) {
    listed += (listed.empty() ? "" : ", ") + UseText(use);
    if (!first_failure.before()) continue;
    const Instruction& operand = *use.instruction->operand(use.operand_number);
    for (ValueId a : flow.ValuesAt(operand, use.operand_index)) {
      first_failure = live.UseBeforeDefinition(a, use, *b);
      if (!first_failure.before()) break;
    }
  }
  // The reason points at a use of `uses`, which lives until here.
  return fmt::format("uses-before-def({{{}}}, {}): {}{}\n", listed, flow.value(*b).ToString(),
                     Bool(first_failure.before()),
                     LiveRangeReasonText(first_failure, flow.value(*b)));
}

// The questions about values: defined-before, live-range-strictly-before, may-interfere, uses.
absl::StatusOr<std::string> AnswerOfValues(const DataflowAnalysis& flow, const ValueLiveness& live,
                                           const Resolver& r, const OrderingQuery& q) {
  if (q.kind == OrderingQueryKind::kUsesBeforeDef) return AnswerUsesBeforeDef(flow, live, r, q);
  absl::StatusOr<ValueId> a = r.Value(q.args[0]);
  if (!a.ok()) return a.status();
  if (q.kind == OrderingQueryKind::kUses) return UsesLine(flow, live, *a);
  absl::StatusOr<ValueId> b = r.Value(q.args[1]);
  if (!b.ok()) return b.status();
  std::string answer;
  if (q.kind == OrderingQueryKind::kDefinedBefore) {
    answer = Bool(live.IsDefinedBefore(*a, *b));
  } else if (q.kind == OrderingQueryKind::kMayInterfere) {
    answer = Bool(live.MayInterfere(*a, *b));
  } else {
    const LiveRangeOrder o = live.StrictlyBefore(*a, *b);
    answer = fmt::format("{}{}", Bool(o.before()), LiveRangeReasonText(o, flow.value(*b)));
  }
  return fmt::format("{}({}, {}): {}\n", SyntaxOf(q.kind).name, flow.value(*a).ToString(),
                     flow.value(*b).ToString(), answer);
}

}  // namespace

absl::StatusOr<OrderingQuery> ParseOrderingQuery(std::string_view text) {
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos) {
    return QueryError(text,
                      fmt::format("needs the form QUERY:ARGUMENTS, QUERY one of {}", QueryNames()));
  }
  const std::string_view kind = text.substr(0, colon);
  const QuerySyntax* syntax = nullptr;
  for (const QuerySyntax& q : kQueries) {
    if (q.name == kind) syntax = &q;
  }
  if (syntax == nullptr) {
    return QueryError(text, fmt::format("unknown query '{}' (one of {})", kind, QueryNames()));
  }
  absl::StatusOr<std::vector<std::string_view>> args = SplitArgs(text, text.substr(colon + 1));
  if (!args.ok()) return args.status();
  const int count = static_cast<int>(args->size());
  if (count < syntax->min_args || count > syntax->max_args) {
    return QueryError(text, fmt::format("{} argument{}; the form is {}", count,
                                        count == 1 ? "" : "s", syntax->usage));
  }
  OrderingQuery out{syntax->kind, std::string(text), {}};
  for (size_t i = 0; i < args->size(); ++i) {
    absl::StatusOr<OrderingQueryArg> arg =
        ParseArg(text, (*args)[i], i == 0 ? syntax->first : syntax->rest);
    if (!arg.ok()) return arg.status();
    out.args.push_back(*std::move(arg));
  }
  return out;
}

absl::StatusOr<std::string> AnswerOrderingQueries(const DataflowAnalysis& flow,
                                                  const ExecutionOrdering& ordering,
                                                  absl::Span<const OrderingQuery> queries) {
  // The live ranges only when a query asks about values (linear in the module, but a whole
  // step's dataflow is large).
  std::optional<ValueLiveness> live;
  for (const OrderingQuery& q : queries) {
    if (!AsksAboutInstructions(q.kind)) {
      live.emplace(flow, ordering);
      break;
    }
  }
  std::string out;
  for (const OrderingQuery& q : queries) {
    const Resolver r(flow, q);
    absl::StatusOr<std::string> line = AsksAboutInstructions(q.kind)
                                           ? AnswerOfInstructions(ordering, r, q)
                                           : AnswerOfValues(flow, *live, r, q);
    if (!line.ok()) return line.status();
    out += *line;
  }
  return out;
}

}  // namespace hloscope
