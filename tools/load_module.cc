#include "tools/load_module.h"

#include <chrono>
#include <utility>

#include "absl/strings/cord.h"
#include "hlo/parser.h"
#include "hlo/verifier.h"

namespace hloscope {
namespace {

// Marks a status as a failure to read the input (a payload, so no status code is overloaded).
constexpr std::string_view kReadErrorPayload = "hloscope/load-module/read-error";

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

absl::StatusOr<std::unique_ptr<Module>> ParseAndVerify(const ModuleSource& source,
                                                       LoadTimes* times) {
  auto start = std::chrono::steady_clock::now();
  absl::StatusOr<std::unique_ptr<Module>> module =
      ParseModule(source.text, {.filename = source.filename, .first_line = source.first_line});
  if (times != nullptr) times->parse_seconds = SecondsSince(start);
  if (!module.ok()) return module.status();
  start = std::chrono::steady_clock::now();
  VerifierOptions verifier_options;
  verifier_options.source_text = source.text;  // errors then point into the file
  if (absl::Status s = VerifyModule(**module, verifier_options); !s.ok()) return s;
  if (times != nullptr) times->verify_seconds = SecondsSince(start);
  return module;
}

std::string InputName(const std::string& path) { return path == "-" ? "<stdin>" : path; }

absl::StatusOr<LoadedModule> LoadModule(const std::string& path, const LoadOptions& options) {
  LoadedModule loaded;
  loaded.filename = options.filename.empty() ? InputName(path) : options.filename;
  loaded.file = std::make_unique<InputFile>();
  if (std::string error; !loaded.file->Read(path, &error)) {
    absl::Status status = absl::InvalidArgumentError(error);
    status.SetPayload(absl::string_view(kReadErrorPayload.data(), kReadErrorPayload.size()),
                      absl::Cord());
    return status;
  }
  absl::StatusOr<std::unique_ptr<Module>> module =
      ParseAndVerify({.text = loaded.text(), .filename = loaded.filename});
  if (!module.ok()) return module.status();
  loaded.module = *std::move(module);
  return loaded;
}

bool IsReadError(const absl::Status& status) {
  return status.GetPayload(absl::string_view(kReadErrorPayload.data(), kReadErrorPayload.size()))
      .has_value();
}

}  // namespace hloscope
