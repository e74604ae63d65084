#include "hlo/attribute_parser.h"

#include <cstdint>
#include <cstring>

#include "support/escapes.h"
#include "support/str_util.h"

namespace hloscope {

namespace {
bool IsComputationRefKey(uint32_t key) {
  switch (key) {
    case kAttrCalls:
    case kAttrToApply:
    case kAttrCondition:
    case kAttrBody:
    case kAttrBranchComputations:
    case kAttrTrueComputation:
    case kAttrFalseComputation:
    case kAttrCalledComputations:
    case kAttrSelect:
    case kAttrScatter:
    case kAttrComparator:
      return true;
    default:
      return false;
  }
}
}  // namespace

bool NeedsNormalizing(std::string_view text) {
  // This runs for every attribute value: one vector scan for a line break or '/', then a look
  // at what follows each '/' (`/*` or `//` start comments; a lone '/' is value text).
  const char* p = text.data();
  const char* end = p + text.size();
  while ((p = FindFirstOf(p, end, '\n', '/', '/', '/')) < end) {
    if (*p == '\n') return true;
    if (p + 1 < end && (p[1] == '*' || p[1] == '/')) return true;
    ++p;
  }
  return false;
}

std::string NormalizeValueText(std::string_view text) {
  // Outside strings: drop comments, and turn whitespace runs that hold a line break into one
  // space (or nothing right after an opening or before a closing bracket).
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  auto drop_trailing_space = [&] {
    while (!out.empty() && out.back() == ' ') out.pop_back();
  };
  while (i < text.size()) {
    char c = text[i];
    if (c == '"') {
      size_t j = i + 1;
      while (j < text.size() && text[j] != '"') j += text[j] == '\\' ? 2 : 1;
      j = std::min(j + 1, text.size());
      out.append(text.substr(i, j - i));
      i = j;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      size_t end = text.find("*/", i + 2);
      i = end == std::string_view::npos ? text.size() : end + 2;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      size_t end = text.find('\n', i);
      i = end == std::string_view::npos ? text.size() : end;
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      size_t j = i;
      while (j < text.size() &&
             (text[j] == ' ' || text[j] == '\t' || text[j] == '\n' || text[j] == '\r')) {
        ++j;
      }
      bool after_open =
          !out.empty() && (out.back() == '{' || out.back() == '(' || out.back() == '[');
      bool before_close = j < text.size() && (text[j] == '}' || text[j] == ')' || text[j] == ']');
      drop_trailing_space();
      if (!after_open && !before_close && !out.empty()) out += ' ';
      i = j;
    } else {
      if ((c == '}' || c == ')' || c == ']' || c == ',')) drop_trailing_space();
      out += c;
      ++i;
    }
  }
  drop_trailing_space();
  return out;
}

std::string_view CanonicalValueText(std::string_view written, std::string& storage) {
  if (!NeedsNormalizing(written)) return written;
  storage = NormalizeValueText(written);
  return storage;
}

namespace {

// `{a=1, b="x,y"}` -> `{a=1 b="x,y"}`: XLA's parser takes its metadata's fields with or without
// commas between them (its hlo_parser_test CommaBetweenSubAttributes) and its printer separates
// them with a space; stored so, the module prints as XLA prints it, and text -> proto -> text
// is a fixed point. Commas inside quotes or nested braces are the fields' own.
std::string_view CanonicalMetadataText(std::string_view text, std::string& storage) {
  if (text.size() < 2 || text.front() != '{' || text.find(',') == std::string_view::npos) {
    return text;
  }
  std::string out;
  out.reserve(text.size());
  int depth = 0;
  bool quoted = false;
  bool changed = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) {
        out += text[++i];
      } else if (c == '"') {
        quoted = false;
      }
      continue;
    }
    if (c == '"') quoted = true;
    if (c == '{') ++depth;
    if (c == '}') --depth;
    if (c == ',' && depth == 1) {
      while (i + 1 < text.size() && text[i + 1] == ' ') ++i;
      while (!out.empty() && out.back() == ' ') out.pop_back();
      out += ' ';
      changed = true;
      continue;
    }
    out += c;
  }
  if (!changed) return text;
  storage = std::move(out);
  return storage;
}

}  // namespace

