// Instruction attributes (`key=value` as the IR keeps them) → HloInstructionProto fields, and
// the small text readers the writer's files share.
#include <cctype>
#include <optional>
#include <string>
#include <vector>

#include "hlo/attribute_values.h"
#include "hlo/convolution_shape.h"
#include "hlo/proto_writer_internal.h"
#include "hlo/shape_parser.h"
#include "hlo/text_cursor.h"
#include "hlo/window_attribute.h"
#include "support/escapes.h"
#include "support/status_text.h"
#include "support/str_util.h"

namespace hloscope::proto_writer {

absl::StatusOr<std::string> Unquoted(std::string_view text) {
  if (text.size() < 2 || text.front() != '"' || text.back() != '"') {
    return absl::InvalidArgumentError(StrCat("expected a quoted string, found '", text, "'"));
  }
  return UnescapeCString(text.substr(1, text.size() - 2));
}

absl::StatusOr<int64_t> OneInt(std::string_view text) {
  std::optional<int64_t> v = ParseInt64(StripWhitespace(text));
  if (!v) return absl::InvalidArgumentError(StrCat("expected an integer, found '", text, "'"));
  return *v;
}

absl::StatusOr<bool> OneBool(std::string_view text) {
  text = StripWhitespace(text);
  if (text == "true") return true;
  if (text == "false") return false;
  return absl::InvalidArgumentError(StrCat("expected true or false, found '", text, "'"));
}

absl::StatusOr<std::string_view> BraceBody(std::string_view text) {
  text = StripWhitespace(text);
  if (text.size() < 2 || text.front() != '{' || text.back() != '}') {
    return absl::InvalidArgumentError(StrCat("expected '{...}', found '", text, "'"));
  }
  return StripWhitespace(text.substr(1, text.size() - 2));
}

absl::StatusOr<std::vector<int64_t>> IntList(std::string_view text) {
  text = StripWhitespace(text);
  std::vector<int64_t> out;
  if (!text.empty() && text.front() != '{') {
    absl::StatusOr<int64_t> v = OneInt(text);
    if (!v.ok()) return v.status();
    out.push_back(*v);
    return out;
  }
  absl::StatusOr<std::string_view> body = BraceBody(text);
  if (!body.ok()) return body.status();
  for (std::string_view piece : SplitTopLevel(*body, ',')) {
    absl::StatusOr<int64_t> v = OneInt(piece);
    if (!v.ok()) return v.status();
    out.push_back(*v);
  }
  return out;
}

std::vector<std::string_view> SplitTopLevel(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  text = StripWhitespace(text);
  if (text.empty()) return out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\') ++i;
      }
    } else if (c == '{' || c == '(' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ')' || c == ']') {
      --depth;
    } else if (c == sep && depth == 0) {
      out.push_back(StripWhitespace(text.substr(start, i - start)));
      start = i + 1;
    }
  }
  out.push_back(StripWhitespace(text.substr(start)));
  return out;
}

absl::StatusOr<std::vector<std::pair<std::string_view, std::string_view>>> KeyValues(
    std::string_view text) {
  std::vector<std::pair<std::string_view, std::string_view>> out;
  size_t i = 0;
  auto skip_separators = [&] {
    while (i < text.size() && (text[i] == ' ' || text[i] == ',' || text[i] == '\n' ||
                               text[i] == '\t' || text[i] == '\r')) {
      ++i;
    }
  };
  skip_separators();
  while (i < text.size()) {
    size_t eq = text.find('=', i);
    if (eq == std::string_view::npos) {
      return absl::InvalidArgumentError(StrCat("expected key=value, found '", text.substr(i), "'"));
    }
    std::string_view key = StripWhitespace(text.substr(i, eq - i));
    size_t j = eq + 1;
    while (j < text.size() && text[j] == ' ') ++j;
    size_t value_start = j;
    int depth = 0;
    for (; j < text.size(); ++j) {
      char c = text[j];
      if (c == '"') {
        for (++j; j < text.size() && text[j] != '"'; ++j) {
          if (text[j] == '\\') ++j;
        }
      } else if (c == '{' || c == '(' || c == '[') {
        ++depth;
      } else if (c == '}' || c == ')' || c == ']') {
        --depth;
      } else if (depth == 0 && (c == ' ' || c == ',' || c == '\n' || c == '\t')) {
        break;
      }
    }
    if (key.empty() || j == value_start) {
      return absl::InvalidArgumentError(StrCat("expected key=value, found '", text.substr(i), "'"));
    }
    out.emplace_back(key, text.substr(value_start, std::min(j, text.size()) - value_start));
    i = j;
    skip_separators();
  }
  return out;
}

