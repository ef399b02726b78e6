// What init() creates: the host API, the context's facts, the TCP device, and the abort
// state that every communicator consults.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <gloo/transport/device.h>

#include "backends/gloo/host.hpp"
#include "backends/gloo/waiters.hpp"

namespace weft::backends::gloo_plugin {

class Comm;

class State {
 public:
  // Validates the host API and the arguments, creates the device when world_size > 1.
  static weft_status_t Create(const weft_bk_host_api_t* api, const weft_bk_init_args_t* args,
                              std::shared_ptr<State>* out);

  explicit State(const weft_bk_host_api_t* api) : host_(api) {}

  const Host& host() const { return host_; }
  const weft_bk_init_args_t& args() const { return args_; }
  // Null in a world of one, where every communicator has one member.
  const std::shared_ptr<::gloo::transport::Device>& device() const { return device_; }
  // For point-to-point requests (see request.hpp).
  Waiters& waiters() { return waiters_; }

  // abort(): from any thread. Closes the connections of every communicator so that blocked
  // ops return; they and every later op fail with `status`. The first abort wins.
  void Abort(weft_status_t status, int32_t failed_rank, const std::string& reason);
  // WEFT_OK before Abort(); afterwards its status, and *message the text ops report.
  weft_status_t Aborted(std::string* message) const;

  // async_error(): the abort, else the first failure an op saw. A connection that closes
  // while no op uses it is not reported: a peer that finished and destroyed its communicator
  // closes its connections exactly like one that died.
  weft_status_t AsyncError(int32_t* failed_rank) const;
  void RecordFailure(weft_status_t status, int32_t failed_rank);

  // The communicators Abort() must reach. Register refuses (with the abort status) once
  // aborted, so that no communicator escapes an abort that raced with its creation.
  weft_status_t Register(Comm* comm, std::string* abort_message);
  void Unregister(Comm* comm);

 private:
  weft_status_t ReadArgs(const weft_bk_init_args_t* args);

  Host host_;
  weft_bk_init_args_t args_{};
  std::shared_ptr<::gloo::transport::Device> device_;

  mutable std::mutex mu_;  // guards everything below; taken before any Comm's lock
  std::atomic<bool> aborted_{false};
  weft_status_t abort_status_ = WEFT_OK;
  int32_t abort_rank_ = -1;
  std::string abort_message_;
  weft_status_t first_failure_ = WEFT_OK;
  int32_t first_failed_rank_ = -1;
  std::vector<Comm*> comms_;

  Waiters waiters_;  // last: joined first, while the device still runs
};

}  // namespace weft::backends::gloo_plugin
