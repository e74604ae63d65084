// Two properties of copy-insertion from issue 30, checked by the static checks rather than by
// buffer mode (send_recv_replicas_test.cc judges a pipelined send/recv by value on replicas):
//  - its output always passes our buffer-safety check (the one copy-elision runs first,
//    analysis/buffer_consistency.h);
//  - it never inserts a copy of a buffer an asynchronous transfer still owns: no copy reads a
//    value defined by send, recv or copy-start except through the transfer's *-done.
// Each property has a broken variant it must catch: copy-insertion copying in-flight loop state
// (CopyInsertionOptions::copy_in_flight_buffers, hloscope before issue 30) and one that skips
// the transition copy of data read after the next transfer starts.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "analysis/dataflow.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "hlo/parser.h"
#include "hlo/verifier.h"
#include "passes/copy_elision.h"
#include "passes/copy_insertion.h"
#include "passes/in_flight_buffers.h"
#include "support/status_text.h"
#include "tests/differential/random_module.h"

namespace hloscope::differential {
namespace {

namespace fs = std::filesystem;

bool IsDone(const Instruction& i) {
  return i.opcode() == Opcode::kRecvDone || i.opcode() == Opcode::kSendDone ||
         i.opcode() == Opcode::kCopyDone;
}

// The first copy that reads an in-flight buffer, named; nullopt when there is none. A copy reads
// one when its operand may hold a value defined by send, recv or copy-start (loop merges seen
// as unions) and the operand is not that transfer's finished data (a *-done, or an element of
// one).
std::optional<std::string> InFlightCopy(const Module& module) {
  DataflowOptions union_form;
  union_form.ssa_form = false;
  absl::StatusOr<std::unique_ptr<DataflowAnalysis>> flow =
      DataflowAnalysis::Run(module, union_form);
  if (!flow.ok()) return "dataflow failed: " + StatusText(flow.status());
  for (const Computation* c : module.computations()) {
    for (const Instruction* copy : c->instructions()) {
      if (copy->opcode() != Opcode::kCopy) continue;
      const Instruction* source = copy->operand(0);
      // The source, or a tuple it is taken from, holds a transfer's value: a send's data
      // element belongs to the transfer as the rest of the send's tuple does.
      bool in_flight = false;
      const Instruction* at = source;
      for (;; at = at->operand(0)) {
        if (IsDone(*at)) break;
        in_flight |= HoldsInFlightBuffer(**flow, (*flow)->ValuesAt(*at, {}));
        if (at->opcode() != Opcode::kGetTupleElement) break;
      }
      if (!in_flight || IsDone(*at)) continue;
      return fmt::format("%{} in {} copies %{}, which holds a buffer still in flight", copy->name(),
                         c->name(), source->name());
    }
  }
  return std::nullopt;
}

struct Outcome {
  std::string error;                     // parse, verify or pass failure
  std::optional<std::string> in_flight;  // InFlightCopy after copy-insertion
  std::optional<std::string> not_safe;   // the buffer-safety check's first conflict
};

// copy-insertion with `options`, then the buffer-safety check copy-elision runs before it
// removes anything (a module it calls unsafe, it leaves alone and says why).
Outcome InsertCopies(std::string_view text, const CopyInsertionOptions& options = {}) {
  Outcome out;
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text, {});
  if (!m.ok()) {
    out.error = "parse: " + StatusText(m.status());
    return out;
  }
  if (absl::Status v = VerifyModule(**m); !v.ok()) {
    out.error = "verify: " + StatusText(v);
    return out;
  }
  CopyInsertion insertion(options);
  if (absl::StatusOr<bool> r = insertion.Run(**m); !r.ok()) {
    out.error = "copy-insertion: " + StatusText(r.status());
    return out;
  }
  if (absl::Status v = VerifyModule(**m); !v.ok()) {
    out.error = "verify after copy-insertion: " + StatusText(v);
    return out;
  }
  out.in_flight = InFlightCopy(**m);
  CopyElision elision;
  if (absl::StatusOr<bool> r = elision.Run(**m); !r.ok()) {
    out.error = "copy-elision: " + StatusText(r.status());
    return out;
  }
  if (!elision.report().buffer_safe) out.not_safe = elision.report().not_buffer_safe;
  return out;
}

// A receive started in one iteration and finished in the next (partially pipelined).
constexpr char kPipelinedRecv[] = R"(HloModule pipelined_recv
body {
  state = (s32[], (f32[4], u32[], token[])) parameter(0)
  i = s32[] get-tuple-element(state), index=0
  one = s32[] constant(1)
  next = s32[] add(i, one)
  pending = (f32[4], u32[], token[]) get-tuple-element(state), index=1
  finished = (f32[4], token[]) recv-done(pending), channel_id=7
  tok = token[] after-all()
  started = (f32[4], u32[], token[]) recv(tok), channel_id=7
  ROOT out = (s32[], (f32[4], u32[], token[])) tuple(next, started)
}
cond {
  state = (s32[], (f32[4], u32[], token[])) parameter(0)
  i = s32[] get-tuple-element(state), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY main {
  zero = s32[] constant(0)
  tok = token[] after-all()
  first = (f32[4], u32[], token[]) recv(tok), channel_id=7
  init = (s32[], (f32[4], u32[], token[])) tuple(zero, first)
  loop = (s32[], (f32[4], u32[], token[])) while(init), condition=cond, body=body
  last = (f32[4], u32[], token[]) get-tuple-element(loop), index=1
  done = (f32[4], token[]) recv-done(last), channel_id=7
  ROOT data = f32[4] get-tuple-element(done), index=0
})";

// The same receive, with the data of the finished one carried in the loop state as well: it
// is read (at the end of the body) after the next receive took its buffer.
constexpr char kPipelinedRecvDataCarried[] = R"(HloModule pipelined_recv_carried
body {
  state = ((f32[4], u32[], token[]), f32[4]) parameter(0)
  pending = (f32[4], u32[], token[]) get-tuple-element(state), index=0
  finished = (f32[4], token[]) recv-done(pending), channel_id=7
  got = f32[4] get-tuple-element(finished), index=0
  tok = token[] after-all()
  started = (f32[4], u32[], token[]) recv(tok), channel_id=7
  ROOT out = ((f32[4], u32[], token[]), f32[4]) tuple(started, got)
}
cond {
  state = ((f32[4], u32[], token[]), f32[4]) parameter(0)
  ROOT t = pred[] constant(true)
}
ENTRY main {
  p = f32[4] parameter(0)
  tok = token[] after-all()
  first = (f32[4], u32[], token[]) recv(tok), channel_id=7
  init = ((f32[4], u32[], token[]), f32[4]) tuple(first, p)
  loop = ((f32[4], u32[], token[]), f32[4]) while(init), condition=cond, body=body
  last = (f32[4], u32[], token[]) get-tuple-element(loop), index=0
  done = (f32[4], token[]) recv-done(last), channel_id=7
  ROOT kept = f32[4] get-tuple-element(loop), index=1
})";

