// sharding={...} text, as XLA's HloSharding prints it, → OpSharding:
//   {replicated}  {manual}  {unknown}  {maximal device=3}
//   {devices=[2,1,4]0,1,2,3,4,5,6,7 last_tile_dim_replicate}
//   {devices=[2,4]<=[4,2]T(1,0) last_tile_dims={manual}}
//   {{replicated}, {devices=[2]0,1}}                        (a tuple)
// each optionally followed by `metadata={...}` (or `metadata={{...}, {...}}`) and
// `shard_as N` / `shard_like N`.
#include <numeric>
#include <string>
#include <vector>

#include "hlo/proto_writer_internal.h"
#include "support/str_util.h"

namespace hloscope::proto_writer {
namespace {

absl::Status Err(std::string_view message) {
  return absl::InvalidArgumentError(std::string(message));
}

// Words separated by spaces at the top level (brackets and strings kept whole).
std::vector<std::string_view> Words(std::string_view text) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && text[i] == ' ') ++i;
    if (i >= text.size()) break;
    size_t start = i;
    int depth = 0;
    for (; i < text.size(); ++i) {
      char c = text[i];
      if (c == '"') {
        for (++i; i < text.size() && text[i] != '"'; ++i) {
          if (text[i] == '\\') ++i;
        }
      } else if (c == '{' || c == '[' || c == '(') {
        ++depth;
      } else if (c == '}' || c == ']' || c == ')') {
        --depth;
      } else if (c == ' ' && depth == 0) {
        break;
      }
    }
    out.push_back(text.substr(start, i - start));
  }
  return out;
}

absl::Status IntsInBrackets(std::string_view text, char open, char close,
                            std::vector<int64_t>* out) {
  if (text.size() < 2 || text.front() != open || text.back() != close) {
    return Err(StrCat("expected '", std::string(1, open), "...", std::string(1, close),
                      "', found '", text, "'"));
  }
  for (std::string_view p : SplitTopLevel(text.substr(1, text.size() - 2), ',')) {
    absl::StatusOr<int64_t> v = OneInt(p);
    if (!v.ok()) return v.status();
    out->push_back(*v);
  }
  return absl::OkStatus();
}

// `devices=[2,1,4]0,1,2,...` or `devices=[2,1,4]<=[8]` / `<=[4,2]T(1,0)`.
absl::Status DevicesToProto(std::string_view value, xla_proto::OpSharding* out) {
  size_t close = value.find(']');
  if (value.empty() || value.front() != '[' || close == std::string_view::npos) {
    return Err(StrCat("expected 'devices=[dims]...', found '", value, "'"));
  }
  std::vector<int64_t> dims;
  absl::Status s = IntsInBrackets(value.substr(0, close + 1), '[', ']', &dims);
  if (!s.ok()) return s;
  for (int64_t d : dims) out->add_tile_assignment_dimensions(d);
  std::string_view rest = value.substr(close + 1);
  if (rest.substr(0, 2) == "<=") {
    rest.remove_prefix(2);
    size_t end = rest.find(']');
    if (end == std::string_view::npos) return Err(StrCat("expected '<=[dims]' in '", value, "'"));
    std::vector<int64_t> reshape;
    s = IntsInBrackets(rest.substr(0, end + 1), '[', ']', &reshape);
    if (!s.ok()) return s;
    for (int64_t d : reshape) out->add_iota_reshape_dims(d);
    rest = rest.substr(end + 1);
    std::vector<int64_t> perm;
    if (rest.empty()) {
      // XLA writes the permutation even when it is the identity.
      perm.resize(reshape.size());
      std::iota(perm.begin(), perm.end(), 0);
    } else {
      if (rest.front() != 'T') return Err(StrCat("expected 'T(perm)' in '", value, "'"));
      s = IntsInBrackets(rest.substr(1), '(', ')', &perm);
      if (!s.ok()) return s;
    }
    for (int64_t p : perm) out->add_iota_transpose_perm(p);
    return absl::OkStatus();
  }
  for (std::string_view d : SplitTopLevel(rest, ',')) {
    absl::StatusOr<int64_t> v = OneInt(d);
    if (!v.ok()) return v.status();
    out->add_tile_assignment_devices(*v);
  }
  return absl::OkStatus();
}

