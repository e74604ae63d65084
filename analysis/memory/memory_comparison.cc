#include "analysis/memory/memory_comparison.h"

#include <utility>

#include "analysis/memory/memory_limit.h"
#include "analysis/memory/memory_report_printers.h"
#include "fmt/format.h"

namespace hloscope {

absl::StatusOr<MemoryComparison> ProfileBeforeAfter(const std::vector<const Module*>& before,
                                                    const std::vector<const Module*>* after,
                                                    std::string_view passes,
                                                    const MemoryOptions& options,
                                                    std::string_view pipeline_schedule,
                                                    int32_t microbatches) {
  MemoryComparison out;
  out.passes = std::string(passes);
  absl::StatusOr<MemoryReport> report = ProfileModules(before, options);
  if (!report.ok()) return report.status();
  out.before = *std::move(report);
  if (after != nullptr) {
    absl::StatusOr<MemoryReport> r = ProfileModules(*after, options);
    if (!r.ok()) return r.status();
    out.after = *std::move(r);
  }
  if (!pipeline_schedule.empty()) {
    absl::StatusOr<PipelineFigures> f =
        SimulateStagePipeline(out.before, pipeline_schedule, microbatches);
    if (!f.ok()) return f.status();
    out.pipeline = *std::move(f);
  }
  return out;
}

int64_t XlaAlignmentOf(const XlaBufferAssignment& xla) {
  // 256: current XLA:GPU's (the H200 dumps of testdata/dumps put their 16- to 104-byte tuple
  // tables and small arrays 256 bytes apart); older XLA:GPU used 128, XLA:CPU less.
  int64_t alignment = 256;
  bool any = false;
  for (const XlaAllocation& a : xla.allocations) {
    if (!a.is_preallocated_temp()) continue;
    for (const XlaAssignedValue& v : a.values) {
      any = true;
      while (alignment > 1 && v.offset % alignment != 0) alignment /= 2;
    }
  }
  return any ? alignment : 1;
}

absl::Status AddXlaBufferAssignment(MemoryComparison& c, const Module& module,
                                    std::string_view contents, std::string_view filename, int top,
                                    bool with_model, int64_t alignment) {
  absl::StatusOr<XlaBufferAssignment> xla = ParseXlaBufferAssignment(contents, filename);
  if (!xla.ok()) return xla.status();
  for (const ModuleMemory& m : c.before.modules) {
    if (m.module != module.name()) continue;
    absl::StatusOr<XlaAssignmentComparison> compared;
    if (with_model) {
      absl::StatusOr<XlaModelAssignment> model =
          AssignLikeXla(module, {.alignment = alignment > 0 ? alignment : XlaAlignmentOf(*xla),
                                 .instruction_ids = xla->instruction_ids});
      if (!model.ok()) return model.status();
      compared = CompareModelWithXla(module, *model, *xla, top);
    } else {
      compared = CompareWithXla(module, m, *xla, top);
    }
    if (!compared.ok()) return compared.status();
    c.xla.push_back(*std::move(compared));
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      fmt::format("module '{}' is not in the memory report", module.name()));
}

absl::StatusOr<std::string> PrintMemoryComparison(const MemoryComparison& c,
                                                  const MemoryPrintOptions& options) {
  const MemoryReport* after = c.after_or_null();
  const PipelineFigures* figures = c.pipeline ? &*c.pipeline : nullptr;
  switch (options.format) {
    case MemoryFormat::kText: {
      // The caveats come first: they say how far to trust every number after them.
      std::string text;
      for (const std::string& w : options.warnings) text += fmt::format("warning: {}\n", w);
      text += MemoryReportText(c.before, after, c.passes, options.buffer_assignment, &c.xla,
                               options.option_spelling);
      if (figures != nullptr) text += PipelineFiguresText(*figures);
      if (options.memory_limit) {
        text += MemoryLimitText(after != nullptr ? *after : c.before, *options.memory_limit);
      }
      return text;
    }
    case MemoryFormat::kJson: {
      absl::StatusOr<std::string> json = MemoryReportJson(
          c.before, after, c.passes, figures, &c.xla, options.memory_limit, options.warnings);
      if (!json.ok() || (c.xla_models.empty() && c.xla_models_after.empty())) return json;
      return AddXlaModelsToJson(*json, after != nullptr, c.xla_models, c.xla_models_after);
    }
    case MemoryFormat::kCsv:
      return MemoryReportCsv(c.before, after, &c.xla);
    case MemoryFormat::kHtml:
      return MemoryReportHtml(c.before, after, c.passes, figures, &c.xla, options.memory_limit,
                              options.warnings, options.option_spelling);
  }
  return absl::InternalError("unknown memory report format");
}

}  // namespace hloscope
