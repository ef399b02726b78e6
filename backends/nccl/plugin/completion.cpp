#include "backends/nccl/plugin/completion.hpp"

#include <chrono>
#include <thread>

namespace weft::backends::nccl_plugin {

Completion::~Completion() { comm_.ReleaseEvent(event_); }

weft_status_t Completion::Test(bool* done) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!finished_) {
    const CudaApi& cuda = comm_.state().cuda();
    const cudaError_t e = cuda.EventQuery(event_);
    if (e == cuda::kErrorNotReady) {
      *done = false;
      return WEFT_OK;
    }
    finished_ = true;
    if (e != cuda::kSuccess) {
      cuda.GetLastError();
      status_ = WEFT_ERR_BACKEND;
      message_ = cuda.Describe("cudaEventQuery", e);
    }
    // An abort lets the stream pass the op with whatever its buffers hold: after a failure
    // the host work (the outputs' delivery) must not touch the caller's buffers.
    if (status_ == WEFT_OK && !then_.empty()) {
      if (weft_status_t f = comm_.state().Failure(); f != WEFT_OK) {
        status_ = f;
        message_ = "the context failed before the operation's results were delivered";
      }
    }
    for (auto& f : then_) {
      if (status_ != WEFT_OK) break;
      status_ = f();  // records its own message
      if (status_ != WEFT_OK) message_ = "host work after the operation failed";
    }
    then_.clear();
    leases_.clear();  // the scratch goes back to the pool once the stream passed it
  }
  *done = true;
  if (status_ != WEFT_OK) return comm_.state().Fail(status_, message_);
  return WEFT_OK;
}

void Request::SetOutcome(weft_status_t s, std::string message) {
  outcome_ = s;
  outcome_message_ = std::move(message);
}

weft_status_t Request::Look(bool* done) {
  State& s = comm_.state();
  *done = true;
  if (weft_status_t f = s.Failure(); f != WEFT_OK) return f;
  if (cancelled_) return s.Fail(WEFT_ERR_ABORTED, "the request was cancelled");
  if (queued_.load(std::memory_order_acquire)) {
    // Still in the batch: this look is what issues it (p2p.hpp). A message to oneself stays
    // queued until its other half is posted.
    if (weft_status_t st = comm_.batch().Flush(comm_); st != WEFT_OK) return st;
    if (queued_.load(std::memory_order_acquire)) {
      *done = false;
      return WEFT_OK;
    }
  }
  if (completion_ && !enqueued_is_done_) {
    bool passed = false;
    if (weft_status_t st = completion_->Test(&passed); st != WEFT_OK) return st;
    *done = passed;
    if (!passed) return WEFT_OK;
  }
  if (outcome_ != WEFT_OK) return s.Fail(outcome_, outcome_message_);
  return WEFT_OK;
}

weft_status_t Request::Test(int32_t* done) {
  bool d = false;
  const weft_status_t s = Look(&d);
  *done = d ? 1 : 0;
  return d ? WEFT_OK : s;
}

weft_status_t Request::Wait(int64_t timeout_ms) {
  const plugin_kit::Deadline mine = plugin_kit::Deadline::FromTimeoutMs(timeout_ms);
  auto nap = std::chrono::microseconds(0);
  for (;;) {
    bool done = false;
    const weft_status_t s = Look(&done);
    if (done) return s;
    State& st = comm_.state();
    if (weft_status_t f = st.Poll(); f != WEFT_OK) return f;
    if (deadline_.passed()) {
      st.AbortAll(WEFT_ERR_TIMEOUT, -1,
                  "an operation on a group of " + std::to_string(comm_.size()) +
                      " passed its deadline; the context's communicators were aborted");
      return st.Failure();
    }
    if (mine.passed()) return WEFT_IN_PROGRESS;
    // A GPU finishes small operations in microseconds: yield first, then back off to a
    // millisecond so that oversubscribed ranks do not spin.
    if (nap.count() == 0) {
      std::this_thread::yield();
      nap = std::chrono::microseconds(20);
    } else {
      std::this_thread::sleep_for(nap);
      nap = std::min<std::chrono::microseconds>(nap * 2, std::chrono::milliseconds(1));
    }
  }
}

weft_status_t Request::Cancel() {
  bool done = false;
  Look(&done);
  if (!done) cancelled_ = true;
  return WEFT_OK;
}

}  // namespace weft::backends::nccl_plugin
