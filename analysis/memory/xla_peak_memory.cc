// XLA's peak memory from its heap-simulator traces (xla_peak_memory.h). The replay follows
// ComputePeakMemoryImpl and AllocateStaticBuffers of xla/service/buffer_assignment.cc at
// ROCm/xla 183fa00cb5; the shape bytes follow ShapeUtil::ByteSizeOf (xla/shape_util.cc) after
// LayoutUtil::SetToDefaultLayout (xla/layout_util.cc) and Shape::FromProto (xla/shape.cc).
#include "analysis/memory/xla_peak_memory.h"

#include <algorithm>
#include <deque>
#include <optional>
#include <string>
#include <utility>

#include "analysis/memory/xla_buffer_assignment.pb.h"
#include "fmt/format.h"
#include "hlo/primitive_type.h"
#include "support/checked_int.h"

namespace hloscope {
namespace {

// XLA's PrimitiveType numbers (xla/xla_data.proto), the wire facts of ShapeProto's
// element_type, onto our element types, whose table gives each one's width.
struct XlaTypeNumber {
  int number;
  PrimitiveType type;
};
using P = PrimitiveType;
// clang-format off
constexpr XlaTypeNumber kXlaTypeNumbers[] = {
    {1, P::kPred},        {30, P::kS1},          {26, P::kS2},      {21, P::kS4},
    {2, P::kS8},          {3, P::kS16},          {4, P::kS32},      {5, P::kS64},
    {31, P::kU1},         {27, P::kU2},          {22, P::kU4},      {6, P::kU8},
    {7, P::kU16},         {8, P::kU32},          {9, P::kU64},      {10, P::kF16},
    {11, P::kF32},        {16, P::kBF16},        {12, P::kF64},     {19, P::kF8E5M2},
    {28, P::kF8E4M3},     {20, P::kF8E4M3FN},    {23, P::kF8E4M3B11FNUZ},
    {29, P::kF8E3M4},     {24, P::kF8E5M2FNUZ},  {25, P::kF8E4M3FNUZ},
    {32, P::kF4E2M1FN},   {33, P::kF8E8M0FNU},   {35, P::kF6E3M2FN},
    {36, P::kF6E2M3FN},   {15, P::kC64},         {18, P::kC128},    {13, P::kTuple},
    {14, P::kOpaque},     {17, P::kToken},       {34, P::kBuffer},
};
// clang-format on

std::optional<PrimitiveType> TypeOfXlaNumber(int number) {
  for (const XlaTypeNumber& t : kXlaTypeNumbers) {
    if (t.number == number) return t.type;
  }
  return std::nullopt;
}

constexpr int64_t kPointerBytes = 8;  // XLA passes sizeof(void*)
// Shape::FromProto recurses through tuple shapes; protobuf's parser already stops at 100
// nested messages, so a deeper shape cannot reach here, but the walk does not rely on it.
constexpr int kMaxShapeDepth = 100;

absl::Status ShapeError(std::string what) {
  return absl::InvalidArgumentError(fmt::format("malformed shape: {}", what));
}

// What Shape::FromProto refuses, through every tuple element (FromProto converts them all,
// even where only the element count is needed).
absl::Status CheckShape(const xla_ba::ShapeView& shape, int depth) {
  if (depth > kMaxShapeDepth) {
    return ShapeError(fmt::format("tuple shapes nested more than {} deep", kMaxShapeDepth));
  }
  const std::optional<PrimitiveType> type = TypeOfXlaNumber(shape.element_type());
  if (!type) {
    return ShapeError(shape.element_type() == 0
                          ? std::string("no element type")
                          : fmt::format("unknown element type {}", shape.element_type()));
  }
  const bool array = IsArrayType(*type) && *type != PrimitiveType::kBuffer;
  if (array && shape.is_dynamic_dimension_size() != 0 &&
      shape.is_dynamic_dimension_size() != shape.dimensions_size()) {
    return ShapeError(fmt::format("{} is_dynamic_dimension fields for {} dimensions",
                                  shape.is_dynamic_dimension_size(), shape.dimensions_size()));
  }
  if (*type == PrimitiveType::kTuple) {
    for (const xla_ba::ShapeView& element : shape.tuple_shapes()) {
      if (absl::Status s = CheckShape(element, depth + 1); !s.ok()) return s;
    }
  }
  if (*type == PrimitiveType::kBuffer) {
    if (shape.tuple_shapes_size() != 1) {
      return ShapeError(fmt::format("a buffer shape holds {} shapes (it holds exactly one)",
                                    shape.tuple_shapes_size()));
    }
    if (absl::Status s = CheckShape(shape.tuple_shapes(0), depth + 1); !s.ok()) return s;
    const std::optional<PrimitiveType> inner =
        TypeOfXlaNumber(shape.tuple_shapes(0).element_type());
    if (!IsArrayType(*inner) || *inner == PrimitiveType::kBuffer) {
      return ShapeError("a buffer shape holds something other than an array");
    }
  }
  if (shape.has_layout()) {
    if (!IsArrayType(*type)) {
      return ShapeError(fmt::format("a {} shape has a layout", PrimitiveTypeName(*type)));
    }
    if (shape.layout().tail_padding_alignment_in_elements() < 0) {
      return ShapeError(fmt::format("tail padding alignment {}",
                                    shape.layout().tail_padding_alignment_in_elements()));
    }
  }
  return absl::OkStatus();
}

// ShapeUtil::ByteSizeOfElements of a checked array shape.
absl::StatusOr<int64_t> ArrayBytes(const xla_ba::ShapeView& shape, PrimitiveType type) {
  int64_t elements = 1;
  for (int64_t d : shape.dimensions()) {
    if (d < 0) return ShapeError(fmt::format("dimension size {}", d));
    std::optional<int64_t> product = CheckedMul(elements, d);
    if (!product) return ShapeError("more elements than int64 counts");
    elements = *product;
  }
  const int64_t bits_in_layout = shape.has_layout() ? shape.layout().element_size_in_bits() : 0;
  if (bits_in_layout < 0) return ShapeError(fmt::format("element size {} bits", bits_in_layout));
  if (bits_in_layout != 0) {
    std::optional<int64_t> bits = CheckedMul(elements, bits_in_layout);
    if (!bits) return ShapeError("more bits than int64 counts");
    return *bits / 8 + (*bits % 8 != 0 ? 1 : 0);
  }
  const int64_t element_bytes = (GetPrimitiveTypeInfo(type).bits + 7) / 8;
  std::optional<int64_t> bytes = CheckedMul(elements, element_bytes);
  if (!bytes) return ShapeError("more bytes than int64 counts");
  return *bytes;
}

absl::Status BufferError(std::string what) { return absl::InvalidArgumentError(std::move(what)); }

// XLA's Buffer of the replay: a logical buffer's two sizes, its references and, once it
// shares another's region, that buffer.
struct ReplayBuffer {
  int64_t id = 0;
  int64_t size = 0;
  int64_t unpadded_size = 0;
  int ref_count = 0;
  ReplayBuffer* underlying = nullptr;
};

// The running totals and their peaks; sums that pass int64 are refused (XLA's would wrap).
struct Running {
  int64_t padded = 0;
  int64_t unpadded = 0;
  XlaPeakMemory peak;

