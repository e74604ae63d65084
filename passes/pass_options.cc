#include "passes/pass_options.h"

#include "support/status_text.h"
#include "support/str_util.h"

namespace hloscope {

std::string_view PassOptionTypeName(PassOptionType type) {
  switch (type) {
    case PassOptionType::kBool:
      return "bool";
    case PassOptionType::kInt:
      return "int";
    case PassOptionType::kString:
      return "string";
    case PassOptionType::kEnum:
      return "enum";
  }
  return "?";
}

PassOption& PassOptions::Add(std::string_view name, PassOptionType type, std::string default_value,
                             std::string_view help) {
  PassOption& option = options_.emplace_back();
  option.name = std::string(name);
  option.type = type;
  option.default_value = std::move(default_value);
  option.help = std::string(help);
  return option;
}

void PassOptions::AddBool(std::string_view name, bool* field, std::string_view help) {
  Add(name, PassOptionType::kBool, *field ? "true" : "false", help).parse =
      [field](std::string_view text) -> absl::Status {
    if (text == "true" || text == "1") {
      *field = true;
    } else if (text == "false" || text == "0") {
      *field = false;
    } else {
      return absl::InvalidArgumentError(StrCat("'", text, "' is not a bool (true or false)"));
    }
    return absl::OkStatus();
  };
}

void PassOptions::AddInt(std::string_view name, int64_t* field, std::string_view help) {
  Add(name, PassOptionType::kInt, StrCat(*field), help).parse =
      [field](std::string_view text) -> absl::Status {
    if (!ParseInteger(text, field)) {
      return absl::InvalidArgumentError(StrCat("'", text, "' is not an int (a 64-bit integer)"));
    }
    return absl::OkStatus();
  };
}

void PassOptions::AddString(std::string_view name, std::string* field, std::string_view help) {
  Add(name, PassOptionType::kString, *field, help).parse =
      [field](std::string_view text) -> absl::Status {
    *field = std::string(text);
    return absl::OkStatus();
  };
}

const PassOption* PassOptions::Find(std::string_view name) const {
  for (const PassOption& option : options_) {
    if (option.name == name) return &option;
  }
  return nullptr;
}

bool PassOptions::WasSet(std::string_view name) const {
  const PassOption* option = Find(name);
  return option != nullptr && option->set;
}

std::string PassOptions::Names() const {
  std::vector<std::string_view> names;
  for (const PassOption& option : options_) names.push_back(option.name);
  return names.empty() ? std::string("none") : StrJoin(names, ", ");
}

absl::Status PassOptions::Set(std::string_view pass, std::string_view name, std::string_view text) {
  PassOption* option = const_cast<PassOption*>(Find(name));
  if (option == nullptr) {
    return absl::InvalidArgumentError(
        options_.empty()
            ? StrCat("pass '", pass, "' has no option '", name, "' (it has no options)")
            : StrCat("pass '", pass, "' has no option '", name, "' (its options: ", Names(), ")"));
  }
  if (absl::Status s = option->parse(text); !s.ok()) {
    return absl::InvalidArgumentError(
        StrCat("option '", name, "' of pass '", pass, "': ", StatusText(s)));
  }
  option->set = true;
  return absl::OkStatus();
}

std::string PassOptionsListing(const PassOptions& options, size_t indent) {
  std::string out;
  for (const PassOption& option : options.options()) {
    out.append(indent, ' ');
    StrAppend(&out, option.name, "=", option.default_value, " (", PassOptionTypeName(option.type));
    if (option.type == PassOptionType::kEnum) StrAppend(&out, ": ", StrJoin(option.choices, ", "));
    StrAppend(&out, "): ", option.help, "\n");
  }
  return out;
}

}  // namespace hloscope
