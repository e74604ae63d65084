#include "eval/sparse_convolution.h"

#include <cctype>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "eval/convolution.h"
#include "eval/element_io.h"
#include "eval/layout_util.h"
#include "hlo/attribute_values.h"
#include "hlo/convolution_shape.h"
#include "support/status_text.h"
#include "support/str_util.h"

namespace hloscope::eval {
namespace {

struct TensorSparsity {
  bool present = false;
  int64_t num_non_zero = 0;
  int64_t block_size = 0;
  int64_t dimension = 0;
  int64_t stride = 0;  // XLA's proto default: absent means 0, which is refused
};

absl::Status Bad(const Instruction& instr, std::string_view why) {
  return absl::InvalidArgumentError(StrCat("cannot run %", instr.name(), ": ", why));
}

// A small reader of the attribute text `{rhs={sparsity=1x4 dimension=0 stride=1}}`.
class SparsityReader {
 public:
  explicit SparsityReader(std::string_view text) : text_(text) {}

  bool Read(TensorSparsity (&out)[2]) {
    if (!Consume('{')) return false;
    while (!Consume('}')) {
      std::string name = Name();
      if ((name != "lhs" && name != "rhs") || !Consume('=') || !Consume('{')) return false;
      TensorSparsity& t = out[name == "lhs" ? 0 : 1];
      t.present = true;
      while (!Consume('}')) {
        std::string key = Name();
        if (key.empty() || !Consume('=')) return false;
        if (key == "sparsity") {
          std::optional<int64_t> n = Int(), m;
          if (!n || !Consume('x')) return false;
          m = Int();
          if (!m) return false;
          t.num_non_zero = *n;
          t.block_size = *m;
        } else if (key == "dimension" || key == "stride") {
          std::optional<int64_t> v = Int();
          if (!v) return false;
          (key == "dimension" ? t.dimension : t.stride) = *v;
        } else {
          return false;
        }
        Consume(',');
      }
      Consume(',');
    }
    Space();
    return pos_ == text_.size();
  }

