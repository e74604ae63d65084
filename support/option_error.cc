#include "support/option_error.h"

#include <charconv>
#include <optional>
#include <utility>

#include "absl/strings/cord.h"
#include "support/status_text.h"

namespace hloscope {
namespace {

// The payload: "OPTION:N", N the bytes of the message after the option's name.
constexpr std::string_view kPayloadUrl = "hloscope/option-error";
// The payload of a refusal that an option would lift: the option's name alone.
constexpr std::string_view kLiftingPayloadUrl = "hloscope/lifting-option";

absl::string_view AbslView(std::string_view text) {
  return absl::string_view(text.data(), text.size());
}

struct OptionAt {
  std::string option;
  size_t after = 0;  // bytes of the message after the option's name
};

void SetOption(absl::Status& status, const OptionAt& at) {
  const std::string payload = at.option + ":" + std::to_string(at.after);
  status.SetPayload(AbslView(kPayloadUrl), absl::Cord(AbslView(payload)));
}

// The recorded option, when its name still stands where the payload says.
std::optional<OptionAt> FindOption(const absl::Status& status) {
  const auto payload = status.GetPayload(AbslView(kPayloadUrl));
  if (!payload) return std::nullopt;
  const std::string text(*payload);
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos) return std::nullopt;
  OptionAt at{text.substr(0, colon), 0};
  const char* digits_end = text.data() + text.size();
  if (std::from_chars(text.data() + colon + 1, digits_end, at.after).ptr != digits_end) {
    return std::nullopt;
  }
  const std::string message = StatusText(status);
  if (at.after + at.option.size() > message.size()) return std::nullopt;
  const size_t start = message.size() - at.after - at.option.size();
  if (message.compare(start, at.option.size(), at.option) != 0) return std::nullopt;
  return at;
}

}  // namespace

absl::Status InvalidOptionError(std::string_view before, std::string_view option,
                                std::string_view after) {
  std::string message(before);
  message += option;
  message += after;
  absl::Status status = absl::InvalidArgumentError(AbslView(message));
  SetOption(status, {std::string(option), after.size()});
  return status;
}

std::string ErrorOption(const absl::Status& status) {
  const std::optional<OptionAt> at = FindOption(status);
  return at ? at->option : std::string();
}

absl::Status LiftedByOption(absl::Status status, std::string_view option) {
  if (status.ok()) return status;
  status.SetPayload(AbslView(kLiftingPayloadUrl), absl::Cord(AbslView(option)));
  return status;
}

std::string LiftingOption(const absl::Status& status) {
  const auto payload = status.GetPayload(AbslView(kLiftingPayloadUrl));
  return payload ? std::string(*payload) : std::string();
}

absl::Status PrefixError(const absl::Status& status, std::string_view prefix) {
  const std::string message = std::string(prefix) + StatusText(status);
  absl::Status out(status.code(), AbslView(message));
  if (const std::optional<OptionAt> at = FindOption(status)) SetOption(out, *at);
  const std::string lifting = LiftingOption(status);
  if (!lifting.empty()) out = LiftedByOption(std::move(out), lifting);
  return out;
}

absl::Status RespellOption(const absl::Status& status,
                           const std::function<std::string(std::string_view option)>& spelling) {
  const std::optional<OptionAt> at = FindOption(status);
  if (at) {
    const std::string spelled = spelling(at->option);
    if (spelled.empty()) return status;
    std::string message = StatusText(status);
    message.replace(message.size() - at->after - at->option.size(), at->option.size(), spelled);
    return absl::Status(status.code(), AbslView(message));
  }
  const std::string lifting = LiftingOption(status);
  if (lifting.empty()) return status;
  const std::string spelled = spelling(lifting);
  if (spelled.empty()) return status;
  const std::string message = StatusText(status) + " (" + spelled + ")";
  return absl::Status(status.code(), AbslView(message));
}

}  // namespace hloscope
