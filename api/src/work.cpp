#include "api/src/work.hpp"

#include "common/clock.hpp"

namespace weft::api {

void WorkState::Complete(Status s) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    status_ = std::move(s);
    done_ = true;
  }
  cv_.notify_all();
}

void WorkState::Delegate(std::function<Status(int64_t)> wait) { delegate_ = std::move(wait); }

bool WorkState::done() const {
  if (delegate_) return delegate_(0).code() != Code::kInProgress;
  std::lock_guard<std::mutex> lock(mu_);
  return done_;
}

Status WorkState::Wait(int64_t timeout_ms) const {
  if (delegate_) return delegate_(timeout_ms);
  std::unique_lock<std::mutex> lock(mu_);
  const auto until = DeadlineFromTimeoutMs(timeout_ms);
  if (until == kNoDeadline) {
    cv_.wait(lock, [&] { return done_; });
  } else if (!cv_.wait_until(lock, until, [&] { return done_; })) {
    return Status(Code::kInProgress, "");
  }
  return status_;
}

Status PublishWork(std::shared_ptr<WorkState> state, weft_work_t** work) {
  return PublishTo(std::make_unique<WorkObject>(WorkObject{std::move(state)}), work);
}

Status PublishDoneWork(weft_work_t** work) {
  auto state = std::make_shared<WorkState>();
  state->Complete(Status::Ok());
  return PublishWork(std::move(state), work);
}

}  // namespace weft::api
