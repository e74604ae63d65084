#include "tools/hlo-opt/hlo_opt_xla_dump.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <set>
#include <vector>

#include "absl/status/status.h"
#include "analysis/memory/memory_comparison.h"
#include "analysis/memory/memory_context.h"
#include "analysis/memory/memory_profile.h"
#include "analysis/memory/xla_buffer_assignment.h"
#include "fmt/format.h"
#include "hlo/parser.h"
#include "hlo/verifier.h"
#include "passes/copy_elision.h"
#include "passes/flatten_call_graph.h"
#include "support/bytes.h"
#include "support/checked_int.h"
#include "support/escapes.h"
#include "support/status_text.h"
#include "support/str_util.h"
#include "tools/common/error_line.h"
#include "tools/common/parallel_modules.h"
#include "tools/hlo-opt/hlo_opt_memory_diff.h"
#include "tools/hlo-opt/hlo_opt_memory_opportunities.h"
#include "tools/hlo-opt/hlo_opt_option_flags.h"

namespace hloscope {

void AddXlaDumpFlags(FlagTable& table, XlaDumpFlags& flags) {
  table.Add({.names = {"--xla-dump"},
             .value = FlagValue::kRequired,
             .placeholder = "DIR",
             .help = "Read an XLA dump directory (XLA_FLAGS=--xla_dump_to=DIR; a\n"
                     "directory given as FILE is read the same way): one row per\n"
                     "compiled module, largest peak first: id, name, instructions, our\n"
                     "peak before and after optimizations (--memory-model), XLA's\n"
                     "'Total bytes used' (its -memory-usage-report.txt,\n"
                     "-buffer-assignment.txt, or the buffer assignment inside an .hlo.pb\n"
                     "module) and the difference, copies in while loops\n"
                     "and their copy traffic per step (copy-elision's report), the\n"
                     "largest buffer at the peak. Subdirectories are read too (one per\n"
                     "process); a module dumped by several processes is listed once per\n"
                     "origin (SUBDIR and/or @TIMESTAMP) and said so. --format=text, json,\n"
                     "csv or html; --jobs modules at a time; progress on stderr after a\n"
                     "second. Exit status 2 when DIR holds no XLA dump or a file of it\n"
                     "cannot be read, 1 when a module does not parse; nothing is\n"
                     "written then. Proto modules (.hlo.pb) are read as XLA's module\n"
                     "protos.",
             .handler = [&flags](std::optional<std::string_view> value) {
               if (!value || value->empty()) {
                 return FlagError("option '--xla-dump' needs a value (a directory)");
               }
               flags.dir = std::string(*value);
               flags.from_input = false;
               return absl::OkStatus();
             }});
  table.Add({.names = {"--module"},
             .value = FlagValue::kRequired,
             .placeholder = "ID|NAME",
             .help = "With --xla-dump: that module in full: the memory report of its\n"
                     "after-optimizations module (as --memory-report prints it), XLA's\n"
                     "totals beside ours, and with per-pass dumps (--xla_dump_hlo_pass_re)\n"
                     "the copies and peak after each pass and, for each copy of the\n"
                     "final module, the pass that introduced it. ORIGIN:ID picks one of\n"
                     "several processes' copies. A name that matches no module, or\n"
                     "several, is a usage error (exit 2).",
             .handler = [&flags](std::optional<std::string_view> value) {
               if (!value || value->empty()) {
                 return FlagError("option '--module' needs a value (a module id or name)");
               }
               flags.module = std::string(*value);
               return absl::OkStatus();
             }});
}

std::string CheckXlaDumpFlags(const XlaDumpFlags& flags, const MemoryFlags& memory,
                              bool other_modes, bool more_inputs) {
  if (!flags.enabled()) {
    return flags.module.empty() ? "" : "--module needs --xla-dump=DIR (or a directory as FILE)";
  }
  if (more_inputs) return "--xla-dump reads one directory; no other input file is read with it";
  if (other_modes || memory.enabled) {
    return "--xla-dump cannot be combined with --passes, --stats, --check-in-place, "
           "--print-dataflow, --print-buffers, --memory-report, --report or --stage-costs";
  }
  if (!flags.module.empty() &&
      (memory.format == MemoryFormat::kCsv || memory.format == MemoryFormat::kHtml)) {
    return "--module prints --format=text or json (csv and html are the index's)";
  }
  return "";
}

namespace {

std::string JsonOr(const std::optional<int64_t>& v) { return v ? std::to_string(*v) : "null"; }

std::string Bytes(const std::optional<int64_t>& b) { return b ? HumanBytes(*b) : std::string("-"); }

std::string SignedBytes(int64_t b) { return b < 0 ? "-" + HumanBytes(-b) : "+" + HumanBytes(b); }

// Exit code of an error: unreadable files and bad directories are usage errors (2, as an
// unreadable FILE is), modules that do not parse are bad input (1).
int ExitCodeOf(const absl::Status& s) {
  return s.code() == absl::StatusCode::kInvalidArgument ? 1 : 2;
}

void PrintError(const absl::Status& s) {
  fmt::print(stderr, "{}", ErrorLine("hlo-opt", StatusText(WithHloOptFlag(s))));
}

int64_t CountInstructions(const Module& m) {
  int64_t n = 0;
  for (const Computation* c : m.computations()) n += c->instruction_count();
  return n;
}

// Copies of a module by name (kCopy; copy-start/copy-done move between memory spaces).
struct CopyInfo {
  std::string name;
  std::string computation;
  int64_t bytes = 0;
  // From copy-elision's report (the final module only): executions per step (the trip counts
  // of the loops around it), and whether all of them were known.
  std::optional<int64_t> executions_per_step;
  bool executions_known = true;
};
std::vector<CopyInfo> CopiesOf(const Module& m) {
  std::vector<CopyInfo> out;
  for (const Computation* c : m.computations()) {
    for (const Instruction* i : c->instructions()) {
      if (i->opcode() == Opcode::kCopy) {
        CopyInfo& copy = out.emplace_back();
        copy.name = std::string(i->name());
        copy.computation = std::string(c->name());
        copy.bytes = i->shape().TotalArrayBytes();
      }
    }
  }
  return out;
}

MemoryOptions ProfileOptions(const MemoryOptions& base) {
  MemoryOptions o = base;
  o.timeline = false;
  o.heap = false;
  o.top_buffers = std::max(o.top_buffers, 1);
  return o;
}

// Flattens (the profiler needs one call site per callee) and profiles.
absl::StatusOr<ModuleMemory> Profile(Module& m, const MemoryOptions& base) {
  if (absl::Status s = FlattenCallGraph().Run(m).status(); !s.ok()) return s;
  absl::StatusOr<MemoryReport> r = ProfileModule(m, ProfileOptions(base));
  if (!r.ok()) return WithHloOptFlag(r.status());
  if (r->modules.empty()) return absl::InternalError("the profiler returned no module");
  return std::move(r->modules.front());
}

const DumpFile* FinalModuleFile(const DumpModule& m) {
  if (m.after) return &*m.after;
  if (!m.passes.empty()) return &m.passes.back();
  if (m.before) return &*m.before;
  return nullptr;
}

std::string DisplayName(const DumpModule& m) { return m.name.empty() ? "(no name)" : m.name; }

// --- the index ------------------------------------------------------------------------------

struct ModuleRow {
  const DumpModule* module = nullptr;
  absl::Status error;
  std::vector<std::string> notes;
  std::optional<int64_t> instructions;
  std::optional<int64_t> peak_before;
  std::optional<int64_t> peak_after;
  std::optional<int64_t> xla_total;
  std::string xla_total_file;
  std::optional<int64_t> loop_copies;
  std::optional<int64_t> loop_copy_bytes;    // per step
  bool loop_copy_bytes_lower_bound = false;  // a loop of unknown trip count counted once
  std::string largest_buffer;
  std::optional<int64_t> largest_buffer_bytes;

