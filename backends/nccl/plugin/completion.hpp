// What an issued operation leaves behind until its stream passes it, and the plugin's
// requests. A Completion holds the CUDA event recorded after the operation (and after the
// copies out of staged host buffers), the scratch it uses and the host work that must follow it
// (the delivery of staged outputs, staging.hpp). The communicator keeps it until the event has
// passed, so that a request freed early (released work) still has its scratch and its host work
// done.
//
// A request is done when its completion's event has passed. For device buffers SPEC §6.2's
// "complete" means enqueued: such a request is done once issued.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backends/nccl/plugin/comm.hpp"
#include "common/plugin_kit/deadline.hpp"

namespace weft::backends::nccl_plugin {

class Completion {
 public:
  Completion(Comm& c, cudaEvent_t e, plugin_kit::Deadline d, int64_t timeout_ms)
      : comm_(c), event_(e), deadline_(d), timeout_ms_(timeout_ms) {}
  ~Completion();
  Completion(const Completion&) = delete;
  Completion& operator=(const Completion&) = delete;

  cudaEvent_t event() const { return event_; }
  // The op's deadline, which the watchdog holds the event against (device_deadlines.hpp).
  const plugin_kit::Deadline& deadline() const { return deadline_; }
  int64_t timeout_ms() const { return timeout_ms_; }
  void Keep(Lease l) { leases_.push_back(std::move(l)); }
  // Host work to run once the event has passed: its status becomes the operation's.
  void Then(std::function<weft_status_t()> f) { then_.push_back(std::move(f)); }
  // Whether the event has passed; the host work runs once, by whoever sees it first. The
  // outcome's message is recorded for the host when it is an error.
  weft_status_t Test(bool* done);

 private:
  Comm& comm_;
  cudaEvent_t event_;
  plugin_kit::Deadline deadline_;
  int64_t timeout_ms_;
  std::vector<Lease> leases_;
  std::vector<std::function<weft_status_t()>> then_;
  std::mutex mu_;
  bool finished_ = false;
  weft_status_t status_ = WEFT_OK;
  std::string message_;
};

class Request {
 public:
  Request(Comm& c, plugin_kit::Deadline d, bool enqueued_is_done)
      : comm_(c), deadline_(d), enqueued_is_done_(enqueued_is_done) {}

  Comm& comm() const { return comm_; }
  // A message waiting in its communicator's batch (p2p.hpp) until Issued.
  void Queued() { queued_.store(true); }
  // Set by whichever thread issues the batch, before the flag that publishes it.
  void Issued(std::shared_ptr<Completion> c) {
    completion_ = std::move(c);
    queued_.store(false, std::memory_order_release);
  }
  // An outcome of its own (a receive whose length differed), reported once it is done.
  void SetOutcome(weft_status_t s, std::string message);

  weft_status_t Test(int32_t* done);
  // Waits up to timeout_ms (< 0: until the op's deadline): IN_PROGRESS when that wait ended
  // first; a passed deadline of the op aborts the context (WEFT_ERR_TIMEOUT).
  weft_status_t Wait(int64_t timeout_ms);
  weft_status_t Cancel();

 private:
  // One look: *done and the outcome when done.
  weft_status_t Look(bool* done);

  Comm& comm_;
  plugin_kit::Deadline deadline_;
  bool enqueued_is_done_;
  std::shared_ptr<Completion> completion_;
  std::atomic<bool> queued_{false};
  weft_status_t outcome_ = WEFT_OK;
  std::string outcome_message_;
  bool cancelled_ = false;
};

}  // namespace weft::backends::nccl_plugin

// The ABI's request: the plugin's Request, shared with the batch while a message is queued.
struct weft_bk_request {
  std::shared_ptr<weft::backends::nccl_plugin::Request> impl;
};
