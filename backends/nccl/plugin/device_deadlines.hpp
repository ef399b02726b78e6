// The deadlines of device-buffer operations, which the host never waits for: such an op is
// complete once enqueued (SPEC §6.2), so a collective a peer never joins leaves the caller's
// stream blocked with no call into Weft to notice. Each one records an event after its NCCL
// calls; the context's watchdog thread finds an event still pending past its op's deadline and
// aborts the communicators, which releases the stream, and the next call fails with
// WEFT_ERR_TIMEOUT, as torch's NCCL watchdog does. The deadline counts from the enqueue (the
// stream may hold the caller's own work before the op), as torch's does.
#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

#include "backends/nccl/cuda_api.hpp"
#include "common/plugin_kit/deadline.hpp"

namespace weft::backends::nccl_plugin {

class DeviceDeadlines {
 public:
  // Watches `e` (recorded after the op on its stream) against the op's deadline.
  void Add(cudaEvent_t e, plugin_kit::Deadline d, int64_t timeout_ms);
  // Drops the watches whose events have passed, oldest first, stopping at the first still
  // pending (a call pays for what finished, not for the whole queue); their events in *freed.
  // Only once kBatch watches have gathered: most calls then make no event query at all.
  void Reap(const CudaApi& cuda, std::vector<cudaEvent_t>* freed);
  static constexpr size_t kBatch = 32;
  // Whether some op's event is still pending past its deadline (then *timeout_ms is its
  // timeout). Scans every watch: called by the watchdog thread, not on the call path.
  bool Overdue(const CudaApi& cuda, int64_t* timeout_ms);

 private:
  struct Watch {
    cudaEvent_t event;
    plugin_kit::Deadline deadline;
    int64_t timeout_ms;
  };
  std::mutex mu_;
  std::deque<Watch> watches_;
};

}  // namespace weft::backends::nccl_plugin
