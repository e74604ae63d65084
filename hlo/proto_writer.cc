#include "hlo/proto_writer.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "google/protobuf/text_format.h"
#include "hlo/attribute_values.h"
#include "hlo/proto_writer_internal.h"
#include "hlo/shape_parser.h"
#include "hlo/text_cursor.h"
#include "support/status_text.h"
#include "support/str_util.h"

namespace hloscope {
namespace {

using proto_writer::BraceBody;
using proto_writer::FrontendAttributesToProto;
using proto_writer::IntList;
using proto_writer::OneInt;
using proto_writer::ShapeToProto;
using proto_writer::SplitTopLevel;

absl::Status Annotate(const absl::Status& s, std::string_view where) {
  if (s.ok()) return s;
  return absl::Status(s.code(), StrCat(where, ": ", StatusText(s)));
}

// Shapes written in header attributes (entry_computation_layout) are parsed with the text
// parser's ShapeParser into a scratch module.
class HeaderShapes {
 public:
  HeaderShapes() : scratch_("header") {}
  absl::StatusOr<const Shape*> Parse(std::string_view text, size_t* consumed) {
    TextCursor cur(text, "entry_computation_layout", 1);
    ShapeParser parser(cur, scratch_);
    const Shape* shape = nullptr;
    if (!parser.Parse(&shape)) return cur.status();
    *consumed = static_cast<size_t>(cur.pos() - text.data());
    return shape;
  }

