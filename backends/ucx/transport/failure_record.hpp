// How this context failed, if it did: the abort (first one wins; its status and reason end
// every later op) and the first failure, abort or peer failure, that async_error reports. A
// component of State (state.hpp): every field is under State's lock except the flag abort()
// raises before it takes the lock (so that a waiter holding it steps aside, State::LetAbortIn).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include <weft/backend_plugin.h>

namespace weft::backends::ucx_plugin {

class FailureRecord {
 public:
  bool aborted() const { return aborted_; }
  // WEFT_OK, or the abort's status with *message set.
  weft_status_t Aborted(std::string* message) const {
    if (!aborted_) return WEFT_OK;
    *message = abort_message_;
    return abort_status_;
  }
  weft_status_t abort_status() const { return abort_status_; }
  // Neither aborted nor failed: the worker may still be drained at teardown.
  bool healthy() const { return !aborted_ && first_failure_ == WEFT_OK; }

  // abort(), before it takes the lock; any thread.
  void RequestAbort() { abort_requested_.store(true, std::memory_order_release); }
  // An abort() waits for the lock.
  bool AbortWaiting() const {
    return abort_requested_.load(std::memory_order_acquire) && !aborted_;
  }
  // Records the abort; false when an earlier one won. A status of WEFT_OK becomes ABORTED.
  bool StartAbort(weft_status_t status, int32_t failed_rank, const std::string& reason);

  // The first failure only: later ones are consequences.
  void Record(weft_status_t status, int32_t failed_rank);
  weft_status_t First(int32_t* failed_rank) const {
    if (failed_rank != nullptr) *failed_rank = first_failed_rank_;
    return first_failure_;
  }

 private:
  bool aborted_ = false;
  std::atomic<bool> abort_requested_{false};  // set by abort() before it takes the lock
  weft_status_t abort_status_ = WEFT_OK;
  std::string abort_message_;
  weft_status_t first_failure_ = WEFT_OK;
  int32_t first_failed_rank_ = -1;
};

}  // namespace weft::backends::ucx_plugin
