#include "hlo/shape_parser.h"

#include <cstring>
#include <limits>
#include <vector>

#include "support/str_util.h"

namespace hloscope {

namespace {
constexpr int kMaxShapeDepth = 64;  // tuples nested deeper are refused (no runaway recursion)

// The end of the element-type-like word at `p`: lowercase letters and digits (`bf16`, `f8e4m3`).
const char* SkipTypeWord(const char* p, const char* end) {
  while (p < end && ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9'))) ++p;
  return p;
}

}  // namespace

bool ShapeParser::AtShape() const {
  const char* p = cur_.pos();
  const char* end = cur_.end();
  if (p < end && *p == '(') return true;
  if (p + 1 < end && p[0] == 'b' && p[1] == '(') return true;
  // A word directly followed by '[' can only be an element type (opcodes and names never
  // are); Parse() reports an unknown type with a precise message.
  const char* w = SkipTypeWord(p, end);
  if (w == p || w >= end) return false;
  if (*w == '[') return true;
  // XLA's parser works on tokens, so `s32 [4]` is a shape too; with spaces in between the word
  // must be a real element type, since `name [` could start something else.
  const char* b = w;
  while (b < end && *b == ' ') ++b;
  return b != w && b < end && *b == '[' &&
         ParsePrimitiveType(std::string_view(p, static_cast<size_t>(w - p))).has_value();
}

size_t ShapeParser::ShapeTextLength() const {
  const char* p = cur_.pos();
  const char* end = cur_.end();
  const char* start = p;
  int depth = 0;
  if (p < end && *p == '(') {
    for (; p < end; ++p) {
      if (*p == '(') ++depth;
      if (*p == ')' && --depth == 0) return static_cast<size_t>(p + 1 - start);
      if (*p == '"' || *p == '\n') return 0;  // not a plain shape; parse without the cache
    }
    return 0;
  }
  p = SkipTypeWord(p, end);
  if (p >= end || *p != '[') return 0;
  return ArrayTextLength(start, p);
}

size_t ShapeParser::ArrayTextLength(const char* start, const char* p) const {
  const char* end = cur_.end();
  p = FindFirstOf(p, end, ']', '\n', ']', ']');
  if (p >= end || *p != ']') return 0;
  ++p;
  if (p < end && *p == ' ') {
    // `f32[3] {1,0}` (layout after a space) is parsed without the cache, so a cached
    // `f32[3]` never stops short of its layout.
    const char* q = p;
    while (q < end && *q == ' ') ++q;
    if (q < end && *q == '{') return 0;
  }
  if (p < end && *p == '{') {
    // A layout: to its '}' unless it holds parenthesized parts (tiles `T(8,128)` and the
    // like) or braces, which need the bracket count below.
    const char* q = FindFirstOf(p + 1, end, '}', '\n', '(', '{');
    if (q < end && *q == '}') return static_cast<size_t>(q + 1 - start);
    if (q >= end || *q == '\n') return 0;
    int depth = 0;
    for (; p < end; ++p) {
      if (*p == '{' || *p == '(') ++depth;
      if (*p == ')') --depth;
      if (*p == '}' && --depth == 0) return static_cast<size_t>(p + 1 - start);
      if (*p == '\n') return 0;
    }
    return 0;
  }
  return static_cast<size_t>(p - start);
}

bool ShapeParser::ParseIfShape(const Shape** out) {
  const char* p = cur_.pos();
  const char* end = cur_.end();
  const char* w = SkipTypeWord(p, end);
  if (w != p && w < end && *w == '[') {
    // The common case, `bf16[4,8]{1,0}`: scanned once, then looked up.
    size_t len = ArrayTextLength(p, w);
    if (len > 0) return ParseCacheable(len, out);
    return ParseAndIntern(out);
  }
  if (!AtShape()) {
    *out = nullptr;
    return true;
  }
  return Parse(out);
}

bool ShapeParser::Parse(const Shape** out) {
  if (!cur_.SkipSpace()) return false;
  size_t len = ShapeTextLength();
  if (len > 0) return ParseCacheable(len, out);
  return ParseAndIntern(out);
}

bool ShapeParser::ParseCacheable(size_t len, const Shape** out) {
  std::string_view key(cur_.pos(), len);
  const size_t hash = StringViewHash{}(key);
  // Front cache: one 64-byte line per entry holding the text itself, so a hit touches one
  // line instead of the hash table's control bytes, its slot and the key text elsewhere.
  RecentShape& recent = recent_[(hash >> 20) % recent_.size()];
  if (recent.length == len && StringViewEq{}(std::string_view(recent.text, len), key)) {
    cur_.set_pos(cur_.pos() + len);
    *out = recent.shape;
    return true;
  }
  auto it = cache_.find(key, hash);
  if (it != cache_.end()) {
    cur_.set_pos(cur_.pos() + len);
    *out = it->second;
  } else {
    const char* start = cur_.pos();
    if (!ParseAndIntern(out)) return false;
    // Only cache when the parse consumed exactly the scanned text (comments or spaces inside a
    // tuple can make them differ; then the text is still a valid key for this same result).
    if (cur_.pos() != start + len) return true;
    cache_.emplace(key, *out);
  }
  if (len <= sizeof(recent.text)) {
    std::memcpy(recent.text, key.data(), len);
    recent.length = static_cast<uint8_t>(len);
    recent.shape = *out;
  }
  return true;
}

// Out of line: the Shape on its stack frame is only needed on a cache miss.
__attribute__((noinline)) bool ShapeParser::ParseAndIntern(const Shape** out) {
  Shape shape;
  if (!ParseUncached(&shape)) return false;
  *out = module_.InternShape(std::move(shape));
  return true;
}

bool ShapeParser::ParseUncached(Shape* shape) {
  if (!cur_.SkipSpace()) return false;
  if (cur_.Peek() == '(') {
    if (++depth_ > kMaxShapeDepth) return cur_.ErrorHere("tuple shape nested too deeply");
    cur_.set_pos(cur_.pos() + 1);
    shape->element_type = PrimitiveType::kTuple;
    if (!cur_.TryConsume(')')) {
      if (!cur_.ok()) return false;
      while (true) {
        const Shape* element;
        if (!Parse(&element)) return false;
        shape->tuple_elements.push_back(element);
        if (cur_.TryConsume(',')) continue;
        if (!cur_.Expect(')', "to close the tuple shape")) return false;
        break;
      }
    }
    --depth_;
    return true;
  }
  if (cur_.Peek() == 'b' && cur_.PeekAt(1) == '(') {
    cur_.set_pos(cur_.pos() + 2);
    shape->element_type = PrimitiveType::kBuffer;
    const Shape* inner;
    if (!Parse(&inner)) return false;
    if (!inner->IsArray()) return cur_.ErrorHere("a buffer shape b(...) must hold an array");
    shape->tuple_elements.push_back(inner);
    return cur_.Expect(')', "to close the buffer shape");
  }
  const char* type_pos = cur_.pos();
  std::string_view type_name;
  if (!cur_.ParseWord(&type_name, "a shape")) return false;
  std::optional<PrimitiveType> type = ParsePrimitiveType(type_name);
  if (!type) {
    return cur_.Error(type_pos, StrCat("unknown element type '", type_name, "'"));
  }
  shape->element_type = *type;
  if (cur_.Peek() == ' ') {
    const char* b = cur_.pos();
    while (b < cur_.end() && *b == ' ') ++b;
    if (b < cur_.end() && *b == '[') cur_.set_pos(b);  // `s32 [4]`, see AtShape()
  }
  if (cur_.Peek() != '[') {
    return cur_.ErrorHere(StrCat("expected '[' after element type '", type_name, "', found ",
                                 DescribeChar(cur_.pos(), cur_.end())));
  }
  cur_.set_pos(cur_.pos() + 1);
  if (!cur_.TryConsume(']')) {
    if (!cur_.ok()) return false;
    while (true) {
      if (!cur_.SkipSpace()) return false;
      bool dynamic = false;
      int64_t size = 0;
      if (cur_.Peek() == '?') {
        cur_.set_pos(cur_.pos() + 1);
        dynamic = true;
        size = Shape::kUnboundedSize;
      } else {
        if (cur_.Peek() == '<' && cur_.PeekAt(1) == '=') {
          cur_.set_pos(cur_.pos() + 2);
          dynamic = true;
        }
        const char* at = cur_.pos();
        if (!cur_.ParseInt(&size, "a dimension size")) return false;
        if (size < 0) return cur_.Error(at, "dimension size must not be negative");
      }
      shape->dims.push_back(size);
      shape->dynamic.push_back(dynamic);
      if (cur_.TryConsume(',')) continue;
      if (!cur_.Expect(']', "to close the dimensions")) return false;
      break;
    }
  }
  std::optional<int64_t> elements = CheckedElementCount(shape->dims);
  if (!elements) {
    return cur_.Error(type_pos, "shape is too large: its element count does not fit in 64 bits");
  }
  if (!ByteSizeFits(*elements, GetPrimitiveTypeInfo(*type).bits)) {
    return cur_.Error(type_pos, "shape is too large: its size in bytes does not fit in 64 bits");
  }
  if ((*type == PrimitiveType::kToken || *type == PrimitiveType::kOpaque) && !shape->dims.empty()) {
    return cur_.Error(type_pos, StrCat("'", type_name, "' shapes have no dimensions"));
  }
  if (cur_.Peek() == '{') {
    // `-> f32[2]{` can also be a signature's result shape followed by the computation body:
    // a brace is a layout only when it holds one (digits, ':' or '}'; '-' too, which no
    // instruction name starts with, so that `{-1,0}` is reported as a bad layout).
    const char* q = cur_.pos() + 1;
    while (q < cur_.end() && *q == ' ') ++q;
    if (q < cur_.end() && ((*q >= '0' && *q <= '9') || *q == ':' || *q == '}' || *q == '-')) {
      return ParseLayout(shape);
    }
    return true;
  }
  // Some tests write the layout after a space: `f32[3,6] {1,0}`. A brace counts as a layout
  // only when it holds a layout (digits, ':', '}' or '-'), not a computation body.
  const char* p = cur_.pos();
  while (p < cur_.end() && *p == ' ') ++p;
  if (p > cur_.pos() && p < cur_.end() && *p == '{') {
    const char* q = p + 1;
    while (q < cur_.end() && *q == ' ') ++q;
    if (q < cur_.end() && ((*q >= '0' && *q <= '9') || *q == ':' || *q == '}' || *q == '-')) {
      cur_.set_pos(p);
      return ParseLayout(shape);
    }
  }
  return true;
}

bool ShapeParser::ParseLayout(Shape* shape) {
  const char* brace = cur_.pos();
  cur_.set_pos(cur_.pos() + 1);
  shape->has_layout = true;
  Layout& layout = shape->layout;
  if (!cur_.SkipSpace()) return false;
  if (cur_.Peek() != '}' && cur_.Peek() != ':') {
    while (true) {
      int64_t d;
      if (!cur_.ParseInt(&d, "a layout dimension")) return false;
      layout.minor_to_major.push_back(d);
      if (cur_.TryConsume(',')) continue;
      break;
    }
  }
  if (cur_.TryConsume(':')) {
    if (!ParseLayoutParts(&layout)) return false;
  }
  if (!cur_.ok() || !cur_.Expect('}', "to close the layout")) return false;
  if (!shape->IsArray()) return true;
  if (static_cast<int64_t>(layout.minor_to_major.size()) != shape->rank()) {
    size_t n = layout.minor_to_major.size();
    return cur_.Error(brace, StrCat("layout has ", n, n == 1 ? " dimension" : " dimensions",
                                    " but the shape has rank ", shape->rank()));
  }
  // A bit per dimension; ranks past 64 (valid, if rare) take a vector instead of the mask.
  uint64_t seen_mask = 0;
  std::vector<bool> seen_wide(shape->rank() > 64 ? static_cast<size_t>(shape->rank()) : 0);
  for (int64_t d : layout.minor_to_major) {
    bool seen =
        d >= 0 && d < shape->rank() &&
        (d < 64 && seen_wide.empty() ? (seen_mask >> d) & 1
                                     : static_cast<bool>(seen_wide[static_cast<size_t>(d)]));
    if (d < 0 || d >= shape->rank() || seen) {
      return cur_.Error(brace,
                        StrCat("layout {", StrJoin(layout.minor_to_major, ","),
                               "} is not a permutation of the dimensions 0..", shape->rank() - 1));
    }
    if (seen_wide.empty()) {
      seen_mask |= uint64_t{1} << d;
    } else {
      seen_wide[static_cast<size_t>(d)] = true;
    }
  }
  return true;
}

bool ShapeParser::ParseParenInt(int64_t* out, std::string_view what) {
  return cur_.Expect('(', StrCat("after '", what, "' in the layout")) &&
         cur_.ParseInt(out, StrCat("an integer in the layout's '", what, "(...)'")) &&
         cur_.Expect(')', StrCat("to close '", what, "('"));
}

bool ShapeParser::ParseParenRaw(std::string_view* out) {
  if (!cur_.SkipSpace()) return false;
  if (cur_.Peek() != '(') return cur_.ErrorHere("expected '(' in the layout");
  std::string_view raw;
  if (!cur_.ParseBalanced(&raw)) return false;
  *out = module_.Save(raw.substr(1, raw.size() - 2));
  return true;
}

bool ShapeParser::ParseParenType(PrimitiveType* out) {
  std::string_view name;
  if (!cur_.Expect('(', "in the layout")) return false;
  const char* at = cur_.pos();
  if (!cur_.ParseWord(&name, "an element type")) return false;
  auto t = ParsePrimitiveType(name);
  if (!t) return cur_.Error(at, StrCat("unknown element type '", name, "'"));
  *out = *t;
  return cur_.Expect(')', "after the element type");
}

bool ShapeParser::ParseLayoutParts(Layout* layout) {
  while (true) {
    if (!cur_.SkipSpace()) return false;
    const char* at = cur_.pos();
    char c = cur_.Peek();
    if (c == '}') return true;
    if (c == 'T') {
      cur_.set_pos(at + 1);
      if (cur_.Peek() != '(') return cur_.ErrorHere("expected '(' after 'T' in the layout");
      while (cur_.Peek() == '(') {
        cur_.set_pos(cur_.pos() + 1);
        Tile tile;
        while (true) {
          if (!cur_.SkipSpace()) return false;
          if (cur_.Peek() == '*') {
            cur_.set_pos(cur_.pos() + 1);
            tile.dims.push_back(Tile::kTileCombine);
          } else {
            int64_t d;
            if (!cur_.ParseInt(&d, "a tile dimension")) return false;
            tile.dims.push_back(d);
          }
          if (cur_.TryConsume(',')) continue;
          if (!cur_.Expect(')', "to close the tile")) return false;
          break;
        }
        layout->tiles.push_back(std::move(tile));
      }
    } else if (c == 'S' && cur_.PeekAt(1) == 'C') {
      cur_.set_pos(at + 2);
      if (!ParseParenRaw(&layout->split_configs)) return false;
    } else if (c == 'S') {
      cur_.set_pos(at + 1);
      if (!ParseParenInt(&layout->memory_space, "S")) return false;
    } else if (c == 'E') {
      cur_.set_pos(at + 1);
      if (!ParseParenInt(&layout->element_size_bits, "E")) return false;
    } else if (c == 'L') {
      cur_.set_pos(at + 1);
      if (!ParseParenInt(&layout->tail_padding_alignment, "L")) return false;
    } else if (c == 'M') {
      cur_.set_pos(at + 1);
      if (!ParseParenInt(&layout->dynamic_metadata_prefix_bytes, "M")) return false;
    } else if (c == 'D') {
      cur_.set_pos(at + 1);
      if (!ParseParenRaw(&layout->dim_level_types)) return false;
    } else if (c == '#') {
      cur_.set_pos(at + 1);
      if (!ParseParenType(&layout->index_type)) return false;
    } else if (c == '*') {
      cur_.set_pos(at + 1);
      if (!ParseParenType(&layout->pointer_type)) return false;
    } else if (c == 'P') {
      cur_.set_pos(at + 1);
      if (!cur_.Expect('(', "after 'P' in the layout")) return false;
      const Shape* physical;
      if (!Parse(&physical)) return false;
      layout->physical_shape = physical;
      if (!cur_.Expect(')', "to close 'P('")) return false;
    } else {
      return cur_.ErrorHere(StrCat("unknown layout attribute ", DescribeChar(at, cur_.end()),
                                   "; expected one of D T L # * E S SC P M"));
    }
  }
}

}  // namespace hloscope