int64_t FindKnownTripCount(std::string_view config) {
  size_t k = config.find("known_trip_count");
  if (k == std::string_view::npos) return -1;
  size_t n = config.find("\"n\"", k);
  if (n == std::string_view::npos) n = config.find("\\\"n\\\"", k);
  if (n == std::string_view::npos) return -1;
  size_t i = config.find(':', n);
  if (i == std::string_view::npos) return -1;
  ++i;
  while (i < config.size() && (config[i] == ' ' || config[i] == '"' || config[i] == '\\')) ++i;
  int64_t v = 0;
  size_t digits = 0;
  bool too_large = false;
  while (i < config.size() && config[i] >= '0' && config[i] <= '9') {
    const int digit = config[i++] - '0';
    ++digits;
    if (too_large || v > (INT64_MAX - digit) / 10) {
      too_large = true;
      continue;
    }
    v = v * 10 + digit;
  }
  if (digits == 0) return -1;
  return too_large ? kTripCountTooLarge : v;
}

std::string_view AttributeParser::Unquote(std::string_view raw) {
  std::string_view body = raw.substr(1, raw.size() - 2);
  if (body.find('\\') == std::string_view::npos) return module_.Save(body);
  return module_.Save(UnescapeCString(body));
}

std::string_view AttributeParser::FirstCalleeName(const Instruction* instr) const {
  for (const PendingCall& p : pending_calls_) {
    if (p.instr == instr) return p.name;
  }
  return {};
}

bool AttributeParser::AtValue(std::string_view key) {
  // A value may continue on the next line (`condition=` then the name), but what starts a new
  // definition there (`ENTRY`, `ROOT`, `name =`, `name {`) means the value is missing; taking
  // that word as the value would silently swallow the definition.
  const char* at = cur_.pos();
  if (!cur_.SkipSpace()) return false;
  const char* p = cur_.pos();
  const char* end = cur_.end();
  auto missing = [&] {
    return cur_.Error(
        at, StrCat("expected a value for attribute '", key, "', found ", DescribeChar(p, end)));
  };
  if (p >= end) return missing();
  if (p == at || std::memchr(at, '\n', static_cast<size_t>(p - at)) == nullptr) return true;
  const char* w = p;
  if (w < end && *w == '%') ++w;
  const char* word_start = w;
  while (w < end && TextCursor::IsNameChar(*w)) ++w;
  std::string_view word(word_start, static_cast<size_t>(w - word_start));
  if (word == "ENTRY" || word == "ROOT" || word == "HloModule") return missing();
  while (w < end && (*w == ' ' || *w == '\t')) ++w;
  if (!word.empty() && w < end && (*w == '=' || *w == '{' || *w == '(')) return missing();
  if (*p == '}') return missing();
  return true;
}

bool AttributeParser::ParseRawValue(std::string_view key, std::string_view* value) {
  if (!AtValue(key)) return false;
  const char* start = cur_.pos();
  while (!cur_.AtEnd()) {
    char c = cur_.Peek();
    if (c == '(' || c == '[' || c == '{') {
      std::string_view ignored;
      if (!cur_.ParseBalanced(&ignored)) return false;
    } else if (c == '"') {
      std::string_view ignored;
      if (!cur_.ParseQuoted(&ignored)) return false;
    } else if (c == ' ' || c == '\t') {
      // A few values contain a space: `literal=s32[] 1`, `replica_groups=mesh[...] {'x'}`.
      // Continue when the same line goes on with a bracket or a number, which cannot start
      // the next attribute (`,`) or instruction (a name).
      const char* p = cur_.pos();
      while (p < cur_.end() && (*p == ' ' || *p == '\t')) ++p;
      if (p < cur_.end() && (*p == '{' || *p == '[' || (*p >= '0' && *p <= '9') || *p == '-') &&
          !(p + 1 < cur_.end() && *p == '-' && p[1] == '>')) {
        cur_.set_pos(p);
      } else {
        break;
      }
    } else if (c == ',' || c == '\n' || c == '\r' || c == '}' || c == ')' || c == ']') {
      break;
    } else if (c == '/' && cur_.pos() + 1 < cur_.end() &&
               (cur_.pos()[1] == '/' || cur_.pos()[1] == '*')) {
      break;  // a comment ends the value, as it would end any token
    } else {
      cur_.set_pos(cur_.pos() + 1);
    }
  }
  if (cur_.pos() == start) {
    return cur_.ErrorHere(StrCat("expected a value for attribute '", key, "', found ",
                                 DescribeChar(cur_.pos(), cur_.end())));
  }
  *value = std::string_view(start, static_cast<size_t>(cur_.pos() - start));
  return true;
}

