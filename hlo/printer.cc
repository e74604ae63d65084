#include "hlo/printer.h"

#include "support/str_util.h"

namespace hloscope {

namespace {

class Printer {
 public:
  Printer(const Module& module, const PrintOptions& options, std::string& out)
      : module_(module),
        options_(options),
        out_(out),
        legacy_(options.style == PrintStyle::kLegacy) {}

  void Name(std::string_view name) {
    if (legacy_) out_ += '%';
    out_ += name;
  }

  void PrintInstr(const hloscope::Instruction& instr) {
    out_ += "  ";
    if (instr.IsRoot()) out_ += "ROOT ";
    Name(instr.name());
    out_ += " = ";
    instr.shape().AppendTo(out_);
    out_ += ' ';
    if (instr.async_wrapped_opcode() == Opcode::kOpcodeCount) {
      out_ += OpcodeName(instr.opcode());
    } else {
      out_ += instr.PrintedOpcode();
    }
    out_ += '(';
    if (instr.opcode() == Opcode::kConstant) {
      out_ += instr.literal();
    } else if (instr.opcode() == Opcode::kParameter) {
      StrAppend(&out_, instr.parameter_number());
    } else {
      for (int64_t i = 0; i < instr.operand_count(); ++i) {
        if (i) out_ += ", ";
        if (legacy_) {
          instr.operand(i)->shape().AppendTo(out_);
          out_ += ' ';
        }
        Name(instr.operand(i)->name());
      }
    }
    out_ += ')';
    for (const hloscope::Attribute& a : instr.attributes()) PrintAttr(instr, a);
    out_ += '\n';
  }

  void PrintAttr(const hloscope::Instruction& instr, const hloscope::Attribute& a) {
    if (a.key == kAttrMetadata && !options_.print_metadata) return;
    if (a.is_control_predecessors) {
      if (instr.control_predecessors().empty()) return;
      out_ += ", control-predecessors={";
      for (size_t i = 0; i < instr.control_predecessors().size(); ++i) {
        if (i) out_ += ", ";
        Name(instr.control_predecessors()[i]->name());
      }
      out_ += '}';
      return;
    }
    out_ += ", ";
    out_ += module_.AttrKeyName(a.key);
    out_ += '=';
    if (a.is_computation_ref) {
      if (a.is_list) out_ += '{';
      for (int i = 0; i < a.count; ++i) {
        if (i) out_ += ", ";
        Name(instr.called_computations()[a.first + i]->name());
      }
      if (a.is_list) out_ += '}';
      return;
    }
    out_ += a.value;
  }

  void PrintComp(const hloscope::Computation& comp) {
    if (comp.is_entry()) out_ += "ENTRY ";
    Name(comp.name());
    if (legacy_) {
      out_ += " (";
      for (int64_t i = 0; i < comp.parameter_count(); ++i) {
        if (i) out_ += ", ";
        out_ += comp.parameter(i)->name();
        out_ += ": ";
        comp.parameter(i)->shape().AppendTo(out_);
      }
      out_ += ") -> ";
      comp.root()->shape().AppendTo(out_);
    }
    out_ += " {\n";
    for (const hloscope::Instruction* instr : comp.instructions()) PrintInstr(*instr);
    out_ += '}';
    if (!comp.execution_thread().empty()) {
      StrAppend(&out_, ", execution_thread=\"", comp.execution_thread(), "\"");
    }
    out_ += '\n';
  }

  void PrintModule() {
    out_ += "HloModule ";
    out_ += module_.name();
    for (const ModuleAttribute& a : module_.attributes()) {
      StrAppend(&out_, ", ", a.key, "=", a.value);
    }
    out_ += '\n';
    if (!module_.stack_frame_tables().empty()) {
      out_ += '\n';
      out_ += module_.stack_frame_tables();
      out_ += '\n';
    }
    for (const hloscope::Computation* comp : module_.computations()) {
      out_ += '\n';
      PrintComp(*comp);
    }
  }

 private:
  const hloscope::Module& module_;
  const PrintOptions& options_;
  std::string& out_;
  bool legacy_;
};

}  // namespace

void AppendModule(const Module& module, const PrintOptions& options, std::string& out) {
  Printer(module, options, out).PrintModule();
}

std::string PrintModule(const Module& module, const PrintOptions& options) {
  std::string out;
  out.reserve(static_cast<size_t>(module.instruction_count()) * 96);
  AppendModule(module, options, out);
  return out;
}

std::string PrintComputation(const Computation& computation, const PrintOptions& options) {
  std::string out;
  Printer(*computation.module(), options, out).PrintComp(computation);
  return out;
}

std::string PrintInstruction(const Instruction& instr, const PrintOptions& options) {
  std::string out;
  Printer(*instr.module(), options, out).PrintInstr(instr);
  // Drop the two-space indent and the newline used inside computations.
  return out.substr(2, out.size() - 3);
}

}  // namespace hloscope
