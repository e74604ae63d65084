// XLA's buffer assignment from its text dumps. `*-buffer-assignment.txt` is
// BufferAssignment::ToString (xla/service/buffer_assignment.cc), possibly after the stats and
// peak buffers of ToVerboseString:
//
//   allocation 0: size 1024, parameter 0, shape |f32[16,16]| at ShapeIndex {}:
//    value: <0 p0 @0> (size=1024,offset=0): f32[16,16]{1,0}
//   allocation 1: size 64, output shape is |f32[16]|, maybe-live-out:
//   ...
//   Total bytes used: 1088 (1.06KiB)
//
//   Used values:  (HloValue::ToString of each; not needed here)
//
// `*-memory-usage-report.txt` starts with the same "Total bytes used" line.
#include <algorithm>
#include <charconv>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "analysis/memory/xla_buffer_assignment.h"
#include "fmt/format.h"

namespace hloscope {
namespace {

// A line of the dump with a cursor; errors name file:line:col of the cursor.
class LineCursor {
 public:
  LineCursor(std::string_view line, std::string_view filename, int line_number)
      : line_(line), filename_(filename), line_number_(line_number) {}

  bool Consume(std::string_view s) {
    if (!line_.substr(pos_).starts_with(s)) return false;
    pos_ += s.size();
    return true;
  }
  bool AtEnd() const { return pos_ == line_.size(); }
  std::string_view Rest() const { return line_.substr(pos_); }

  bool Integer(int64_t* out) {
    const char* begin = line_.data() + pos_;
    auto [end, ec] = std::from_chars(begin, line_.data() + line_.size(), *out);
    if (ec != std::errc() || end == begin) return false;
    pos_ += static_cast<size_t>(end - begin);
    return true;
  }
  // Characters up to (not including) the first of `stops`, at least one.
  bool Until(std::string_view stops, std::string_view* out) {
    const size_t end = line_.find_first_of(stops, pos_);
    if (end == std::string_view::npos || end == pos_) return false;
    *out = line_.substr(pos_, end - pos_);
    pos_ = end;
    return true;
  }
  // "{}" or "{1,0}".
  bool Index(std::vector<int64_t>* out) {
    if (!Consume("{")) return false;
    if (Consume("}")) return true;
    do {
      int64_t v = 0;
      if (!Integer(&v) || v < 0) return false;
      out->push_back(v);
    } while (Consume(","));
    return Consume("}");
  }

  size_t pos() const { return pos_; }
  absl::Status Error(std::string_view what) const { return ErrorAt(pos_, what); }
  absl::Status ErrorAt(size_t pos, std::string_view what) const {
    return absl::InvalidArgumentError(
        fmt::format("{}:{}:{}: error: {}", filename_, line_number_, pos + 1, what));
  }

