// A status's message as a std::string. Debian's abseil has its own absl::string_view
// (ABSL_OPTION_USE_STD_STRING_VIEW=0), which std::string and fmt do not take directly; this is
// the one conversion every library, tool and test uses.
#pragma once

#include <string>

#include "absl/status/status.h"

namespace hloscope {

// The message of `status` ("" for OK), without the code.
inline std::string StatusText(const absl::Status& status) {
  return std::string(status.message().data(), status.message().size());
}

}  // namespace hloscope
