#include "backends/gloo/request.hpp"

#include <algorithm>

#include <gloo/common/error.h>

#include "backends/gloo/gloo_comm.hpp"
#include "common/clock.hpp"

namespace weft::backends::gloo_plugin {
void P2pOp::Wait(GuardedBuffer& buffer, bool recv) const {
  // Gloo's timeout is fatal for the context: right at the op's deadline, as intended.
  const auto timeout = GlooTimeout(deadline_);
  const bool done = recv ? buffer.waitRecv(nullptr, timeout) : buffer.waitSend(nullptr, timeout);
  if (!done) throw ::gloo::IoException("wait interrupted");
}

void P2pOp::Await() noexcept {
  std::exception_ptr error;
  Failure own;
  try {
    own = Run();
  } catch (...) {
    error = std::current_exception();
  }
  Release();
  {
    std::lock_guard<std::mutex> lock(mu_);
    finished_ = true;
    error_ = error;
    own_ = std::move(own);
  }
  cv_.notify_all();
}

bool P2pOp::WaitUntil(Clock::time_point until, std::exception_ptr* error, Failure* own) {
  std::unique_lock<std::mutex> lock(mu_);
  const auto finished = [this] { return finished_; };
  if (until == kNoDeadline) {
    cv_.wait(lock, finished);
  } else if (!cv_.wait_until(lock, until, finished)) {
    return false;
  }
  *error = error_;
  *own = own_;
  return true;
}

bool GlooP2pRequest::Settle(Clock::time_point until) {
  if (finished()) return true;
  std::exception_ptr error;
  Failure own;
  if (!p2p_->WaitUntil(until, &error, &own)) return false;
  if (error) {
    // Failing here, on the caller's thread, poisons the communicator and records the failure.
    Finish(comm_->FailWith(op_, ClassifyException(error)));
  } else if (own.status != WEFT_OK) {
    Finish({own.status, op_ + ": " + own.message});
  } else {
    Finish({});
  }
  return true;
}

void GlooP2pRequest::Cancel() {
  if (Test()) return;
  comm_->Poison(WEFT_ERR_ABORTED,
                op_ +
                    ": cancelled while pending; Gloo cannot withdraw a posted operation, so "
                    "the communicator's connections were closed");
  Settle(kNoDeadline);  // prompt: the poison interrupted the wait
}

LoopbackRequest::LoopbackRequest(std::shared_ptr<Comm> comm, std::shared_ptr<Loopback::Slot> slot,
                                 std::string op, Deadline deadline)
    : comm_(std::move(comm)), slot_(std::move(slot)), op_(std::move(op)), deadline_(deadline) {}

void LoopbackRequest::FinishFromSlot() {
  // A finished slot is never written again, so it can be read without the loopback's lock.
  if (slot_->status == WEFT_OK) {
    Finish({});
  } else {
    Finish({slot_->status, op_ + ": " + slot_->message});
  }
}

bool LoopbackRequest::Test() { return WaitUntil(Clock::time_point::min()); }

bool LoopbackRequest::WaitUntil(Clock::time_point until) {
  if (finished()) return true;
  Loopback& loopback = comm_->loopback();
  if (!loopback.WaitUntil(*slot_, std::min(until, deadline_.when()))) {
    if (!deadline_.passed()) return false;
    loopback.Withdraw(slot_, WEFT_ERR_TIMEOUT, "deadline passed before a send to self");
  }
  FinishFromSlot();
  return true;
}

void LoopbackRequest::Cancel() {
  if (finished()) return;
  comm_->loopback().Withdraw(slot_, WEFT_ERR_ABORTED, "cancelled");
  FinishFromSlot();
}

}  // namespace weft::backends::gloo_plugin
