// Which ranks have registered with the store and whether each is still there, left cleanly
// or failed. Written by the server's io thread, read by the host thread in WaitAllLeft, so
// it is the one piece of server state behind a mutex.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

#include "backends/bootstrap/store_types.hpp"

namespace weft::backends::bootstrap::detail {

class RankRegistry {
 public:
  void Joined(int32_t rank);
  void Left(int32_t rank);
  void Failed(int32_t rank);
  // Wakes every WaitAllGone; they return false.
  void Shutdown();

  // Until at least `expected` ranks have registered and none of them is still present.
  // True if that happened before the deadline and before Shutdown().
  bool WaitAllGone(int32_t expected, Clock::time_point deadline);
  std::vector<int32_t> FailedRanks() const;

 private:
  enum class State { kPresent, kLeft, kFailed };
  void Set(int32_t rank, State state);
  bool AllGoneLocked(int32_t expected) const;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<int32_t, State> ranks_;
  bool shutdown_ = false;
};

}  // namespace weft::backends::bootstrap::detail
