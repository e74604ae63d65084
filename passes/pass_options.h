// The options a pass declares, settable from a pipeline string as in MLIR:
// `--passes=copy-elision{bitcast-defines-value=true}`.
//
//   class MyPass : public Pass {
//    public:
//     MyPass() {
//       mutable_pass_options().AddBool("keep-tuples", &keep_tuples_, "Leave tuples alone.");
//     }
//    private:
//     bool keep_tuples_ = false;
//   };
//
// An option binds a name to a field of the pass; its default is the field's value when it is
// declared, and `hlo-opt --list-passes` shows name, type, default and help. Set() parses text
// into the field (the pipeline parser calls it) and remembers that the option was set, so a
// tool-wide default (PipelineOptions::option_defaults) does not override what a pipeline
// string said. The fields belong to the pass, so a PassOptions is neither copied nor moved.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"

namespace hloscope {

enum class PassOptionType { kBool, kInt, kString, kEnum };

// "bool", "int", "string", "enum".
std::string_view PassOptionTypeName(PassOptionType type);

struct PassOption {
  std::string name;  // lower case words joined by '-', as pass names are
  PassOptionType type = PassOptionType::kBool;
  std::string default_value;         // as text: "false", "0", "", an enum choice
  std::string help;                  // one line
  std::vector<std::string> choices;  // kEnum: the accepted values, in declaration order
  // Parses `text` into the pass's field; InvalidArgument naming the expected form otherwise.
  std::function<absl::Status(std::string_view text)> parse;
  bool set = false;  // Set() succeeded at least once
};

class PassOptions {
 public:
  PassOptions() = default;
  PassOptions(const PassOptions&) = delete;
  PassOptions& operator=(const PassOptions&) = delete;

  // Declare an option bound to `*field` (which must outlive this object: a member of the pass).
  void AddBool(std::string_view name, bool* field, std::string_view help);
  void AddInt(std::string_view name, int64_t* field, std::string_view help);
  void AddString(std::string_view name, std::string* field, std::string_view help);
  // `choices` pairs each accepted text with its value; the field's current value must be one.
  template <typename E>
  void AddEnum(std::string_view name, E* field, std::vector<std::pair<std::string, E>> choices,
               std::string_view help);

  // Sets option `name` from `text`. Errors (InvalidArgument, for `pass` to be named):
  //   "pass 'P' has no option 'x' (its options: a, b)" / "(it has no options)";
  //   "option 'a' of pass 'P': 'maybe' is not a bool (true or false)".
  absl::Status Set(std::string_view pass, std::string_view name, std::string_view text);
  // The declared option `name`, or nullptr.
  const PassOption* Find(std::string_view name) const;
  // True when `name` is declared.
  bool Has(std::string_view name) const { return Find(name) != nullptr; }
  // True when Set() gave `name` a value (not its default).
  bool WasSet(std::string_view name) const;

  const std::vector<PassOption>& options() const { return options_; }
  // "a, b" or "none": the declared names, for messages.
  std::string Names() const;

 private:
  PassOption& Add(std::string_view name, PassOptionType type, std::string default_value,
                  std::string_view help);
  std::vector<PassOption> options_;  // declaration order: --list-passes shows them so
};

// One line per option for `hlo-opt --list-passes`, each indented by `indent` spaces:
//   "bitcast-defines-value=false (bool): Also require ..."; enums list their choices
//   "(enum: a, b)". Empty for none.
std::string PassOptionsListing(const PassOptions& options, size_t indent);

template <typename E>
void PassOptions::AddEnum(std::string_view name, E* field,
                          std::vector<std::pair<std::string, E>> choices, std::string_view help) {
  std::string current;
  std::vector<std::string> texts;
  for (const auto& [text, value] : choices) {
    texts.push_back(text);
    if (value == *field) current = text;
  }
  PassOption& option = Add(name, PassOptionType::kEnum, current, help);
  option.choices = texts;
  option.parse = [field, choices = std::move(choices), texts,
                  option_name = std::string(name)](std::string_view text) -> absl::Status {
    for (const auto& [choice, value] : choices) {
      if (choice == text) {
        *field = value;
        return absl::OkStatus();
      }
    }
    std::string list;
    for (const std::string& t : texts) list += (list.empty() ? "" : ", ") + t;
    return absl::InvalidArgumentError("'" + std::string(text) + "' is not one of " + list);
  };
}

}  // namespace hloscope