 private:
  std::string_view line_;
  std::string_view filename_;
  int line_number_;
  size_t pos_ = 0;
};

// "allocation 3: size 1024, parameter 0, shape |f32[4]| at ShapeIndex {}, maybe-live-out:"
absl::Status ParseAllocationLine(LineCursor& c, XlaAllocation* a) {
  if (!c.Consume("allocation ") || !c.Integer(&a->index) || a->index < 0) {
    return c.Error("expected 'allocation N: size BYTES, KIND...:'");
  }
  if (!c.Consume(": size ") || !c.Integer(&a->bytes) || a->bytes < 0 ||
      !(c.Rest().starts_with(",") || c.Rest().starts_with(":"))) {
    return c.Error(
        "expected ': size BYTES' (a byte count: the memory usage report's rounded "
        "sizes are not read)");
  }
  bool parameter = false, constant = false, thread_local_kind = false, live_out = false,
       temp = false;
  while (c.Consume(", ")) {
    if (c.Consume("color ")) {
      if (!c.Integer(&a->color)) return c.Error("expected the color's number");
    } else if (c.Consume("page ")) {
      // Current XLA (2026) writes the allocation's page after its size; sizes, kinds and
      // values are what the comparison reads, so the page is checked and not kept.
      int64_t page = 0;
      if (!c.Integer(&page) || page < 0) return c.Error("expected the page's number");
    } else if (c.Consume("parameter ")) {
      parameter = true;
      std::string_view shape;
      if (!c.Integer(&a->parameter_number) || !c.Consume(", shape |") || !c.Until("|", &shape) ||
          !c.Consume("| at ShapeIndex ") || !c.Index(&a->parameter_index)) {
        return c.Error("expected 'parameter N, shape |SHAPE| at ShapeIndex {...}'");
      }
    } else if (c.Consume("output shape is |")) {
      std::string_view shape;
      if (!c.Until("|", &shape) || !c.Consume("|")) return c.Error("expected '|' after the shape");
    } else if (c.Consume("constant")) {
      constant = true;
    } else if (c.Consume("thread-local")) {
      thread_local_kind = true;
    } else if (c.Consume("maybe-live-out")) {
      live_out = true;
    } else if (c.Consume("preallocated-temp")) {
      temp = true;
    } else {
      return c.Error(fmt::format("unknown allocation kind '{}'", c.Rest()));
    }
  }
  if (!c.Consume(":") || !c.AtEnd()) {
    return c.Error("expected ', KIND' or the ':' that ends the allocation line");
  }
  a->is_entry_parameter = parameter;
  a->is_constant = constant;
  a->is_thread_local = thread_local_kind;
  a->maybe_live_out = live_out;
  if (temp != a->is_preallocated_temp()) {
    return c.Error(temp ? "'preallocated-temp' together with another kind"
                        : "an allocation of no kind (XLA writes 'preallocated-temp')");
  }
  return absl::OkStatus();
}

// " value: <12 fusion.3{1} (phi) @0> (size=64,offset=128): f32[16]{0}"
absl::Status ParseValueLine(LineCursor& c, const XlaAllocation& a, XlaAssignedValue* v) {
  std::string_view name;
  if (!c.Consume(" value: <") || !c.Integer(&v->id) || !c.Consume(" ") || !c.Until("{ >", &name)) {
    return c.Error("expected ' value: <ID NAME> (size=BYTES,offset=BYTES): SHAPE'");
  }
  v->instruction = std::string(name);
  if (c.Rest().starts_with("{") && !c.Index(&v->index)) return c.Error("expected a shape index");
  // Our model of XLA's assignment lists the table of a tuple-shaped op that an async-start
  // wraps as `<start>{1}.wrapped` (xla_assignment_model.cc): one name, as the module mapping
  // (MapXlaBufferAssignmentOntoModule) names XLA's own value of that table, not an index.
  if (v->index == std::vector<int64_t>{1} && c.Consume(".wrapped")) {
    v->instruction += "{1}.wrapped";
    v->index.clear();
  }
  c.Consume(" (phi)");
  if (c.Consume(" @")) {
    int64_t color = 0;
    if (!c.Integer(&color)) return c.Error("expected the value's color after '@'");
  }
  size_t offset_at = 0;  // the place of the offset, for the error that names it
  if (!c.Consume("> (size=") || !c.Integer(&v->bytes) || !c.Consume(",offset=") ||
      (offset_at = c.pos(), !c.Integer(&v->offset)) || !c.Consume("):")) {
    return c.Error("expected '> (size=BYTES,offset=BYTES):'");
  }
  if (v->bytes < 0 || v->offset < 0 || v->bytes > a.bytes || v->offset > a.bytes - v->bytes) {
    return c.ErrorAt(offset_at,
                     fmt::format("value '{}' at offset {} with {} bytes is past the end of "
                                 "allocation {} ({} bytes)",
                                 name, v->offset, v->bytes, a.index, a.bytes));
  }
  return absl::OkStatus();
}

// Calls fn(line, number) for each line; stops at the first error fn returns.
template <typename Fn>
absl::Status ForEachLine(std::string_view text, Fn fn) {
  int number = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    if (line.ends_with('\r')) line.remove_suffix(1);
    ++number;
    pos = end + 1;
    bool stop = false;
    if (absl::Status s = fn(line, number, &stop); !s.ok()) return s;
    if (stop) break;
  }
  return absl::OkStatus();
}

bool IsBlank(std::string_view line) {
  return line.find_first_not_of(" \t") == std::string_view::npos;
}

}  // namespace

