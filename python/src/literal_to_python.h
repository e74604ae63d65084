// An interpreter value (eval/literal.h) as plain Python values, for Module.run (docs/python.md):
// an array is nested lists, one level per dimension (a scalar is the element itself); elements
// are bool (pred), int (every integer type, exactly: u64 above 2^63 stays positive), float
// (every floating-point type; each is exact as a double) or complex (c64, c128); a tuple is a
// Python tuple of its elements; a token is None. A bounded dynamic array gives the elements
// inside its dynamic sizes, as hlo-run prints them. No numpy: notebooks convert if they wish.
#pragma once

#include <pybind11/pybind11.h>

#include "eval/literal.h"

namespace hloscope::python {

pybind11::object LiteralToPython(const eval::Literal& literal);

}  // namespace hloscope::python
