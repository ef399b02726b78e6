#include "backends/bootstrap/rank_registry.hpp"

#include "backends/bootstrap/deadline.hpp"

namespace weft::backends::bootstrap::detail {

void RankRegistry::Joined(int32_t rank) { Set(rank, State::kPresent); }
void RankRegistry::Left(int32_t rank) { Set(rank, State::kLeft); }
void RankRegistry::Failed(int32_t rank) { Set(rank, State::kFailed); }

void RankRegistry::Set(int32_t rank, State state) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    ranks_[rank] = state;
  }
  cv_.notify_all();
}

void RankRegistry::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    shutdown_ = true;
  }
  cv_.notify_all();
}

bool RankRegistry::AllGoneLocked(int32_t expected) const {
  if (static_cast<int64_t>(ranks_.size()) < expected) return false;
  for (const auto& [rank, state] : ranks_) {
    if (state == State::kPresent) return false;
  }
  return true;
}

bool RankRegistry::WaitAllGone(int32_t expected, Clock::time_point deadline) {
  std::unique_lock<std::mutex> lock(mu_);
  WaitUntil(cv_, lock, deadline, [&] { return shutdown_ || AllGoneLocked(expected); });
  return !shutdown_ && AllGoneLocked(expected);
}

std::vector<int32_t> RankRegistry::FailedRanks() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<int32_t> failed;
  for (const auto& [rank, state] : ranks_) {
    if (state == State::kFailed) failed.push_back(rank);
  }
  return failed;
}

}  // namespace weft::backends::bootstrap::detail
