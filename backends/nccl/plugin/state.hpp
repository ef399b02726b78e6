// One context of the NCCL plugin: the library tables, the device this rank drives, its
// communicators, and the first failure, which every later call reports (SPEC §10: a dead peer
// or a passed deadline fails every pending and later op of the context).
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <weft/backend_plugin.h>

#include "backends/nccl/cuda_api.hpp"
#include "backends/nccl/nccl_api.hpp"

namespace weft::backends::nccl_plugin {

class Comm;
class Watchdog;

class State {
 public:
  // Loads both libraries and picks the device (local_rank % devices); WEFT_ERR_NOT_AVAILABLE
  // and the reason where it cannot.
  static weft_status_t Create(const weft_bk_host_api_t* host, const weft_bk_init_args_t* args,
                              std::unique_ptr<State>* out);
  ~State();

  const weft_bk_host_api_t& host() const { return *host_; }
  const CudaApi& cuda() const { return *cuda_; }
  const NcclApi& nccl() const { return *nccl_; }
  int device() const { return device_; }
  int32_t rank() const { return args_.world_rank; }
  int64_t default_timeout_ms() const { return args_.timeout_ms; }
  // WEFT_NCCL_DEVICE_TIMEOUTS: device-buffer ops are held against their deadlines.
  bool device_timeouts() const { return device_timeouts_; }

  // Records `message` (prefixed "nccl: ") for the host and returns `s`.
  weft_status_t Fail(weft_status_t s, const std::string& message) const;
  // Makes the device current on the calling thread (the host calls from several threads).
  weft_status_t UseDevice() const;

  void Register(Comm* c);
  void Unregister(Comm* c);

  // The context's failure, or WEFT_OK; with its message recorded for the host when set.
  weft_status_t Failure() const;
  int32_t failed_rank() const { return failed_rank_.load(); }
  // Polls every communicator's asynchronous error; the first error aborts them all.
  weft_status_t Poll();
  // The watchdog's round: Poll, then an op still pending on its stream past its deadline aborts
  // every communicator (WEFT_ERR_TIMEOUT).
  void Watch();
  // Aborts every communicator and fails everything pending and later with `s` (the first
  // failure wins). Callable from any thread.
  void AbortAll(weft_status_t s, int32_t failed_rank, const std::string& why);

 private:
  State() = default;

  const weft_bk_host_api_t* host_ = nullptr;
  weft_bk_init_args_t args_{};
  std::unique_ptr<CudaApi> cuda_;
  std::unique_ptr<NcclApi> nccl_;
  int device_ = 0;
  bool device_timeouts_ = true;

  mutable std::mutex mu_;
  std::vector<Comm*> comms_;
  std::atomic<weft_status_t> failure_{WEFT_OK};
  std::atomic<int32_t> failed_rank_{-1};
  std::string failure_message_;         // under mu_
  std::unique_ptr<Watchdog> watchdog_;  // last: stops before the rest goes
};

}  // namespace weft::backends::nccl_plugin
