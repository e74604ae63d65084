#include "eval/replicas.h"

#include "absl/status/status.h"
#include "support/str_util.h"

namespace hloscope::eval {

absl::Status Rendezvous::Wait(std::unique_lock<std::mutex>& lock, int64_t replica, std::string what,
                              std::function<bool()> ready) {
  if (ready()) return absl::OkStatus();
  waiting_[replica] = Waiter{std::move(what), std::move(ready)};
  while (true) {
    // A deadlock found by another waiter ends this wait too, even when a replica's failure
    // since then (that waiter's) would make it look ready.
    if (deadlock_.empty() && waiting_.at(replica).ready()) break;
    if (deadlock_.empty()) {
      // Deadlocked when every replica has stopped or waits for something that cannot come.
      bool stuck = true;
      for (size_t r = 0; r < finished_.size() && stuck; ++r) {
        if (finished_[r]) continue;
        auto it = waiting_.find(static_cast<int64_t>(r));
        stuck = it != waiting_.end() && !it->second.ready();
      }
      if (stuck) {
        std::string text = "deadlock: every replica waits for another:";
        for (const auto& [r, w] : waiting_) text += StrCat(" replica ", r, " at ", w.what, ";");
        text.pop_back();
        deadlock_ = std::move(text);
        cv_.notify_all();
      }
    }
    if (!deadlock_.empty()) {
      waiting_.erase(replica);
      return absl::FailedPreconditionError(deadlock_);
    }
    cv_.wait(lock);
  }
  waiting_.erase(replica);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::vector<Bytes>>> Rendezvous::Exchange(
    const Instruction& instr, int64_t occurrence, int64_t replica, absl::Span<const int64_t> group,
    std::vector<Bytes> mine) {
  std::unique_lock<std::mutex> lock(mu_);
  const auto key = std::make_pair(&instr, occurrence);
  slots_[key].deposited[replica] = std::move(mine);
  cv_.notify_all();
  std::optional<int64_t> gone;
  absl::Status waited = Wait(lock, replica, StrCat("%", instr.name()), [&] {
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
  if (waited.ok() && !gone.has_value()) {
    for (int64_t r : group) out.push_back(slot.deposited.at(r));
  }
  // Every replica that deposited also departs, so the slot goes when the last one has read it.
  if (++slot.departed == static_cast<int64_t>(slot.deposited.size())) slots_.erase(key);
  if (!waited.ok()) return waited;
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

void Rendezvous::Send(int64_t source, int64_t target, int64_t occurrence, const Shape* shape,
                      Bytes data) {
  std::lock_guard<std::mutex> lock(mu_);
  sent_[{source, target, occurrence}] = {shape, std::move(data)};
  cv_.notify_all();
}

absl::StatusOr<std::pair<const Shape*, Bytes>> Rendezvous::Receive(const Instruction& recv_done,
                                                                   int64_t source, int64_t target,
                                                                   int64_t occurrence) {
  std::unique_lock<std::mutex> lock(mu_);
  const auto key = std::make_tuple(source, target, occurrence);
  absl::Status waited =
      Wait(lock, target,
           StrCat("%", recv_done.name(), " (receiving send ", occurrence + 1, " from replica ",
                  source, ")"),
           [&] { return sent_.contains(key) || finished_[static_cast<size_t>(source)]; });
  if (!waited.ok()) return waited;
  auto it = sent_.find(key);
  if (it == sent_.end()) {
    return absl::FailedPreconditionError(
        StrCat("%", recv_done.name(), " waits for send ", occurrence + 1, " from replica ", source,
               " to replica ", target, ", which stopped without sending it"));
  }
  std::pair<const Shape*, Bytes> data = std::move(it->second);
  sent_.erase(it);
  return data;
}

}  // namespace hloscope::eval