  std::optional<int64_t> difference() const {
    if (!peak_after || !xla_total) return std::nullopt;
    return *peak_after - *xla_total;
  }
};

// Loads `file`; a proto stands as a note (nullopt module), other failures as the error.
absl::StatusOr<std::optional<LoadedModule>> LoadOrNote(const DumpFile& file, ModuleRow& row,
                                                       std::string_view what) {
  absl::StatusOr<LoadedModule> loaded = LoadDumpModule(file);
  if (loaded.ok()) return std::optional<LoadedModule>(*std::move(loaded));
  if (loaded.status().code() == absl::StatusCode::kUnimplemented) {
    row.notes.push_back(fmt::format("{} {}: {}", what, file.relative, StatusText(loaded.status())));
    return std::optional<LoadedModule>();
  }
  return loaded.status();
}

// XLA's "Total bytes used" of `m` and the file it comes from: the memory usage report, else
// the text buffer assignment, else the buffer assignment inside the after-optimizations
// module when that is an HloProto (--xla_dump_hlo_as_proto writes no text report beside it).
// nullopt when the dump has none of them.
struct XlaTotal {
  int64_t bytes = 0;
  const DumpFile* file = nullptr;
};
absl::StatusOr<std::optional<XlaTotal>> FindXlaTotal(const DumpModule& m) {
  const std::optional<DumpFile>& totals =
      m.memory_usage_report ? m.memory_usage_report : m.buffer_assignment;
  if (totals) {
    absl::StatusOr<int64_t> total = ReadXlaTotalBytes(totals->path);
    if (!total.ok()) return total.status();
    return XlaTotal{*total, &*totals};
  }
  if (!m.after || m.after->name.format != DumpFormat::kProto) return std::nullopt;
  InputFile file;
  std::string error;
  if (!file.Read(m.after->path, &error)) return absl::FailedPreconditionError(error);
  // A bare HloModuleProto carries no assignment: then there is no XLA total, not an error.
  if (!HasXlaBufferAssignment(file.text())) return std::nullopt;
  absl::StatusOr<XlaBufferAssignment> xla =
      ReadXlaBufferAssignmentProto(file.text(), m.after->path);
  if (!xla.ok()) return xla.status();
  return XlaTotal{xla->Totals().total_bytes, &*m.after};
}

absl::Status FillRow(const DumpModule& m, const MemoryOptions& options, ModuleRow& row) {
  row.module = &m;
  if (m.before) {
    absl::StatusOr<std::optional<LoadedModule>> before =
        LoadOrNote(*m.before, row, "before optimizations");
    if (!before.ok()) return before.status();
    if (*before) {
      row.instructions = CountInstructions(*(*before)->module);
      absl::StatusOr<ModuleMemory> mem = Profile(*(*before)->module, options);
      if (!mem.ok()) return mem.status();
      row.peak_before = mem->peak_bytes;
    }
  }
  const DumpFile* after = m.after ? &*m.after : nullptr;
  if (after == nullptr && !m.passes.empty()) {
    after = &m.passes.back();
    row.notes.push_back(fmt::format(
        "no after_optimizations file: 'after' is the last per-pass dump (step {:04d}, after {})",
        after->name.step, after->name.pass));
  }
  if (after != nullptr) {
    absl::StatusOr<std::optional<LoadedModule>> loaded =
        LoadOrNote(*after, row, "after optimizations");
    if (!loaded.ok()) return loaded.status();
    if (*loaded) {
      Module& module = *(*loaded)->module;
      row.instructions = CountInstructions(module);
      // copy-elision's report first, on the module as dumped (hlo-opt --report's numbers); the
      // profile flattens the module, so it needs its own copy.
      absl::StatusOr<LoadedModule> for_profile = LoadDumpModule(*after);
      if (!for_profile.ok()) return for_profile.status();
      CopyElision elision;
      if (absl::Status s = elision.Run(module).status(); !s.ok()) return s;
      const CopyElisionReport& report = elision.report();
      if (report.buffer_safe) {
        int64_t copies = 0, bytes = 0;
        for (const CopyDecision& c : report.copies) {
          if (c.executions_known && c.executions_per_step == 1) continue;
          ++copies;
          bytes = SaturatingAdd(bytes, SaturatingMul(c.bytes, c.executions_per_step));
          if (!c.executions_known) row.loop_copy_bytes_lower_bound = true;
        }
        row.loop_copies = copies;
        row.loop_copy_bytes = bytes;
      } else {
        row.notes.push_back(fmt::format("copies in loops not counted: {}", report.not_buffer_safe));
      }
      absl::StatusOr<ModuleMemory> mem = Profile(*for_profile->module, options);
      if (!mem.ok()) return mem.status();
      row.peak_after = mem->peak_bytes;
      const LiveBuffer* largest = nullptr;
      for (const LiveBuffer& b : mem->top_buffers) {
        // A callee's peak at its call is many buffers, not one.
        if (b.kind == LiveBufferKind::kCallee) continue;
        if (largest == nullptr || b.bytes > largest->bytes) largest = &b;
      }
      if (largest != nullptr) {
        row.largest_buffer = largest->instruction;
        row.largest_buffer_bytes = largest->bytes;
      }
    }
  }
  absl::StatusOr<std::optional<XlaTotal>> total = FindXlaTotal(m);
  if (!total.ok()) return total.status();
  if (*total) {
    row.xla_total = (*total)->bytes;
    row.xla_total_file = (*total)->file->path;
  }
  if (!m.passes.empty()) {
    row.notes.push_back(fmt::format(
        "{} per-pass dump{}: --module={} shows the timeline", m.passes.size(),
        m.passes.size() == 1 ? "" : "s",
        m.origin.empty() ? std::to_string(m.id) : m.origin + ":" + std::to_string(m.id)));
  }
  return absl::OkStatus();
}

std::string RowLabel(const DumpModule& m) {
  return m.origin.empty() ? DisplayName(m) : DisplayName(m) + " [" + m.origin + "]";
}

std::string DifferenceText(const ModuleRow& r) {
  std::optional<int64_t> d = r.difference();
  if (!d) return "-";
  if (*r.xla_total == 0) return SignedBytes(*d);
  return fmt::format("{} ({:+.1f}%)", SignedBytes(*d),
                     100.0 * static_cast<double>(*d) / static_cast<double>(*r.xla_total));
}

std::string LoopTrafficText(const ModuleRow& r) {
  if (!r.loop_copy_bytes) return "-";
  return (r.loop_copy_bytes_lower_bound ? ">=" : "") + HumanBytes(*r.loop_copy_bytes);
}

std::string LargestText(const ModuleRow& r) {
  if (!r.largest_buffer_bytes) return "-";
  return fmt::format("{} {}", r.largest_buffer, HumanBytes(*r.largest_buffer_bytes));
}

std::string IndexText(const DumpDirectory& dir, const std::vector<ModuleRow>& rows) {
  std::string out;
  size_t with_passes = 0;
  for (const DumpModule& m : dir.modules) with_passes += m.passes.empty() ? 0 : 1;
  out += fmt::format("XLA dump {}: {} module{}", dir.path, dir.modules.size(),
                     dir.modules.size() == 1 ? "" : "s");
  if (with_passes > 0) out += fmt::format(", {} with per-pass dumps", with_passes);
  out += fmt::format("; {} other XLA file{} not read; {} file{} not named as XLA names them\n",
                     dir.other_module_files, dir.other_module_files == 1 ? "" : "s",
                     dir.unrecognized.size(), dir.unrecognized.size() == 1 ? "" : "s");
  for (const std::string& c : dir.collisions) {
    out += fmt::format("several processes: {}; one row per origin\n", c);
  }
  for (const std::string& r : dir.recompiled) out += fmt::format("recompiled: {}\n", r);
  const std::vector<std::string> header = {
      "id",        "module",     "instructions", "peak before",       "peak after",
      "XLA total", "ours - XLA", "loop copies",  "copy traffic/step", "largest buffer at peak"};
  std::vector<std::vector<std::string>> cells;
  for (const ModuleRow& r : rows) {
    cells.push_back({std::to_string(r.module->id), RowLabel(*r.module),
                     r.instructions ? std::to_string(*r.instructions) : "-", Bytes(r.peak_before),
                     Bytes(r.peak_after), Bytes(r.xla_total), DifferenceText(r),
                     r.loop_copies ? std::to_string(*r.loop_copies) : "-", LoopTrafficText(r),
                     LargestText(r)});
  }
  std::vector<size_t> width(header.size());
  for (size_t c = 0; c < header.size(); ++c) {
    width[c] = header[c].size();
    for (const auto& row : cells) width[c] = std::max(width[c], row[c].size());
  }
  auto line = [&](const std::vector<std::string>& row) {
    std::string l = " ";
    for (size_t c = 0; c < row.size(); ++c) {
      // Text columns (module, largest buffer) to the left, numbers to the right.
      const bool left = c == 1 || c + 1 == row.size();
      l += " ";
      l += left ? fmt::format("{:<{}}", row[c], width[c]) : fmt::format("{:>{}}", row[c], width[c]);
    }
    while (!l.empty() && l.back() == ' ') l.pop_back();
    return l + "\n";
  };
  out += line(header);
  for (const auto& row : cells) out += line(row);
  bool first_note = true;
  for (const ModuleRow& r : rows) {
    for (const std::string& n : r.notes) {
      if (first_note) out += "notes:\n";
      first_note = false;
      out += fmt::format("  module {} {}: {}\n", r.module->id, RowLabel(*r.module), n);
    }
  }
  if (!dir.unrecognized.empty()) {
    out += "not read (not named as XLA names its dumps):";
    for (size_t i = 0; i < dir.unrecognized.size() && i < 5; ++i) {
      out += " " + dir.unrecognized[i];
    }
    if (dir.unrecognized.size() > 5)
      out += fmt::format(" and {} more", dir.unrecognized.size() - 5);
    out += "\n";
  }
  out +=
      "peaks: ours (hloscope's memory profiler); XLA total: 'Total bytes used' of the module's "
      "-memory-usage-report.txt (or -buffer-assignment.txt), '-' where the dump has neither\n";
  return out;
}

std::string FileJson(const std::optional<DumpFile>& f) { return f ? JsonString(f->path) : "null"; }

std::string IndexJson(const DumpDirectory& dir, const std::vector<ModuleRow>& rows) {
  auto list = [](const std::vector<std::string>& items) {
    std::string out = "[";
    for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + JsonString(items[i]);
    return out + "]";
  };
  std::string out = "{\n";
  out += fmt::format("  \"directory\": {},\n", JsonString(dir.path));
  out += "  \"modules\": [";
  for (size_t k = 0; k < rows.size(); ++k) {
    const ModuleRow& r = rows[k];
    const DumpModule& m = *r.module;
    out += k ? ",\n    {" : "\n    {";
    out += fmt::format("\"id\": {}, \"name\": {}, \"origin\": {}, ", m.id, JsonString(m.name),
                       JsonString(m.origin));
    out += fmt::format(
        "\"files\": {{\"before_optimizations\": {}, \"after_optimizations\": {}, "
        "\"buffer_assignment\": {}, \"memory_usage_report\": {}, \"pass_dumps\": {}}}, ",
        FileJson(m.before), FileJson(m.after), FileJson(m.buffer_assignment),
        FileJson(m.memory_usage_report), m.passes.size());
    out += fmt::format(
        "\"instructions\": {}, \"peak_before_bytes\": {}, \"peak_after_bytes\": {}, "
        "\"xla_total_bytes\": {}, \"difference_bytes\": {}, \"loop_copies\": {}, "
        "\"loop_copy_bytes_per_step\": {}, \"loop_copy_bytes_lower_bound\": {}, ",
        JsonOr(r.instructions), JsonOr(r.peak_before), JsonOr(r.peak_after), JsonOr(r.xla_total),
        JsonOr(r.difference()), JsonOr(r.loop_copies), JsonOr(r.loop_copy_bytes),
        r.loop_copy_bytes_lower_bound ? "true" : "false");
    if (r.largest_buffer_bytes) {
      out += fmt::format("\"largest_buffer_at_peak\": {{\"name\": {}, \"bytes\": {}}}, ",
                         JsonString(r.largest_buffer), *r.largest_buffer_bytes);
    } else {
      out += "\"largest_buffer_at_peak\": null, ";
    }
    out += fmt::format("\"notes\": {}}}", list(r.notes));
  }
  out += "\n  ],\n";
  out += fmt::format("  \"collisions\": {},\n", list(dir.collisions));
  out += fmt::format("  \"recompiled\": {},\n", list(dir.recompiled));
  out += fmt::format("  \"other_xla_files\": {},\n", dir.other_module_files);
  out += fmt::format("  \"unrecognized_files\": {}\n", list(dir.unrecognized));
  return out + "}\n";
}

std::string IndexCsv(const std::vector<ModuleRow>& rows) {
  std::string out =
      "id,name,origin,instructions,peak_before_bytes,peak_after_bytes,xla_total_bytes,"
      "difference_bytes,loop_copies,loop_copy_bytes_per_step,largest_buffer_at_peak,"
      "largest_buffer_bytes\n";
  auto num = [](const std::optional<int64_t>& v) { return v ? std::to_string(*v) : ""; };
  for (const ModuleRow& r : rows) {
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{}\n", r.module->id,
                       CsvField(r.module->name), CsvField(r.module->origin), num(r.instructions),
                       num(r.peak_before), num(r.peak_after), num(r.xla_total), num(r.difference()),
                       num(r.loop_copies), num(r.loop_copy_bytes), CsvField(r.largest_buffer),
                       num(r.largest_buffer_bytes));
  }
  return out;
}

// A self-contained page: the index's table (exact bytes in each cell's title) and its notes.
std::string IndexHtml(const DumpDirectory& dir, const std::vector<ModuleRow>& rows) {
  std::string out =
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>XLA dump " +
      HtmlEscape(dir.path) +
      "</title>\n<style>body{font-family:sans-serif}table{border-collapse:collapse}"
      "td,th{border:1px solid #ccc;padding:2px 6px}td.n{text-align:right}</style></head>\n"
      "<body>\n<h1>XLA dump " +
      HtmlEscape(dir.path) + "</h1>\n";
  for (const std::string& c : dir.collisions) {
    out += "<p>several processes: " + HtmlEscape(c) + "; one row per origin</p>\n";
  }
  for (const std::string& r : dir.recompiled) out += "<p>recompiled: " + HtmlEscape(r) + "</p>\n";
  out +=
      "<table>\n<tr><th>id</th><th>module</th><th>instructions</th><th>peak before</th>"
      "<th>peak after</th><th>XLA total</th><th>ours - XLA</th><th>loop copies</th>"
      "<th>copy traffic/step</th><th>largest buffer at peak</th></tr>\n";
  auto bytes = [](const std::optional<int64_t>& b, const std::string& text) {
    return fmt::format("<td class=\"n\" title=\"{}\">{}</td>", b ? std::to_string(*b) : "",
                       HtmlEscape(text));
  };
  for (const ModuleRow& r : rows) {
    out += fmt::format("<tr><td class=\"n\">{}</td><td>{}</td><td class=\"n\">{}</td>",
                       r.module->id, HtmlEscape(RowLabel(*r.module)),
                       r.instructions ? std::to_string(*r.instructions) : "-");
    out += bytes(r.peak_before, Bytes(r.peak_before)) + bytes(r.peak_after, Bytes(r.peak_after)) +
           bytes(r.xla_total, Bytes(r.xla_total)) + bytes(r.difference(), DifferenceText(r));
    out += fmt::format("<td class=\"n\">{}</td>",
                       r.loop_copies ? std::to_string(*r.loop_copies) : "-");
    out += bytes(r.loop_copy_bytes, LoopTrafficText(r));
    out += "<td>" + HtmlEscape(LargestText(r)) + "</td></tr>\n";
  }
  out += "</table>\n";
  bool first = true;
  for (const ModuleRow& r : rows) {
    for (const std::string& n : r.notes) {
      if (first) out += "<h2>notes</h2>\n<ul>\n";
      first = false;
      out += fmt::format("<li>module {} {}: {}</li>\n", r.module->id,
                         HtmlEscape(RowLabel(*r.module)), HtmlEscape(n));
    }
  }
  if (!first) out += "</ul>\n";
  return out + "</body></html>\n";
}

// Prints "hlo-opt: N of M modules read" on stderr at most once a second, from the first
// second on: a large dump takes minutes, and silence would look like a hang.
class Progress {
 public:
  explicit Progress(size_t total) : total_(total), start_(std::chrono::steady_clock::now()) {}
  void Done(size_t done) {
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (seconds < 1.0 || seconds < last_ + 1.0) return;
    last_ = seconds;
    fmt::print(stderr, "hlo-opt: {} of {} modules read ({:.0f} s)\n", done, total_, seconds);
  }

