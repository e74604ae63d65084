#include "eval/send_recv_pairs.h"

#include <algorithm>
#include <cctype>

#include "absl/status/status.h"
#include "hlo/attribute_values.h"
#include "hlo/computation.h"
#include "support/str_util.h"

namespace hloscope::eval {
namespace {

// The raw value of `key` in the frontend attributes' text: a quoted string without its quotes,
// or an unquoted value up to the comma that ends it outside braces ({{0,1},{1,2}} holds
// commas, which Instruction::FrontendAttribute would stop at).
std::optional<std::string_view> RawValue(std::string_view text, std::string_view key) {
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == ',' || text[i] == '\n')) ++i;
    size_t eq = text.find('=', i);
    if (eq == std::string_view::npos) return std::nullopt;
    std::string_view k = text.substr(i, eq - i);
    while (!k.empty() && std::isspace(static_cast<unsigned char>(k.back()))) k.remove_suffix(1);
    size_t v = eq + 1;
    while (v < text.size() && text[v] == ' ') ++v;
    size_t end = v;
    std::string_view value;
    if (v < text.size() && text[v] == '"') {
      end = v + 1;
      while (end < text.size() && text[end] != '"') end += (text[end] == '\\') ? 2 : 1;
      end = std::min(end, text.size());
      value = text.substr(v + 1, end - v - 1);
      end = std::min(end + 1, text.size());
    } else {
      int depth = 0;
      while (end < text.size() && (depth > 0 || text[end] != ',')) {
        if (text[end] == '{') ++depth;
        if (text[end] == '}') --depth;
        ++end;
      }
      value = text.substr(v, end - v);
    }
    if (k == key) return value;
    i = end;
  }
  return std::nullopt;
}

}  // namespace

absl::StatusOr<std::optional<std::vector<SourceTargetPair>>> SendRecvPairs(
    const Instruction& instr) {
  std::optional<std::string_view> raw =
      RawValue(instr.frontend_attributes(), kSendRecvPairsAttribute);
  if (!raw.has_value()) return std::nullopt;
  auto bad = [&](std::string_view why) {
    return absl::InvalidArgumentError(StrCat("cannot run %", instr.name(), ": ",
                                             kSendRecvPairsAttribute, "=", *raw, " ", why,
                                             " (expected {{source,target},...})"));
  };
  // Tokens: braces, commas and whole numbers; {{a,b},{c,d}} read as a flat list of pairs.
  std::string_view s = *raw;
  std::vector<SourceTargetPair> pairs;
  size_t i = 0;
  auto skip = [&] {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  };
  auto expect = [&](char c) {
    skip();
    if (i < s.size() && s[i] == c) {
      ++i;
      return true;
    }
    return false;
  };
  auto number = [&]() -> std::optional<int64_t> {
    skip();
    size_t start = i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    return ParseInt64(s.substr(start, i - start));
  };
  if (!expect('{')) return bad("does not start with '{'");
  skip();
  if (i < s.size() && s[i] == '}') {
    ++i;
  } else {
    while (true) {
      if (!expect('{')) return bad("has a pair that does not start with '{'");
      std::optional<int64_t> source = number();
      if (!source.has_value() || !expect(',')) return bad("has a pair without a source");
      std::optional<int64_t> target = number();
      if (!target.has_value() || !expect('}')) return bad("has a pair without a target");
      pairs.emplace_back(*source, *target);
      if (expect(',')) continue;
      if (expect('}')) break;
      return bad("has no closing '}'");
    }
  }
  skip();
  if (i != s.size()) return bad("has text after its last '}'");
  return pairs;
}

int64_t ReplicasNamed(const std::vector<SourceTargetPair>& pairs) {
  int64_t n = 0;
  for (const auto& [source, target] : pairs) n = std::max({n, source + 1, target + 1});
  return n;
}

int64_t ReplicasForSendRecv(const Module& module) {
  int64_t n = 0;
  for (const Computation* c : module.computations()) {
    for (const Instruction* instr : c->instructions()) {
      if (instr->opcode() != Opcode::kSend && instr->opcode() != Opcode::kRecv) continue;
      absl::StatusOr<std::optional<std::vector<SourceTargetPair>>> pairs = SendRecvPairs(*instr);
      if (!pairs.ok() || !pairs->has_value()) continue;
      n = std::max(n, ReplicasNamed(**pairs));
    }
  }
  return n;
}

}  // namespace hloscope::eval
