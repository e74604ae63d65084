#include "passes/pass_pipeline.h"

#include <chrono>
#include <string>
#include <utility>

#include "support/status_text.h"
#include "support/str_util.h"

namespace hloscope {

namespace {}  // namespace

absl::StatusOr<bool> PassPipeline::RunOnModule(Module& module, AnalysisCache& analyses) {
  records_.clear();
  bool changed = false;
  for (const std::unique_ptr<Pass>& pass : passes_) {
    auto start = std::chrono::steady_clock::now();
    // Run drops the shared analyses when the pass changed the module; a pass that changed
    // nothing leaves them to the next pass.
    absl::StatusOr<bool> result = pass->Run(module, analyses);
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    records_.push_back({pass->name(), result.ok() && *result, seconds});
    if (!result.ok()) {
      return absl::Status(
          result.status().code(),
          StrCat("pass '", pass->name(), "' failed: ", StatusText(result.status())));
    }
    changed |= *result;
    if (options_.verify_each) {
      if (absl::Status s = VerifyModule(module, options_.verifier); !s.ok()) {
        return absl::InternalError(
            StrCat("pass '", pass->name(), "' left an invalid module: ", StatusText(s)));
      }
    }
  }
  return changed;
}

namespace {

// Reads a pass list one pass at a time: NAME or NAME{KEY=VALUE,...}, then ',' or the end.
class PassListReader {
 public:
  PassListReader(std::string_view text, const PassRegistry& registry,
                 absl::Span<const std::pair<std::string, std::string>> option_defaults)
      : text_(text), registry_(registry), option_defaults_(option_defaults) {}

  bool AtEnd() {
    SkipSpace();
    return pos_ >= text_.size();
  }

  // The next pass, configured; leaves the reader after the ',' that follows it (if any).
  absl::StatusOr<std::unique_ptr<Pass>> Next() {
    SkipSpace();
    const size_t begin = pos_;
    while (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != '{' && text_[pos_] != '}') {
      ++pos_;
    }
    std::string_view name = StripWhitespace(text_.substr(begin, pos_ - begin));
    if (name.empty()) {
      if (pos_ < text_.size() && text_[pos_] == '}') return Unexpected('}');
      return absl::InvalidArgumentError(StrCat("empty pass name in pass list '", text_, "'"));
    }
    absl::StatusOr<std::unique_ptr<Pass>> pass = registry_.Create(name);
    if (!pass.ok()) return pass.status();
    if (pos_ < text_.size() && text_[pos_] == '{') {
      ++pos_;
      if (absl::Status s = ReadOptions(**pass); !s.ok()) return s;
    }
    for (const auto& [option, value] : option_defaults_) {
      PassOptions& options = (*pass)->mutable_pass_options();
      if (!options.Has(option) || options.WasSet(option)) continue;
      if (absl::Status s = options.Set(name, option, value); !s.ok()) return s;
    }
    SkipSpace();
    if (pos_ < text_.size()) {
      if (text_[pos_] == '}') return Unexpected('}');
      if (text_[pos_] != ',') {
        return absl::InvalidArgumentError(StrCat("expected ',' after the options of pass '", name,
                                                 "' in pass list '", text_, "', found '",
                                                 text_.substr(pos_, 1), "'"));
      }
      ++pos_;
      if (AtEnd()) {
        return absl::InvalidArgumentError(StrCat("empty pass name in pass list '", text_, "'"));
      }
    }
    return pass;
  }

 private:
  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
  }

  absl::Status Unexpected(char c) {
    return absl::InvalidArgumentError(StrCat("unbalanced braces in pass list '", text_, "': '", c,
                                             "' at column ", pos_ + 1, " closes nothing"));
  }