absl::Status MetadataToProto(std::string_view inner, xla_proto::OpMetadata* out) {
  absl::StatusOr<std::vector<std::pair<std::string_view, std::string_view>>> kvs = KeyValues(inner);
  if (!kvs.ok()) return kvs.status();
  for (const auto& [key, bound_value] : *kvs) {
    // clang 14 (the fuzz build's compiler) cannot capture a structured binding in a lambda.
    const std::string_view value = bound_value;
    absl::Status s;
    auto str = [&](void (xla_proto::OpMetadata::*set)(const std::string&)) {
      absl::StatusOr<std::string> v = Unquoted(value);
      if (!v.ok()) return v.status();
      (out->*set)(*v);
      return absl::OkStatus();
    };
    auto num = [&](auto set) {
      absl::StatusOr<int64_t> v = OneInt(value);
      if (!v.ok()) return v.status();
      set(*v);
      return absl::OkStatus();
    };
    if (key == "op_type") {
      s = str(&xla_proto::OpMetadata::set_op_type);
    } else if (key == "op_name") {
      s = str(&xla_proto::OpMetadata::set_op_name);
    } else if (key == "source_file") {
      s = str(&xla_proto::OpMetadata::set_source_file);
    } else if (key == "deduplicated_name") {
      s = str(&xla_proto::OpMetadata::set_deduplicated_name);
    } else if (key == "scheduling_name") {
      s = str(&xla_proto::OpMetadata::set_scheduling_name);
    } else if (key == "source_line") {
      s = num([&](int64_t v) { out->set_source_line(static_cast<int32_t>(v)); });
    } else if (key == "source_end_line") {
      s = num([&](int64_t v) { out->set_source_end_line(static_cast<int32_t>(v)); });
    } else if (key == "source_column") {
      s = num([&](int64_t v) { out->set_source_column(static_cast<int32_t>(v)); });
    } else if (key == "source_end_column") {
      s = num([&](int64_t v) { out->set_source_end_column(static_cast<int32_t>(v)); });
    } else if (key == "stack_frame_id") {
      s = num([&](int64_t v) { out->set_stack_frame_id(static_cast<int32_t>(v)); });
    } else {
      s = absl::UnimplementedError("OpMetadata has no field for it");
    }
    if (!s.ok()) return absl::Status(s.code(), StrCat("metadata '", key, "': ", StatusText(s)));
  }
  return absl::OkStatus();
}

absl::Status FrontendAttributesToProto(std::string_view inner, xla_proto::FrontendAttributes* out) {
  absl::StatusOr<std::vector<std::pair<std::string_view, std::string_view>>> kvs = KeyValues(inner);
  if (!kvs.ok()) return kvs.status();
  for (const auto& [key, value] : *kvs) {
    // XLA writes keys bare and values quoted; a quoted key is accepted as well.
    std::string k(key);
    if (!key.empty() && key.front() == '"') {
      absl::StatusOr<std::string> uk = Unquoted(key);
      if (!uk.ok()) return uk.status();
      k = *uk;
    }
    // A value XLA keeps as a dictionary or list (`{{0,1},{1,2}}`) is written without quotes.
    if (!value.empty() && value.front() == '{') {
      (*out->mutable_map())[k] = std::string(value);
      continue;
    }
    absl::StatusOr<std::string> v = Unquoted(value);
    if (!v.ok()) return v.status();
    (*out->mutable_map())[k] = *v;
  }
  return absl::OkStatus();
}

