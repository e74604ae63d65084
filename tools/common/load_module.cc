#include "tools/common/load_module.h"

#include <chrono>
#include <utility>

#include "hlo/input_kind.h"
#include "hlo/parser.h"
#include "hlo/verifier.h"
#include "support/option_error.h"

namespace hloscope {
namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The parser names its options as the library does (support/option_error.h): splitting the
// input and forcing its format are the tools' flags.
absl::Status WithInputFlag(const absl::Status& status) {
  return RespellOption(status, [](std::string_view option) -> std::string {
    if (option == "split_input_file") return "--split-input-file";
    if (option == kInputFormatOption) return "hlo-opt --input-format";
    return "";
  });
}

}  // namespace

absl::StatusOr<std::unique_ptr<Module>> ParseAndVerify(const ModuleSource& source,
                                                       LoadTimes* times) {
  auto start = std::chrono::steady_clock::now();
  absl::StatusOr<std::unique_ptr<Module>> module =
      ParseModule(source.text, {.filename = source.filename, .first_line = source.first_line});
  if (times != nullptr) times->parse_seconds = SecondsSince(start);
  if (!module.ok()) return WithInputFlag(module.status());
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
  loaded.label = options.label.empty() ? InputName(path) : options.label;
  loaded.file = std::make_unique<InputFile>();
  if (std::string error; !loaded.file->Read(path, &error)) return absl::NotFoundError(error);
  loaded.converted = std::make_unique<std::string>();
  absl::StatusOr<HloTextInput> text = InputAsHloText(loaded.label, loaded.file->text(),
                                                     options.input_format, loaded.converted.get());
  if (!text.ok()) return text.status();
  absl::StatusOr<std::unique_ptr<Module>> module =
      ParseAndVerify({.text = text->text, .filename = text->filename});
  if (!module.ok()) return module.status();
  loaded.module = *std::move(module);
  return loaded;
}

bool IsReadError(const absl::Status& status) { return absl::IsNotFound(status); }

}  // namespace hloscope