absl::StatusOr<XlaBufferAssignment> ParseXlaBufferAssignmentText(std::string_view text,
                                                                 std::string_view filename) {
  XlaBufferAssignment out;
  out.source = std::string(filename);
  absl::flat_hash_set<int64_t> value_ids;
  int total_line = 0;
  absl::Status status =
      ForEachLine(text, [&](std::string_view line, int number, bool* stop) -> absl::Status {
        LineCursor c(line, filename, number);
        if (line.starts_with("allocation ")) {
          XlaAllocation a;
          if (absl::Status s = ParseAllocationLine(c, &a); !s.ok()) return s;
          if (a.index != static_cast<int64_t>(out.allocations.size())) {
            return LineCursor(line, filename, number)
                .Error(
                    fmt::format("allocation {} where allocation {} was expected (XLA writes them "
                                "by index)",
                                a.index, out.allocations.size()));
          }
          out.allocations.push_back(std::move(a));
          return absl::OkStatus();
        }
        if (line.starts_with("Total bytes used: ")) {
          int64_t total = 0;
          c.Consume("Total bytes used: ");
          if (!c.Integer(&total)) return c.Error("expected the total's byte count");
          out.stated_total_bytes = total;
          total_line = number;
          *stop = true;  // what follows ("Used values:", live ranges) is not needed
          return absl::OkStatus();
        }
        if (out.allocations.empty() || IsBlank(line)) return absl::OkStatus();  // the header blocks
        if (!line.starts_with(" value: ")) {
          return c.Error(
              "expected ' value: <ID NAME> (size=BYTES,offset=BYTES): SHAPE', "
              "'allocation N: ...' or 'Total bytes used: N'");
        }
        XlaAssignedValue v;
        if (absl::Status s = ParseValueLine(c, out.allocations.back(), &v); !s.ok()) return s;
        if (!value_ids.insert(v.id).second) {
          return LineCursor(line, filename, number)
              .Error(fmt::format("value {} is assigned twice", v.id));
        }
        out.allocations.back().values.push_back(std::move(v));
        return absl::OkStatus();
      });
  if (!status.ok()) return status;
  if (out.allocations.empty()) {
    return absl::InvalidArgumentError(fmt::format(
        "{}:1:1: error: no 'allocation N: size BYTES, ...:' line: not XLA's buffer assignment "
        "dump",
        filename));
  }
  if (out.stated_total_bytes && *out.stated_total_bytes != out.Totals().total_bytes) {
    return absl::InvalidArgumentError(fmt::format(
        "{}:{}:1: error: 'Total bytes used: {}' but the allocations add up to {} bytes (a "
        "truncated or edited dump?)",
        filename, total_line, *out.stated_total_bytes, out.Totals().total_bytes));
  }
  return out;
}

absl::StatusOr<XlaMemoryUsageReport> ParseXlaMemoryUsageReport(std::string_view text,
                                                               std::string_view filename) {
  XlaMemoryUsageReport out;
  bool have_total = false;
  absl::flat_hash_set<int64_t> indexes;
  absl::Status status =
      ForEachLine(text, [&](std::string_view line, int number, bool*) -> absl::Status {
        LineCursor c(line, filename, number);
        if (!have_total) {
          if (IsBlank(line)) return absl::OkStatus();
          if (!c.Consume("Total bytes used: ") || !c.Integer(&out.total_bytes) ||
              out.total_bytes < 0) {
            return c.Error("expected 'Total bytes used: N': not XLA's memory usage report");
          }
          have_total = true;
          return absl::OkStatus();
        }
        // "  512.0KiB( 67%);   256.0KiB; allocation 6: size 512.0KiB, preallocated-temp:"
        const size_t at = line.find("; allocation ");
        if (at == std::string_view::npos) return absl::OkStatus();
        LineCursor a(line.substr(at + 2), filename, number);
        int64_t index = 0;
        if (!a.Consume("allocation ") || !a.Integer(&index) || !a.Consume(": size ")) {
          return c.Error("expected 'allocation N: size ...' after ';'");
        }
        indexes.insert(index);
        return absl::OkStatus();
      });
  if (!status.ok()) return status;
  if (!have_total) {
    return absl::InvalidArgumentError(
        fmt::format("{}:1:1: error: empty: expected 'Total bytes used: N'", filename));
  }
  out.allocations = static_cast<int64_t>(indexes.size());
  return out;
}

}  // namespace hloscope