 private:
  Module scratch_;
};

// `{(f32[2]{0}, s32[]) -> f32[2]{0}}` → ProgramShapeProto.
absl::Status EntryLayoutToProto(std::string_view value, xla_proto::ProgramShapeProto* out) {
  absl::StatusOr<std::string_view> body = BraceBody(value);
  if (!body.ok()) return body.status();
  std::string_view text = StripWhitespace(*body);
  size_t arrow = text.rfind("->");
  if (text.empty() || text.front() != '(' || arrow == std::string_view::npos) {
    return absl::InvalidArgumentError("expected '{(parameter shapes) -> result shape}'");
  }
  std::string_view params = StripWhitespace(text.substr(0, arrow));
  if (params.size() < 2 || params.back() != ')') {
    return absl::InvalidArgumentError("expected ')' before '->'");
  }
  HeaderShapes shapes;
  int parameter = 0;
  for (std::string_view piece : SplitTopLevel(params.substr(1, params.size() - 2), ',')) {
    // XLA names the host program's parameters p0, p1, ... (the layout text has no names).
    out->add_parameter_names(StrCat("p", parameter++));
    size_t used = 0;
    absl::StatusOr<const Shape*> s = shapes.Parse(piece, &used);
    if (!s.ok()) return s.status();
    if (used != piece.size()) {
      return absl::InvalidArgumentError(StrCat("unexpected text after shape '", piece, "'"));
    }
    absl::Status st = ShapeToProto(**s, out->add_parameters());
    if (!st.ok()) return st;
  }
  std::string_view result = StripWhitespace(text.substr(arrow + 2));
  size_t used = 0;
  absl::StatusOr<const Shape*> s = shapes.Parse(result, &used);
  if (!s.ok()) return s.status();
  if (used != result.size()) {
    return absl::InvalidArgumentError(StrCat("unexpected text after shape '", result, "'"));
  }
  return ShapeToProto(**s, out->mutable_result());
}

// The module's input_output_alias, decoded once by the parser (hlo/input_output_alias.h).
void InputOutputAliasToProto(absl::Span<const InputOutputAlias> aliases,
                             xla_proto::HloInputOutputAliasProto* out) {
  for (const InputOutputAlias& a : aliases) {
    auto* e = out->add_entries();
    for (int64_t i : a.output_index) e->add_output_shape_index(i);
    e->set_parameter_number(a.parameter);
    for (int64_t i : a.parameter_index) e->add_parameter_shape_index(i);
    e->set_kind(a.must_alias ? xla_proto::MUST_ALIAS : xla_proto::MAY_ALIAS);
  }
}

// `{(0, {}), (1, {0})}` entries of buffer_donor.
absl::Status BufferDonorToProto(std::string_view value, xla_proto::HloBufferDonorProto* out) {
  absl::StatusOr<std::string_view> body = BraceBody(value);
  if (!body.ok()) return body.status();
  for (std::string_view entry : SplitTopLevel(*body, ',')) {
    std::vector<std::string_view> parts;
    if (entry.size() >= 2 && entry.front() == '(' && entry.back() == ')') {
      parts = SplitTopLevel(entry.substr(1, entry.size() - 2), ',');
    }
    if (parts.size() != 2) {
      return absl::InvalidArgumentError(
          StrCat("expected '(parameter, {index})', found '", entry, "'"));
    }
    auto* e = out->add_entries();
    absl::StatusOr<int64_t> param = OneInt(parts[0]);
    if (!param.ok()) return param.status();
    e->set_parameter_number(*param);
    absl::StatusOr<std::vector<int64_t>> index = IntList(parts[1]);
    if (!index.ok()) return index.status();
    for (int64_t i : *index) e->add_parameter_shape_index(i);
  }
  return absl::OkStatus();
}

// The stack-frame tables after the module header, as XLA prints its StackFrameIndexProto:
//   FileNames / FunctionNames: lines `N "text"`;
//   FileLocations: `N {file_name_id=1 function_name_id=1 line=3 column=4}`;
//   StackFrames: `N {file_location_id=1 parent_frame_id=0}`;
// entries numbered from 1 in order.
absl::Status StackFramesToProto(std::string_view tables, xla_proto::StackFrameIndexProto* out) {
  enum class Section { kNone, kFileNames, kFunctionNames, kFileLocations, kStackFrames };
  Section section = Section::kNone;
  int line_number = 0;
  int64_t expected_id = 1;
  size_t pos = 0;
  while (pos <= tables.size()) {
    size_t nl = tables.find('\n', pos);
    if (nl == std::string_view::npos) nl = tables.size();
    std::string_view line = StripWhitespace(tables.substr(pos, nl - pos));
    pos = nl + 1;
    ++line_number;
    if (line.empty()) continue;
    auto error = [&](std::string_view what) {
      return absl::InvalidArgumentError(
          StrCat("line ", line_number, " of the stack frame tables: ", what, ": '", line, "'"));
    };
    if (line == "FileNames" || line == "FunctionNames" || line == "FileLocations" ||
        line == "StackFrames") {
      section = line == "FileNames"       ? Section::kFileNames
                : line == "FunctionNames" ? Section::kFunctionNames
                : line == "FileLocations" ? Section::kFileLocations
                                          : Section::kStackFrames;
      expected_id = 1;
      continue;
    }
    size_t space = line.find(' ');
    if (section == Section::kNone || space == std::string_view::npos) {
      return error("expected 'N value' in a section");
    }
    absl::StatusOr<int64_t> id = OneInt(line.substr(0, space));
    if (!id.ok() || *id != expected_id) return error(StrCat("expected entry ", expected_id));
    ++expected_id;
    std::string_view value = StripWhitespace(line.substr(space + 1));
    if (section == Section::kFileNames || section == Section::kFunctionNames) {
      absl::StatusOr<std::string> text = proto_writer::Unquoted(value);
      if (!text.ok()) return error(StatusText(text.status()));
      if (section == Section::kFileNames) {
        out->add_file_names(*text);
      } else {
        out->add_function_names(*text);
      }
      continue;
    }
    absl::StatusOr<std::string_view> body = BraceBody(value);
    if (!body.ok()) return error("expected '{key=value ...}'");
    absl::StatusOr<std::vector<std::pair<std::string_view, std::string_view>>> kvs =
        proto_writer::KeyValues(*body);
    if (!kvs.ok()) return error(StatusText(kvs.status()));
    auto* location = section == Section::kFileLocations ? out->add_file_locations() : nullptr;
    auto* frame = section == Section::kStackFrames ? out->add_stack_frames() : nullptr;
    for (const auto& [key, text] : *kvs) {
      absl::StatusOr<int64_t> v = OneInt(text);
      if (!v.ok()) return error(StatusText(v.status()));
      const auto n = static_cast<int32_t>(*v);
      if (location != nullptr && key == "file_name_id") {
        location->set_file_name_id(n);
      } else if (location != nullptr && key == "function_name_id") {
        location->set_function_name_id(n);
      } else if (location != nullptr && key == "line") {
        location->set_line(n);
      } else if (location != nullptr && key == "column") {
        location->set_column(n);
      } else if (location != nullptr && key == "end_line") {
        location->set_end_line(n);
      } else if (location != nullptr && key == "end_column") {
        location->set_end_column(n);
      } else if (frame != nullptr && key == "file_location_id") {
        frame->set_file_location_id(n);
      } else if (frame != nullptr && key == "parent_frame_id") {
        // XLA prints the proto's value plus one (see proto_module_text.cc); 0, which XLA never
        // prints, is read as no parent too.
        frame->set_parent_frame_id(n > 0 ? n - 1 : 0);
      } else {
        return error(StrCat("StackFrameIndexProto has no field for '", key, "'"));
      }
    }
  }
  return absl::OkStatus();
}

class Writer {
 public:
  explicit Writer(const Module& module) : module_(module) {}