// A copy-start pipelined the same way; copy-done's result is carried to the next iteration.
constexpr char kPipelinedCopyStart[] = R"(HloModule pipelined_copy_start
body {
  state = (s32[], (f32[4], f32[4], u32[]), f32[4]) parameter(0)
  i = s32[] get-tuple-element(state), index=0
  one = s32[] constant(1)
  next = s32[] add(i, one)
  pending = (f32[4], f32[4], u32[]) get-tuple-element(state), index=1
  landed = f32[4] copy-done(pending)
  src = f32[4] get-tuple-element(state), index=2
  scaled = f32[4] add(src, src)
  started = (f32[4], f32[4], u32[]) copy-start(scaled)
  ROOT out = (s32[], (f32[4], f32[4], u32[]), f32[4]) tuple(next, started, landed)
}
cond {
  state = (s32[], (f32[4], f32[4], u32[]), f32[4]) parameter(0)
  i = s32[] get-tuple-element(state), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY main {
  p = f32[4] parameter(0)
  zero = s32[] constant(0)
  twice = f32[4] add(p, p)
  first = (f32[4], f32[4], u32[]) copy-start(twice)
  init = (s32[], (f32[4], f32[4], u32[]), f32[4]) tuple(zero, first, p)
  loop = (s32[], (f32[4], f32[4], u32[]), f32[4]) while(init), condition=cond, body=body
  last = (f32[4], f32[4], u32[]) get-tuple-element(loop), index=1
  ROOT result = f32[4] copy-done(last)
})";

