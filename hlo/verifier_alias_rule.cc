// The module's input_output_alias against its entry computation, with XLA's rules
// (HloInputOutputAliasConfig::Verify): each alias names an existing parameter and output
// element, both arrays, and no parameter element or output element is named twice. XLA compares
// the two sizes only in its layout-sensitive verifier (the default one sizes every shape 0), and
// XLA's own tests alias elements of different sizes, so sizes are not compared here either. A
// parameter index that points at a tuple-shaped element would make analyses give a donated
// parameter's buffer to a sibling output too.
#include <set>
#include <string>
#include <utility>

#include "hlo/computation.h"
#include "hlo/input_output_alias.h"
#include "hlo/verifier_internal.h"
#include "support/str_util.h"

namespace hloscope::verifier_internal {

namespace {

std::string AliasText(const InputOutputAlias& a) {
  return StrCat(ShapeIndexToString(a.output_index), ": (", a.parameter, ", ",
                ShapeIndexToString(a.parameter_index), ")");
}

}  // namespace

absl::Status CheckInputOutputAliases(const Module& module) {
  const Computation* entry = module.entry();
  if (entry == nullptr || entry->root() == nullptr) return absl::OkStatus();
  const Shape& result = entry->root()->shape();
  std::set<std::pair<int64_t, ShapeIndex>> parameters_seen;
  std::set<ShapeIndex> outputs_seen;
  for (const InputOutputAlias& a : module.input_output_aliases()) {
    auto error = [&](std::string_view what) {
      return ModuleError(module, StrCat("input_output_alias ", AliasText(a), ": ", what));
    };
    if (a.parameter < 0 || a.parameter >= entry->parameter_count()) {
      return error(StrCat("the entry computation has ",
                          Count(entry->parameter_count(), "parameter", "parameters")));
    }
    const Shape& param_shape = entry->parameter(a.parameter)->shape();
    const Shape* param = Subshape(param_shape, a.parameter_index);
    if (param == nullptr) {
      return error(StrCat("parameter ", a.parameter, " has no element ",
                          ShapeIndexToString(a.parameter_index), " (its shape is ",
                          ShapeText(param_shape), ")"));
    }
    const Shape* output = Subshape(result, a.output_index);
    if (output == nullptr) {
      return error(StrCat("the entry result has no element ", ShapeIndexToString(a.output_index),
                          " (its shape is ", ShapeText(result), ")"));
    }
    if (!param->IsArray()) {
      return error(StrCat("parameter ", a.parameter, " element ",
                          ShapeIndexToString(a.parameter_index), " is ", ShapeText(*param),
                          ", not an array: only array buffers can be aliased"));
    }
    if (!output->IsArray()) {
      return error(StrCat("output element ", ShapeIndexToString(a.output_index), " is ",
                          ShapeText(*output), ", not an array: only array buffers can be aliased"));
    }
    if (!parameters_seen.emplace(a.parameter, a.parameter_index).second) {
      return error(StrCat("parameter ", a.parameter, " element ",
                          ShapeIndexToString(a.parameter_index),
                          " is aliased to more than one output"));
    }
    if (!outputs_seen.insert(a.output_index).second) {
      return error(StrCat("output element ", ShapeIndexToString(a.output_index),
                          " is aliased to more than one parameter"));
    }
  }
  return absl::OkStatus();
}

}  // namespace hloscope::verifier_internal
