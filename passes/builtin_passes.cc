// The list of passes hloscope ships. Adding a pass: its two files (passes/CMakeLists.txt
// compiles every .cc here), one line below, and one lit file under testdata/passes/; the tests
// read the list from the registry (docs/passes.md, "Adding a pass").
#include "passes/copy_elision.h"
#include "passes/copy_insertion.h"
#include "passes/dce.h"
#include "passes/flatten_call_graph.h"
#include "passes/pass_registry.h"
#include "passes/tuple_simplify.h"

namespace hloscope {

absl::Status RegisterBuiltinPasses(PassRegistry& registry) {
  if (absl::Status s = registry.Register<DeadCodeElimination>(); !s.ok()) return s;
  if (absl::Status s = registry.Register<FlattenCallGraph>(); !s.ok()) return s;
  if (absl::Status s = registry.Register<TupleSimplify>(); !s.ok()) return s;
  if (absl::Status s = registry.Register<CopyElision>(); !s.ok()) return s;
  if (absl::Status s = registry.Register<CopyInsertion>(); !s.ok()) return s;
  return absl::OkStatus();
}

}  // namespace hloscope
