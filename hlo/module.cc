#include "hlo/module.h"

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "hlo/reachable_computations.h"
#include "support/str_util.h"

namespace hloscope {

namespace {
// Names of the AttrKey values, in enum order.
constexpr std::string_view kKnownAttrKeys[] = {
    "index",
    "dimensions",
    "slice",
    "dynamic_slice_sizes",
    "kind",
    "direction",
    "output_to_operand_aliasing",
    "custom_call_target",
    "backend_config",
    "metadata",
    "frontend_attributes",
    "control-predecessors",
    "sharding",
    "calls",
    "to_apply",
    "condition",
    "body",
    "branch_computations",
    "true_computation",
    "false_computation",
    "called_computations",
    "select",
    "scatter",
    "comparator",
};
static_assert(sizeof(kKnownAttrKeys) / sizeof(kKnownAttrKeys[0]) == kAttrFirstUnknown);

size_t HashShapeValue(const Shape& s) {
  size_t h = absl::HashOf(static_cast<int>(s.element_type), s.has_layout, s.dims.size());
  for (int64_t d : s.dims) h = absl::HashOf(h, d);
  if (s.has_layout) {
    for (int64_t d : s.layout.minor_to_major) h = absl::HashOf(h, d);
    h = absl::HashOf(h, s.layout.memory_space, s.layout.tiles.size());
  }
  for (const Shape* e : s.tuple_elements) h = absl::HashOf(h, HashShapeValue(*e));
  return h;
}
}  // namespace

size_t Module::ShapeHash::operator()(const Shape* s) const { return HashShapeValue(*s); }

Module::Module(std::string_view name) {
  name_ = arena_.Save(name);
  for (std::string_view k : kKnownAttrKeys) InternAttrKey(k);
}

Module::~Module() = default;

Computation* Module::FindComputation(std::string_view name) const {
  auto it = computation_by_name_.find(name);
  return it == computation_by_name_.end() ? nullptr : it->second;
}

std::optional<std::string_view> Module::FindAttribute(std::string_view key) const {
  for (const ModuleAttribute& a : attributes_) {
    if (a.key == key) return a.value;
  }
  return std::nullopt;
}

const Shape* Module::InternShape(Shape shape) {
  auto it = shape_set_.find(&shape);
  if (it != shape_set_.end()) return it->second;
  const Shape* s = &shapes_.emplace_back(std::move(shape));
  shape_set_.emplace(s, s);
  return s;
}

bool Module::HasBufferShapes() const {
  for (size_t k = 0; k < shapes_.size(); ++k) {
    bool found = false;
    ForEachSubshape(shapes_[k],
                    [&](const Shape& sub, const ShapeIndex&) { found = found || sub.IsBuffer(); });
    if (found) return true;
  }
  return false;
}

Computation* Module::AddComputation(std::string_view name) {
  std::string_view saved = arena_.Save(name);
  Computation* c = &computation_storage_.emplace_back(saved, this);
  computations_.push_back(c);
  computation_by_name_.emplace(saved, c);
  return c;
}

Instruction* Module::CreateInstruction(Opcode opcode, const Shape* shape, std::string_view name,
                                       Computation* parent) {
  Instruction* instr = &instruction_storage_.emplace_back(opcode, shape, name, parent);
  instr->id_ = next_instruction_id_++;
  if (!name_counters_.empty()) name_counters_.emplace(name, 0);
  return instr;
}

void Module::SetSourceOffset(const Instruction& instr, size_t offset) {
  const uint32_t id = instr.unique_id();
  // The parser creates instructions in id order, so this is nearly always an append.
  if (source_offsets_.size() <= id) source_offsets_.resize(id + 1, kNoSourceOffset);
  source_offsets_[id] = offset < kNoSourceOffset ? static_cast<uint32_t>(offset) : kNoSourceOffset;
}

std::optional<size_t> Module::SourceOffset(const Instruction& instr) const {
  const uint32_t id = instr.unique_id();
  if (id >= source_offsets_.size() || source_offsets_[id] == kNoSourceOffset) return std::nullopt;
  return source_offsets_[id];
}

Metadata* Module::CreateMetadata() { return &metadata_storage_.emplace_back(); }
ControlEdges* Module::CreateControlEdges() { return &control_storage_.emplace_back(); }
InstructionDetails* Module::CreateDetails() { return &details_storage_.emplace_back(); }

void Module::set_entry(Computation* c) {
  if (entry_ != nullptr) entry_->set_is_entry(false);
  entry_ = c;
  if (c != nullptr) c->set_is_entry(true);
}

void Module::AddAttribute(std::string_view key, std::string_view value) {
  attributes_.push_back({arena_.Save(key), arena_.Save(value)});
  if (key == "is_scheduled") is_scheduled_ = (value == "true");
}

void Module::SetAttribute(std::string_view key, std::string_view value) {
  if (key == "is_scheduled") is_scheduled_ = (value == "true");
  for (ModuleAttribute& a : attributes_) {
    if (a.key == key) {
      a.value = arena_.Save(value);
      return;
    }
  }
  attributes_.push_back({arena_.Save(key), arena_.Save(value)});
}

absl::flat_hash_set<const Computation*> ReachableComputations(const Module& module) {
  if (module.entry() == nullptr) return {};
  absl::Span<Computation* const> computations = module.computations();
  // The call edges are read in one sweep over computations in order, not during the search:
  // at a million instructions the work is loading each instruction once, and the parser
  // allocated them in this order, so a sweep that prefetches ahead (across computations, most
  // of which are a dozen instructions) streams through memory where a depth-first walk
  // stalled on every computation's first instructions.
  const size_t n = computations.size();
  absl::flat_hash_map<const Computation*, uint32_t> index;
  index.reserve(n);
  for (size_t j = 0; j < n; ++j) index.emplace(computations[j], static_cast<uint32_t>(j));
  std::vector<uint32_t> edges_begin(n + 1, 0);
  std::vector<const Computation*> callees;
  auto append_callees = [](const Computation& c, std::vector<const Computation*>& out,
                           InstructionPrefetcher* ahead) {
    for (const Instruction* instr : c.instructions()) {
      if (ahead != nullptr) ahead->Advance();
      for (const Computation* callee : instr->called_computations()) out.push_back(callee);
    }
  };
  // Called computations are on an instruction's second cache line (instruction.h).
  InstructionPrefetcher ahead(computations, /*line=*/1, /*distance=*/32);
  for (size_t j = 0; j < n; ++j) {
    append_callees(*computations[j], callees, &ahead);
    edges_begin[j + 1] = static_cast<uint32_t>(callees.size());
  }
  absl::flat_hash_set<const Computation*> reachable = {module.entry()};
  std::vector<const Computation*> stack = {module.entry()};
  std::vector<const Computation*> outside;  // callees of a computation not in computations
  while (!stack.empty()) {
    const Computation* c = stack.back();
    stack.pop_back();
    absl::Span<const Computation* const> out;
    if (auto it = index.find(c); it != index.end()) {
      out = absl::MakeConstSpan(callees).subspan(
          edges_begin[it->second], edges_begin[it->second + 1] - edges_begin[it->second]);
    } else {
      outside.clear();
      append_callees(*c, outside, nullptr);
      out = outside;
    }
    for (const Computation* callee : out) {
      if (reachable.insert(callee).second) stack.push_back(callee);
    }
  }
  return reachable;
}

int64_t Module::RemoveUnreachableComputations() {
  if (entry_ == nullptr) return 0;
  // Removed-but-not-compacted instructions must not keep their callees reachable.
  for (Computation* c : computations_) c->CompactInstructions();
  const absl::flat_hash_set<const Computation*> reachable = ReachableComputations(*this);
  int64_t removed = 0;
  std::vector<Computation*> kept;
  for (Computation* c : computations_) {
    if (reachable.contains(c)) {
      kept.push_back(c);
    } else {
      computation_by_name_.erase(c->name());
      ++removed;
    }
  }
  computations_ = std::move(kept);
  return removed;
}

std::string_view Module::UniqueInstructionName(std::string_view base) {
  if (name_counters_.empty()) {
    // Built on first use: passes that never create instructions pay nothing.
    for (size_t k = 0; k < instruction_storage_.size(); ++k) {
      name_counters_.emplace(instruction_storage_[k].name(), 0);
    }
    name_counters_.emplace(std::string_view("\x01"), 0);  // keeps the map non-empty
  }
  if (!name_counters_.contains(base)) {
    std::string_view saved = arena_.Save(base);
    name_counters_.emplace(saved, 0);
    return saved;
  }
  int& counter = name_counters_[base];
  while (true) {
    std::string candidate = StrCat(base, ".", ++counter);
    if (!name_counters_.contains(candidate)) {
      std::string_view saved = arena_.Save(candidate);
      name_counters_.emplace(saved, 0);
      return saved;
    }
  }
}

uint32_t Module::InternAttrKey(std::string_view key) {
  // A few dozen distinct keys repeat on every instruction: a direct-mapped cache in front of
  // the hash table answers most lookups with one comparison.
  size_t slot = key.empty() ? 0
                            : (key.size() * 31 + static_cast<unsigned char>(key.front()) * 7 +
                               static_cast<unsigned char>(key.back())) %
                                  attr_key_cache_.size();
  AttrKeyCacheEntry& cached = attr_key_cache_[slot];
  if (cached.name == key && cached.id != UINT32_MAX) return cached.id;
  uint32_t id = InternAttrKeySlow(key);
  cached = {attr_key_names_[id], id};
  return id;
}

uint32_t Module::InternAttrKeySlow(std::string_view key) {
  auto it = attr_key_ids_.find(key);
  if (it != attr_key_ids_.end()) return it->second;
  std::string_view saved = arena_.Save(key);
  uint32_t id = static_cast<uint32_t>(attr_key_names_.size());
  attr_key_names_.push_back(saved);
  attr_key_ids_.emplace(saved, id);
  return id;
}

int64_t Module::instruction_count() const {
  int64_t n = 0;
  for (const Computation* c : computations_) n += c->instruction_count();
  return n;
}

namespace {
template <typename V>
int64_t HeapBytes(const V& v) {
  // Lists keep small sizes inline; count only the arena storage of those that spilled.
  return static_cast<int64_t>(v.arena_bytes());
}
}  // namespace

Module::MemoryStats Module::ComputeMemoryStats() const {
  MemoryStats s;
  int64_t live_list_bytes = 0;  // arena storage of the lists as they are now
  for (size_t k = 0; k < instruction_storage_.size(); ++k) {
    const Instruction& i = instruction_storage_[k];
    if (i.parent() == nullptr) continue;
    ++s.instructions;
    const int64_t lists =
        HeapBytes(i.operands_) + HeapBytes(i.users_) + HeapBytes(i.called_) + HeapBytes(i.attrs_);
    live_list_bytes += lists;
    s.instruction_bytes +=
        static_cast<int64_t>(sizeof(Instruction)) + lists +
        (i.control_ ? static_cast<int64_t>(sizeof(ControlEdges) + (i.control_->preds.capacity() +
                                                                   i.control_->succs.capacity()) *
                                                                      sizeof(void*))
                    : 0);
    if (i.metadata_ != nullptr)
      s.metadata_string_bytes += static_cast<int64_t>(i.metadata_->text.size());
  }
  for (size_t k = 0; k < shapes_.size(); ++k) {
    const Shape& sh = shapes_[k];
    s.shape_bytes +=
        static_cast<int64_t>(sizeof(Shape) + sh.tuple_elements.capacity() * sizeof(void*) +
                             sh.layout.tiles.capacity() * sizeof(Tile));
  }
  s.string_bytes = static_cast<int64_t>(arena_.bytes_used());
  s.other_bytes = static_cast<int64_t>(computation_storage_.size() * sizeof(Computation) +
                                       metadata_storage_.size() * sizeof(Metadata) +
                                       details_storage_.size() * sizeof(InstructionDetails) +
                                       source_offsets_.capacity() * sizeof(uint32_t));
  for (const Computation* c : computations_) {
    const int64_t lists = HeapBytes(c->instructions_) + HeapBytes(c->parameters_);
    live_list_bytes += lists;
    s.other_bytes += lists;
  }
  // Blocks that lists left behind when they grew (and lists of removed instructions) still
  // take arena memory: count them too.
  s.other_bytes +=
      std::max<int64_t>(0, static_cast<int64_t>(arena_.array_bytes()) - live_list_bytes);
  return s;
}

}  // namespace hloscope