 private:
  size_t total_;
  std::chrono::steady_clock::time_point start_;
  double last_ = 0;
};

// Runs fill(k, items[k]) for every item, --jobs at a time with progress on stderr, and keeps
// each result in the item's `error`; the failures, in item order.
template <typename Item, typename Fill>
std::vector<absl::Status> FillEach(std::vector<Item>& items, Fill fill) {
  std::vector<absl::Status> errors;
  Progress progress(items.size());
  ForEachInOrder(
      items.size(), ProcessJobs(), static_cast<size_t>(ProcessJobs()) * 2,
      [&](size_t k) { items[k].error = fill(k, items[k]); },
      [&](size_t k) {
        if (!items[k].error.ok()) errors.push_back(items[k].error);
        progress.Done(k + 1);
      },
      [](size_t) {});
  return errors;
}

int RunIndex(const DumpDirectory& dir, const MemoryFlags& memory, const std::string& output) {
  std::vector<ModuleRow> rows(dir.modules.size());
  std::vector<absl::Status> errors = FillEach(
      rows, [&](size_t k, ModuleRow& row) { return FillRow(dir.modules[k], memory.options, row); });
  if (!errors.empty()) {
    int code = 1;
    for (const absl::Status& e : errors) {
      PrintError(e);
      code = std::max(code, ExitCodeOf(e));
    }
    return code;
  }
  // Largest peak first (after optimizations, else before); modules without one last, by id.
  auto peak = [](const ModuleRow& r) { return r.peak_after ? r.peak_after : r.peak_before; };
  std::stable_sort(rows.begin(), rows.end(), [&](const ModuleRow& a, const ModuleRow& b) {
    return peak(a).value_or(-1) > peak(b).value_or(-1);
  });
  std::string text;
  switch (memory.format) {
    case MemoryFormat::kJson:
      text = IndexJson(dir, rows);
      break;
    case MemoryFormat::kCsv:
      text = IndexCsv(rows);
      break;
    case MemoryFormat::kHtml:
      text = IndexHtml(dir, rows);
      break;
    default:
      text = IndexText(dir, rows);
  }
  std::string error;
  if (!WriteOutput(output, text, &error)) {
    fmt::print(stderr, "hlo-opt: error: {}\n", error);
    return 2;
  }
  return 0;
}

// --- one module -------------------------------------------------------------------------------

absl::StatusOr<const DumpModule*> FindModule(const DumpDirectory& dir, const std::string& spec) {
  std::string origin;
  std::string key = spec;
  if (size_t colon = spec.rfind(':'); colon != std::string::npos) {
    origin = spec.substr(0, colon);
    key = spec.substr(colon + 1);
  }
  int64_t id = -1;
  const bool by_id = ParseInteger(key, &id);
  std::vector<const DumpModule*> found;
  for (const DumpModule& m : dir.modules) {
    if (!origin.empty() && m.origin != origin) continue;
    if ((by_id && m.id == id) || (!by_id && m.name == key)) found.push_back(&m);
  }
  if (found.size() == 1) return found.front();
  std::vector<std::string> names;
  if (found.empty()) {
    for (const DumpModule& m : dir.modules) {
      names.push_back(m.origin.empty() ? fmt::format("{} {}", m.id, DisplayName(m))
                                       : fmt::format("{}:{} {}", m.origin, m.id, DisplayName(m)));
    }
    return absl::NotFoundError(fmt::format("--module={}: no such module in '{}' (it has: {})", spec,
                                           dir.path, StrJoin(names, ", ")));
  }
  for (const DumpModule* m : found) {
    names.push_back(m->origin.empty() ? fmt::format("--module={}", m->id)
                                      : fmt::format("--module={}:{}", m->origin, m->id));
  }
  return absl::NotFoundError(fmt::format("--module={} matches {} modules in '{}'; pick one: {}",
                                         spec, found.size(), dir.path, StrJoin(names, ", ")));
}

struct PassPoint {
  const DumpFile* file = nullptr;
  absl::Status error;
  std::string note;  // a proto: not read
  int64_t instructions = 0;
  int64_t peak = 0;
  std::set<std::string> copies;
};

absl::Status FillPassPoint(const DumpFile& file, const MemoryOptions& options, PassPoint& p) {
  p.file = &file;
  absl::StatusOr<LoadedModule> loaded = LoadDumpModule(file);
  if (!loaded.ok()) {
    if (loaded.status().code() != absl::StatusCode::kUnimplemented) return loaded.status();
    p.note = std::string(StatusText(loaded.status()));
    return absl::OkStatus();
  }
  p.instructions = CountInstructions(*loaded->module);
  for (const CopyInfo& c : CopiesOf(*loaded->module)) p.copies.insert(c.name);
  absl::StatusOr<ModuleMemory> mem = Profile(*loaded->module, options);
  if (!mem.ok()) return mem.status();
  p.peak = mem->peak_bytes;
  return absl::OkStatus();
}

// Where a copy of the final module came from: the first per-pass dump from which on it is
// there in every dump up to the last.
struct CopyOrigin {
  CopyInfo copy;
  const DumpFile* introduced_by = nullptr;  // null: see `where`
  std::string where;
};

std::vector<CopyOrigin> TraceCopies(const std::vector<CopyInfo>& final_copies,
                                    const std::vector<PassPoint>& points,
                                    bool final_is_last_point) {
  std::vector<CopyOrigin> out;
  for (const CopyInfo& c : final_copies) {
    CopyOrigin o{c, nullptr, ""};
    if (points.empty()) {
      o.where = "no per-pass dumps";
    } else if (!points.back().note.empty() || !points.back().copies.contains(c.name)) {
      o.where = final_is_last_point
                    ? "unknown (the last per-pass dump was not read)"
                    : fmt::format("introduced after the last per-pass dump (step {:04d}, after {})",
                                  points.back().file->name.step, points.back().file->name.pass);
    } else {
      size_t first = points.size() - 1;
      while (first > 0 && points[first - 1].note.empty() &&
             points[first - 1].copies.contains(c.name)) {
        --first;
      }
      if (first == 0) {
        o.where = fmt::format("already in the first per-pass dump (step {:04d}, after {})",
                              points[0].file->name.step, points[0].file->name.pass);
      } else {
        o.introduced_by = points[first].file;
      }
    }
    out.push_back(std::move(o));
  }
  return out;
}

// " x15 per step (in a loop)" for a copy that runs more than once a step.
std::string ExecutionsText(const CopyInfo& c) {
  if (!c.executions_per_step || (c.executions_known && *c.executions_per_step == 1)) return "";
  return fmt::format(" x{}{} per step (in a loop)",
                     c.executions_known ? "" : ">=", *c.executions_per_step);
}

std::string IntroducedText(const CopyOrigin& o) {
  if (o.introduced_by == nullptr) return o.where;
  const DumpFileName& n = o.introduced_by->name;
  return fmt::format("introduced by {} (step {:04d}, pipeline {})", n.pass, n.step, n.pipeline);
}

// What RunOneModule found for one module, for its printers.
struct ModuleFindings {
  const DumpModule& module;
  const DumpFile& final_file;
  std::string memory_report;  // as printed in the chosen format
  int64_t ours = 0;           // our peak after optimizations
  std::optional<int64_t> xla_total;
  const DumpFile* xla_total_file = nullptr;  // where xla_total was read; set with it
  const std::vector<PassPoint>& points;
  const std::vector<CopyInfo>& final_copies;
  const std::vector<CopyOrigin>& origins;
};

std::string FindingsJson(const ModuleFindings& f) {
  const DumpModule& m = f.module;
  const DumpFile* final_file = &f.final_file;
  const std::vector<PassPoint>& points = f.points;
  const std::vector<CopyOrigin>& origins = f.origins;
  const std::optional<int64_t>& xla_total = f.xla_total;
  const int64_t ours = f.ours;
  std::string out;
  out = "{\n";
  out += fmt::format("  \"module\": {{\"id\": {}, \"name\": {}, \"origin\": {}, \"file\": {}}},\n",
                     m.id, JsonString(m.name), JsonString(m.origin), JsonString(final_file->path));
  std::string trimmed = f.memory_report;
  while (!trimmed.empty() && (trimmed.back() == '\n' || trimmed.back() == ' ')) trimmed.pop_back();
  out += fmt::format("  \"memory_report\": {},\n", trimmed);
  out += fmt::format(
      "  \"xla\": {{\"total_bytes_used\": {}, \"file\": {}, \"ours_peak_bytes\": {}, "
      "\"difference_bytes\": {}}},\n",
      JsonOr(xla_total), xla_total ? JsonString(f.xla_total_file->path) : "null", ours,
      xla_total ? std::to_string(ours - *xla_total) : "null");
  out += "  \"timeline\": [";
  for (size_t k = 0; k < points.size(); ++k) {
    const PassPoint& p = points[k];
    const DumpFileName& n = p.file->name;
    out += fmt::format(
        "{}\n    {{\"step\": {}, \"pipeline\": {}, \"pass\": {}, \"next_pass\": {}, "
        "\"file\": {}, ",
        k ? "," : "", n.step, JsonString(n.pipeline), JsonString(n.pass), JsonString(n.next_pass),
        JsonString(p.file->path));
    if (p.note.empty()) {
      out += fmt::format("\"instructions\": {}, \"copies\": {}, \"peak_bytes\": {}}}",
                         p.instructions, p.copies.size(), p.peak);
    } else {
      out += fmt::format("\"note\": {}}}", JsonString(p.note));
    }
  }
  out += points.empty() ? "],\n" : "\n  ],\n";
  out += "  \"copies\": [";
  for (size_t k = 0; k < origins.size(); ++k) {
    const CopyOrigin& o = origins[k];
    out += fmt::format(
        "{}\n    {{\"name\": {}, \"computation\": {}, \"bytes\": {}, "
        "\"executions_per_step\": {}, \"executions_known\": {}, ",
        k ? "," : "", JsonString(o.copy.name), JsonString(o.copy.computation), o.copy.bytes,
        JsonOr(o.copy.executions_per_step), o.copy.executions_known ? "true" : "false");
    if (o.introduced_by != nullptr) {
      const DumpFileName& n = o.introduced_by->name;
      out += fmt::format(
          "\"introduced_by\": {{\"pass\": {}, \"pipeline\": {}, \"step\": {}, \"file\": {}}}}}",
          JsonString(n.pass), JsonString(n.pipeline), n.step, JsonString(o.introduced_by->path));
    } else {
      out += fmt::format("\"introduced_by\": null, \"note\": {}}}", JsonString(o.where));
    }
  }
  out += origins.empty() ? "]\n" : "\n  ]\n";
  out += "}\n";
  return out;
}

std::string FindingsText(const ModuleFindings& f) {
  const DumpModule& m = f.module;
  const DumpFile* final_file = &f.final_file;
  const std::vector<PassPoint>& points = f.points;
  const std::vector<CopyOrigin>& origins = f.origins;
  const std::optional<int64_t>& xla_total = f.xla_total;
  const int64_t ours = f.ours;
  std::string out;
  out += fmt::format("module {} {}{} ({})\n", m.id, DisplayName(m),
                     m.origin.empty() ? "" : " [" + m.origin + "]", final_file->relative);
  out += f.memory_report;
  if (xla_total) {
    const int64_t d = ours - *xla_total;
    out += fmt::format(
        "XLA's total ({}): {} ({}); ours, peak after optimizations: {} ({}); "
        "ours - XLA: {}",
        f.xla_total_file->relative, *xla_total, HumanBytes(*xla_total), ours, HumanBytes(ours),
        SignedBytes(d));
    if (*xla_total != 0) {
      out += fmt::format(" ({:+.1f}%)",
                         100.0 * static_cast<double>(d) / static_cast<double>(*xla_total));
    }
    out += "\n";
  } else {
    out +=
        "XLA's total: none in the dump (no -memory-usage-report.txt or "
        "-buffer-assignment.txt for this module)\n";
  }
  if (!points.empty()) {
    out += fmt::format("per-pass timeline ({} dump{}):\n", points.size(),
                       points.size() == 1 ? "" : "s");
    std::vector<std::vector<std::string>> cells = {
        {"step", "pipeline", "after pass", "instructions", "copies", "peak"}};
    size_t prev_copies = 0;
    for (size_t k = 0; k < points.size(); ++k) {
      const PassPoint& p = points[k];
      const DumpFileName& n = p.file->name;
      if (!p.note.empty()) {
        cells.push_back({fmt::format("{:04d}", n.step), n.pipeline, n.pass, p.note, "", ""});
        continue;
      }
      std::string copies = std::to_string(p.copies.size());
      if (k > 0 && p.copies.size() != prev_copies) {
        copies += fmt::format(
            " ({:+d})", static_cast<int64_t>(p.copies.size()) - static_cast<int64_t>(prev_copies));
      }
      prev_copies = p.copies.size();
      cells.push_back({fmt::format("{:04d}", n.step), n.pipeline, n.pass,
                       std::to_string(p.instructions), copies, HumanBytes(p.peak)});
    }
    std::vector<size_t> width(cells.front().size(), 0);
    for (const auto& row : cells) {
      for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
    }
    for (const auto& row : cells) {
      std::string l = " ";
      for (size_t c = 0; c < row.size(); ++c) {
        l += " " + (c < 3 ? fmt::format("{:<{}}", row[c], width[c])
                          : fmt::format("{:>{}}", row[c], width[c]));
      }
      while (!l.empty() && l.back() == ' ') l.pop_back();
      out += l + "\n";
    }
  }
  out += fmt::format("copies of the final module: {}\n", f.final_copies.size());
  for (const CopyOrigin& o : origins) {
    out += fmt::format("  {} in {}: {}{}, {}\n", o.copy.name, o.copy.computation,
                       HumanBytes(o.copy.bytes), ExecutionsText(o.copy), IntroducedText(o));
  }
  return out;
}

int RunOneModule(const DumpDirectory& dir, const DumpModule& m, const MemoryFlags& memory,
                 const std::string& output) {
  const DumpFile* final_file = FinalModuleFile(m);
  if (final_file == nullptr) {
    PrintError(absl::FailedPreconditionError(
        fmt::format("module {} {} in '{}' has no module file (only XLA's totals)", m.id,
                    DisplayName(m), dir.path)));
    return 2;
  }
  // The per-pass dumps, --jobs at a time.
  std::vector<PassPoint> points(m.passes.size());
  std::vector<absl::Status> errors = FillEach(points, [&](size_t k, PassPoint& point) {
    return FillPassPoint(m.passes[k], memory.options, point);
  });
  absl::StatusOr<LoadedModule> loaded = LoadDumpModule(*final_file);
  if (!loaded.ok()) {
    errors.push_back(loaded.status().code() == absl::StatusCode::kUnimplemented
                         ? absl::UnimplementedError(
                               fmt::format("module {} {}: {}: {}", m.id, DisplayName(m),
                                           final_file->relative, StatusText(loaded.status())))
                         : loaded.status());
  }
  std::optional<int64_t> xla_total;
  const DumpFile* xla_total_file = nullptr;
  absl::StatusOr<std::optional<XlaTotal>> total = FindXlaTotal(m);
  if (!total.ok()) {
    errors.push_back(total.status());
  } else if (*total) {
    xla_total = (*total)->bytes;
    xla_total_file = (*total)->file;
  }
  if (!errors.empty()) {
    int code = 1;
    for (const absl::Status& e : errors) {
      // A proto as the final module: say what it needs, as a usage-level refusal.
      PrintError(e);
      code = std::max(code, e.code() == absl::StatusCode::kUnimplemented ? 2 : ExitCodeOf(e));
    }
    return code;
  }
  std::vector<CopyInfo> final_copies = CopiesOf(*loaded->module);
  // Executions per step from copy-elision's report, on a copy of the module of its own (the
  // pass changes it).
  if (absl::StatusOr<LoadedModule> for_elision = LoadDumpModule(*final_file); for_elision.ok()) {
    CopyElision elision;
    if (elision.Run(*for_elision->module).ok() && elision.report().buffer_safe) {
      for (CopyInfo& c : final_copies) {
        for (const CopyDecision& d : elision.report().copies) {
          if (d.name != c.name) continue;
          c.executions_per_step = d.executions_per_step;
          c.executions_known = d.executions_known;
        }
      }
    }
  }
  Module& module = *loaded->module;
  if (absl::Status s = FlattenCallGraph().Run(module).status(); !s.ok()) {
    PrintError(s);
    return 1;
  }
  absl::StatusOr<MemoryComparison> comparison =
      ProfileBeforeAfter({&module}, nullptr, "", memory.options);
  if (!comparison.ok()) {
    PrintError(comparison.status());
    return 1;
  }
  const MemoryFormat format =
      memory.format == MemoryFormat::kJson ? MemoryFormat::kJson : MemoryFormat::kText;
  absl::StatusOr<std::string> report =
      PrintMemoryComparison(*comparison, {.format = format,
                                          .buffer_assignment = memory.buffer_assignment,
                                          .memory_limit = memory.memory_limit,
                                          .warnings = MemoryContextWarnings(module),
                                          .option_spelling = HloOptFlagOf});
  if (!report.ok()) {
    PrintError(report.status());
    return 1;
  }
  // The copy opportunities' hint, as the plain text report ends (a copy of its own, flattened
  // as that report's is: copy-elision changes it).
  const int64_t ours = comparison->before.peak_bytes;
  const std::vector<CopyOrigin> origins = TraceCopies(
      final_copies, points, final_file == (m.passes.empty() ? nullptr : &m.passes.back()));

  const ModuleFindings findings{.module = m,
                                .final_file = *final_file,
                                .memory_report = *std::move(report),
                                .ours = ours,
                                .xla_total = xla_total,
                                .xla_total_file = xla_total_file,
                                .points = points,
                                .final_copies = final_copies,
                                .origins = origins};
  const std::string out =
      format == MemoryFormat::kJson ? FindingsJson(findings) : FindingsText(findings);
  std::string error;
  if (!WriteOutput(output, out, &error)) {
    fmt::print(stderr, "hlo-opt: error: {}\n", error);
    return 2;
  }
  return 0;
}

}  // namespace

