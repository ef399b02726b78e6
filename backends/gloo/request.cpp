#include "backends/gloo/request.hpp"

#include <algorithm>

#include "backends/gloo/gloo_comm.hpp"

namespace weft::backends::gloo_plugin {
namespace {

// Gloo wakes one waiter per completion and does not know the op's deadline; waking now and
// then keeps a second waiter and the deadline honest.
constexpr auto kWakeup = std::chrono::milliseconds(100);

}  // namespace

GlooP2pRequest::GlooP2pRequest(std::shared_ptr<Comm> comm, std::unique_ptr<TrackedBuffer> buffer,
                               bool recv, std::string op, Deadline deadline, int64_t timeout_ms)
    : comm_(std::move(comm)),
      buffer_(std::move(buffer)),
      recv_(recv),
      op_(std::move(op)),
      deadline_(deadline),
      timeout_ms_(timeout_ms) {}

bool GlooP2pRequest::Step(Clock::time_point until) {
  std::exception_ptr error;
  switch (buffer_->WaitUntil(recv_, until, &error)) {
    case TrackedBuffer::State::kPending:
      return false;
    case TrackedBuffer::State::kDone:
      Finish({});
      return true;
    case TrackedBuffer::State::kFailed:
      Finish(comm_->FailWith(op_, ClassifyException(error)));
      return true;
  }
  return false;
}

void GlooP2pRequest::Expire() {
  // Like Gloo's own timed-out waits, this closes the communicator's connections: the peer
  // may still match the operation later, into memory the caller may then have reused.
  Finish(comm_->FailWith(op_, {WEFT_ERR_TIMEOUT, "deadline of " + std::to_string(timeout_ms_) +
                                                     " ms passed before the peer " +
                                                     (recv_ ? "sent" : "received")}));
}

bool GlooP2pRequest::Test() {
  if (finished() || Step(Clock::time_point::min())) return true;
  if (!deadline_.passed()) return false;
  Expire();
  return true;
}

bool GlooP2pRequest::WaitUntil(Clock::time_point until) {
  for (;;) {
    if (finished()) return true;
    const auto now = Clock::now();
    if (deadline_.passed()) {
      Expire();
      return true;
    }
    if (now >= until) return false;
    if (Step(std::min({until, deadline_.when(), now + kWakeup}))) return true;
  }
}

void GlooP2pRequest::Cancel() {
  if (Test()) return;
  const std::string why = op_ +
                          ": cancelled while pending; Gloo cannot withdraw a posted operation, "
                          "so the communicator's connections were closed";
  comm_->Poison(WEFT_ERR_ABORTED, why);
  Finish({WEFT_ERR_ABORTED, why});
}

LoopbackRequest::LoopbackRequest(std::shared_ptr<Comm> comm,
                                 std::shared_ptr<Loopback::Slot> slot, std::string op,
                                 Deadline deadline)
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