namespace {

absl::Status Err(std::string_view message) {
  return absl::InvalidArgumentError(std::string(message));
}

// The shape at the start of `text`; *rest is what follows it (nullptr: nothing may follow).
absl::StatusOr<const Shape*> ParseOneShape(std::string_view text, Module& scratch,
                                           std::string_view* rest = nullptr) {
  TextCursor cur(text, "shape", 1);
  ShapeParser parser(cur, scratch);
  const Shape* shape = nullptr;
  if (!parser.Parse(&shape)) return cur.status();
  const size_t used = static_cast<size_t>(cur.pos() - text.data());
  if (rest != nullptr) {
    *rest = text.substr(used);
  } else if (used != text.size()) {
    return Err(StrCat("unexpected text after shape in '", text, "'"));
  }
  return shape;
}

template <typename Add>
absl::Status AddInts(std::string_view value, Add add) {
  absl::StatusOr<std::vector<int64_t>> v = IntList(value);
  if (!v.ok()) return v.status();
  for (int64_t i : *v) add(i);
  return absl::OkStatus();
}

template <typename Set>
absl::Status SetInt(std::string_view value, Set set) {
  absl::StatusOr<int64_t> v = OneInt(value);
  if (!v.ok()) return v.status();
  set(*v);
  return absl::OkStatus();
}

template <typename Set>
absl::Status SetBool(std::string_view value, Set set) {
  absl::StatusOr<bool> v = OneBool(value);
  if (!v.ok()) return v.status();
  set(*v);
  return absl::OkStatus();
}

// An enum value written as its proto name (`api_version=API_VERSION_TYPED_FFI`) or, with a
// prefix and in lower case, as XLA's text writes some (`algorithm=dot_bf16_bf16_f32`).
template <typename E, typename ParseFn, typename Set>
absl::Status SetEnum(std::string_view value, std::string_view prefix, ParseFn parse, Set set) {
  std::string name(prefix);
  for (char c : value) name += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  E e;
  if (!parse(name, &e)) return Err(StrCat("unknown value '", value, "'"));
  set(e);
  return absl::OkStatus();
}

// `{{0,1},{2,3}}` (explicit groups) or `[2,4]<=[8]`, `[2,4]<=[4,2]T(1,0)` (iota groups).
absl::Status ReplicaGroupsToProto(std::string_view value, xla_proto::HloInstructionProto* out) {
  value = StripWhitespace(value);
  if (!value.empty() && value.front() == '[') {
    size_t le = value.find("<=");
    size_t close = value.find(']');
    if (le == std::string_view::npos || close == std::string_view::npos || close > le) {
      return Err(StrCat("expected '[groups,size]<=[dims]' or '{{...}}', found '", value, "'"));
    }
    std::vector<std::string_view> shape = SplitTopLevel(value.substr(1, close - 1), ',');
    if (shape.size() != 2) return Err(StrCat("expected '[groups,size]' in '", value, "'"));
    auto* iota = out->mutable_collective_device_list()->mutable_iota_replica_group_list();
    absl::StatusOr<int64_t> groups = OneInt(shape[0]);
    absl::StatusOr<int64_t> size = OneInt(shape[1]);
    if (!groups.ok()) return groups.status();
    if (!size.ok()) return size.status();
    iota->set_num_replica_groups(*groups);
    iota->set_num_devices_per_group(*size);
    std::string_view rest = value.substr(le + 2);
    size_t dims_end = rest.find(']');
    if (rest.empty() || rest.front() != '[' || dims_end == std::string_view::npos) {
      return Err(StrCat("expected '<=[dims]' in '", value, "'"));
    }
    for (std::string_view d : SplitTopLevel(rest.substr(1, dims_end - 1), ',')) {
      absl::StatusOr<int64_t> v = OneInt(d);
      if (!v.ok()) return v.status();
      iota->add_iota_reshape_dims(*v);
    }
    rest = rest.substr(dims_end + 1);
    if (!rest.empty()) {
      if (rest.size() < 3 || rest.substr(0, 2) != "T(" || rest.back() != ')') {
        return Err(StrCat("expected 'T(permutation)' after the dims in '", value, "'"));
      }
      for (std::string_view d : SplitTopLevel(rest.substr(2, rest.size() - 3), ',')) {
        absl::StatusOr<int64_t> v = OneInt(d);
        if (!v.ok()) return v.status();
        iota->add_iota_transpose_perm(*v);
      }
    }
    return absl::OkStatus();
  }
  absl::StatusOr<std::string_view> body = BraceBody(value);
  if (!body.ok()) return body.status();
  for (std::string_view group : SplitTopLevel(*body, ',')) {
    absl::StatusOr<std::vector<int64_t>> ids = IntList(group);
    if (!ids.ok()) return ids.status();
    auto* g = out->add_replica_groups();
    for (int64_t id : *ids) g->add_replica_ids(id);
  }
  return absl::OkStatus();
}

absl::Status SourceTargetPairsToProto(std::string_view value, xla_proto::HloInstructionProto* out) {
  absl::StatusOr<std::string_view> body = BraceBody(value);
  if (!body.ok()) return body.status();
  for (std::string_view pair : SplitTopLevel(*body, ',')) {
    absl::StatusOr<std::vector<int64_t>> ids = IntList(pair);
    if (!ids.ok()) return ids.status();
    if (ids->size() != 2) return Err(StrCat("expected '{source,target}', found '", pair, "'"));
    auto* p = out->add_source_target_pairs();
    p->set_source((*ids)[0]);
    p->set_target((*ids)[1]);
  }
  return absl::OkStatus();
}

absl::Status WindowToProto(std::string_view value, xla_proto::Window* out) {
  absl::StatusOr<std::vector<WindowDim>> dims = ParseWindow(value);
  if (!dims.ok()) return dims.status();
  for (const WindowDim& d : *dims) {
    auto* w = out->add_dimensions();
    w->set_size(d.size);
    w->set_stride(d.stride);
    w->set_padding_low(d.padding_low);
    w->set_padding_high(d.padding_high);
    w->set_window_dilation(d.window_dilation);
    w->set_base_dilation(d.base_dilation);
    w->set_window_reversal(d.reversal);
  }
  return absl::OkStatus();
}

absl::Status DimLabelsToProto(std::string_view value, xla_proto::ConvolutionDimensionNumbers* out) {
  absl::StatusOr<ConvDimLabels> labels = ParseConvDimLabels(value);
  if (!labels.ok()) return labels.status();
  out->set_input_batch_dimension(labels->lhs_batch);
  out->set_input_feature_dimension(labels->lhs_feature);
  for (int64_t d : labels->lhs_spatial) out->add_input_spatial_dimensions(d);
  out->set_kernel_input_feature_dimension(labels->rhs_input_feature);
  out->set_kernel_output_feature_dimension(labels->rhs_output_feature);
  for (int64_t d : labels->rhs_spatial) out->add_kernel_spatial_dimensions(d);
  out->set_output_batch_dimension(labels->out_batch);
  out->set_output_feature_dimension(labels->out_feature);
  for (int64_t d : labels->out_spatial) out->add_output_spatial_dimensions(d);
  return absl::OkStatus();
}

absl::Status PaddingToProto(std::string_view value, xla_proto::PaddingConfig* out) {
  std::optional<std::vector<PaddingDim>> dims = ParsePadding(value);
  if (!dims) return Err(StrCat("expected low_high[_interior] per dimension, found '", value, "'"));
  for (const PaddingDim& d : *dims) {
    auto* p = out->add_dimensions();
    p->set_edge_padding_low(d.low);
    p->set_edge_padding_high(d.high);
    p->set_interior_padding(d.interior);
  }
  return absl::OkStatus();
}

// `{mode=highest}` or `{tolerance={atol=0 rtol=0 ulps=1}}` (commas or spaces between parts).
absl::Status ResultAccuracyToProto(std::string_view value, xla_proto::ResultAccuracy* out) {
  absl::StatusOr<std::string_view> body = BraceBody(value);
  if (!body.ok()) return body.status();
  absl::StatusOr<std::vector<std::pair<std::string_view, std::string_view>>> kvs = KeyValues(*body);
  if (!kvs.ok()) return kvs.status();
  if (kvs->size() != 1) return Err(StrCat("expected mode= or tolerance=, found '", value, "'"));
  const auto& [key, v] = kvs->front();
  if (key == "mode") {
    return SetEnum<xla_proto::ResultAccuracy::Mode>(
        v, "", xla_proto::ResultAccuracy::Mode_Parse,
        [&](xla_proto::ResultAccuracy::Mode m) { out->set_mode(m); });
  }
  if (key != "tolerance") return Err(StrCat("expected mode= or tolerance=, found '", key, "'"));
  absl::StatusOr<std::string_view> inner = BraceBody(v);
  if (!inner.ok()) return inner.status();
  absl::StatusOr<std::vector<std::pair<std::string_view, std::string_view>>> parts =
      KeyValues(*inner);
  if (!parts.ok()) return parts.status();
  auto* t = out->mutable_tolerance();
  for (const auto& [k, number] : *parts) {
    std::string text(number);
    char* end = nullptr;
    double d = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size()) {
      return Err(StrCat("expected a number for '", k, "', found '", number, "'"));
    }
    if (k == "atol") {
      t->set_atol(d);
    } else if (k == "rtol") {
      t->set_rtol(d);
    } else if (k == "ulps") {
      absl::StatusOr<int64_t> u = OneInt(number);
      if (!u.ok()) return u.status();
      t->set_ulps(*u);
    } else {
      return Err(StrCat("unknown tolerance part '", k, "'"));
    }
  }
  return absl::OkStatus();
}

