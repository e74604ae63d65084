// Name → pass factory, for tools that build pipelines from text (`hlo-opt --passes=a,b`; the
// options in braces are the pipeline's to parse, pass_pipeline.h).
//
//   PassRegistry& registry = PassRegistry::Global();   // holds the built-in passes
//   absl::StatusOr<std::unique_ptr<Pass>> dce = registry.Create("dce");
//
// The built-ins are added by RegisterBuiltinPasses, called explicitly (by Global() on first
// use, or by whoever builds their own registry) rather than from static initializers, which a
// linker may drop when the passes live in a static library.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "passes/pass.h"

namespace hloscope {

class PassRegistry {
 public:
  using Factory = std::function<std::unique_ptr<Pass>()>;
  struct Entry {
    std::string name;
    std::string description;
    Factory factory;
  };

  PassRegistry() = default;
  PassRegistry(const PassRegistry&) = delete;
  PassRegistry& operator=(const PassRegistry&) = delete;

  // The process-wide registry, holding the built-in passes from its first use.
  static PassRegistry& Global();

  // Adds a pass; AlreadyExists when the name is taken, InvalidArgument when it is empty.
  absl::Status Register(std::string_view name, std::string_view description, Factory factory);
  // Registers P under the name and description a default-constructed P reports.
  template <typename P>
  absl::Status Register() {
    P probe;
    return Register(probe.name(), probe.description(), [] { return std::make_unique<P>(); });
  }

  bool Contains(std::string_view name) const { return entries_.find(name) != entries_.end(); }
  // A new instance of the named pass. NotFound for an unknown name; the message lists the
  // known passes: "unknown pass 'foo' (known passes: dce, tuple-simplify)".
  absl::StatusOr<std::unique_ptr<Pass>> Create(std::string_view name) const;
  // All entries in name order.
  std::vector<const Entry*> Entries() const;
  // "dce, tuple-simplify": the known names in order, for messages.
  std::string KnownNames() const;

 private:
  std::map<std::string, Entry, std::less<>> entries_;  // ordered: listings come out sorted
};

// Adds every built-in pass (the list is passes/builtin_passes.cc) to `registry`.
absl::Status RegisterBuiltinPasses(PassRegistry& registry);

}  // namespace hloscope
