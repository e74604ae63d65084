#include "eval/host_io.h"

#include "eval/send_recv_pairs.h"
#include "hlo/attribute_values.h"
#include "hlo/computation.h"
#include "support/str_util.h"

namespace hloscope::eval {
namespace {

bool IsHostTransfer(const Instruction& instr) {
  return RawAttribute(instr, "is_host_transfer") == std::optional<std::string_view>("true");
}

int64_t ChannelOf(const Instruction& instr) {
  return IntAttribute(instr, "channel_id").value_or(-1);
}

// A send or recv whose peer is another replica of this module (eval/send_recv_pairs.h); an
// attribute that does not parse counts as one, so the run reports it rather than guessing.
bool NamesReplicas(const Instruction& instr) {
  absl::StatusOr<std::optional<std::vector<SourceTargetPair>>> pairs = SendRecvPairs(instr);
  return !pairs.ok() || pairs->has_value();
}

std::string Heading(const OutsideWrite& w, bool with_replica) {
  return StrCat(with_replica ? StrCat("replica ", w.replica, ": ") : std::string(), w.kind, " %",
                w.instruction, " #", w.occurrence);
}

}  // namespace

HostChannels::HostChannels(const Module& module) {
  for (const Computation* c : module.computations()) {
    for (const Instruction* instr : c->instructions()) {
      if (instr->opcode() == Opcode::kSend) send_channels_.insert(ChannelOf(*instr));
      if (instr->opcode() == Opcode::kRecv) recv_channels_.insert(ChannelOf(*instr));
    }
  }
}

bool HostChannels::ReadsOutside(const Instruction& recv) const {
  if (IsHostTransfer(recv)) return true;
  return !NamesReplicas(recv) && !send_channels_.contains(ChannelOf(recv));
}

bool HostChannels::WritesOutside(const Instruction& send) const {
  if (IsHostTransfer(send)) return true;
  return !NamesReplicas(send) && !recv_channels_.contains(ChannelOf(send));
}

Literal OutsideReads::Next(const Shape& shape) {
  // Salted so that the first read with seed S differs from entry parameter 0's argument of
  // seed S (RandomArguments mixes the seed with the parameter number).
  const uint64_t seed = MixBits(seed_ ^ MixBits(0x6f75747369646500ull + reads_++));
  return RandomLiteral(shape, seed);
}

std::string FormatOutsideWrite(const OutsideWrite& write, bool print_all, bool with_replica) {
  std::string out = Heading(write, with_replica) + ": ";
  if (!write.data.is_tuple()) return out + FormatLiteral(write.data, print_all);
  out += write.data.shape().ToString(false) + "\n";
  std::string elements = FormatLiteral(write.data, print_all);
  size_t start = 0;
  while (start < elements.size()) {
    size_t end = elements.find('\n', start);
    if (end == std::string::npos) end = elements.size();
    out += "  " + elements.substr(start, end - start) + "\n";
    start = end + 1;
  }
  return out;
}

std::optional<std::string> FirstOutsideWriteDifference(absl::Span<const OutsideWrite> expected,
                                                       absl::Span<const OutsideWrite> actual,
                                                       bool with_replica) {
  for (size_t i = 0; i < expected.size() && i < actual.size(); ++i) {
    const OutsideWrite& a = expected[i];
    const OutsideWrite& b = actual[i];
    const std::string where = StrCat("outside write ", i, " (", Heading(a, with_replica), ")");
    if (a.replica != b.replica || a.kind != b.kind || a.instruction != b.instruction ||
        a.occurrence != b.occurrence) {
      return StrCat(where, " vs ", Heading(b, with_replica));
    }
    if (std::optional<std::string> diff = FirstDifference(a.data, b.data)) {
      return StrCat(where, ": ", *diff);
    }
  }
  if (expected.size() != actual.size()) {
    return StrCat(expected.size(), " outside writes vs ", actual.size());
  }
  return std::nullopt;
}

}  // namespace hloscope::eval
