// `--assume-donated=all|LIST` (issue 33): what copy-elision and the memory report would do if
// the caller donated some entry parameters, as JAX's `donate_argnums` or PyTorch/XLA's buffer
// donation would.
//
// A donated parameter is a buffer the caller hands over: XLA may reuse it for an output of the
// same shape (XLA's OptimizeInputOutputBufferAlias pairs each donor with one output of its
// shape, in order). The assumption is applied the same way, as may-alias entries of the module's
// input_output_alias: each donated array element (in parameter order) takes the first output
// element of a compatible shape (layouts aside) that no alias names yet. The module then carries
// the entries both decoded (Module::input_output_aliases(), read by every analysis) and as its
// header attribute, so that a printed or proto output tells XLA and the caller what the removed
// copies now rely on.
//
//   absl::StatusOr<DonationAssumption> a = ParseDonationAssumption("3,8{0}");
//   absl::StatusOr<DonationResult> r = AssumeDonated(module, *a);
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/input_output_alias.h"
#include "hlo/module.h"
#include "hlo/shape.h"

namespace hloscope {

struct DonatedParameter {
  int64_t parameter = 0;
  std::optional<ShapeIndex> index;  // nullopt: every array element of the parameter
};

struct DonationAssumption {
  bool all = false;  // every entry parameter
  std::vector<DonatedParameter> parameters;
};

// `all`, or entry parameter numbers separated by commas, each optionally followed by the shape
// index of one element of a tuple parameter: `3,8`, `3{0,1},5`. Errors (messages without the
// flag's name): an empty text or list entry, a word that is not a number, a number named twice
// (or both whole and by element), `all` mixed with numbers.
absl::StatusOr<DonationAssumption> ParseDonationAssumption(std::string_view text);

struct DonationResult {
  std::vector<InputOutputAlias> added;  // the entries the assumption added
  // Donated elements no output could take (no output element of their shape left), as
  // `parameter 3{0} f32[8]`: donating them frees nothing.
  std::vector<std::string> unused;
};

// Adds the assumption to `module`'s input_output_alias. Elements that an alias already names
// are left as they are. Errors: a parameter number past the entry's parameters, an index that
// the parameter's shape does not have.
absl::StatusOr<DonationResult> AssumeDonated(Module& module, const DonationAssumption& assumption);

// The header attribute's text for `aliases`: `{ {0}: (3, {}, may-alias), ... }`.
std::string InputOutputAliasText(absl::Span<const InputOutputAlias> aliases);

}  // namespace hloscope