// XLA's PartiallyPipelinedAsyncSendMultipleUses (send-done corrected to token[]): the sent data
// is carried in the loop state too. The send reads a copy of it, taken in the body after the
// previous send-done.
constexpr char kPipelinedSendDataCarried[] = R"(HloModule pipelined_send_carried
body {
  state = ((f32[16], u32[], token[]), f32[16]) parameter(0)
  pending = (f32[16], u32[], token[]) get-tuple-element(state), index=0
  data = f32[16] get-tuple-element(state), index=1
  sent = token[] send-done(pending), channel_id=1
  tok = token[] after-all()
  started = (f32[16], u32[], token[]) send(data, tok), channel_id=1
  ROOT out = ((f32[16], u32[], token[]), f32[16]) tuple(started, data)
}
cond {
  state = ((f32[16], u32[], token[]), f32[16]) parameter(0)
  ROOT t = pred[] constant(true)
}
ENTRY main {
  p = f32[16] parameter(0)
  twice = f32[16] add(p, p)
  tok = token[] after-all()
  first = (f32[16], u32[], token[]) send(twice, tok), channel_id=1
  init = ((f32[16], u32[], token[]), f32[16]) tuple(first, twice)
  loop = ((f32[16], u32[], token[]), f32[16]) while(init), condition=cond, body=body
  last = (f32[16], u32[], token[]) get-tuple-element(loop), index=0
  done = token[] send-done(last), channel_id=1
  ROOT kept = f32[16] get-tuple-element(loop), index=1
})";

const char* const kAsyncModules[] = {kPipelinedRecv, kPipelinedRecvDataCarried, kPipelinedCopyStart,
                                     kPipelinedSendDataCarried};

TEST(CopyInsertionAsyncTest, NoCopyOfAnInFlightBufferAndTheResultIsBufferSafe) {
  for (const char* text : kAsyncModules) {
    Outcome o = InsertCopies(text);
    ASSERT_EQ(o.error, "") << text;
    EXPECT_EQ(o.in_flight, std::nullopt) << text;
    EXPECT_EQ(o.not_safe, std::nullopt) << text;
  }
}

TEST(CopyInsertionAsyncTest, CopyingInFlightLoopStateIsCaught) {
  // The broken variant: in-flight loop state copied like any other element. The body's
  // parameter copy reads the pending receive buffer before its recv-done.
  CopyInsertionOptions broken;
  broken.copy_in_flight_buffers = true;
  for (const char* text : kAsyncModules) {
    Outcome o = InsertCopies(text, broken);
    ASSERT_EQ(o.error, "") << text;
    ASSERT_NE(o.in_flight, std::nullopt) << text;
    EXPECT_NE(o.in_flight->find("holds a buffer still in flight"), std::string::npos);
  }
}

TEST(CopyInsertionAsyncTest, SkippingTheTransitionCopyIsCaughtByTheSafetyCheck) {
  CopyInsertionOptions broken;
  broken.skip_rules = {CopyRule::kInFlightTransition};
  for (const char* text : {kPipelinedRecvDataCarried, kPipelinedCopyStart}) {
    Outcome o = InsertCopies(text, broken);
    ASSERT_EQ(o.error, "") << text;
    EXPECT_NE(o.not_safe, std::nullopt) << text;
  }
  // Where no finished data is read late, the rule has nothing to do.
  EXPECT_EQ(InsertCopies(kPipelinedRecv, broken).not_safe, std::nullopt);
}

const Instruction* Named(const Computation& c, std::string_view name) {
  for (const Instruction* i : c.instructions()) {
    if (i->name() == name) return i;
  }
  return nullptr;
}

// The send's operand is copied (XLA's transition into a transfer), in the body after the
// previous send-done and in main before the loop; loop state {0} (the send's tuple, its data
// element included) gets no while copies. The broken variant that copies in-flight loop state is
// caught on this module too (CopyingInFlightLoopStateIsCaught: a copy of the data element).
TEST(CopyInsertionAsyncTest, SendReadsACopyOfItsOperand) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(kPipelinedSendDataCarried, {});
  ASSERT_TRUE(m.ok());
  CopyInsertion insertion;
  ASSERT_TRUE(insertion.Run(**m).ok());
  const Instruction* started = Named(*(*m)->FindComputation("body"), "started");
  ASSERT_NE(started, nullptr);
  const Instruction* copy = started->operand(0);
  ASSERT_EQ(copy->opcode(), Opcode::kCopy);
  EXPECT_EQ(copy->operand(0)->name(), "data");
  ASSERT_EQ(copy->control_predecessors().size(), 1u);
  EXPECT_EQ(copy->control_predecessors()[0]->name(), "sent");
  const Instruction* first = Named(*(*m)->entry(), "first");
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->operand(0)->opcode(), Opcode::kCopy);
  EXPECT_TRUE(first->operand(0)->control_predecessors().empty());
  // No while copies of loop state {0}: the send's whole tuple is in flight.
  for (const InsertedCopy& c : insertion.report().copies) {
    EXPECT_EQ(c.detail.find("loop state {0"), std::string::npos) << c.detail;
    EXPECT_EQ(c.detail.find("at {0"), std::string::npos) << c.detail;
  }
}

