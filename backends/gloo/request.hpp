// What weft_bk_request_t points to.
//
//   DoneRequest      collectives and sends to oneself: they finish before the op returns,
//                    so the request is born complete (Gloo's collectives are blocking).
//   GlooP2pRequest   a posted Gloo unbound-buffer send or recv. Gloo's device thread moves
//                    the bytes without the caller (WEFT_BK_CAP_ASYNC); test and wait only
//                    look at the buffer's completion.
//   LoopbackRequest  a receive from oneself, finished by a later send to oneself.
//
// A request is used by one thread at a time (the host's contract); abort() and the failure
// of another op reach it through the communicator and the Gloo pairs, both thread-safe.
#pragma once

#include <memory>
#include <string>

#include "backends/gloo/deadline.hpp"
#include "backends/gloo/errors.hpp"
#include "backends/gloo/gloo_tracking.hpp"
#include "backends/gloo/loopback.hpp"

namespace weft::backends::gloo_plugin {

class Comm;

class Request {
 public:
  virtual ~Request() = default;

  // Never blocks; true once finished.
  virtual bool Test() = 0;
  // True once finished; false when `until` passed first (the operation goes on). The op's
  // own deadline passing finishes it with WEFT_ERR_TIMEOUT.
  virtual bool WaitUntil(Clock::time_point until) = 0;
  // Ends a pending operation with WEFT_ERR_ABORTED; a finished one is left as it is.
  virtual void Cancel() = 0;

  bool finished() const { return finished_; }
  // Meaningful once finished.
  const Failure& outcome() const { return outcome_; }

 protected:
  void Finish(Failure outcome) {
    finished_ = true;
    outcome_ = std::move(outcome);
  }

 private:
  bool finished_ = false;
  Failure outcome_;
};

class DoneRequest final : public Request {
 public:
  DoneRequest() { Finish({}); }
  bool Test() override { return true; }
  bool WaitUntil(Clock::time_point) override { return true; }
  void Cancel() override {}
};

class GlooP2pRequest final : public Request {
 public:
  // `op` names the operation for messages ("recv from rank 3 (member 1), tag 7").
  GlooP2pRequest(std::shared_ptr<Comm> comm, std::unique_ptr<TrackedBuffer> buffer, bool recv,
                 std::string op, Deadline deadline, int64_t timeout_ms);

  bool Test() override;
  bool WaitUntil(Clock::time_point until) override;
  // Gloo 0.5 cannot withdraw a posted unbound-buffer operation, and the pair would later
  // write into (or stall on) a buffer nobody owns. Cancelling a pending one therefore closes
  // the communicator's connections: it and every later op fail with WEFT_ERR_ABORTED.
  void Cancel() override;

 private:
  // Waits for the buffer until `until`; true once finished.
  bool Step(Clock::time_point until);
  void Expire();

  std::shared_ptr<Comm> comm_;  // declared before buffer_: the buffer goes first
  std::unique_ptr<TrackedBuffer> buffer_;
  bool recv_;
  std::string op_;
  Deadline deadline_;
  int64_t timeout_ms_;
};

class LoopbackRequest final : public Request {
 public:
  LoopbackRequest(std::shared_ptr<Comm> comm, std::shared_ptr<Loopback::Slot> slot,
                  std::string op, Deadline deadline);

  bool Test() override;
  bool WaitUntil(Clock::time_point until) override;
  void Cancel() override;

 private:
  void FinishFromSlot();

  std::shared_ptr<Comm> comm_;
  std::shared_ptr<Loopback::Slot> slot_;
  std::string op_;
  Deadline deadline_;
};

}  // namespace weft::backends::gloo_plugin