  absl::StatusOr<xla_proto::HloModuleProto> Run() {
    xla_proto::HloModuleProto proto;
    proto.set_name(std::string(module_.name()));
    std::vector<const Computation*> order = ComputationOrder();
    // Instruction ids first (1, 2, ... in the order written), computation ids after them:
    // ids are unique across the module, as XLA's loader wants them.
    for (const Computation* comp : order) {
      for (const Instruction* instr : comp->instructions()) instr_ids_[instr] = next_id_++;
    }
    for (const Computation* comp : order) {
      comp_ids_[comp] = next_id_++;
      used_computation_names_.insert(std::string(comp->name()));
    }
    for (const Computation* comp : module_.computations()) {
      for (const Instruction* instr : comp->instructions()) {
        if (instr->opcode() == Opcode::kFusion && instr->fused_computation() != nullptr) {
          fusion_computations_.insert(instr->fused_computation());
        }
      }
    }
    for (const Computation* comp : order) {
      xla_proto::HloComputationProto written;
      absl::Status s = WriteComputation(*comp, &written);
      if (!s.ok()) return s;
      // Computations made for its async starts go first: callees before callers.
      for (xla_proto::HloComputationProto& w : wrapped_computations_) {
        *proto.add_computations() = std::move(w);
      }
      wrapped_computations_.clear();
      *proto.add_computations() = std::move(written);
    }
    if (module_.entry() != nullptr) {
      proto.set_entry_computation_name(std::string(module_.entry()->name()));
      proto.set_entry_computation_id(comp_ids_[module_.entry()]);
    }
    absl::Status s = WriteHeader(order, &proto);
    if (!s.ok()) return s;
    return proto;
  }

