// What weft_bk_request_t points to.
//
//   DoneRequest      collectives and sends to oneself: they finish before the op returns,
//                    so the request is born complete (Gloo's collectives are blocking).
//   GlooP2pRequest   a posted Gloo unbound-buffer send or recv. Gloo's device thread moves
//                    the bytes without the caller (WEFT_BK_CAP_ASYNC); a waiter thread
//                    notices the completion; test and wait only look.
//   LoopbackRequest  a receive from oneself, finished by a later send to oneself.
//
// A request is used by one thread at a time (the host's contract); abort() and the failure
// of another op reach it through the communicator and the Gloo pairs, both thread-safe.
#pragma once

#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <string>

#include "backends/gloo/deadline.hpp"
#include "backends/gloo/errors.hpp"
#include "backends/gloo/gloo_guard.hpp"
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

// A posted Gloo send or recv. A waiter thread (Waiters) runs Await(): Gloo's waits, bounded
// by the op's deadline, and records the raw outcome; the request turns it into the op's status
// on the caller's thread. The waiter holds the op, not the communicator or the plugin state.
class P2pOp {
 public:
  explicit P2pOp(Deadline deadline) : deadline_(deadline) {}
  virtual ~P2pOp() = default;
  P2pOp(const P2pOp&) = delete;
  P2pOp& operator=(const P2pOp&) = delete;

  // On a waiter thread. Afterwards Gloo holds no reference to the caller's memory.
  void Await() noexcept;
  // True once finished, with *error what Gloo threw (null if nothing) and *own the op's own
  // failure (status WEFT_OK if none); false when `until` passed first.
  bool WaitUntil(Clock::time_point until, std::exception_ptr* error, Failure* own);

 protected:
  // Gloo's waits. Throws what Gloo throws (a failure of the communicator); returns a failure
  // of this op alone (a length mismatch), which leaves the communicator as it is.
  virtual Failure Run() = 0;
  // Drops every Gloo buffer of the op.
  virtual void Release() = 0;
  const Deadline& deadline() const { return deadline_; }
  // Waits for `buffer`'s send or receive; throws when interrupted or failed.
  void Wait(GuardedBuffer& buffer, bool recv) const;

 private:
  Deadline deadline_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool finished_ = false;
  std::exception_ptr error_;
  Failure own_;
};

// One unbound buffer's send or receive.
class PlainP2p final : public P2pOp {
 public:
  PlainP2p(std::unique_ptr<GuardedBuffer> buffer, bool recv, Deadline deadline)
      : P2pOp(deadline), buffer_(std::move(buffer)), recv_(recv) {}

 private:
  Failure Run() override {
    Wait(*buffer_, recv_);
    return {};
  }
  void Release() override { buffer_.reset(); }

  std::unique_ptr<GuardedBuffer> buffer_;
  bool recv_;
};

class GlooP2pRequest final : public Request {
 public:
  // `op` names the operation for messages ("recv from rank 3 (member 1), tag 7").
  GlooP2pRequest(std::shared_ptr<Comm> comm, std::shared_ptr<P2pOp> p2p, std::string op)
      : comm_(std::move(comm)), p2p_(std::move(p2p)), op_(std::move(op)) {}

  bool Test() override { return Settle(Clock::time_point::min()); }
  bool WaitUntil(Clock::time_point until) override { return Settle(until); }
  // Gloo 0.5 cannot withdraw a posted unbound-buffer operation, and the pair would later
  // write into (or stall on) a buffer nobody owns. Cancelling a pending one therefore closes
  // the communicator's connections: it and every later op fail with WEFT_ERR_ABORTED.
  void Cancel() override;

 private:
  bool Settle(Clock::time_point until);

  std::shared_ptr<Comm> comm_;
  std::shared_ptr<P2pOp> p2p_;
  std::string op_;
};

class LoopbackRequest final : public Request {
 public:
  LoopbackRequest(std::shared_ptr<Comm> comm, std::shared_ptr<Loopback::Slot> slot, std::string op,
                  Deadline deadline);

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