bool AttributeParser::ParseIntList(absl::InlinedVector<int64_t, 4>* out, std::string_view what) {
  if (!(cur_.TryConsume('{') || cur_.Expect('{', StrCat("to open the ", what, " list"))))
    return false;
  if (cur_.TryConsume('}')) return true;
  if (!cur_.ok()) return false;
  while (true) {
    int64_t v;
    if (!cur_.ParseInt(&v, what)) return false;
    out->push_back(v);
    if (cur_.TryConsume(',')) continue;
    return (cur_.TryConsume('}') || cur_.Expect('}', StrCat("to close the ", what, " list")));
  }
}

bool AttributeParser::ParseSlice(std::vector<SliceDim>* out) {
  // slice={[0:2], [1:9:2]}
  if (!cur_.Expect('{', "to open the slice")) return false;
  if (cur_.TryConsume('}')) return true;
  if (!cur_.ok()) return false;
  while (true) {
    SliceDim d;
    if (!cur_.Expect('[', "to open a slice dimension") || !cur_.ParseInt(&d.start, "slice start") ||
        !cur_.Expect(':', "after the slice start") || !cur_.ParseInt(&d.limit, "slice limit")) {
      return false;
    }
    if (cur_.TryConsume(':')) {
      if (!cur_.ParseInt(&d.stride, "slice stride")) return false;
    }
    if (!cur_.ok() || !cur_.Expect(']', "to close a slice dimension")) return false;
    out->push_back(d);
    if (cur_.TryConsume(',')) continue;
    return cur_.Expect('}', "to close the slice");
  }
}

bool AttributeParser::ParseShapeIndex(ShapeIndex* out) {
  if (!cur_.Expect('{', "to open a shape index")) return false;
  if (cur_.TryConsume('}')) return true;
  if (!cur_.ok()) return false;
  while (true) {
    int64_t v;
    if (!cur_.ParseInt(&v, "a shape index element")) return false;
    out->push_back(v);
    if (cur_.TryConsume(',')) continue;
    return cur_.Expect('}', "to close the shape index");
  }
}

bool AttributeParser::ParseOperandAliasing(std::vector<OperandAlias>* out) {
  // output_to_operand_aliasing={{0}: (1, {}), {1}: (2, {0})}
  if (!cur_.Expect('{', "to open output_to_operand_aliasing")) return false;
  if (cur_.TryConsume('}')) return true;
  if (!cur_.ok()) return false;
  while (true) {
    OperandAlias a;
    if (!ParseShapeIndex(&a.output_index) || !cur_.Expect(':', "after the output shape index") ||
        !cur_.Expect('(', "to open the aliased operand") ||
        !cur_.ParseInt(&a.operand, "an operand number") ||
        !cur_.Expect(',', "after the operand number") || !ParseShapeIndex(&a.operand_index) ||
        !cur_.Expect(')', "to close the aliased operand")) {
      return false;
    }
    out->push_back(std::move(a));
    if (cur_.TryConsume(',')) continue;
    return cur_.Expect('}', "to close output_to_operand_aliasing");
  }
}

bool AttributeParser::ParseComputationRefs(Instruction* instr, uint32_t key) {
  InstructionBuilder builder(instr);
  Attribute attr;
  attr.key = key;
  attr.is_computation_ref = true;
  attr.first = static_cast<uint16_t>(instr->called_computations().size());
  if (!cur_.SkipSpace()) return false;
  bool braced = cur_.Peek() == '{';
  attr.is_list = braced || key == kAttrBranchComputations || key == kAttrCalledComputations;
  auto add_one = [&]() {
    if (!cur_.SkipSpace()) return false;
    const char* at = cur_.pos();
    std::string_view name;
    if (!cur_.ParseName(&name, "a computation name")) return false;
    pending_calls_.push_back({instr, instr->called_computations().size(), name, at});
    builder.AddCalledComputation(nullptr);
    ++attr.count;
    return true;
  };
  if (braced && inline_parser_ && StartsInlineComputation()) {
    Computation* inline_comp = nullptr;
    if (!inline_parser_(StrCat(instr->name(), ".", module_.AttrKeyName(key)), &inline_comp)) {
      return false;
    }
    builder.AddCalledComputation(inline_comp);
    attr.count = 1;
    attr.is_list = false;
  } else if (braced) {
    cur_.set_pos(cur_.pos() + 1);
    if (!cur_.TryConsume('}')) {
      if (!cur_.ok()) return false;
      while (true) {
        if (!add_one()) return false;
        if (cur_.TryConsume(',')) continue;
        if (!cur_.Expect('}', "to close the computation list")) return false;
        break;
      }
    }
  } else if (!add_one()) {
    return false;
  }
  if (instr->called_computations().size() > 0xffff) {
    return cur_.ErrorHere("too many called computations");
  }
  builder.AddAttribute(attr);
  return true;
}

