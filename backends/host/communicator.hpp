// The host's view of one group's communicator: the plugin's native ops where it has them,
// Weft's compositions over its send/recv where it does not (SPEC §6.6), and avg composed from
// a float64 sum (SPEC §2.4). Counts and displacements are in elements.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "backends/host/backend.hpp"
#include "common/clock.hpp"
#include "common/dtype.hpp"
#include "common/result.hpp"

namespace weft::backends {

struct OpArgs {
  DLDevice device{kDLCPU, 0};
  void* stream = nullptr;
  std::chrono::steady_clock::time_point deadline = kNoDeadline;
  uint32_t bk_flags = 0;  // weft_bk_op_t.flags (WEFT_BK_OP_*)

  // Whether the op's buffers are host memory (kDLCPU, CUDA host memory).
  bool OnHost() const { return device.device_type == kDLCPU || device.device_type == kDLCUDAHost; }
  // The same deadline for the host's own small messages (plan fingerprints, check records):
  // host memory, no stream, whatever the op's buffers are.
  OpArgs ForHostMemory() const {
    OpArgs h = *this;
    h.device = DLDevice{kDLCPU, 0};
    h.stream = nullptr;
    h.bk_flags = 0;
    return h;
  }
};

class Communicator {
 public:
  Communicator(Backend& backend, weft_bk_comm_t* comm, std::vector<int32_t> ranks, int32_t index);
  ~Communicator();
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  int32_t size() const { return static_cast<int32_t>(ranks_.size()); }
  int32_t index() const { return index_; }
  const std::vector<int32_t>& ranks() const { return ranks_; }

  Status Allreduce(const void* send, void* recv, uint64_t count, DType t, ReduceOp op,
                   const OpArgs& a);
  Status Allgather(const void* send, void* recv, uint64_t count, DType t, const OpArgs& a);
  Status Allgatherv(const void* send, uint64_t send_count, void* recv,
                    std::span<const uint64_t> counts, std::span<const uint64_t> displs, DType t,
                    const OpArgs& a);
  Status ReduceScatter(const void* send, void* recv, uint64_t count, DType t, ReduceOp op,
                       const OpArgs& a);
  Status ReduceScatterv(const void* send, void* recv, std::span<const uint64_t> counts, DType t,
                        ReduceOp op, const OpArgs& a);
  Status Alltoall(const void* send, void* recv, uint64_t count, DType t, const OpArgs& a);
  Status Alltoallv(const void* send, std::span<const uint64_t> send_counts,
                   std::span<const uint64_t> send_displs, void* recv,
                   std::span<const uint64_t> recv_counts, std::span<const uint64_t> recv_displs,
                   DType t, const OpArgs& a);
  Status Broadcast(void* buf, uint64_t count, DType t, int32_t root, const OpArgs& a);
  Status Barrier(const OpArgs& a);
  Status Send(const void* buf, uint64_t count, DType t, int32_t peer, int64_t tag, const OpArgs& a);
  Status Recv(void* buf, uint64_t count, DType t, int32_t peer, int64_t tag, const OpArgs& a);

  // Asynchronous point-to-point for the compositions: post, then wait all.
  class Request;
  Result<std::unique_ptr<Request>> PostSend(const void* buf, uint64_t bytes, int32_t peer,
                                            int64_t tag, const OpArgs& a);
  Result<std::unique_ptr<Request>> PostRecv(void* buf, uint64_t bytes, int32_t peer, int64_t tag,
                                            const OpArgs& a);
  // Point-to-point of a strided region without packing, when the plugin has it (ABI 1.1,
  // WEFT_BK_CAP_STRIDED); the bytes on the wire are the region's elements in row-major order.
  bool HasStrided() const;
  Result<std::unique_ptr<Request>> PostSendStrided(const void* base, const weft_bk_strided_t& l,
                                                   int32_t peer, int64_t tag, const OpArgs& a);
  Result<std::unique_ptr<Request>> PostRecvStrided(void* base, const weft_bk_strided_t& l,
                                                   int32_t peer, int64_t tag, const OpArgs& a);
  Status WaitAll(std::span<std::unique_ptr<Request>> reqs, const OpArgs& a);
  // Waits up to timeout_ms (< 0: until the op's deadline) for one request: kInProgress when
  // that wait elapsed first, kTimeout when the op's deadline passed.
  Status WaitOne(Request& req, int64_t timeout_ms, const OpArgs& a);
  // One look at `req` without waiting: the plugin progresses (moving what its peers asked for
  // meanwhile) and says whether the request ended; an error ends it too.
  Result<bool> Test(Request& req);
  // Asks the plugin to end `req` early (a no-op on a request that ended); free it after.
  void Cancel(Request& req);

  // Tag for the next composed operation; every member computes the same sequence.
  int64_t NextInternalTag();

  // The number of the next public collective on this communicator (api/src/collective_check),
  // counted on every member whether its arguments are checked or not.
  uint64_t NextUserCall() { return user_calls_++; }
  // Whether the plugin turns disagreeing arguments into errors (WEFT_BK_CAP_SIZE_SAFE).
  bool SizeSafe() const { return size_safe_; }
  // Messages match in posting order, tags ignored (WEFT_BK_CAP_UNTAGGED_P2P).
  bool UntaggedP2p() const { return untagged_p2p_; }
  // Keeps `memory` until the communicator goes, after the plugin's communicator: memory of the
  // host's own that requests freed while pending may still read or write (the check records of
  // a user send/recv whose work was released).
  void KeepAlive(std::shared_ptr<void> memory) { kept_.push_back(std::move(memory)); }

 private:
  weft_bk_op_t BkArgs(const OpArgs& a);
  Status Check(weft_status_t s, const char* op) const;
  // Whether the plugin declined a reduction it cannot do exactly (NCCL has no int16, uint16 or
  // complex product; plugin ABI 1.3): Weft then composes it from the plugin's point-to-point,
  // on the buffers' own device. Only on memory the plugin takes: elsewhere UNSUPPORTED stands.
  bool Declined(weft_status_t s, const OpArgs& a) const;
  Status AvgAllreduce(const void* send, void* recv, uint64_t count, DType t, const OpArgs& a);
  Status AvgReduceScatterv(const void* send, void* recv, std::span<const uint64_t> counts, DType t,
                           const OpArgs& a);

  Backend& backend_;
  weft_bk_comm_t* comm_;
  std::vector<int32_t> ranks_;
  int32_t index_;
  uint64_t seq_ = 0;
  int64_t internal_tag_ = 0;
  uint64_t user_calls_ = 0;
  bool size_safe_ = false;
  bool untagged_p2p_ = false;
  std::vector<std::shared_ptr<void>> kept_;  // destroyed after comm_destroy (the body)
};

class Communicator::Request {
 public:
  Request(const weft_backend_plugin_t& t, weft_bk_request_t* r) : table_(t), req_(r) {}
  ~Request() {
    if (req_) table_.request_free(req_);
  }
  weft_bk_request_t* get() const { return req_; }

 private:
  const weft_backend_plugin_t& table_;
  weft_bk_request_t* req_;
};

// User tags of weft_send/weft_recv live below this; composed ops use tags above it.
inline constexpr int64_t kInternalTagBase = int64_t{1} << 40;
// The argument records of checked user point-to-point (api/src/p2p_check.cpp) travel on
// kCheckTagBase | role << 31 | user tag: role 0 from the sender, 1 from the receiver.
inline constexpr int64_t kCheckTagBase = int64_t{1} << 42;

}  // namespace weft::backends
