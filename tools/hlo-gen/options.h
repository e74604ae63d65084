// hlo-gen's settings and their command-line parsing (kept out of main so tests can build
// Options the way the tool does).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "tools/common/flag_table.h"

namespace hloscope::gen {

enum class Layout { kSpmdCircular, kMpmd };
enum class Remat { kNone, kOutProj, kFull };

struct Options {
  Layout layout = Layout::kSpmdCircular;
  int stage = -1;  // mpmd: only this stage; -1 = all stages
  int64_t layers = 8;
  int64_t hidden = 1024;
  int64_t heads = 16;
  int64_t seq = 2048;
  int64_t microbatch = 2;
  int64_t microbatches = 8;
  int64_t stages = 4;
  std::string dtype = "bf16";
  Remat remat = Remat::kOutProj;
  bool xla_copies = true;
  bool scheduled = false;
  bool unroll = false;
  uint64_t seed = 0;
  std::string output = "-";
  bool help = false;

  int64_t head_dim() const { return hidden / heads; }
  int64_t ffn() const { return 4 * hidden; }
  int64_t layers_per_stage() const { return layers / stages; }
  int64_t vocab() const { return 32000; }
};

// The table whose handlers fill `options` (which must outlive it): tools/common/flag_table.h.
FlagTable OptionsTable(Options& options);

// The whole --help text.
std::string HelpText();

// Parses argv into *options. Returns an empty string on success, else the usage error
// (without the "hlo-gen: error: " prefix). Also checks that the sizes fit together.
std::string ParseOptions(int argc, char** argv, Options* options);

}  // namespace hloscope::gen