 private:
  // Computations with every callee before its callers, as HloModuleProto requires: the text
  // order where it already is one, else each computation moved after its callees (visited
  // depth-first, callees in text order), so the reader's text differs from ours the least.
  std::vector<const Computation*> ComputationOrder() const {
    absl::flat_hash_map<const Computation*, size_t> text_index;
    for (size_t i = 0; i < module_.computations().size(); ++i) {
      text_index[module_.computations()[i]] = i;
    }
    auto callees = [&](const Computation* comp) {
      std::vector<const Computation*> out;
      for (const Instruction* instr : comp->instructions()) {
        for (const Computation* c : instr->called_computations()) {
          if (c != nullptr) out.push_back(c);
        }
      }
      std::sort(out.begin(), out.end(), [&](const Computation* a, const Computation* b) {
        return text_index[a] < text_index[b];
      });
      return out;
    };
    std::vector<const Computation*> order;
    absl::flat_hash_set<const Computation*> seen;
    struct Frame {
      const Computation* comp;
      std::vector<const Computation*> callees;
      size_t next = 0;
    };
    for (const Computation* root : module_.computations()) {
      if (!seen.insert(root).second) continue;
      std::vector<Frame> stack;
      stack.push_back({root, callees(root)});
      while (!stack.empty()) {
        Frame& f = stack.back();
        const Computation* next = nullptr;
        while (next == nullptr && f.next < f.callees.size()) {
          const Computation* c = f.callees[f.next++];
          if (seen.insert(c).second) next = c;
        }
        if (next != nullptr) {
          stack.push_back({next, callees(next)});
        } else {
          order.push_back(f.comp);
          stack.pop_back();
        }
      }
    }
    return order;
  }

  // Instructions with every operand and control predecessor before its users, as XLA's loader
  // reads them: the text order unless the text uses a name before defining it, else a
  // depth-first order that takes them in text order.
  static std::vector<const Instruction*> InstructionOrder(const Computation& comp) {
    absl::Span<Instruction* const> instrs = comp.instructions();
    absl::flat_hash_set<const Instruction*> seen;
    bool in_order = true;
    for (const Instruction* instr : instrs) {
      for (const Instruction* op : instr->operands()) in_order &= seen.contains(op);
      for (const Instruction* op : instr->control_predecessors()) in_order &= seen.contains(op);
      seen.insert(instr);
    }
    std::vector<const Instruction*> order(instrs.begin(), instrs.end());
    if (in_order) return order;
    order.clear();
    seen.clear();
    struct Frame {
      const Instruction* instr;
      size_t next = 0;  // operands first, then control predecessors
    };
    for (const Instruction* root : instrs) {
      if (!seen.insert(root).second) continue;
      std::vector<Frame> stack = {{root}};
      while (!stack.empty()) {
        Frame& f = stack.back();
        const size_t n_ops = f.instr->operands().size();
        const size_t n = n_ops + f.instr->control_predecessors().size();
        const Instruction* next = nullptr;
        while (next == nullptr && f.next < n) {
          const Instruction* dep = f.next < n_ops ? f.instr->operands()[f.next]
                                                  : f.instr->control_predecessors()[f.next - n_ops];
          ++f.next;
          if (dep->parent() == &comp && seen.insert(dep).second) next = dep;
        }
        if (next != nullptr) {
          stack.push_back({next});
        } else {
          order.push_back(f.instr);
          stack.pop_back();
        }
      }
    }
    return order;
  }

  absl::Status WriteComputation(const Computation& comp, xla_proto::HloComputationProto* out) {
    out->set_name(std::string(comp.name()));
    out->set_id(comp_ids_[&comp]);
    if (comp.root() != nullptr) out->set_root_id(instr_ids_[comp.root()]);
    out->set_is_fusion_computation(fusion_computations_.contains(&comp));
    if (!comp.execution_thread().empty()) {
      absl::StatusOr<std::string> thread =
          proto_writer::Unquoted(StrCat("\"", comp.execution_thread(), "\""));
      out->set_execution_thread(thread.ok() ? *thread : std::string(comp.execution_thread()));
    }
    xla_proto::ProgramShapeProto* program = out->mutable_program_shape();
    for (const Instruction* p : comp.parameters()) {
      absl::Status s = ShapeToProto(p->shape(), program->add_parameters());
      if (!s.ok()) return Annotate(s, StrCat("parameter '", p->name(), "'"));
      program->add_parameter_names(std::string(p->name()));
    }
    if (comp.root() != nullptr) {
      absl::Status s = ShapeToProto(comp.root()->shape(), program->mutable_result());
      if (!s.ok()) return Annotate(s, StrCat("root '", comp.root()->name(), "'"));
    }
    for (const Instruction* instr : InstructionOrder(comp)) {
      absl::Status s = WriteInstruction(*instr, out->add_instructions());
      if (!s.ok()) {
        return Annotate(
            s, StrCat("computation '", comp.name(), "', instruction '", instr->name(), "'"));
      }
    }
    return absl::OkStatus();
  }

