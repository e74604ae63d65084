// libFuzzer target for `hlo-opt --ordering-query` (built with -DHLOSCOPE_FUZZ=ON; see
// `scripts/fuzz --fuzzer=ordering`).
//
// A query names instructions, operand numbers and shape indices the user typed; each is
// looked up in the module (analysis/ordering_query.h). The input is the query lines, one per
// line, then the module's text from its first `HloModule` line on; an input without a module
// asks its queries of a fixed module with a late-bound async chain, a call inside the wrapped
// computation, a while loop and a conditional (what the async ordering rules are about), each
// instruction name used once in the module, as XLA's modules have them. The
// queries are parsed (ParseOrderingQuery) and, when they all parse and the module verifies,
// answered under the SSA-form dataflow and the non-SSA one, the way hlo-opt answers them. A
// status of any kind is a clean answer; a crash or a sanitizer report is a failure.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/analysis_cache.h"
#include "analysis/ordering_query.h"
#include "hlo/parser.h"
#include "hlo/verifier.h"

namespace {

constexpr std::string_view kFixedModule = R"(HloModule ordering_fuzz

%wrapped_body {
  %out = s32[8]{0} parameter(1)
  %in = s32[8]{0} parameter(0)
  %offset = s32[] constant(1)
  %slice = s32[4]{0} slice(s32[8]{0} %in), slice={[0:4]}
  %sum = s32[4]{0} add(s32[4]{0} %slice, s32[4]{0} %slice)
  ROOT %dus = s32[8]{0} dynamic-update-slice(s32[8]{0} %out, s32[4]{0} %sum, s32[] %offset)
}, execution_thread="side"

%wrapped {
  %p0 = s32[8]{0} parameter(0)
  %p1 = s32[8]{0} parameter(1)
  ROOT %call = s32[8]{0} call(s32[8]{0} %p0, s32[8]{0} %p1), to_apply=%wrapped_body
}, execution_thread="side"

%cond {
  %cond_state = (s32[], s32[8]{0}) parameter(0)
  %cond_i = s32[] get-tuple-element((s32[], s32[8]{0}) %cond_state), index=0
  %trips = s32[] constant(3)
  ROOT %lt = pred[] compare(s32[] %cond_i, s32[] %trips), direction=LT
}

%body {
  %state = (s32[], s32[8]{0}) parameter(0)
  %i = s32[] get-tuple-element((s32[], s32[8]{0}) %state), index=0
  %v = s32[8]{0} get-tuple-element((s32[], s32[8]{0}) %state), index=1
  %one = s32[] constant(1)
  %next = s32[] add(s32[] %i, s32[] %one)
  %twice = s32[8]{0} add(s32[8]{0} %v, s32[8]{0} %v)
  ROOT %tuple = (s32[], s32[8]{0}) tuple(s32[] %next, s32[8]{0} %twice)
}

%yes {
  %y = s32[8]{0} parameter(0)
  ROOT %neg = s32[8]{0} negate(s32[8]{0} %y)
}

%no {
  ROOT %kept = s32[8]{0} parameter(0)
}

ENTRY %main {
  %a = s32[8]{0} parameter(0)
  %b = s32[8]{0} parameter(1)
  %flag = pred[] parameter(2)
  %start = ((s32[8]{0}, s32[8]{0}), s32[8]{0}, u32[]) async-start(s32[8]{0} %a, s32[8]{0} %b), calls=%wrapped, async_execution_thread="side"
  %update = ((s32[8]{0}, s32[8]{0}), s32[8]{0}, u32[]) async-update(((s32[8]{0}, s32[8]{0}), s32[8]{0}, u32[]) %start), calls=%wrapped
  %done = s32[8]{0} async-done(((s32[8]{0}, s32[8]{0}), s32[8]{0}, u32[]) %update), calls=%wrapped
  %zero = s32[] constant(0)
  %init = (s32[], s32[8]{0}) tuple(s32[] %zero, s32[8]{0} %done)
  %loop = (s32[], s32[8]{0}) while((s32[], s32[8]{0}) %init), condition=%cond, body=%body
  %carried = s32[8]{0} get-tuple-element((s32[], s32[8]{0}) %loop), index=1
  %branch = s32[8]{0} conditional(pred[] %flag, s32[8]{0} %carried, s32[8]{0} %a), true_computation=%yes, false_computation=%no
  ROOT %result = (s32[8]{0}, s32[8]{0}) tuple(s32[8]{0} %branch, s32[8]{0} %b)
}
)";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  std::string_view module_text = kFixedModule;
  std::string_view query_text = input;
  if (size_t at = input.find("HloModule"); at != std::string_view::npos) {
    query_text = input.substr(0, at);
    module_text = input.substr(at);
  }
  std::vector<hloscope::OrderingQuery> queries;
  while (!query_text.empty()) {
    const size_t end = query_text.find('\n');
    std::string_view line = query_text.substr(0, end);
    query_text = end == std::string_view::npos ? std::string_view() : query_text.substr(end + 1);
    if (line.empty()) continue;
    absl::StatusOr<hloscope::OrderingQuery> query = hloscope::ParseOrderingQuery(line);
    if (!query.ok()) return 0;  // hlo-opt stops at the flag: nothing is answered
    queries.push_back(*std::move(query));
  }
  auto module = hloscope::ParseModule(module_text);
  const bool valid = module.ok() && hloscope::VerifyModule(**module).ok();
  // The fixed module is this target's own: one that stopped verifying would leave every query
  // unanswered, and the fuzzer would only see the parser of queries.
  if (!valid && module_text.data() == kFixedModule.data()) {
    std::fprintf(stderr, "the fixed module does not verify: %s\n",
                 module.ok() ? std::string(hloscope::VerifyModule(**module).message()).c_str()
                             : std::string(module.status().message()).c_str());
    std::abort();
  }
  if (!valid) return 0;
  hloscope::AnalysisCache analyses(**module);
  for (const bool ssa_form : {true, false}) {
    hloscope::DataflowOptions options;
    options.ssa_form = ssa_form;
    absl::StatusOr<const hloscope::DataflowAnalysis*> flow = analyses.Dataflow(options);
    if (!flow.ok()) continue;
    absl::StatusOr<const hloscope::ExecutionOrdering*> ordering = analyses.Ordering();
    if (!ordering.ok()) return 0;
    (void)hloscope::AnswerOrderingQueries(**flow, **ordering, queries);
  }
  return 0;
}
