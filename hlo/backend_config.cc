#include "hlo/backend_config.h"

#include <cctype>
#include <charconv>

#include "hlo/attribute_values.h"

namespace hloscope {
namespace {

bool IsKeyChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

}  // namespace

std::string BackendConfigText(const Instruction& instr) {
  std::string config(RawAttribute(instr, "backend_config").value_or(""));
  for (size_t at = config.find("\\\""); at != std::string::npos; at = config.find("\\\"", at))
    config.erase(at, 1);
  return config;
}

std::optional<std::string_view> ConfigField(std::string_view json, std::string_view key) {
  for (size_t at = json.find(key); at != std::string_view::npos; at = json.find(key, at + 1)) {
    // A whole key: not part of a longer name on either side.
    if (at > 0 && IsKeyChar(json[at - 1])) continue;
    size_t end = at + key.size();
    if (end < json.size() && IsKeyChar(json[end])) continue;
    if (end < json.size() && json[end] == '"') ++end;
    while (end < json.size() && json[end] == ' ') ++end;
    if (end >= json.size() || json[end] != ':') continue;
    ++end;
    while (end < json.size() && (json[end] == ' ' || json[end] == '\n')) ++end;
    return json.substr(end);
  }
  return std::nullopt;
}

std::optional<double> ConfigNumber(std::string_view json, std::string_view key) {
  std::optional<std::string_view> v = ConfigField(json, key);
  if (!v) return std::nullopt;
  std::string_view s = *v;
  if (!s.empty() && s[0] == '"') s.remove_prefix(1);
  size_t end = 0;
  while (end < s.size() && (std::isdigit(static_cast<unsigned char>(s[end])) ||
                            std::string_view("+-.eE").find(s[end]) != std::string_view::npos))
    ++end;
  double d = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + end, d);
  if (end == 0 || ec != std::errc() || p != s.data() + end) return std::nullopt;
  return d;
}

std::optional<std::string_view> ConfigWord(std::string_view json, std::string_view key) {
  std::optional<std::string_view> v = ConfigField(json, key);
  if (!v) return std::nullopt;
  std::string_view s = *v;
  if (!s.empty() && s[0] == '"') s.remove_prefix(1);
  size_t end = 0;
  while (end < s.size() && (IsKeyChar(s[end]) || s[end] == '-' || s[end] == '.')) ++end;
  if (end == 0) return std::nullopt;
  return s.substr(0, end);
}

std::optional<std::vector<int64_t>> ConfigIntList(std::string_view json, std::string_view key) {
  std::optional<std::string_view> v = ConfigField(json, key);
  if (!v || v->empty() || (*v)[0] != '[') return std::nullopt;
  const size_t close = v->find(']');
  if (close == std::string_view::npos) return std::nullopt;
  std::vector<int64_t> out;
  std::string_view list = v->substr(1, close - 1);
  for (size_t i = 0; i < list.size();) {
    if (!std::isdigit(static_cast<unsigned char>(list[i]))) {
      ++i;
      continue;
    }
    int64_t n = 0;
    auto [p, ec] = std::from_chars(list.data() + i, list.data() + list.size(), n);
    if (ec != std::errc()) return std::nullopt;
    out.push_back(n);
    i = static_cast<size_t>(p - list.data());
  }
  return out;
}

}  // namespace hloscope
