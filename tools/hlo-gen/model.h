// hlo-gen's module builders: a transformer layer's forward and backward as fused HLO, the
// spmd-circular pipeline module and the per-stage mpmd modules.
#pragma once

#include <cstdint>

#include "tools/hlo-gen/options.h"
#include "tools/hlo-gen/text_emitter.h"

namespace hloscope::gen {

struct GenStats {
  int64_t instructions = 0;
  int64_t bytes = 0;
};

// Writes one module to `sink`: the spmd-circular module, or mpmd stage `stage`.
GenStats GenerateModule(const Options& options, int stage, Sink& sink);

}  // namespace hloscope::gen
