#include "passes/pass.h"

#include "passes/pass_report.h"

namespace hloscope {

// Defined out of line so the vtable is emitted once, in this library.
Pass::~Pass() = default;

std::unique_ptr<PassReport> Pass::LastReport() const { return nullptr; }

PassReport::~PassReport() = default;

std::string PassReport::Warning(std::string_view) const { return ""; }

}  // namespace hloscope