absl::StatusOr<LoadedModule> LoadDumpModule(const DumpFile& file) {
  switch (file.name.format) {
    case DumpFormat::kCompressedProto:
      return absl::UnimplementedError(
          "compressed proto module: unpack it first (gunzip keeps XLA's name without .gz)");
    case DumpFormat::kOther:
      return absl::FailedPreconditionError(
          fmt::format("'{}' is not a module file XLA writes", file.path));
    case DumpFormat::kProto:  // binary HloProto, read as the HLO text XLA prints for it
    case DumpFormat::kText:
      break;
  }
  // tools/common/load_module.h, with this file's error codes: FailedPrecondition for a file that
  // cannot be read, InvalidArgument for a parse or verifier error.
  LoadOptions options;
  options.input_format =
      file.name.format == DumpFormat::kProto ? InputFormat::kBinaryProto : InputFormat::kHloText;
  absl::StatusOr<LoadedModule> loaded = LoadModule(file.path, options);
  if (!loaded.ok()) {
    const absl::Status& s = loaded.status();
    return IsReadError(s) ? absl::FailedPreconditionError(s.message())
                          : absl::InvalidArgumentError(s.message());
  }
  return loaded;
}

absl::StatusOr<int64_t> ReadXlaTotalBytes(const std::string& path) {
  InputFile file;
  std::string error;
  if (!file.Read(path, &error)) return absl::FailedPreconditionError(error);
  constexpr std::string_view kTotal = "Total bytes used: ";
  // XLA since 2026 writes the memory usage report per memory space, each section headed
  // "Memory Space: default (color=0)" and then "Total bytes: N (...)"; the module's total is
  // their sum, as "Total bytes used" summed every allocation.
  constexpr std::string_view kSpaceTotal = "Total bytes: ";
  std::string_view text = file.text();
  int line = 1;
  size_t pos = 0;
  int64_t space_sum = 0;
  bool have_space_total = false;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view l = text.substr(pos, end - pos);
    const bool per_space = l.starts_with(kSpaceTotal);
    if (l.starts_with(kTotal) || per_space) {
      const std::string_view key = per_space ? kSpaceTotal : kTotal;
      std::string_view digits = l.substr(key.size());
      digits = digits.substr(0, digits.find_first_not_of("0123456789"));
      int64_t total = 0;
      if (!ParseInteger(digits, &total) || total < 0) {
        return absl::InvalidArgumentError(
            fmt::format("{}:{}:{}: error: expected a byte count after '{}'", path, line,
                        key.size() + 1, key.substr(0, key.size() - 1)));
      }
      if (!per_space) return total;
      if (total > std::numeric_limits<int64_t>::max() - space_sum) {
        return absl::InvalidArgumentError(fmt::format(
            "{}:{}:{}: error: the memory spaces' totals add up to more than int64 bytes", path,
            line, key.size() + 1));
      }
      space_sum += total;
      have_space_total = true;
    }
    pos = end + 1;
    ++line;
  }
  if (have_space_total) return space_sum;
  return absl::InvalidArgumentError(fmt::format(
      "{}:1:1: error: no 'Total bytes used: N' line: not XLA's memory usage report or buffer "
      "assignment",
      path));
}

