#include "api/src/posted_requests.hpp"

#include <algorithm>
#include <chrono>
#include <thread>

#include "api/src/context.hpp"
#include "common/clock.hpp"

namespace weft::api {

Status PostedRequest::Wait(int64_t timeout_ms) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point until = DeadlineFromTimeoutMs(timeout_ms);
  while (true) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (ctx_ == nullptr) return outcome_;
      if (!orphaning_.load()) {
        if (Status s = ctx_->sticky_error(); !s.ok()) return s;
        // In slices, letting go of the lock in between: a destroy that orphans this request
        // waits for the slice, not for the operation's deadline.
        int64_t slice = kWaitSliceMs;
        if (until != kNoDeadline) slice = std::min(RemainingMs(until), slice);
        const Status s = req_->Wait(*comm_, slice, args_);
        if (s.code() != Code::kInProgress) return ctx_->Explain(s);  // the store's verdict
        if (until != kNoDeadline && Clock::now() >= until) return s;
        continue;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));  // Orphan is taking the lock
  }
}

void PostedRequest::Orphan() {
  orphaning_ = true;  // a waiter stops taking the lock back between its slices
  std::lock_guard<std::mutex> lock(mu_);
  if (ctx_ == nullptr) return;
  // A request that ended keeps its outcome; one still pending is cancelled.
  const Result<bool> done = req_->Test(*comm_);
  if (done.ok() && *done) {
    outcome_ = req_->Wait(*comm_, 0, args_);
  } else {
    req_->Cancel(*comm_);
    outcome_ =
        Status(Code::kAborted, "the context of this work was destroyed before the work completed");
  }
  req_.reset();
  comm_ = nullptr;
  ctx_ = nullptr;
}

bool PostedRequest::Ended() {
  std::lock_guard<std::mutex> lock(mu_);
  if (ctx_ == nullptr) return true;
  const Result<bool> done = req_->Test(*comm_);
  return !done.ok() || *done;
}

void PostedRequests::Add(std::shared_ptr<PostedRequest> p) {
  std::lock_guard<std::mutex> lock(mu_);
  if (items_.size() >= prune_at_) {
    // use_count 1: only this list holds it, and nobody can take it from the list meanwhile.
    std::erase_if(items_, [](const std::shared_ptr<PostedRequest>& q) {
      return q.use_count() == 1 && q->Ended();
    });
    prune_at_ = std::max<size_t>(64, 2 * items_.size());
  }
  items_.push_back(std::move(p));
}

void PostedRequests::OrphanAll() {
  std::vector<std::shared_ptr<PostedRequest>> held;
  {
    std::lock_guard<std::mutex> lock(mu_);
    held.swap(items_);
  }
  for (const auto& p : held) p->Orphan();
}

}  // namespace weft::api