TEST(CopyInsertionAsyncTest, DoneIsOrderedBeforeTheNextStart) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(kPipelinedRecv, {});
  ASSERT_TRUE(m.ok());
  CopyInsertion insertion;
  ASSERT_TRUE(insertion.Run(**m).ok());
  ASSERT_EQ(insertion.report().control_edges.size(), 1u);
  const AddedControlEdge& e = insertion.report().control_edges[0];
  EXPECT_EQ(e.computation, "body");
  EXPECT_EQ(e.predecessor, "finished");
  EXPECT_EQ(e.successor, "started");
  // The counter's copies only: none at loop state {1,...}, the pending receive.
  EXPECT_EQ(insertion.report().copies.size(), 3u);
  for (const InsertedCopy& c : insertion.report().copies) {
    EXPECT_EQ(c.detail.find("{1"), std::string::npos) << c.detail;
  }
}

// Copy-insertion's output passes the safety check on random modules and on XLA's own
// copy-insertion test modules from the bulk corpus.
TEST(CopyInsertionAsyncTest, OutputIsBufferSafeOnRandomModules) {
  int checked = 0;
  for (uint64_t seed = 0; seed < 150; ++seed) {
    Outcome o = InsertCopies(RandomModuleText(seed));
    if (!o.error.empty()) continue;
    ++checked;
    EXPECT_EQ(o.not_safe, std::nullopt) << "random module seed " << seed;
    EXPECT_EQ(o.in_flight, std::nullopt) << "random module seed " << seed;
  }
  EXPECT_GE(checked, 120);
}

#ifdef HLOSCOPE_BULK_DIR
// Known exceptions, each a missing feature stated in docs/xla_buffer_semantics_tests.md (none
// today; the check below fails when a listed module becomes safe).
const absl::flat_hash_set<std::string> kNotYetSafe = {};

TEST(CopyInsertionAsyncTest, OutputIsBufferSafeOnXlaCopyInsertionTests) {
  const fs::path dir = fs::path(HLOSCOPE_BULK_DIR) / "cc_hlo";
  if (!fs::is_directory(dir)) GTEST_SKIP() << "no bulk corpus at " << dir;
  int checked = 0, exceptions = 0, broken_caught = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.find("copy_insertion_test__") == std::string::npos) continue;
    std::string text;
    {
      FILE* f = std::fopen(e.path().c_str(), "rb");
      ASSERT_NE(f, nullptr) << e.path();
      char buf[4096];
      size_t n;
      while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
      std::fclose(f);
    }
    Outcome o = InsertCopies(text);
    if (!o.error.empty()) continue;  // templates and modules our verifier rejects
    ++checked;
    EXPECT_EQ(o.in_flight, std::nullopt) << name;
    if (kNotYetSafe.contains(name)) {
      ++exceptions;
      EXPECT_NE(o.not_safe, std::nullopt) << name << " is safe now: take it off kNotYetSafe";
      continue;
    }
    EXPECT_EQ(o.not_safe, std::nullopt) << name;
    if (name.find("NonCopyableChainPipelinedSeparatedParts") != std::string::npos) {
      // The broken variant (non-copyable buffers treated as any other) leaves the previous
      // chain's Unpin reading the buffer the next chain took over.
      CopyInsertionOptions broken;
      broken.copy_in_flight_buffers = true;
      Outcome b = InsertCopies(text, broken);
      ASSERT_EQ(b.error, "");
      EXPECT_NE(b.not_safe, std::nullopt) << name;
      ++broken_caught;
    }
  }
  EXPECT_EQ(broken_caught, 1);
  EXPECT_GE(checked, 50);
  EXPECT_EQ(exceptions, static_cast<int>(kNotYetSafe.size()));
}
#endif

}  // namespace
}  // namespace hloscope::differential
