#include "passes/pass.h"

namespace hloscope {

// Defined out of line so the vtable is emitted once, in this library.
Pass::~Pass() = default;

}  // namespace hloscope
