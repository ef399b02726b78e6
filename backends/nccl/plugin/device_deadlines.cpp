#include "backends/nccl/plugin/device_deadlines.hpp"

namespace weft::backends::nccl_plugin {

void DeviceDeadlines::Add(cudaEvent_t e, plugin_kit::Deadline d, int64_t timeout_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  watches_.push_back({e, d, timeout_ms});
}

void DeviceDeadlines::Reap(const CudaApi& cuda, std::vector<cudaEvent_t>* freed) {
  std::lock_guard<std::mutex> lock(mu_);
  if (watches_.size() < kBatch) return;
  while (!watches_.empty() && cuda.EventQuery(watches_.front().event) != cuda::kErrorNotReady) {
    freed->push_back(watches_.front().event);
    watches_.pop_front();
  }
  cuda.GetLastError();  // a failed query is the watchdog's to report, not this call's
}

bool DeviceDeadlines::Overdue(const CudaApi& cuda, int64_t* timeout_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const Watch& w : watches_) {
    // The deadline first: an event query costs more than a clock read.
    if (w.deadline.passed() && cuda.EventQuery(w.event) == cuda::kErrorNotReady) {
      *timeout_ms = w.timeout_ms;
      return true;
    }
  }
  return false;
}

}  // namespace weft::backends::nccl_plugin
