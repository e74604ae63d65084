#include "eval/replicas.h"

#include "absl/status/status.h"
#include "support/str_util.h"

namespace hloscope::eval {

absl::StatusOr<std::vector<std::vector<Bytes>>> Rendezvous::Exchange(
    const Instruction& instr, int64_t occurrence, int64_t replica, absl::Span<const int64_t> group,
    std::vector<Bytes> mine) {
  std::unique_lock<std::mutex> lock(mu_);
  const auto key = std::make_pair(&instr, occurrence);
  slots_[key].deposited[replica] = std::move(mine);
  cv_.notify_all();
  std::optional<int64_t> gone;
  cv_.wait(lock, [&] {
    const Slot& slot = slots_[key];
    for (int64_t r : group) {
      if (slot.deposited.contains(r)) continue;
      if (finished_[static_cast<size_t>(r)]) {
        gone = r;
        return true;
      }
      return false;
    }
    return true;
  });
  Slot& slot = slots_[key];
  std::vector<std::vector<Bytes>> out;
  if (!gone.has_value()) {
    for (int64_t r : group) out.push_back(slot.deposited.at(r));
  }
  // Every replica that deposited also departs, so the slot goes when the last one has read it.
  if (++slot.departed == static_cast<int64_t>(slot.deposited.size())) slots_.erase(key);
  if (gone.has_value()) {
    return absl::FailedPreconditionError(
        StrCat("%", instr.name(), " waits for replica ", *gone,
               ", which stopped without reaching it (the replicas took different paths)"));
  }
  return out;
}

void Rendezvous::Finished(int64_t replica) {
  std::lock_guard<std::mutex> lock(mu_);
  finished_[static_cast<size_t>(replica)] = true;
  cv_.notify_all();
}

}  // namespace hloscope::eval