  // Called computations in the order XLA keeps them for the opcode (while: body, condition;
  // conditional: its branches in branch order; select-and-scatter: select, scatter), which is
  // how the loader knows each one's role.
  std::vector<const Computation*> CalledInXlaOrder(const Instruction& instr) const {
    std::vector<const Computation*> called;
    switch (instr.opcode()) {
      case Opcode::kWhile:
        called = {instr.while_body(), instr.while_condition()};
        break;
      case Opcode::kConditional:
        for (const Computation* c : instr.branch_computations()) called.push_back(c);
        break;
      case Opcode::kSelectAndScatter:
        called = {instr.CalledComputation(kAttrSelect), instr.CalledComputation(kAttrScatter)};
        break;
      default:
        for (const Computation* c : instr.called_computations()) called.push_back(c);
        break;
    }
    return called;
  }

  // The fields XLA's parser fills in when the text leaves them out, and its protos spell out,
  // for `instr` written as an instruction of opcode `op`.
  static void WriteDefaults(const Instruction& instr, Opcode op,
                            xla_proto::HloInstructionProto* out) {
    // A custom call without api_version= is API_VERSION_ORIGINAL to XLA's parser; in the
    // proto, an unset field would be API_VERSION_UNSPECIFIED.
    if (op == Opcode::kCustomCall)
      out->set_custom_call_api_version(xla_proto::API_VERSION_ORIGINAL);
    // A dot or convolution without operand_precision= has DEFAULT for each operand.
    if ((op == Opcode::kDot || op == Opcode::kConvolution) &&
        !RawAttribute(instr, "operand_precision")) {
      for (int64_t i = 0; i < instr.operand_count(); ++i) {
        out->mutable_precision_config()->add_operand_precision(xla_proto::PrecisionConfig::DEFAULT);
      }
    }
    // Custom calls and convolutions carry their group counts, 1 unless the text says.
    if (op == Opcode::kCustomCall || op == Opcode::kConvolution) {
      out->set_feature_group_count(1);
      out->set_batch_group_count(1);
    }
    // A compare without type= has its element type's default.
    if (op == Opcode::kCompare && instr.operand_count() > 0 && !RawAttribute(instr, "type")) {
      const PrimitiveTypeInfo& t = GetPrimitiveTypeInfo(instr.operand(0)->shape().element_type);
      out->set_comparison_type(t.is_float || t.is_complex ? "FLOAT"
                               : t.is_signed_int          ? "SIGNED"
                                                          : "UNSIGNED");
    }
  }

  // The attributes of XLA's async op itself, not of the op it wraps, in the sugared form
  // (`reduce-scatter-start(...)`): what every instruction may carry, and the thread.
  static bool IsAsyncOwnAttribute(std::string_view key) {
    return key == "metadata" || key == "frontend_attributes" || key == "backend_config" ||
           key == "sharding" || key == "statistics" || key == "origin" ||
           key == "result_accuracy" || key == "async_execution_thread";
  }

