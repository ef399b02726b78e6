// One communicator of the NCCL plugin (a mesh-dim group): its NCCL communicator, made from a
// unique id its member 0 publishes under the group's store prefix and initialised without
// blocking against the caller's deadline; its own stream for host buffers and calls without
// one; pools of scratch (device and page-locked) and events; the operations in flight; and the
// point-to-point messages posted but not yet issued (p2p.hpp).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backends/nccl/plugin/device_deadlines.hpp"
#include "backends/nccl/plugin/p2p.hpp"
#include "backends/nccl/plugin/scratch_pool.hpp"
#include "backends/nccl/plugin/state.hpp"
#include "common/plugin_kit/deadline.hpp"

namespace weft::backends::nccl_plugin {

class Completion;

class Comm {
 public:
  static weft_status_t Create(State& s, int32_t nranks, int32_t my_index, const char* prefix,
                              int64_t timeout_ms, std::unique_ptr<Comm>* out);
  ~Comm();
  Comm(const Comm&) = delete;
  Comm& operator=(const Comm&) = delete;

  State& state() const { return state_; }
  int32_t size() const { return nranks_; }
  int32_t index() const { return index_; }
  const std::string& prefix() const { return prefix_; }
  cudaStream_t own_stream() const { return stream_; }

  // Runs `call(nccl communicator)` under the communicator's lock (abort may come from any
  // thread); an aborted communicator gives the context's failure. `what` names the call in
  // the message of an NCCL error.
  template <typename Call>
  weft_status_t Issue(const char* what, Call&& call) {
    std::string error;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (handle_) {
        const ncclResult_t r = call(handle_);
        if (r == nccl::kSuccess || r == nccl::kInProgress) return WEFT_OK;
        error = state_.nccl().Describe(what, r, handle_);
      }
    }
    // Outside the lock: the context's failure takes the state's lock, which abort holds while
    // it takes this one.
    if (error.empty()) return Aborted();
    return state_.Fail(WEFT_ERR_BACKEND, error);
  }
  // Whether NCCL reports an asynchronous error (then `why` names it).
  bool AsyncError(std::string* why);
  // ncclCommAbort, once; later calls fail with the context's failure.
  void Abort();

  // At least `bytes` of device scratch, and of page-locked host memory (scratch_pool.hpp).
  weft_status_t Acquire(size_t bytes, Lease* out) { return device_scratch_.Acquire(bytes, out); }
  weft_status_t AcquirePinned(size_t bytes, Lease* out) {
    return pinned_scratch_.Acquire(bytes, out);
  }
  // An event from the pool (disable-timing), or nullptr after recording the error.
  cudaEvent_t AcquireEvent();
  void ReleaseEvent(cudaEvent_t e);

  // Keeps `c` until its event has passed (its scratch and its host work), and finishes the
  // ones whose events have.
  void Track(std::shared_ptr<Completion> c);
  void Reap();
  // Watches an op on device buffers that keeps nothing: `e`, recorded after it, against its
  // deadline (device_deadlines.hpp).
  void Watch(cudaEvent_t e, const plugin_kit::Deadline& d, int64_t timeout_ms) {
    deadlines_.Add(e, d, timeout_ms);
  }
  // Whether an op of this communicator is still pending on its stream past its deadline (then
  // *timeout_ms is its timeout). For the watchdog thread.
  bool Overdue(int64_t* timeout_ms);

  P2pBatch& batch() { return batch_; }

 private:
  Comm(State& s, int32_t n, int32_t i, std::string prefix)
      : state_(s), nranks_(n), index_(i), prefix_(std::move(prefix)) {}
  weft_status_t Connect(int64_t timeout_ms);
  weft_status_t ShareUniqueId(ncclUniqueId* id, const plugin_kit::Deadline& deadline);
  weft_status_t Aborted() const;

  State& state_;
  int32_t nranks_, index_;
  std::string prefix_;
  cudaStream_t stream_ = nullptr;

  std::mutex mu_;  // handle_
  ncclComm_t handle_ = nullptr;

  // Freed after the destructor's body has let the stream pass what uses them.
  ScratchPool device_scratch_{state_, ScratchPool::Kind::kDevice};
  ScratchPool pinned_scratch_{state_, ScratchPool::Kind::kPinnedHost};
  std::mutex pool_mu_;  // events and completions
  std::vector<cudaEvent_t> free_events_, all_events_;
  std::vector<std::shared_ptr<Completion>> in_flight_;
  DeviceDeadlines deadlines_;  // its events come from the pool above

  P2pBatch batch_;
};

// A plugin communicator is the ABI's opaque handle.
inline weft_bk_comm_t* Handle(Comm* c) { return reinterpret_cast<weft_bk_comm_t*>(c); }
inline Comm& Of(weft_bk_comm_t* c) { return *reinterpret_cast<Comm*>(c); }

}  // namespace weft::backends::nccl_plugin
