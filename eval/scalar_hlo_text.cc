#include "eval/scalar_hlo_text.h"

#include "support/str_util.h"

namespace hloscope::eval {
namespace {

// The part type of a complex type and the reverse; other types map to themselves.
std::string PartType(std::string_view complex_type) {
  if (complex_type == "c64") return "f32";
  if (complex_type == "c128") return "f64";
  return std::string(complex_type);
}
std::string ComplexOf(std::string_view part_type) {
  if (part_type == "f32") return "c64";
  if (part_type == "f64") return "c128";
  return std::string(part_type);
}

}  // namespace

std::string ScalarHloText::Ref(const Value& v) { return StrCat("%v", v.id); }

ScalarHloText::Value ScalarHloText::Add(std::string type, std::string rhs) {
  const int id = static_cast<int>(lines_.size());
  lines_.push_back(StrCat("%v", id, " = ", type, "[] ", rhs));
  return Value{id, std::move(type)};
}

ScalarHloText::Value ScalarHloText::Parameter(std::string_view type) {
  int number = 0;
  for (const std::string& l : lines_) number += l.find(" parameter(") != std::string::npos;
  return Add(std::string(type), StrCat("parameter(", number, ")"));
}

ScalarHloText::Value ScalarHloText::Constant(std::string_view type, std::string_view literal) {
  return Add(std::string(type), StrCat("constant(", literal, ")"));
}

ScalarHloText::Value ScalarHloText::Unary(std::string_view opcode, const Value& a) {
  return Add(a.type, StrCat(opcode, "(", Ref(a), ")"));
}

ScalarHloText::Value ScalarHloText::Binary(std::string_view opcode, const Value& a,
                                           const Value& b) {
  return Add(a.type, StrCat(opcode, "(", Ref(a), ", ", Ref(b), ")"));
}

ScalarHloText::Value ScalarHloText::Compare(const Value& a, const Value& b,
                                            std::string_view direction) {
  return Add("pred", StrCat("compare(", Ref(a), ", ", Ref(b), "), direction=", direction));
}

ScalarHloText::Value ScalarHloText::Select(const Value& pred, const Value& on_true,
                                           const Value& on_false) {
  return Add(on_true.type,
             StrCat("select(", Ref(pred), ", ", Ref(on_true), ", ", Ref(on_false), ")"));
}

ScalarHloText::Value ScalarHloText::Complex(const Value& re, const Value& im) {
  return Add(ComplexOf(re.type), StrCat("complex(", Ref(re), ", ", Ref(im), ")"));
}

ScalarHloText::Value ScalarHloText::Real(const Value& z) {
  return Add(PartType(z.type), StrCat("real(", Ref(z), ")"));
}

ScalarHloText::Value ScalarHloText::Imag(const Value& z) {
  return Add(PartType(z.type), StrCat("imag(", Ref(z), ")"));
}

ScalarHloText::Value ScalarHloText::Convert(std::string_view type, const Value& a) {
  return Add(std::string(type), StrCat("convert(", Ref(a), ")"));
}

ScalarHloText::Value ScalarHloText::BitcastConvert(std::string_view type, const Value& a) {
  return Add(std::string(type), StrCat("bitcast-convert(", Ref(a), ")"));
}

std::string ScalarHloText::Text(std::string_view name, const Value& root) const {
  std::string text = StrCat("%", name, " {\n");
  for (size_t i = 0; i < lines_.size(); ++i) {
    text += StrCat("  ", static_cast<int>(i) == root.id ? "ROOT " : "", lines_[i], "\n");
  }
  text += "}\n";
  return text;
}

}  // namespace hloscope::eval