 private:
  void Space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool Consume(char c) {
    Space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  std::string Name() {
    Space();
    size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalpha(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
      ++pos_;
    }
    return std::string(text_.substr(start, pos_ - start));
  }
  std::optional<int64_t> Int() {
    Space();
    size_t start = pos_;
    if (pos_ < text_.size() && text_[pos_] == '-') ++pos_;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    return ParseInt64(text_.substr(start, pos_ - start));
  }

  std::string_view text_;
  size_t pos_ = 0;
};

// The dense array of a (values, indices) pair, in row-major order, and its shape.
absl::Status Materialize(const Instruction& instr, const char* side, const TensorSparsity& t,
                         const ArrayRef& values, const ArrayRef& indices, int64_t max_bytes,
                         Shape& dense_shape, Bytes& dense) {
  const Shape& vs = *values.shape;
  const Shape& is = *indices.shape;
  auto bad = [&](std::string_view why) { return Bad(instr, StrCat(side, " sparsity: ", why)); };
  if (t.num_non_zero != 1) return bad("only 1:N sparsity is defined (XLA's evaluator)");
  if (t.stride != 1) return bad("only stride=1 is defined (XLA's evaluator)");
  if (t.dimension < 0 || t.dimension >= vs.rank()) {
    return bad(StrCat("dimension=", t.dimension, " is not a dimension of ", vs.ToString(false)));
  }
  if (t.block_size <= 0) return bad("the block size must be positive");
  if (!is.IsArray() || is.dims != vs.dims ||
      !(IsSignedType(is.element_type) || IsUnsignedType(is.element_type))) {
    return bad(StrCat("the indices ", is.ToString(false), " must be integers of the values' dims ",
                      vs.ToString(false)));
  }
  const auto d = static_cast<size_t>(t.dimension);
  dense_shape = Shape();
  dense_shape.element_type = vs.element_type;
  dense_shape.dims = vs.dims;
  dense_shape.dynamic.assign(vs.dims.size(), false);
  if (vs.dims[d] > std::numeric_limits<int64_t>::max() / t.block_size) {
    return bad("the dense dimension overflows");
  }
  dense_shape.dims[d] = vs.dims[d] * t.block_size;
  const int eb = ElementBytes(vs.element_type);
  const std::optional<int64_t> count = CheckedElementCount(dense_shape.dims);
  if (!count || *count > max_bytes / eb) {
    return absl::ResourceExhaustedError(
        StrCat("cannot run %", instr.name(), ": its dense ", side, " ", dense_shape.ToString(false),
               " needs more storage than the limit of ", max_bytes, " bytes"));
  }
  dense.assign(static_cast<size_t>(*count * eb), 0);
  const std::vector<int64_t> vstr = PhysicalStrides(vs), istr = PhysicalStrides(is);
  const std::vector<int64_t> dstr = RowMajorStrides(dense_shape.dims);
  const int ieb = ElementBytes(is.element_type);
  absl::Status status = absl::OkStatus();
  ForEachIndex(vs.dims, [&](const std::vector<int64_t>& at) {
    if (!status.ok()) return;
    int64_t v = 0, i = 0, o = 0;
    for (size_t k = 0; k < at.size(); ++k) {
      v += at[k] * vstr[k];
      i += at[k] * istr[k];
      o += (k == d ? 0 : at[k]) * dstr[k];
    }
    const int64_t position = LoadInt(is.element_type, indices.data + i * ieb);
    if (position < 0 || position >= t.block_size) {
      status = bad(StrCat("an index is ", position, ", not in [0, ", t.block_size, ")"));
      return;
    }
    o += (at[d] * t.block_size + position) * dstr[d];
    std::memcpy(dense.data() + o * eb, values.data + v * eb, static_cast<size_t>(eb));
  });
  return status;
}

}  // namespace

bool IsSparseConvolution(const Instruction& instr, absl::Span<const Shape* const> operands) {
  if (instr.opcode() != Opcode::kConvolution) return false;
  for (const Shape* s : operands) {
    if (s != nullptr && s->IsTuple()) return true;
  }
  return false;
}

absl::StatusOr<Bytes> EvalSparseConvolution(const Instruction& instr,
                                            absl::Span<const std::vector<ArrayRef>> operands,
                                            int64_t max_bytes) {
  if (operands.size() != 2) return Bad(instr, "convolution takes 2 operands");
  TensorSparsity config[2];
  const std::optional<std::string_view> text = RawAttribute(instr, "sparsity_config");
  if (text && !SparsityReader(*text).Read(config)) {
    return Bad(instr, StrCat("cannot read sparsity_config=", *text));
  }
  static constexpr const char* kSide[2] = {"lhs", "rhs"};
  Shape dense_shape[2];
  Bytes dense[2];
  ArrayRef arrays[2];
  for (size_t k = 0; k < 2; ++k) {
    const std::vector<ArrayRef>& leaves = operands[k];
    if (leaves.size() == 1) {
      arrays[k] = leaves[0];
      continue;
    }
    // As XLA's evaluator: a tuple operand is read as (values, indices) only where the config
    // names that side.
    if (leaves.size() != 2 || !config[k].present) {
      return Bad(instr, StrCat("its ", kSide[k], " is a tuple but sparsity_config has no ",
                               kSide[k], "={...} to read it as (values, indices)"));
    }
    if (absl::Status s = Materialize(instr, kSide[k], config[k], leaves[0], leaves[1], max_bytes,
                                     dense_shape[k], dense[k]);
        !s.ok()) {
      return s;
    }
    arrays[k] = ArrayRef{&dense_shape[k], dense[k].data()};
  }
  absl::StatusOr<ConvolutionAttributes> attrs = ReadConvolution(instr);
  if (!attrs.ok()) return Bad(instr, StatusText(attrs.status()));
  absl::StatusOr<Shape> inferred =
      InferConvolutionShape(*arrays[0].shape, *arrays[1].shape, *attrs);
  if (!inferred.ok()) return Bad(instr, StatusText(inferred.status()));
  const Shape& out = instr.shape();
  if (!out.IsArray() || inferred->dims != out.dims) {
    return Bad(instr, StrCat("its dense operands give ", inferred->ToString(false), ", not ",
                             out.ToString(false)));
  }
  return Convolve(out, arrays[0], arrays[1], *attrs);
}

}  // namespace hloscope::eval
