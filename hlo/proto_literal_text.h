// A LiteralProto as the text of `constant(...)`: the values in logical (row-major) order,
// written as XLA's printer writes them on one line (`1`, `{1, 2}`, `{ { 1, 2 }, { 3, 4 } }`,
// `true`, `(1, 2)` for complex, a tuple of literals in parentheses).
//
// Internal to the proto reader: includes the generated schema header.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "hlo/xla_hlo.pb.h"

namespace hloscope {

// Appends the text of `literal`, whose shape is `shape` (the constant's; the literal's own
// shape, when it has one, gives the order of the stored values). An error says what does not
// fit: a value count that is not the shape's element count, or an element type with no values.
absl::Status AppendLiteralText(const xla::LiteralProto& literal, const xla::ShapeProto& shape,
                               std::string& out);

}  // namespace hloscope
