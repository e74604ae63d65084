#include "passes/pass_pipeline.h"

#include <chrono>
#include <string>
#include <utility>

#include "hlo/str_util.h"

namespace hloscope {

namespace {

std::string_view MessageOf(const absl::Status& s) {
  return std::string_view(s.message().data(), s.message().size());
}

}  // namespace

absl::StatusOr<bool> PassPipeline::Run(Module& module) {
  records_.clear();
  bool changed = false;
  for (const std::unique_ptr<Pass>& pass : passes_) {
    auto start = std::chrono::steady_clock::now();
    absl::StatusOr<bool> result = pass->Run(module);
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    records_.push_back({pass->name(), result.ok() && *result, seconds});
    if (!result.ok()) {
      return absl::Status(result.status().code(),
                          StrCat("pass '", pass->name(), "' failed: ", MessageOf(result.status())));
    }
    changed |= *result;
    if (options_.verify_each) {
      if (absl::Status s = VerifyModule(module, options_.verifier); !s.ok()) {
        return absl::InternalError(
            StrCat("pass '", pass->name(), "' left an invalid module: ", MessageOf(s)));
      }
    }
  }
  return changed;
}

absl::StatusOr<std::unique_ptr<PassPipeline>> BuildPipeline(std::string_view pass_list,
                                                            const PassRegistry& registry,
                                                            PipelineOptions options) {
  auto pipeline = std::make_unique<PassPipeline>(options);
  if (StripWhitespace(pass_list).empty()) return pipeline;
  size_t begin = 0;
  while (true) {
    size_t comma = pass_list.find(',', begin);
    std::string_view name = StripWhitespace(pass_list.substr(begin, comma - begin));
    if (name.empty()) {
      return absl::InvalidArgumentError(StrCat("empty pass name in pass list '", pass_list, "'"));
    }
    absl::StatusOr<std::unique_ptr<Pass>> pass = registry.Create(name);
    if (!pass.ok()) return pass.status();
    pipeline->AddPass(*std::move(pass));
    if (comma == std::string_view::npos) break;
    begin = comma + 1;
  }
  return pipeline;
}

}  // namespace hloscope
