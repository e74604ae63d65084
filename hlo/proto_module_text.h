// An HloModuleProto as the HLO text XLA's printer writes for the same module (canonical style:
// no `%`, no operand shapes, no computation signatures; every attribute the proto carries).
//
// Internal to the proto reader: includes the generated schema header.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "hlo/xla_hlo.pb.h"

namespace hloscope {

// The text of `module`. Errors name the computation and instruction whose proto does not make
// a module: an id that names nothing, a literal that does not fit its shape, a name that is no
// HLO identifier.
absl::StatusOr<std::string> HloModuleProtoToText(const xla::HloModuleProto& module);

}  // namespace hloscope