int RunXlaDumpMemoryDiff(const XlaDumpFlags& flags, const std::vector<std::string>& specs,
                         const MemoryFlags& memory, const std::string& output) {
  absl::StatusOr<DumpDirectory> dir = ScanDumpDirectory(flags.dir);
  if (!dir.ok()) {
    PrintError(dir.status());
    return 2;
  }
  std::vector<DiffInput> inputs;
  for (const std::string& spec : specs) {
    absl::StatusOr<const DumpModule*> m = FindModule(*dir, spec);
    if (!m.ok()) {
      PrintError(m.status());
      return 2;
    }
    const DumpFile* file = FinalModuleFile(**m);
    if (file == nullptr) {
      PrintError(absl::NotFoundError(fmt::format(
          "--memory-diff: module {} in '{}' has no module file to read", spec, dir->path)));
      return 2;
    }
    absl::StatusOr<LoadedModule> loaded = LoadDumpModule(*file);
    if (!loaded.ok()) {
      PrintError(loaded.status());
      return ExitCodeOf(loaded.status());
    }
    // The profiler needs one call site per control-flow callee, as LoadModuleFile gives it.
    if (absl::Status s = FlattenCallGraph().Run(*loaded->module).status(); !s.ok()) {
      PrintError(s);
      return 1;
    }
    DiffInput& in = inputs.emplace_back();
    in.label = file->path;
    in.file = std::move(loaded->file);
    in.module = std::move(loaded->module);
  }
  return WriteMemoryDiff(inputs[0], inputs[1], memory, output);
}

int RunXlaDump(const XlaDumpFlags& flags, const MemoryFlags& memory, const std::string& output) {
  absl::StatusOr<DumpDirectory> dir = ScanDumpDirectory(flags.dir);
  if (!dir.ok()) {
    if (flags.from_input && dir.status().code() == absl::StatusCode::kInvalidArgument) {
      // A directory given as FILE: what hlo-opt always said of one, and why it was not read
      // as a dump either.
      fmt::print(stderr, "hlo-opt: error: cannot read '{}': Is a directory, and {}\n", flags.dir,
                 StatusText(dir.status()));
      return 2;
    }
    PrintError(dir.status());
    return 2;
  }
  if (flags.module.empty()) return RunIndex(*dir, memory, output);
  absl::StatusOr<const DumpModule*> m = FindModule(*dir, flags.module);
  if (!m.ok()) {
    PrintError(m.status());
    return 2;
  }
  return RunOneModule(*dir, **m, memory, output);
}

}  // namespace hloscope
