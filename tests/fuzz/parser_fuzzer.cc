// libFuzzer target for the HLO text parser (built with -DHLOSCOPE_FUZZ=ON; see scripts/fuzz).
//
// Any input must give a module or a status, never a crash or a sanitizer report. An input
// that parses must also survive a round trip: printing it and parsing the printed text again
// has to succeed, or the printer wrote something the parser cannot read back, and printing
// that second module must give the same text (print is a fixed point after one round).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "hlo/parser.h"
#include "hlo/printer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto module = hloscope::ParseModule(text);
  if (!module.ok()) return 0;

  std::string printed = hloscope::PrintModule(**module);
  auto reparsed = hloscope::ParseModule(printed, {.filename = "<printed>"});
  if (!reparsed.ok()) {
    std::fprintf(stderr,
                 "round trip failed: the printed module does not parse\n"
                 "--- printed module ---\n%s\n--- error ---\n%s\n",
                 printed.c_str(), std::string(reparsed.status().message()).c_str());
    std::abort();
  }
  std::string printed_again = hloscope::PrintModule(**reparsed);
  if (printed_again != printed) {
    size_t at = 0;
    while (at < printed.size() && at < printed_again.size() && printed[at] == printed_again[at]) {
      ++at;
    }
    std::fprintf(stderr,
                 "round trip failed: printing the reparsed module gives other text, first "
                 "difference at byte %zu\n--- first print ---\n%s\n--- second print ---\n%s\n",
                 at, printed.c_str(), printed_again.c_str());
    std::abort();
  }
  return 0;
}