bool AttributeParser::StartsInlineComputation() const {
  // `{ name = ...` (an instruction) as opposed to `{name, name}` (a list of computations).
  const char* p = cur_.pos() + 1;
  const char* end = cur_.end();
  while (p < end && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')) ++p;
  if (p + 4 < end && std::string_view(p, 4) == "ROOT" && !TextCursor::IsNameChar(p[4])) return true;
  if (p < end && *p == '%') ++p;
  while (p < end && TextCursor::IsNameChar(*p)) ++p;
  while (p < end && (*p == ' ' || *p == '\t')) ++p;
  return p < end && *p == '=';
}

bool AttributeParser::ParseControlPredecessors(Instruction* instr) {
  if (!cur_.Expect('{', "to open control-predecessors")) return false;
  if (!cur_.TryConsume('}')) {
    if (!cur_.ok()) return false;
    while (true) {
      if (!cur_.SkipSpace()) return false;
      const char* at = cur_.pos();
      std::string_view name;
      if (!cur_.ParseName(&name, "a control predecessor name")) return false;
      pending_controls_.push_back({instr, name, at});
      if (cur_.TryConsume(',')) continue;
      if (!cur_.Expect('}', "to close control-predecessors")) return false;
      break;
    }
  }
  Attribute attr;
  attr.key = kAttrControlPredecessors;
  attr.is_control_predecessors = true;
  InstructionBuilder(instr).AddAttribute(attr);
  return true;
}

bool AttributeParser::DecodeMetadata(std::string_view inner, Metadata* m) {
  // `op_type="..." op_name="..." source_file="..." source_line=N ...`; unknown keys are kept
  // in the text only. Decoding is lenient: the text was already checked to be balanced.
  m->text = inner;
  size_t i = 0;
  while (i < inner.size()) {
    while (i < inner.size() && (inner[i] == ' ' || inner[i] == ',' || inner[i] == '\n')) ++i;
    size_t eq = inner.find('=', i);
    if (eq == std::string_view::npos) break;
    std::string_view key = inner.substr(i, eq - i);
    size_t v = eq + 1;
    size_t end = v;
    std::string_view value;
    if (v < inner.size() && inner[v] == '"') {
      end = v + 1;
      while (end < inner.size() && inner[end] != '"') end += inner[end] == '\\' ? 2 : 1;
      end = std::min(end, inner.size());
      std::string_view body = inner.substr(v + 1, end - v - 1);
      value =
          body.find('\\') == std::string_view::npos ? body : module_.Save(UnescapeCString(body));
      ++end;
    } else {
      int depth = 0;
      while (end < inner.size() && (depth > 0 || (inner[end] != ' ' && inner[end] != ','))) {
        if (inner[end] == '{') ++depth;
        if (inner[end] == '}') --depth;
        ++end;
      }
      value = inner.substr(v, end - v);
    }
    if (key == "op_type") {
      m->op_type = value;
    } else if (key == "op_name") {
      m->op_name = value;
    } else if (key == "source_file") {
      m->source_file = value;
    } else if (key == "source_line") {
      int64_t line = 0;
      for (char c : value) {
        if (c < '0' || c > '9' || line > (int64_t{1} << 40)) break;
        line = line * 10 + (c - '0');
      }
      m->source_line = line;
    }
    i = end;
  }
  return true;
}

bool AttributeParser::ParseAttribute(Instruction* instr) {
  if (!cur_.SkipSpace()) return false;
  const char* key_at = cur_.pos();
  std::string_view key_text;
  if (!cur_.ParseWord(&key_text, "an attribute name")) return false;
  if (!(cur_.TryConsume('=') || cur_.Expect('=', StrCat("after attribute name '", key_text, "'"))))
    return false;
  if (!AtValue(key_text)) return false;
  uint32_t key = module_.InternAttrKey(key_text);
  if (IsComputationRefKey(key)) return ParseComputationRefs(instr, key);
  if (key == kAttrControlPredecessors) return ParseControlPredecessors(instr);
  for (const Attribute& a : instr->attributes()) {
    if (a.key == key) {
      return cur_.Error(key_at, StrCat("attribute '", key_text, "' is given twice on instruction '",
                                       instr->name(), "'"));
    }
  }

  InstructionBuilder builder(instr);
  if (!cur_.SkipSpace()) return false;
  const char* value_at = cur_.pos();
  bool typed_ok = true;
  switch (key) {
    case kAttrIndex:
      if (instr->opcode() == Opcode::kGetTupleElement) {
        int64_t index;
        typed_ok = cur_.ParseInt(&index, "a tuple index");
        if (typed_ok && index < 0) return cur_.Error(value_at, "tuple index must not be negative");
        builder.set_number(index);
      } else {
        std::string_view ignored;
        typed_ok = ParseRawValue(key_text, &ignored);
      }
      break;
    case kAttrDimensions: {
      absl::InlinedVector<int64_t, 4> dims;
      typed_ok = ParseIntList(&dims, "dimension");
      builder.details().dimensions = module_.SaveArray<int64_t>(dims);
      break;
    }
    case kAttrDynamicSliceSizes: {
      absl::InlinedVector<int64_t, 4> sizes;
      typed_ok = ParseIntList(&sizes, "dynamic slice size");
      builder.details().dynamic_slice_sizes = module_.SaveArray<int64_t>(sizes);
      break;
    }
    case kAttrSlice: {
      std::vector<SliceDim> slice;
      typed_ok = ParseSlice(&slice);
      builder.details().slice = module_.SaveArray<SliceDim>(slice);
      break;
    }
    case kAttrOutputToOperandAliasing:
      typed_ok = ParseOperandAliasing(&builder.details().output_to_operand_aliasing);
      break;
    case kAttrKind: {
      std::string_view word;
      typed_ok = cur_.ParseWord(&word, "a fusion kind");
      if (typed_ok && instr->opcode() == Opcode::kFusion) {
        auto kind = ParseFusionKind(word);
        if (!kind) {
          return cur_.Error(value_at, StrCat("unknown fusion kind '", word,
                                             "'; expected kLoop, kInput, kOutput or kCustom"));
        }
        builder.set_fusion_kind(*kind);
      }
      break;
    }
    case kAttrDirection: {
      std::string_view word;
      typed_ok = cur_.ParseWord(&word, "a comparison direction");
      if (typed_ok && instr->opcode() == Opcode::kCompare) {
        auto d = ParseComparisonDirection(word);
        if (!d) {
          return cur_.Error(value_at, StrCat("unknown comparison direction '", word,
                                             "'; expected EQ, NE, LT, LE, GT or GE"));
        }
        builder.set_direction(*d);
      }
      break;
    }
    case kAttrCustomCallTarget: {
      if (cur_.Peek() != '"') return cur_.ErrorHere("expected a quoted custom_call_target");
      std::string_view raw;
      typed_ok = cur_.ParseQuoted(&raw);
      if (typed_ok) builder.details().custom_call_target = Unquote(raw);
      break;
    }
    case kAttrMetadata:
    case kAttrSharding:
    case kAttrFrontendAttributes: {
      if (cur_.Peek() != '{') {
        return cur_.ErrorHere(StrCat("expected '{' to open '", key_text, "', found ",
                                     DescribeChar(cur_.pos(), cur_.end())));
      }
      std::string_view raw;
      typed_ok = cur_.ParseBalanced(&raw);
      break;
    }
    case kAttrBackendConfig: {
      std::string_view ignored;
      typed_ok = ParseRawValue(key_text, &ignored);
      break;
    }
    default: {
      std::string_view ignored;
      typed_ok = ParseRawValue(key_text, &ignored);
      break;
    }
  }
  if (!typed_ok) return false;
  std::string_view written(value_at, static_cast<size_t>(cur_.pos() - value_at));
  // Values written over several lines or with comments are printed in one canonical line.
  std::string storage;
  std::string_view canonical = CanonicalValueText(written, storage);
  std::string metadata_storage;
  if (key == kAttrMetadata) canonical = CanonicalMetadataText(canonical, metadata_storage);
  std::string_view text = module_.Save(canonical);
  Attribute attr;
  attr.key = key;
  attr.value = text;
  builder.AddAttribute(attr);
  switch (key) {
    case kAttrMetadata: {
      Metadata* m = module_.CreateMetadata();
      DecodeMetadata(text.substr(1, text.size() - 2), m);
      builder.set_metadata(m);
      break;
    }
    case kAttrSharding:
      builder.details().sharding = text.substr(1, text.size() - 2);
      break;
    case kAttrFrontendAttributes:
      builder.details().frontend_attributes = text.substr(1, text.size() - 2);
      break;
    case kAttrBackendConfig: {
      builder.details().backend_config = text;
      const int64_t trip_count = FindKnownTripCount(text);
      if (trip_count == kTripCountTooLarge) {
        return cur_.Error(key_at,
                          "known_trip_count in backend_config is past the largest int64 "
                          "(9223372036854775807)");
      }
      builder.details().known_trip_count = trip_count;
      break;
    }
    default:
      break;
  }
  return true;
}

}  // namespace hloscope
