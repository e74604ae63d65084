// Streaming HLO text emitter for hlo-gen: shapes as small value types, instruction lines
// written as they are built, and module-wide name/id allocation.
//
// hlo-gen must reach millions of instructions, so nothing here builds a Module. A computation
// under construction (Comp) buffers only its own lines, spilling them to a temporary file once
// they grow large, and writes itself to the Sink when finished. Callees (fused computations,
// reduce regions, loop bodies) are finished before their caller, so the text comes out callee
// first, as XLA dumps it.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace hloscope::gen {

// An array (element type, dims, optional layout) or a tuple of shapes.
struct GShape {
  std::string type;  // "bf16", "f32", "s32", "pred"; empty for a tuple
  std::vector<int64_t> dims;
  std::vector<int64_t> minor_to_major;  // empty: the default {rank-1,...,0}
  std::vector<GShape> elements;         // tuple elements
  bool is_tuple = false;

  static GShape Array(std::string_view type, std::vector<int64_t> dims,
                      std::vector<int64_t> minor_to_major = {});
  static GShape Scalar(std::string_view type) { return Array(type, {}); }
  static GShape Tuple(std::vector<GShape> elements);
  int64_t rank() const { return static_cast<int64_t>(dims.size()); }
  // Same element type and dims with the default layout.
  GShape WithType(std::string_view t) const;
  void AppendText(std::string& out) const;
  std::string Text() const;
};

// A value: an instruction's name and shape.
struct Val {
  std::string name;
  GShape shape;
};

// metadata={op_name=... source_file=... source_line=...}; empty op_name means none.
struct Meta {
  std::string op_name;
  std::string_view source_file;
  int source_line = 0;
};

// Where text goes: a FILE* (hlo-gen) or a string (tests).
class Sink {
 public:
  explicit Sink(std::FILE* file) : file_(file) {}
  explicit Sink(std::string* out) : out_(out) {}
  void Write(std::string_view text);
  bool failed() const { return failed_; }
  int64_t bytes() const { return bytes_; }

 private:
  std::FILE* file_ = nullptr;
  std::string* out_ = nullptr;
  bool failed_ = false;
  int64_t bytes_ = 0;
};

// Module-wide state: the sink, name ids, source lines, shared reduce regions.
class Emitter {
 public:
  // The seed decides where instruction ids start and the source_line numbers, nothing else:
  // the graph (opcodes, shapes, edges) is the same for every seed.
  Emitter(Sink& sink, uint64_t seed);

  Sink& sink() { return sink_; }
  // "base.N" with N unique in the module (XLA's dumps use one counter for all names too).
  std::string Name(std::string_view base);
  // A line in `file`: a per-file offset chosen by the seed plus `line`.
  int SourceLine(std::string_view file, int line) const;
  // The name of a scalar reduction region (`op` is "add" or "maximum") over `type`, written
  // to the sink the first time it is asked for.
  std::string ScalarRegion(std::string_view op, std::string_view type);

  int64_t instruction_count() const { return instructions_; }
  void CountInstruction() { ++instructions_; }

 private:
  Sink& sink_;
  uint64_t seed_;
  int64_t next_id_;
  int64_t instructions_ = 0;
  std::vector<std::pair<std::string, std::string>> regions_;  // key → computation name
};

// One computation under construction. The last instruction added is the ROOT.
class Comp {
 public:
  Comp(Emitter& emitter, std::string name, bool is_entry = false);
  Comp(const Comp&) = delete;
  Comp& operator=(const Comp&) = delete;
  ~Comp();

  const std::string& name() const { return name_; }
  // Name of the last instruction added: the ROOT if Finish() came now.
  const std::string& last() const { return last_; }
  Emitter& emitter() { return emitter_; }
  // parameter(n) with n counting up from 0.
  Val Param(const GShape& shape, std::string_view base);
  // `name = shape opcode(operands), attrs, metadata={...}`; `attrs` is the text after the
  // operands without the leading ", ".
  Val Add(std::string_view opcode, const GShape& shape, const std::vector<Val>& operands,
          std::string_view attrs = {}, const Meta* meta = nullptr, std::string_view base = {});
  // `constant(literal)` of a scalar.
  Val Constant(std::string_view type, std::string_view literal);
  // Writes the computation to the sink; the last instruction is the ROOT.
  void Finish();

 private:
  // `args` is the text between the parentheses.
  Val AddRaw(std::string_view opcode, const GShape& shape, std::string_view args,
             std::string_view attrs, const Meta* meta, std::string_view base);
  void FlushPending(bool as_root);
  void Append(std::string_view text);

  Emitter& emitter_;
  std::string name_;
  bool is_entry_;
  bool finished_ = false;
  int params_ = 0;
  std::string last_;
  std::string pending_;  // the last instruction's line (without indent/ROOT), not yet written
  std::string body_;
  std::FILE* spill_ = nullptr;  // body_ beyond kSpillBytes goes here
};

}  // namespace hloscope::gen
