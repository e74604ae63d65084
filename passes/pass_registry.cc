#include "passes/pass_registry.h"

#include <utility>

#include "support/str_util.h"

namespace hloscope {

PassRegistry& PassRegistry::Global() {
  static PassRegistry* const registry = [] {
    auto* r = new PassRegistry();
    // The built-in names are distinct, so this cannot fail.
    (void)RegisterBuiltinPasses(*r);
    return r;
  }();
  return *registry;
}

absl::Status PassRegistry::Register(std::string_view name, std::string_view description,
                                    Factory factory) {
  if (name.empty()) return absl::InvalidArgumentError("a pass name must not be empty");
  if (Contains(name)) {
    return absl::AlreadyExistsError(StrCat("pass '", name, "' is already registered"));
  }
  std::string key(name);
  entries_.emplace(key, Entry{key, std::string(description), std::move(factory)});
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Pass>> PassRegistry::Create(std::string_view name) const {
  auto it = entries_.find(name);
  if (it == entries_.end()) {
    return absl::NotFoundError(
        StrCat("unknown pass '", name, "' (known passes: ", KnownNames(), ")"));
  }
  return it->second.factory();
}

std::vector<const PassRegistry::Entry*> PassRegistry::Entries() const {
  std::vector<const Entry*> out;
  out.reserve(entries_.size());
  for (const auto& [name, entry] : entries_) out.push_back(&entry);
  return out;
}

std::string PassRegistry::KnownNames() const {
  std::vector<std::string_view> names;
  for (const auto& [name, entry] : entries_) names.push_back(name);
  return names.empty() ? std::string("none") : StrJoin(names, ", ");
}

}  // namespace hloscope