  // `X-start(operands), X's attributes`: XLA's async-start calling a computation of one
  // parameter per operand and X on them (as XLA's parser builds it, named async_computation).
  // The computation goes before the one holding the start; the start's own attributes stay on
  // it.
  absl::Status WriteWrappedComputation(const Instruction& start,
                                       xla_proto::HloInstructionProto* out) {
    const Shape& shape = start.shape();
    const Opcode op = start.async_wrapped_opcode();
    if (!shape.IsTuple() || shape.tuple_elements.size() < 2) {
      return absl::InvalidArgumentError(
          StrCat("the shape of ", start.PrintedOpcode(), " is not (operands, output, ...)"));
    }
    xla_proto::HloComputationProto comp;
    std::string name = "async_computation";
    for (int n = 1; used_computation_names_.contains(name); ++n) {
      name = StrCat("async_computation.", n);
    }
    used_computation_names_.insert(name);
    comp.set_name(name);
    comp.set_id(next_id_++);
    if (std::optional<std::string_view> thread = RawAttribute(start, "async_execution_thread")) {
      absl::StatusOr<std::string> t = proto_writer::Unquoted(*thread);
      if (!t.ok()) return Annotate(t.status(), "attribute 'async_execution_thread'");
      comp.set_execution_thread(*t);
    }
    xla_proto::HloInstructionProto root;
    root.set_name(std::string(OpcodeName(op)));
    root.set_opcode(std::string(OpcodeName(op)));
    root.set_id(next_id_++);
    absl::Status s = ShapeToProto(*shape.tuple_elements[1], root.mutable_shape());
    if (!s.ok()) return s;
    for (int64_t i = 0; i < start.operand_count(); ++i) {
      xla_proto::HloInstructionProto* p = comp.add_instructions();
      p->set_name(StrCat("param_", i));
      p->set_opcode("parameter");
      p->set_parameter_number(i);
      p->set_id(next_id_++);
      s = ShapeToProto(start.operand(i)->shape(), p->mutable_shape());
      if (!s.ok()) return s;
      *comp.mutable_program_shape()->add_parameters() = p->shape();
      comp.mutable_program_shape()->add_parameter_names(p->name());
      root.add_operand_ids(p->id());
    }
    for (const Computation* c : start.called_computations()) {
      root.add_called_computation_ids(comp_ids_.at(c));
    }
    WriteDefaults(start, op, &root);
    for (const Attribute& a : start.attributes()) {
      if (a.is_computation_ref || a.is_control_predecessors) continue;
      std::string_view key = module_.AttrKeyName(a.key);
      s = IsAsyncOwnAttribute(key)
              ? proto_writer::AttributeToProto(start, start.opcode(), key, a.value, out)
              : proto_writer::AttributeToProto(start, op, key, a.value, &root);
      if (!s.ok()) return Annotate(s, StrCat("attribute '", key, "'"));
    }
    *comp.mutable_program_shape()->mutable_result() = root.shape();
    comp.set_root_id(root.id());
    *comp.add_instructions() = std::move(root);
    out->add_called_computation_ids(comp.id());
    std::vector<int64_t> sequence;
    for (const auto& i : comp.instructions()) sequence.push_back(i.id());
    wrapped_sequences_.emplace_back(comp.id(), std::move(sequence));
    wrapped_computations_.push_back(std::move(comp));
    return absl::OkStatus();
  }

  absl::Status WriteInstruction(const Instruction& instr, xla_proto::HloInstructionProto* out) {
    const bool sugared = instr.async_wrapped_opcode() != Opcode::kOpcodeCount;
    out->set_name(std::string(instr.name()));
    out->set_opcode(std::string(OpcodeName(instr.opcode())));
    out->set_id(instr_ids_[&instr]);
    absl::Status s = ShapeToProto(instr.shape(), out->mutable_shape());
    if (!s.ok()) return s;
    for (const Instruction* operand : instr.operands()) {
      out->add_operand_ids(instr_ids_[operand]);
    }
    for (const Instruction* pred : instr.control_predecessors()) {
      out->add_control_predecessor_ids(instr_ids_[pred]);
    }
    if (sugared && instr.opcode() == Opcode::kAsyncStart) {
      return WriteWrappedComputation(instr, out);
    }
    // (An X-update or X-done reads its computation through the start, as in XLA's protos.)
    if (!sugared) {
      for (const Computation* c : CalledInXlaOrder(instr)) {
        if (c == nullptr) {
          return absl::InvalidArgumentError("a called computation is missing for its opcode");
        }
        out->add_called_computation_ids(comp_ids_.at(c));
      }
    }
    if (instr.opcode() == Opcode::kParameter) out->set_parameter_number(instr.parameter_number());
    if (instr.opcode() == Opcode::kConstant) {
      s = proto_writer::LiteralToProto(instr.literal(), instr.shape(), out->mutable_literal());
      if (!s.ok()) return Annotate(s, "literal");
    }
    WriteDefaults(instr, instr.opcode(), out);
    for (const Attribute& a : instr.attributes()) {
      if (a.is_computation_ref || a.is_control_predecessors) continue;
      std::string_view key = module_.AttrKeyName(a.key);
      s = proto_writer::AttributeToProto(instr, instr.opcode(), key, a.value, out);
      if (!s.ok()) return Annotate(s, StrCat("attribute '", key, "'"));
    }
    return absl::OkStatus();
  }

