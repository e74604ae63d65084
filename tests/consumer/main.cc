// Parses a small module with an installed hloscope and prints it back: proves the installed
// headers, library and package config are enough to build against.
#include <cstdio>
#include <string>

#include "hlo/parser.h"
#include "hlo/printer.h"
#include "support/status_text.h"

int main() {
  constexpr const char* kModule = R"(HloModule consumer_smoke

ENTRY main {
  x = f32[4]{0} parameter(0)
  y = f32[4]{0} parameter(1)
  ROOT sum = f32[4]{0} add(x, y)
}
)";
  auto module = hloscope::ParseModule(kModule);
  if (!module.ok()) {
    std::fprintf(stderr, "parse failed: %s\n", hloscope::StatusText(module.status()).c_str());
    return 1;
  }
  std::fputs(hloscope::PrintModule(**module).c_str(), stdout);
  return 0;
}