absl::Status SubgroupTypes(std::string_view value, xla_proto::OpSharding* out) {
  absl::StatusOr<std::string_view> body = BraceBody(value);
  if (!body.ok()) return body.status();
  for (std::string_view t : SplitTopLevel(*body, ',')) {
    if (t == "manual") {
      out->add_last_tile_dims(xla_proto::OpSharding::MANUAL);
    } else if (t == "replicated") {
      out->add_last_tile_dims(xla_proto::OpSharding::REPLICATED);
    } else if (t == "unreduced") {
      out->add_last_tile_dims(xla_proto::OpSharding::UNREDUCED);
    } else if (t == "maximal") {
      out->add_last_tile_dims(xla_proto::OpSharding::MAXIMAL);
    } else {
      return Err(StrCat("unknown last_tile_dims type '", t, "'"));
    }
  }
  return absl::OkStatus();
}

absl::Status MetadataList(std::string_view value, xla_proto::OpSharding* out) {
  absl::StatusOr<std::string_view> body = BraceBody(value);
  if (!body.ok()) return body.status();
  if (!body->empty() && body->front() == '{') {
    for (std::string_view m : SplitTopLevel(*body, ',')) {
      absl::StatusOr<std::string_view> inner = BraceBody(m);
      if (!inner.ok()) return inner.status();
      absl::Status s = MetadataToProto(*inner, out->add_metadata());
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }
  return MetadataToProto(*body, out->add_metadata());
}

absl::Status SingleSharding(std::string_view inner, xla_proto::OpSharding* out) {
  std::vector<std::string_view> words = Words(inner);
  bool has_type = false;
  for (size_t i = 0; i < words.size(); ++i) {
    std::string_view w = words[i];
    absl::Status s;
    if (w == "replicated" || w == "manual" || w == "unknown" || w == "unreduced") {
      out->set_type(w == "replicated" ? xla_proto::OpSharding::REPLICATED
                    : w == "manual"   ? xla_proto::OpSharding::MANUAL
                    : w == "unknown"  ? xla_proto::OpSharding::UNKNOWN
                                      : xla_proto::OpSharding::UNREDUCED);
      has_type = true;
    } else if (w == "maximal") {
      if (i + 1 >= words.size() || words[i + 1].substr(0, 7) != "device=") {
        return Err("expected 'device=N' after 'maximal'");
      }
      absl::StatusOr<int64_t> d = OneInt(words[++i].substr(7));
      if (!d.ok()) return d.status();
      out->set_type(xla_proto::OpSharding::MAXIMAL);
      out->add_tile_assignment_dimensions(1);
      out->add_tile_assignment_devices(*d);
      has_type = true;
    } else if (w.substr(0, 8) == "devices=") {
      out->set_type(xla_proto::OpSharding::OTHER);
      s = DevicesToProto(w.substr(8), out);
      has_type = true;
    } else if (w == "last_tile_dim_replicate") {
      out->set_replicate_on_last_tile_dim(true);
    } else if (w.substr(0, 15) == "last_tile_dims=") {
      s = SubgroupTypes(w.substr(15), out);
    } else if (w.substr(0, 9) == "metadata=") {
      s = MetadataList(w.substr(9), out);
    } else if (w == "shard_as" || w == "shard_like") {
      if (i + 1 >= words.size()) return Err(StrCat("expected a group id after '", w, "'"));
      absl::StatusOr<int64_t> id = OneInt(words[++i]);
      if (!id.ok()) return id.status();
      out->set_is_shard_group(true);
      out->set_shard_group_id(*id);
      out->set_shard_group_type(w == "shard_as" ? xla_proto::OpSharding::AS
                                                : xla_proto::OpSharding::LIKE);
    } else {
      return Err(StrCat("unknown sharding part '", w, "'"));
    }
    if (!s.ok()) return s;
  }
  if (!has_type) return Err(StrCat("no sharding type in '{", inner, "}'"));
  return absl::OkStatus();
}

}  // namespace

absl::Status ShardingToProto(std::string_view inner, xla_proto::OpSharding* out) {
  inner = StripWhitespace(inner);
  if (!inner.empty() && inner.front() == '{') {
    out->set_type(xla_proto::OpSharding::TUPLE);
    for (std::string_view element : SplitTopLevel(inner, ',')) {
      absl::StatusOr<std::string_view> body = BraceBody(element);
      if (!body.ok()) return body.status();
      absl::Status s = SingleSharding(*body, out->add_tuple_shardings());
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }
  return SingleSharding(inner, out);
}

}  // namespace hloscope::proto_writer