  // After '{': KEY[=VALUE] pairs up to the matching '}'.
  absl::Status ReadOptions(Pass& pass) {
    const std::string_view name = pass.name();
    bool any = false;  // an option was read
    while (true) {
      SkipSpace();
      const size_t begin = pos_;
      while (pos_ < text_.size() && text_[pos_] != '=' && text_[pos_] != ',' &&
             text_[pos_] != '}' && text_[pos_] != '{') {
        ++pos_;
      }
      if (pos_ >= text_.size()) return Unclosed(name);
      if (text_[pos_] == '{') {
        return absl::InvalidArgumentError(StrCat("unbalanced braces in pass list '", text_,
                                                 "': '{' inside the options of pass '", name, "'"));
      }
      std::string_view key = StripWhitespace(text_.substr(begin, pos_ - begin));
      if (key.empty()) {
        if (text_[pos_] == '}' && !any) {  // "name{}": no options
          ++pos_;
          return absl::OkStatus();
        }
        return absl::InvalidArgumentError(StrCat("empty option name in the options of pass '", name,
                                                 "' in pass list '", text_, "'"));
      }
      std::string value;
      if (text_[pos_] == '=') {
        ++pos_;
        absl::StatusOr<std::string> read = ReadValue(name);
        if (!read.ok()) return read.status();
        value = *std::move(read);
      } else {
        const PassOption* option = pass.pass_options().Find(key);
        if (option != nullptr && option->type != PassOptionType::kBool) {
          return absl::InvalidArgumentError(
              StrCat("option '", key, "' of pass '", name, "' needs a value (", key, "=VALUE)"));
        }
        value = "true";  // a bare bool option turns it on, as in MLIR
      }
      if (pass.pass_options().WasSet(key)) {
        return absl::InvalidArgumentError(
            StrCat("option '", key, "' of pass '", name, "' is set twice"));
      }
      if (absl::Status s = pass.mutable_pass_options().Set(name, key, value); !s.ok()) return s;
      any = true;
      SkipSpace();
      if (pos_ >= text_.size()) return Unclosed(name);
      if (text_[pos_] == '}') {
        ++pos_;
        return absl::OkStatus();
      }
      ++pos_;  // ','
    }
  }

  // After '=': a quoted string, or the text up to the next ',' or '}' without its spaces.
  absl::StatusOr<std::string> ReadValue(std::string_view pass) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == '"') {
      const size_t close = text_.find('"', pos_ + 1);
      if (close == std::string_view::npos) {
        return absl::InvalidArgumentError(StrCat("unterminated '\"' in the options of pass '", pass,
                                                 "' in pass list '", text_, "'"));
      }
      std::string value(text_.substr(pos_ + 1, close - pos_ - 1));
      pos_ = close + 1;
      SkipSpace();
      if (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != '}') {
        return absl::InvalidArgumentError(
            StrCat("expected ',' or '}' after a quoted value in the options of pass '", pass,
                   "' in pass list '", text_, "'"));
      }
      return value;
    }
    const size_t begin = pos_;
    while (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != '}' && text_[pos_] != '{') {
      ++pos_;
    }
    if (pos_ < text_.size() && text_[pos_] == '{') {
      return absl::InvalidArgumentError(StrCat("unbalanced braces in pass list '", text_,
                                               "': '{' inside the options of pass '", pass, "'"));
    }
    return std::string(StripWhitespace(text_.substr(begin, pos_ - begin)));
  }

  absl::Status Unclosed(std::string_view pass) {
    return absl::InvalidArgumentError(StrCat("unbalanced braces in pass list '", text_,
                                             "': no '}' closes the options of pass '", pass, "'"));
  }

  std::string_view text_;
  const PassRegistry& registry_;
  absl::Span<const std::pair<std::string, std::string>> option_defaults_;
  size_t pos_ = 0;
};

}  // namespace

absl::StatusOr<std::unique_ptr<PassPipeline>> BuildPipeline(std::string_view pass_list,
                                                            const PassRegistry& registry,
                                                            PipelineOptions options) {
  auto pipeline = std::make_unique<PassPipeline>(options);
  if (StripWhitespace(pass_list).empty()) return pipeline;
  PassListReader reader(pass_list, registry, options.option_defaults);
  while (!reader.AtEnd()) {
    absl::StatusOr<std::unique_ptr<Pass>> pass = reader.Next();
    if (!pass.ok()) return pass.status();
    pipeline->AddPass(*std::move(pass));
  }
  return pipeline;
}

absl::StatusOr<std::unique_ptr<Pass>> CreatePass(
    std::string_view spec, const PassRegistry& registry,
    absl::Span<const std::pair<std::string, std::string>> option_defaults) {
  PassListReader reader(spec, registry, option_defaults);
  absl::StatusOr<std::unique_ptr<Pass>> pass = reader.Next();
  if (pass.ok() && !reader.AtEnd()) {
    return absl::InvalidArgumentError(
        StrCat("'", spec, "' names more than one pass (CreatePass takes one)"));
  }
  return pass;
}

}  // namespace hloscope