// origin={...}: the instruction's original value, one leaf per array of its shape, as a tree
// of tuples `(a, b)` and leaves `{"name" {index}}`, `{"name"}` or `{}` (no original array).
class OriginParser {
 public:
  OriginParser(std::string_view text, xla_proto::OriginalValueProto* out)
      : text_(text), out_(out) {}

  absl::Status Run() {
    ShapeIndex index;
    absl::Status s = Node(index);
    if (!s.ok()) return s;
    Skip();
    if (pos_ != text_.size()) return Err(StrCat("unexpected text in origin '", text_, "'"));
    return absl::OkStatus();
  }

 private:
  void Skip() {
    while (pos_ < text_.size() && text_[pos_] == ' ') ++pos_;
  }
  bool Take(char c) {
    Skip();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  absl::Status Node(ShapeIndex& index) {
    // Hostile text must not exhaust the stack; real tuples are a few levels deep.
    if (index.size() > 64) return Err("origin nested more than 64 tuples deep");
    if (Take('(')) {
      int64_t i = 0;
      if (Take(')')) return absl::OkStatus();
      do {
        index.push_back(i++);
        absl::Status s = Node(index);
        index.pop_back();
        if (!s.ok()) return s;
      } while (Take(','));
      if (!Take(')')) return Err(StrCat("expected ')' in origin '", text_, "'"));
      return absl::OkStatus();
    }
    if (!Take('{')) return Err(StrCat("expected '(' or '{' in origin '", text_, "'"));
    if (Take('}')) return absl::OkStatus();
    Skip();
    size_t start = pos_;
    if (pos_ >= text_.size() || text_[pos_] != '"') {
      return Err(StrCat("expected a quoted name in origin '", text_, "'"));
    }
    for (++pos_; pos_ < text_.size() && text_[pos_] != '"'; ++pos_) {
      if (text_[pos_] == '\\') ++pos_;
    }
    ++pos_;
    absl::StatusOr<std::string> name = Unquoted(text_.substr(start, pos_ - start));
    if (!name.ok()) return name.status();
    auto* e = out_->add_elements();
    for (int64_t i : index) e->add_shape_index(i);
    e->mutable_original_array()->set_instruction_name(*name);
    Skip();
    if (pos_ < text_.size() && text_[pos_] == '{') {
      size_t close = text_.find('}', pos_);
      if (close == std::string_view::npos) return Err("unclosed shape index in origin");
      absl::StatusOr<std::vector<int64_t>> ints = IntList(text_.substr(pos_, close - pos_ + 1));
      if (!ints.ok()) return ints.status();
      for (int64_t i : *ints) e->mutable_original_array()->add_shape_index(i);
      pos_ = close + 1;
    }
    if (!Take('}')) return Err(StrCat("expected '}' in origin '", text_, "'"));
    return absl::OkStatus();
  }

  std::string_view text_;
  xla_proto::OriginalValueProto* out_;
  size_t pos_ = 0;
};

// `visualizing_index=1,stat-0=55.5,stat-1=44.4` (inside the braces): XLA's StatisticsViz.
absl::Status StatisticsToProto(std::string_view body, xla_proto::StatisticsViz* viz) {
  absl::StatusOr<std::vector<std::pair<std::string_view, std::string_view>>> kvs = KeyValues(body);
  if (!kvs.ok()) return kvs.status();
  for (const auto& [k, v] : *kvs) {
    if (k == "visualizing_index") {
      absl::Status st = SetInt(v, [&](int64_t i) { viz->set_stat_index_to_visualize(i); });
      if (!st.ok()) return st;
      continue;
    }
    std::string text(v);
    char* end = nullptr;
    double d = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size()) {
      return Err(StrCat("expected a number for statistic '", k, "', found '", v, "'"));
    }
    auto* stat = viz->add_statistics();
    stat->set_stat_name(std::string(k));
    stat->set_stat_val(d);
  }
  return absl::OkStatus();
}

