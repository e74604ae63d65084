#include "tools/hlo-gen/text_emitter.h"

#include <cstdlib>
#include <utility>

#include "fmt/core.h"
#include "fmt/format.h"

namespace hloscope::gen {
namespace {

// Bodies bigger than this (unrolled modules) go to a temporary file, so the generator's
// memory stays bounded whatever the module size.
constexpr size_t kSpillBytes = 32 << 20;

// splitmix64: a fixed, portable mixing function, so the same seed gives the same text on
// every platform (std:: distributions are implementation-defined).
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

uint64_t HashText(std::string_view s) {
  uint64_t h = 1469598103934665603ULL;
  for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  return h;
}

}  // namespace

GShape GShape::Array(std::string_view type, std::vector<int64_t> dims,
                     std::vector<int64_t> minor_to_major) {
  GShape s;
  s.type = std::string(type);
  s.dims = std::move(dims);
  s.minor_to_major = std::move(minor_to_major);
  return s;
}

GShape GShape::Tuple(std::vector<GShape> elements) {
  GShape s;
  s.is_tuple = true;
  s.elements = std::move(elements);
  return s;
}

GShape GShape::WithType(std::string_view t) const { return Array(t, dims); }

void GShape::AppendText(std::string& out) const {
  if (is_tuple) {
    out += '(';
    for (size_t i = 0; i < elements.size(); ++i) {
      if (i > 0) out += ", ";
      elements[i].AppendText(out);
    }
    out += ')';
    return;
  }
  out += type;
  out += '[';
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) out += ',';
    fmt::format_to(std::back_inserter(out), "{}", dims[i]);
  }
  out += ']';
  if (dims.empty()) return;  // XLA prints scalars without a layout
  out += '{';
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) out += ',';
    const int64_t d =
        minor_to_major.empty() ? static_cast<int64_t>(dims.size() - 1 - i) : minor_to_major[i];
    fmt::format_to(std::back_inserter(out), "{}", d);
  }
  out += '}';
}

std::string GShape::Text() const {
  std::string out;
  AppendText(out);
  return out;
}

void Sink::Write(std::string_view text) {
  bytes_ += static_cast<int64_t>(text.size());
  if (out_ != nullptr) {
    out_->append(text);
  } else if (!failed_ && std::fwrite(text.data(), 1, text.size(), file_) != text.size()) {
    failed_ = true;
  }
}

Emitter::Emitter(Sink& sink, uint64_t seed)
    : sink_(sink),
      seed_(seed),
      // Seed 0 numbers from 1; other seeds start somewhere below 100000, the range real dumps
      // show after a few passes.
      next_id_(seed == 0 ? 1 : 1 + static_cast<int64_t>(Mix(seed) % 99000)) {}

std::string Emitter::Name(std::string_view base) { return fmt::format("{}.{}", base, next_id_++); }

int Emitter::SourceLine(std::string_view file, int line) const {
  if (seed_ == 0) return line;
  return line + static_cast<int>(Mix(seed_ ^ HashText(file)) % 400);
}

std::string Emitter::ScalarRegion(std::string_view op, std::string_view type) {
  const std::string key = fmt::format("{}/{}", op, type);
  for (const auto& [k, name] : regions_) {
    if (k == key) return name;
  }
  Comp region(*this, Name(op == "add" ? "region_add" : "region_max"));
  const GShape scalar = GShape::Scalar(type);
  Val a = region.Param(scalar, "Arg_0");
  Val b = region.Param(scalar, "Arg_1");
  region.Add(op, scalar, {a, b});
  region.Finish();
  regions_.emplace_back(key, region.name());
  return region.name();
}

Comp::Comp(Emitter& emitter, std::string name, bool is_entry)
    : emitter_(emitter), name_(std::move(name)), is_entry_(is_entry) {}

Comp::~Comp() {
  if (spill_ != nullptr) std::fclose(spill_);
}

void Comp::Append(std::string_view text) {
  body_.append(text);
  if (body_.size() < kSpillBytes) return;
  if (spill_ == nullptr) spill_ = std::tmpfile();
  if (spill_ == nullptr) return;  // no temporary file: keep everything in memory
  if (std::fwrite(body_.data(), 1, body_.size(), spill_) != body_.size()) {
    std::fprintf(stderr, "hlo-gen: error: cannot write a temporary file\n");
    std::exit(1);
  }
  body_.clear();
}

void Comp::FlushPending(bool as_root) {
  if (pending_.empty()) return;
  Append(as_root ? "  ROOT " : "  ");
  Append(pending_);
  pending_.clear();
}

Val Comp::Param(const GShape& shape, std::string_view base) {
  const int n = params_++;
  return AddRaw("parameter", shape, fmt::format("{}", n), {}, nullptr, base);
}

Val Comp::Add(std::string_view opcode, const GShape& shape, const std::vector<Val>& operands,
              std::string_view attrs, const Meta* meta, std::string_view base) {
  std::string args;
  for (size_t i = 0; i < operands.size(); ++i) {
    if (i > 0) args += ", ";
    args += operands[i].name;
  }
  return AddRaw(opcode, shape, args, attrs, meta, base);
}

Val Comp::AddRaw(std::string_view opcode, const GShape& shape, std::string_view args,
                 std::string_view attrs, const Meta* meta, std::string_view base) {
  FlushPending(false);
  Val v{emitter_.Name(base.empty() ? opcode : base), shape};
  last_ = v.name;
  emitter_.CountInstruction();
  std::string& line = pending_;
  line += v.name;
  line += " = ";
  shape.AppendText(line);
  line += ' ';
  line += opcode;
  line += '(';
  line += args;
  line += ')';
  if (!attrs.empty()) {
    line += ", ";
    line += attrs;
  }
  if (meta != nullptr && !meta->op_name.empty()) {
    fmt::format_to(std::back_inserter(line),
                   ", metadata={{op_name=\"{}\" source_file=\"{}\" source_line={}}}", meta->op_name,
                   meta->source_file, meta->source_line);
  }
  line += '\n';
  return v;
}

Val Comp::Constant(std::string_view type, std::string_view literal) {
  return AddRaw("constant", GShape::Scalar(type), literal, {}, nullptr, "constant");
}

void Comp::Finish() {
  if (finished_) return;
  finished_ = true;
  FlushPending(true);
  Sink& sink = emitter_.sink();
  sink.Write(is_entry_ ? fmt::format("ENTRY {} {{\n", name_) : fmt::format("{} {{\n", name_));
  if (spill_ != nullptr) {
    std::rewind(spill_);
    std::string chunk(1 << 20, '\0');
    size_t n;
    while ((n = std::fread(chunk.data(), 1, chunk.size(), spill_)) > 0) {
      sink.Write(std::string_view(chunk.data(), n));
    }
    std::fclose(spill_);
    spill_ = nullptr;
  }
  sink.Write(body_);
  // A blank line between computations, none after the last (the entry), as the printer does.
  sink.Write(is_entry_ ? "}\n" : "}\n\n");
  body_.clear();
  body_.shrink_to_fit();
}

}  // namespace hloscope::gen
