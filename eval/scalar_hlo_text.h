// A small writer of scalar HLO computations as text: each call appends one instruction on
// rank-0 values and returns a handle to it. eval/xla_builder_math.cc states XLA's builder
// formulas with it, so that hlo-run evaluates them with its own ops (and their rounding).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hloscope::eval {

class ScalarHloText {
 public:
  // A value the computation defines: its instruction's number and element type.
  struct Value {
    int id = -1;
    std::string type;
  };

  Value Parameter(std::string_view type);
  // `literal` as HLO writes it for `type` ("1", "-inf", "(1, 0)", ...).
  Value Constant(std::string_view type, std::string_view literal);
  // Elementwise ops whose result has the operands' element type.
  Value Unary(std::string_view opcode, const Value& a);
  Value Binary(std::string_view opcode, const Value& a, const Value& b);
  Value Compare(const Value& a, const Value& b, std::string_view direction);
  Value Select(const Value& pred, const Value& on_true, const Value& on_false);
  // complex(re, im) of f32 / f64 parts; real / imag of c64 / c128.
  Value Complex(const Value& re, const Value& im);
  Value Real(const Value& z);
  Value Imag(const Value& z);
  Value Convert(std::string_view type, const Value& a);
  Value BitcastConvert(std::string_view type, const Value& a);

  // The computation `%name { ... }` whose root is `root`.
  std::string Text(std::string_view name, const Value& root) const;

 private:
  Value Add(std::string type, std::string rhs);
  static std::string Ref(const Value& v);

  std::vector<std::string> lines_;  // "%vN = type[] op(...)", N = index
};

}  // namespace hloscope::eval