// `kind="sharding", entry={...}, exit={...}` (inside the braces): a domain's shardings.
absl::Status DomainToProto(std::string_view body, xla_proto::HloInstructionProto* out) {
  absl::StatusOr<std::vector<std::pair<std::string_view, std::string_view>>> kvs = KeyValues(body);
  if (!kvs.ok()) return kvs.status();
  for (const auto& [k, v] : *kvs) {
    absl::Status s;
    if (k == "kind") {
      absl::StatusOr<std::string> kind = Unquoted(v);
      s = kind.ok() && *kind == "sharding"
              ? absl::OkStatus()
              : Err(StrCat("only domain kind \"sharding\" has proto fields, found ", v));
    } else if (k == "entry" || k == "exit") {
      absl::StatusOr<std::string_view> inner = BraceBody(v);
      s = inner.status();
      // `{}`: no sharding on that side (XLA prints a missing one so).
      if (inner.ok() && !inner->empty()) {
        s = ShardingToProto(*inner, k == "entry" ? out->mutable_domain_entry_sharding()
                                                 : out->mutable_domain_exit_sharding());
      }
    } else {
      s = Err(StrCat("unknown domain part '", k, "'"));
    }
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

// A quoted string attribute, unescaped, into the string field `set` of `out`.
absl::Status SetUnquoted(std::string_view value,
                         void (xla_proto::HloInstructionProto::*set)(const std::string&),
                         xla_proto::HloInstructionProto* out) {
  absl::StatusOr<std::string> v = Unquoted(value);
  if (!v.ok()) return v.status();
  (out->*set)(*v);
  return absl::OkStatus();
}

// Attributes of many opcodes: shapes of slices, names, configs, metadata, sharding, aliasing.
// nullopt: `key` is not one of them.
std::optional<absl::Status> GeneralAttributeToProto(const Instruction& instr, Opcode op,
                                                    std::string_view key, std::string_view value,
                                                    xla_proto::HloInstructionProto* out) {
  using P = xla_proto::HloInstructionProto;
  auto str = [&](void (P::*set)(const std::string&)) { return SetUnquoted(value, set, out); };
  if (key == "index") return SetInt(value, [&](int64_t v) { out->set_tuple_index(v); });
  // reshape's inferred_dimension is kept in `dimensions`, as XLA does.
  if (key == "dimensions" || key == "iota_dimension" || key == "dimension" ||
      (key == "inferred_dimension" && op == Opcode::kReshape)) {
    return AddInts(value, [&](int64_t v) { out->add_dimensions(v); });
  }
  if (key == "slice") {
    for (const SliceDim& d : instr.slice()) {
      auto* s = out->add_slice_dimensions();
      s->set_start(d.start);
      s->set_limit(d.limit);
      s->set_stride(d.stride);
    }
    return absl::OkStatus();
  }
  if (key == "dynamic_slice_sizes") {
    return AddInts(value, [&](int64_t v) { out->add_dynamic_slice_sizes(v); });
  }
  if (key == "kind" && op == Opcode::kFusion) {
    out->set_fusion_kind(std::string(value));
    return absl::OkStatus();
  }
  if (key == "direction") {
    out->set_comparison_direction(std::string(value));
    return absl::OkStatus();
  }
  if (key == "type" && op == Opcode::kCompare) {
    out->set_comparison_type(std::string(value));
    return absl::OkStatus();
  }
  if (key == "custom_call_target") return str(&P::set_custom_call_target);
  if (key == "backend_config") {
    // A quoted string is stored unescaped; `{...}` (a JSON config written bare) as written.
    if (!value.empty() && value.front() == '"') return str(&P::set_backend_config);
    out->set_backend_config(std::string(value));
    return absl::OkStatus();
  }
  if (key == "metadata") {
    absl::StatusOr<std::string_view> body = BraceBody(value);
    if (!body.ok()) return body.status();
    return MetadataToProto(*body, out->mutable_metadata());
  }
  if (key == "frontend_attributes") {
    absl::StatusOr<std::string_view> body = BraceBody(value);
    if (!body.ok()) return body.status();
    return FrontendAttributesToProto(*body, out->mutable_frontend_attributes());
  }
  if (key == "sharding") {
    absl::StatusOr<std::string_view> body = BraceBody(value);
    if (!body.ok()) return body.status();
    return ShardingToProto(*body, out->mutable_sharding());
  }
  if (key == "output_to_operand_aliasing") {
    for (const OperandAlias& a : instr.output_to_operand_aliasing()) {
      auto* p = out->add_output_operand_aliasing();
      for (int64_t i : a.output_index) p->add_output_shape_index(i);
      p->set_operand_index(a.operand);
      for (int64_t i : a.operand_index) p->add_operand_shape_index(i);
    }
    return absl::OkStatus();
  }
  return std::nullopt;
}

// Windows, convolution and dot dimension numbers, precision, algorithms, padding.
// nullopt: `key` is not one of them.
std::optional<absl::Status> DotAndConvolutionAttributeToProto(const Instruction& /*instr*/,
                                                              Opcode op, std::string_view key,
                                                              std::string_view value,
                                                              xla_proto::HloInstructionProto* out) {
  auto dots = [&]() -> xla_proto::DotDimensionNumbers* {
    if (op == Opcode::kRaggedDot) {
      return out->mutable_ragged_dot_dimension_numbers()->mutable_dot_dimension_numbers();
    }
    return out->mutable_dot_dimension_numbers();
  };
  if (key == "window") return WindowToProto(value, out->mutable_window());
  if (key == "dim_labels") {
    return DimLabelsToProto(value, out->mutable_convolution_dimension_numbers());
  }
  if (key == "feature_group_count") {
    return SetInt(value, [&](int64_t v) { out->set_feature_group_count(v); });
  }
  if (key == "batch_group_count") {
    return SetInt(value, [&](int64_t v) { out->set_batch_group_count(v); });
  }
  if (key == "lhs_batch_dims") {
    return AddInts(value, [&](int64_t v) { dots()->add_lhs_batch_dimensions(v); });
  }
  if (key == "lhs_contracting_dims") {
    return AddInts(value, [&](int64_t v) { dots()->add_lhs_contracting_dimensions(v); });
  }
  if (key == "rhs_batch_dims") {
    return AddInts(value, [&](int64_t v) { dots()->add_rhs_batch_dimensions(v); });
  }
  if (key == "rhs_contracting_dims") {
    return AddInts(value, [&](int64_t v) { dots()->add_rhs_contracting_dimensions(v); });
  }
  if (key == "lhs_ragged_dims") {
    return AddInts(value, [&](int64_t v) {
      out->mutable_ragged_dot_dimension_numbers()->add_lhs_ragged_dimensions(v);
    });
  }
  if (key == "rhs_group_dims") {
    return AddInts(value, [&](int64_t v) {
      out->mutable_ragged_dot_dimension_numbers()->add_rhs_group_dimensions(v);
    });
  }
  if (key == "operand_precision") {
    absl::StatusOr<std::string_view> body = BraceBody(value);
    if (!body.ok()) return body.status();
    for (std::string_view p : SplitTopLevel(*body, ',')) {
      absl::Status s = SetEnum<xla_proto::PrecisionConfig::Precision>(
          p, "", xla_proto::PrecisionConfig::Precision_Parse,
          [&](xla_proto::PrecisionConfig::Precision e) {
            out->mutable_precision_config()->add_operand_precision(e);
          });
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }
  if (key == "algorithm" && op == Opcode::kRngBitGenerator) {
    return SetEnum<xla_proto::RandomAlgorithm>(
        value, "", xla_proto::RandomAlgorithm_Parse,
        [&](xla_proto::RandomAlgorithm e) { out->set_rng_algorithm(e); });
  }
  if (key == "algorithm") {
    return SetEnum<xla_proto::PrecisionConfig::Algorithm>(
        value, "ALG_", xla_proto::PrecisionConfig::Algorithm_Parse,
        [&](xla_proto::PrecisionConfig::Algorithm e) {
          out->mutable_precision_config()->set_algorithm(e);
        });
  }
  if (key == "padding" && op == Opcode::kPad) {
    return PaddingToProto(value, out->mutable_padding_config());
  }
  return std::nullopt;
}

// Collectives (channels, groups, pairs) and the boolean flags of several opcodes.
// nullopt: `key` is not one of them.
std::optional<absl::Status> CollectiveAndFlagAttributeToProto(const Instruction& /*instr*/,
                                                              Opcode /*op*/, std::string_view key,
                                                              std::string_view value,
                                                              xla_proto::HloInstructionProto* out) {
  if (key == "channel_id") return SetInt(value, [&](int64_t v) { out->set_channel_id(v); });
  if (key == "replica_groups") return ReplicaGroupsToProto(value, out);
  if (key == "source_target_pairs") return SourceTargetPairsToProto(value, out);
  if (key == "use_global_device_ids") {
    return SetBool(value, [&](bool v) { out->set_use_global_device_ids(v); });
  }
  if (key == "constrain_layout") {
    return SetBool(value, [&](bool v) { out->set_constrain_layout(v); });
  }
  if (key == "is_host_transfer") {
    return SetBool(value, [&](bool v) { out->set_is_host_transfer(v); });
  }
  if (key == "is_stable") return SetBool(value, [&](bool v) { out->set_is_stable(v); });
  if (key == "indices_are_sorted") {
    return SetBool(value, [&](bool v) { out->set_indices_are_sorted(v); });
  }
  if (key == "unique_indices") {
    return SetBool(value, [&](bool v) { out->set_unique_indices(v); });
  }
  if (key == "custom_call_has_side_effect") {
    return SetBool(value, [&](bool v) { out->set_custom_call_has_side_effect(v); });
  }
  if (key == "largest") return SetBool(value, [&](bool v) { out->set_largest(v); });
  if (key == "is_composite") return SetBool(value, [&](bool v) { out->set_is_composite(v); });
  if (key == "is_cross_program_prefetch") {
    return SetBool(value, [&](bool v) { out->set_is_cross_program_prefetch(v); });
  }
  if (key == "cross_program_prefetch_index") {
    return SetInt(
        value, [&](int64_t v) { out->set_cross_program_prefetch_index(static_cast<int32_t>(v)); });
  }
  return std::nullopt;
}

// Gather and scatter dimension numbers (and in-place collective-permute slice sizes).
// nullopt: `key` is not one of them.
std::optional<absl::Status> GatherScatterAttributeToProto(const Instruction& /*instr*/, Opcode op,
                                                          std::string_view key,
                                                          std::string_view value,
                                                          xla_proto::HloInstructionProto* out) {
  auto gather = [&] { return out->mutable_gather_dimension_numbers(); };
  auto scatter = [&] { return out->mutable_scatter_dimension_numbers(); };
  if (key == "offset_dims") return AddInts(value, [&](int64_t v) { gather()->add_offset_dims(v); });
  if (key == "collapsed_slice_dims") {
    return AddInts(value, [&](int64_t v) { gather()->add_collapsed_slice_dims(v); });
  }
  if (key == "start_index_map") {
    return AddInts(value, [&](int64_t v) { gather()->add_start_index_map(v); });
  }
  if (key == "operand_batching_dims") {
    return AddInts(value, [&](int64_t v) { gather()->add_operand_batching_dims(v); });
  }
  if (key == "start_indices_batching_dims") {
    return AddInts(value, [&](int64_t v) { gather()->add_start_indices_batching_dims(v); });
  }
  if (key == "slice_sizes" &&
      (op == Opcode::kCollectivePermute || op == Opcode::kCollectivePermuteStart)) {
    // In-place collective-permute: one list per update; XLA flattens them into
    // dynamic_slice_sizes.
    absl::StatusOr<std::string_view> body = BraceBody(value);
    if (!body.ok()) return body.status();
    for (std::string_view list : SplitTopLevel(*body, ',')) {
      absl::Status s = AddInts(list, [&](int64_t v) { out->add_dynamic_slice_sizes(v); });
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }
  if (key == "slice_sizes") {
    return AddInts(value, [&](int64_t v) { out->add_gather_slice_sizes(v); });
  }
  if (key == "index_vector_dim") {
    return SetInt(value, [&](int64_t v) {
      if (op == Opcode::kGather) {
        gather()->set_index_vector_dim(v);
      } else {
        scatter()->set_index_vector_dim(v);
      }
    });
  }
  if (key == "update_window_dims") {
    return AddInts(value, [&](int64_t v) { scatter()->add_update_window_dims(v); });
  }
  if (key == "inserted_window_dims") {
    return AddInts(value, [&](int64_t v) { scatter()->add_inserted_window_dims(v); });
  }
  if (key == "scatter_dims_to_operand_dims") {
    return AddInts(value, [&](int64_t v) { scatter()->add_scatter_dims_to_operand_dims(v); });
  }
  if (key == "input_batching_dims") {
    return AddInts(value, [&](int64_t v) { scatter()->add_input_batching_dims(v); });
  }
  if (key == "scatter_indices_batching_dims") {
    return AddInts(value, [&](int64_t v) { scatter()->add_scatter_indices_batching_dims(v); });
  }
  return std::nullopt;
}

// Custom-call API version, schedule and operand layout constraints.
// nullopt: `key` is not one of them.
std::optional<absl::Status> CustomCallAttributeToProto(const Instruction& /*instr*/, Opcode /*op*/,
                                                       std::string_view key, std::string_view value,
                                                       xla_proto::HloInstructionProto* out) {
  if (key == "api_version") {
    return SetEnum<xla_proto::CustomCallApiVersion>(
        value, "", xla_proto::CustomCallApiVersion_Parse,
        [&](xla_proto::CustomCallApiVersion e) { out->set_custom_call_api_version(e); });
  }
  if (key == "schedule") {
    return SetEnum<xla_proto::CustomCallSchedule>(
        value, "", xla_proto::CustomCallSchedule_Parse,
        [&](xla_proto::CustomCallSchedule e) { out->set_custom_call_schedule(e); });
  }
  if (key == "operand_layout_constraints") {
    // Written only for a custom call whose layouts are constrained.
    absl::StatusOr<std::string_view> body = BraceBody(value);
    if (!body.ok()) return body.status();
    out->set_constrain_layout(true);
    Module scratch("shapes");
    for (std::string_view text : SplitTopLevel(*body, ',')) {
      absl::StatusOr<const Shape*> shape = ParseOneShape(text, scratch);
      if (!shape.ok()) return shape.status();
      absl::Status s = ShapeToProto(**shape, out->add_operand_shapes_with_layout());
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }
  return std::nullopt;
}

// Attributes of less common ops: rng, reduce-precision, batch-norm, fft, infeed/outfeed, linear
// algebra, replication, accuracy, statistics, origin, domain. nullopt: `key` is not one of them.
std::optional<absl::Status> LessCommonAttributeToProto(const Instruction& /*instr*/, Opcode op,
                                                       std::string_view key, std::string_view value,
                                                       xla_proto::HloInstructionProto* out) {
  using P = xla_proto::HloInstructionProto;
  auto str = [&](void (P::*set)(const std::string&)) { return SetUnquoted(value, set, out); };
  if (key == "distribution") {
    return SetEnum<xla_proto::RandomDistribution>(
        value, "", xla_proto::RandomDistribution_Parse,
        [&](xla_proto::RandomDistribution e) { out->set_distribution(e); });
  }
  if (key == "exponent_bits") {
    return SetInt(value, [&](int64_t v) { out->set_exponent_bits(static_cast<int32_t>(v)); });
  }
  if (key == "mantissa_bits") {
    return SetInt(value, [&](int64_t v) { out->set_mantissa_bits(static_cast<int32_t>(v)); });
  }
  if (key == "epsilon") {
    std::string text(StripWhitespace(value));
    char* end = nullptr;
    float f = std::strtof(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size()) {
      return Err(StrCat("expected a number, found '", value, "'"));
    }
    out->set_epsilon(f);
    return absl::OkStatus();
  }
  if (key == "feature_index") return SetInt(value, [&](int64_t v) { out->set_feature_index(v); });
  if (key == "fft_type") {
    return SetEnum<xla_proto::FftType>(value, "", xla_proto::FftType_Parse,
                                       [&](xla_proto::FftType e) { out->set_fft_type(e); });
  }
  if (key == "fft_length") return AddInts(value, [&](int64_t v) { out->add_fft_length(v); });
  if (key == "infeed_config") return str(&P::set_infeed_config);
  if (key == "outfeed_config") return str(&P::set_outfeed_config);
  if (key == "outfeed_shape") {
    Module scratch("shapes");
    absl::StatusOr<const Shape*> shape = ParseOneShape(StripWhitespace(value), scratch);
    if (!shape.ok()) return shape.status();
    return ShapeToProto(**shape, out->mutable_outfeed_shape());
  }
  if (key == "literal" && op == Opcode::kCustomCall) {
    // `literal=s32[2]{0} {1, 2}`: a custom call's literal, its shape first.
    Module scratch("shapes");
    std::string_view rest;
    absl::StatusOr<const Shape*> shape = ParseOneShape(StripWhitespace(value), scratch, &rest);
    if (!shape.ok()) return shape.status();
    if ((*shape)->IsTuple()) return Err("a custom call's tuple literal is not written");
    return LiteralToProto(StripWhitespace(rest), **shape, out->mutable_literal());
  }
  if (key == "delta") return SetInt(value, [&](int64_t v) { out->set_delta(v); });
  if (key == "k") return SetInt(value, [&](int64_t v) { out->set_k(v); });
  if (key == "async_execution_thread") return str(&P::set_async_execution_thread);
  if (key == "lower" && op == Opcode::kCholesky) {
    return SetBool(value, [&](bool v) { out->mutable_cholesky_options()->set_lower(v); });
  }
  if (key == "left_side" || key == "lower" || key == "unit_diagonal") {
    auto* t = out->mutable_triangular_solve_options();
    return SetBool(value, [&](bool v) {
      if (key == "left_side") {
        t->set_left_side(v);
      } else if (key == "lower") {
        t->set_lower(v);
      } else {
        t->set_unit_diagonal(v);
      }
    });
  }
  if (key == "transpose_a") {
    return SetEnum<xla_proto::TriangularSolveOptions::Transpose>(
        value, "", xla_proto::TriangularSolveOptions::Transpose_Parse,
        [&](xla_proto::TriangularSolveOptions::Transpose e) {
          out->mutable_triangular_solve_options()->set_transpose_a(e);
        });
  }
  if (key == "parameter_replication") {
    absl::StatusOr<std::string_view> body = BraceBody(value);
    if (!body.ok()) return body.status();
    for (std::string_view b : SplitTopLevel(*body, ',')) {
      absl::Status s = SetBool(b, [&](bool v) {
        out->mutable_parameter_replication()->add_replicated_at_leaf_buffers(v);
      });
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }
  if (key == "padding_type") {
    return SetEnum<xla_proto::PaddingType>(
        value, "", xla_proto::PaddingType_Parse,
        [&](xla_proto::PaddingType e) { out->set_padding_type(e); });
  }
  if (key == "result_accuracy") {
    return ResultAccuracyToProto(value, out->mutable_result_accuracy());
  }
  if (key == "statistics") {
    absl::StatusOr<std::string_view> body = BraceBody(value);
    if (!body.ok()) return body.status();
    return StatisticsToProto(*body, out->mutable_statistics_viz());
  }
  if (key == "origin") {
    absl::StatusOr<std::string_view> body = BraceBody(value);
    if (!body.ok()) return body.status();
    return OriginParser(*body, out->mutable_original_value()).Run();
  }
  if (key == "domain") {
    absl::StatusOr<std::string_view> body = BraceBody(value);
    if (!body.ok()) return body.status();
    return DomainToProto(*body, out);
  }
  return std::nullopt;
}

}  // namespace

absl::Status AttributeToProto(const Instruction& instr, Opcode op, std::string_view key,
                              std::string_view value, xla_proto::HloInstructionProto* out) {
  // Each group knows its keys; the first that does sets the fields.
  for (auto group : {GeneralAttributeToProto, DotAndConvolutionAttributeToProto,
                     CollectiveAndFlagAttributeToProto, GatherScatterAttributeToProto,
                     CustomCallAttributeToProto, LessCommonAttributeToProto}) {
    if (std::optional<absl::Status> s = group(instr, op, key, value, out)) return *s;
  }
  return absl::UnimplementedError(StrCat("HloInstructionProto has no field this writer maps '", key,
                                         "' of ", OpcodeName(op), " to"));
}

}  // namespace hloscope::proto_writer