  absl::Status WriteHeader(const std::vector<const Computation*>& order,
                           xla_proto::HloModuleProto* proto) {
    for (const ModuleAttribute& a : module_.attributes()) {
      absl::Status s;
      if (a.key == "is_scheduled") {
        absl::StatusOr<bool> b = proto_writer::OneBool(a.value);
        s = b.status();
        if (b.ok() && *b) WriteSchedule(order, proto->mutable_schedule());
      } else if (a.key == "entry_computation_layout") {
        s = EntryLayoutToProto(a.value, proto->mutable_host_program_shape());
      } else if (a.key == "input_output_alias") {
        InputOutputAliasToProto(module_.input_output_aliases(),
                                proto->mutable_input_output_alias());
      } else if (a.key == "buffer_donor") {
        s = BufferDonorToProto(a.value, proto->mutable_buffer_donor());
      } else if (a.key == "frontend_attributes") {
        absl::StatusOr<std::string_view> body = BraceBody(a.value);
        s = body.ok() ? FrontendAttributesToProto(*body, proto->mutable_frontend_attributes())
                      : body.status();
      } else if (a.key == "replica_count" || a.key == "num_partitions") {
        // XLA's HloModuleConfig, not HloModuleProto: written beside the module
        // (HloModuleProtoWithConfig).
        int64_t n = 0;
        if (!ParseInteger(StripWhitespace(a.value), &n) || n < 1) {
          s = absl::InvalidArgumentError(
              StrCat("expected a positive integer, found '", a.value, "'"));
        } else if (a.key == "replica_count") {
          config_.set_replica_count(n);
        } else {
          config_.set_num_partitions(n);
        }
      } else if (a.key == "allow_spmd_sharding_propagation_to_parameters") {
        s = BoolListToProto(a.value,
                            config_.mutable_allow_spmd_sharding_propagation_to_parameters());
      } else if (a.key == "allow_spmd_sharding_propagation_to_output") {
        s = BoolListToProto(a.value, config_.mutable_allow_spmd_sharding_propagation_to_output());
      } else {
        s = absl::UnimplementedError(
            "neither HloModuleProto nor the config beside it (replica_count, num_partitions, "
            "allow_spmd_sharding_propagation_to_parameters / _to_output) has a field for it");
      }
      if (!s.ok()) return Annotate(s, StrCat("module header attribute '", a.key, "'"));
    }
    if (!module_.stack_frame_tables().empty()) {
      absl::Status s =
          StackFramesToProto(module_.stack_frame_tables(), proto->mutable_stack_frame_index());
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }

  // `true`, or `{true,false,...}` as XLA's parser takes them.
  static absl::Status BoolListToProto(std::string_view text,
                                      google::protobuf::RepeatedField<bool>* out) {
    text = StripWhitespace(text);
    if (!text.empty() && text.front() == '{') {
      absl::StatusOr<std::string_view> body = proto_writer::BraceBody(text);
      if (!body.ok()) return body.status();
      if (body->empty()) return absl::OkStatus();
      std::string_view rest = *body;
      while (true) {
        const size_t comma = rest.find(',');
        absl::StatusOr<bool> b = proto_writer::OneBool(rest.substr(0, comma));
        if (!b.ok()) return b.status();
        out->Add(*b);
        if (comma == std::string_view::npos) return absl::OkStatus();
        rest = rest.substr(comma + 1);
      }
    }
    absl::StatusOr<bool> b = proto_writer::OneBool(text);
    if (!b.ok()) return b.status();
    out->Add(*b);
    return absl::OkStatus();
  }

 public:
  // The config attributes of the header (empty when it has none).
  const xla_proto::HloModuleConfigProto& config() const { return config_; }

 private:
  void WriteSchedule(const std::vector<const Computation*>& order,
                     xla_proto::HloScheduleProto* out) {
    // XLA schedules every computation but fusion bodies; the sequence is the text order.
    for (const Computation* comp : order) {
      if (fusion_computations_.contains(comp)) continue;
      auto& seq = (*out->mutable_sequences())[comp_ids_[comp]];
      for (const Instruction* instr : comp->instructions()) {
        seq.add_instruction_ids(instr_ids_[instr]);
      }
    }
    for (const auto& [id, ids] : wrapped_sequences_) {
      auto& seq = (*out->mutable_sequences())[id];
      for (int64_t i : ids) seq.add_instruction_ids(i);
    }
  }

  const Module& module_;
  xla_proto::HloModuleConfigProto config_;
  int64_t next_id_ = 1;
  absl::flat_hash_set<std::string> used_computation_names_;
  // Computations made for sugared async starts of the computation being written, and their
  // schedule sequences.
  std::vector<xla_proto::HloComputationProto> wrapped_computations_;
  std::vector<std::pair<int64_t, std::vector<int64_t>>> wrapped_sequences_;
  absl::flat_hash_map<const Instruction*, int64_t> instr_ids_;
  absl::flat_hash_map<const Computation*, int64_t> comp_ids_;
  absl::flat_hash_set<const Computation*> fusion_computations_;
};

}  // namespace

absl::StatusOr<xla_proto::HloModuleProto> ModuleToProto(const Module& module) {
  return Writer(module).Run();
}

absl::StatusOr<xla_proto::HloModuleProtoWithConfig> ModuleToProtoWithConfig(const Module& module) {
  Writer writer(module);
  absl::StatusOr<xla_proto::HloModuleProto> proto = writer.Run();
  if (!proto.ok()) return proto.status();
  xla_proto::HloModuleProtoWithConfig out;
  *out.mutable_hlo_module() = *std::move(proto);
  if (writer.config().ByteSizeLong() > 0) *out.mutable_config() = writer.config();
  return out;
}

absl::StatusOr<std::string> WriteModuleProto(const Module& module, ProtoFormat format) {
  absl::StatusOr<xla_proto::HloModuleProtoWithConfig> proto = ModuleToProtoWithConfig(module);
  if (!proto.ok()) return proto.status();
  // A module whose header says nothing of its config is written as a bare HloModuleProto, as
  // before; one with replica_count, num_partitions or allow_spmd_sharding_propagation_* as
  // XLA's HloModuleProtoWithConfig, the only message of XLA's that holds both.
  const google::protobuf::Message& message =
      proto->has_config() ? static_cast<const google::protobuf::Message&>(*proto)
                          : proto->hlo_module();
  std::string out;
  if (format == ProtoFormat::kBinary) {
    if (!message.SerializeToString(&out)) {
      return absl::InternalError("HloModuleProto could not be serialized (over 2 GiB?)");
    }
  } else if (!google::protobuf::TextFormat::PrintToString(message, &out)) {
    return absl::InternalError("HloModuleProto could not be printed as text format");
  }
  return out;
}

}  // namespace hloscope