  absl::Status Add(const ReplayBuffer& b) {
    std::optional<int64_t> p = CheckedAdd(padded, b.size);
    std::optional<int64_t> u = CheckedAdd(unpadded, b.unpadded_size);
    if (!p || !u) return BufferError("XLA's peak memory passes int64 bytes");
    padded = *p;
    unpadded = *u;
    return absl::OkStatus();
  }
  void Subtract(const ReplayBuffer& b) {
    padded -= b.size;
    unpadded -= b.unpadded_size;
  }
  void NotePeak() {
    peak.padded = std::max(peak.padded, padded);
    peak.unpadded = std::max(peak.unpadded, unpadded);
  }
};

absl::StatusOr<XlaPeakMemory> Replay(const xla_ba::BufferAssignmentProto& proto,
                                     const absl::flat_hash_map<int64_t, int64_t>& unpadded_sizes) {
  // A deque keeps the buffers where they are as more are added (pointers into it stay valid).
  std::deque<ReplayBuffer> buffers;
  absl::flat_hash_map<int64_t, ReplayBuffer*> by_id;
  for (const xla_ba::LogicalBuffer& b : proto.logical_buffers()) {
    if (b.size() < 0) {
      return BufferError(fmt::format("logical buffer {} has a negative size {}", b.id(), b.size()));
    }
    auto unpadded = unpadded_sizes.find(b.id());
    buffers.push_back({.id = b.id(),
                       .size = b.size(),
                       .unpadded_size = unpadded == unpadded_sizes.end() ? 0 : unpadded->second});
    by_id[b.id()] = &buffers.back();  // a repeated id: the last one, as XLA's map keeps
  }
  Running running;
  // AllocateStaticBuffers: what lives throughout, by the largest buffer each allocation holds.
  for (const xla_ba::BufferAllocation& a : proto.buffer_allocations()) {
    if (a.is_thread_local() ||
        (!a.is_entry_computation_parameter() && !a.is_constant() && !a.maybe_live_out())) {
      continue;
    }
    ReplayBuffer* largest = nullptr;
    for (const xla_ba::AssignedBuffer& assigned : a.assigned()) {
      auto it = by_id.find(assigned.logical_buffer_id());
      if (it == by_id.end()) continue;  // XLA skips a buffer the proto does not define
      if (it->second->size > (largest == nullptr ? 0 : largest->size)) largest = it->second;
    }
    if (largest != nullptr) {
      ++largest->ref_count;
      if (absl::Status s = running.Add(*largest); !s.ok()) return s;
    }
  }
  running.NotePeak();
  auto find = [&](int64_t id, std::string_view role) -> absl::StatusOr<ReplayBuffer*> {
    auto it = by_id.find(id);
    if (it == by_id.end()) {
      return BufferError(
          fmt::format("a heap-simulator event names logical buffer {}{}, which "
                      "the buffer assignment does not define",
                      id, role));
    }
    return it->second;
  };
  // The root of a buffer's chain of shares. A share points at a root, so the one cycle a
  // trace can make is a buffer sharing its own region (SHARE_WITH of itself, or of a buffer
  // that shares its region); XLA's walk to the root then never ends, here it is an error.
  auto root_of = [](ReplayBuffer* b, const xla_ba::HeapSimulatorEvent& event,
                    std::string_view what) -> absl::StatusOr<ReplayBuffer*> {
    while (b->underlying != nullptr) {
      if (b->underlying == b) {
        return BufferError(fmt::format(
            "a heap-simulator event ({} logical buffer {}) walks the shares to logical buffer "
            "{}, which an earlier SHARE_WITH made share its own region: XLA's replay never "
            "ends there",
            what, event.buffer_id(), b->id));
      }
      b = b->underlying;
    }
    return b;
  };
  for (const xla_ba::HeapSimulatorTrace& trace : proto.heap_simulator_traces()) {
    for (const xla_ba::HeapSimulatorEvent& event : trace.events()) {
      absl::StatusOr<ReplayBuffer*> buffer = find(event.buffer_id(), "");
      if (!buffer.ok()) return buffer.status();
      switch (event.kind()) {
        case xla_ba::HeapSimulatorEvent::ALLOC:
          if (++(*buffer)->ref_count == 1) {
            if (absl::Status s = running.Add(**buffer); !s.ok()) return s;
          }
          break;
        case xla_ba::HeapSimulatorEvent::FREE: {
          absl::StatusOr<ReplayBuffer*> found = root_of(*buffer, event, "FREE of");
          if (!found.ok()) return found.status();
          ReplayBuffer* root = *found;
          (*buffer)->underlying = nullptr;  // it no longer shares
          if (--root->ref_count == 0) running.Subtract(*root);
          break;
        }
        case xla_ba::HeapSimulatorEvent::SHARE_WITH: {
          absl::StatusOr<ReplayBuffer*> shared =
              find(event.share_with_canonical_id(), " (as the buffer shared with)");
          if (!shared.ok()) return shared.status();
          absl::StatusOr<ReplayBuffer*> found = root_of(*shared, event, "SHARE_WITH by");
          if (!found.ok()) return found.status();
          ReplayBuffer* root = *found;
          (*buffer)->underlying = root;
          if (++root->ref_count == 1) {
            if (absl::Status s = running.Add(*root); !s.ok()) return s;
          }
          break;
        }
        default:  // XLA ignores a kind it does not know
          break;
      }
      running.NotePeak();
    }
  }
  return running.peak;
}

}  // namespace

absl::StatusOr<int64_t> XlaUnpaddedShapeBytes(const xla_ba::ShapeView& shape) {
  if (absl::Status s = CheckShape(shape, 0); !s.ok()) return s;
  const PrimitiveType type = *TypeOfXlaNumber(shape.element_type());
  switch (type) {
    case PrimitiveType::kTuple: {
      std::optional<int64_t> bytes = CheckedMul(kPointerBytes, shape.tuple_shapes_size());
      if (!bytes) return ShapeError("a tuple table larger than int64 counts");
      return *bytes;
    }
    case PrimitiveType::kBuffer: {
      const xla_ba::ShapeView& array = shape.tuple_shapes(0);
      return ArrayBytes(array, *TypeOfXlaNumber(array.element_type()));
    }
    case PrimitiveType::kToken:
      return 0;
    case PrimitiveType::kOpaque:
      return kPointerBytes;
    default:
      return ArrayBytes(shape, type);
  }
}

absl::StatusOr<absl::flat_hash_map<int64_t, int64_t>> XlaLogicalBufferUnpaddedSizes(
    const xla_ba::ModuleNameView& module, const xla_ba::BufferAssignmentProto& assignment) {
  // As XLA's map: a repeated id (or name) is its last instruction.
  absl::flat_hash_map<int64_t, const xla_ba::InstructionNameView*> by_id;
  absl::flat_hash_map<std::string_view, const xla_ba::InstructionNameView*> by_name;
  for (const xla_ba::ComputationNameView& c : module.computations()) {
    for (const xla_ba::InstructionNameView& i : c.instructions()) {
      by_id[i.id()] = &i;
      if (!i.name().empty()) by_name[i.name()] = &i;
    }
  }
  absl::flat_hash_map<int64_t, int64_t> sizes;
  for (const xla_ba::LogicalBuffer& b : assignment.logical_buffers()) {
    const xla_ba::LogicalBufferLocation& at = b.defined_at();
    const xla_ba::InstructionNameView* instruction = nullptr;
    if (!at.instruction_name().empty()) {
      auto it = by_name.find(at.instruction_name());
      if (it == by_name.end()) {
        return BufferError(
            fmt::format("logical buffer {} is defined at instruction '{}', which "
                        "the HloProto's module does not have",
                        b.id(), at.instruction_name()));
      }
      instruction = it->second;
    } else {
      auto it = by_id.find(at.instruction_id());
      if (it == by_id.end()) {
        return BufferError(
            fmt::format("logical buffer {} is defined at instruction id {}, which "
                        "the HloProto's module does not have",
                        b.id(), at.instruction_id()));
      }
      instruction = it->second;
    }
    const xla_ba::ShapeView* shape = &instruction->shape();
    // Only the last index is used, and into the top-level tuple: XLA's own reading.
    if (at.shape_index_size() > 0) {
      const int64_t i = at.shape_index(at.shape_index_size() - 1);
      if (i < 0) {
        return BufferError(
            fmt::format("logical buffer {} is defined at a negative shape index {}", b.id(), i));
      }
      if (i < shape->tuple_shapes_size()) shape = &shape->tuple_shapes(static_cast<int>(i));
    }
    absl::StatusOr<int64_t> bytes = XlaUnpaddedShapeBytes(*shape);
    if (!bytes.ok()) {
      return BufferError(fmt::format("logical buffer {}: the shape of instruction '{}' (id {}): {}",
                                     b.id(), instruction->name(), instruction->id(),
                                     std::string(bytes.status().message())));
    }
    sizes[b.id()] = *bytes;
  }
  return sizes;
}

absl::StatusOr<XlaPeakMemory> XlaPeakMemorySizes(const xla_ba::BufferAssignmentProto& assignment,
                                                 const xla_ba::ModuleNameView& module) {
  absl::StatusOr<absl::flat_hash_map<int64_t, int64_t>> unpadded =
      XlaLogicalBufferUnpaddedSizes(module, assignment);
  if (!unpadded.ok()) return unpadded.status();
  return Replay(assignment, *unpadded);
}

absl::StatusOr<int64_t> XlaPaddedPeakMemory(const xla_ba::BufferAssignmentProto& assignment) {
  absl::StatusOr<XlaPeakMemory> peak = Replay(assignment, {});
  if (!peak.ok()) return peak.status();
  return peak->padded;
}

}  // namespace hloscope
