// Parses shapes and layouts at a TextCursor into a module's interned shapes. Identical shape
// text is parsed once: the parser caches text → interned shape (large modules repeat a few
// hundred distinct shapes tens of thousands of times).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "hlo/module.h"
#include "hlo/string_hash.h"
#include "hlo/text_cursor.h"

namespace hloscope {

class ShapeParser {
 public:
  ShapeParser(TextCursor& cursor, Module& module) : cur_(cursor), module_(module) {}

  // Parses a shape starting at the cursor (leading space is skipped).
  bool Parse(const Shape** out);
  // True when the text at the cursor starts a shape: `(` or an element type name followed
  // by `[`. Does not move the cursor.
  bool AtShape() const;
  // Parse() when a shape starts at the cursor (AtShape()); otherwise sets *out to null, leaves
  // the cursor where it is and returns true. One scan instead of AtShape() then Parse(): this
  // runs once per instruction.
  bool ParseIfShape(const Shape** out);

 private:
  // Byte length of the shape text at the cursor (brackets balanced), or 0 if unclear.
  size_t ShapeTextLength() const;
  // The same from `p`, the end of the element type word of an array shape (at its '[').
  size_t ArrayTextLength(const char* start, const char* p) const;
  // Cache lookup of the `len` bytes at the cursor, parsing and caching them on a miss.
  bool ParseCacheable(size_t len, const Shape** out);
  bool ParseAndIntern(const Shape** out);
  bool ParseUncached(Shape* shape);
  bool ParseLayout(Shape* shape);
  bool ParseLayoutParts(Layout* layout);
  bool ParseParenInt(int64_t* out, std::string_view what);
  bool ParseParenRaw(std::string_view* out);
  bool ParseParenType(PrimitiveType* out);

  TextCursor& cur_;
  Module& module_;
  StringViewMap<const Shape*> cache_;
  // Direct-mapped by hash in front of cache_: shape texts up to 55 bytes, kept inline.
  struct alignas(64) RecentShape {
    const Shape* shape = nullptr;
    uint8_t length = 0;  // 0: empty (shape texts are never empty)
    char text[55];
  };
  std::array<RecentShape, 256> recent_{};
  int depth_ = 0;
};

}  // namespace hloscope
