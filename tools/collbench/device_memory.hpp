// collbench's device buffers (-d cuda): CUDA memory through Weft's table of the CUDA runtime
// (backends/nccl/cuda_api.hpp, WEFT_CUDART_LIBRARY), so that collbench builds and runs without
// CUDA installed and, in CI, on the fake runtime. Work on device buffers is complete when the
// legacy default stream (where Weft enqueues it without a stream of the caller's) has run it:
// Sync() is part of every timed iteration, as in nccl-tests.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "backends/nccl/cuda_api.hpp"

namespace weft::collbench {

class DeviceMemory {
 public:
  // Opens the runtime and makes device (rank % devices) current; nullptr and *error when no
  // device is visible.
  static std::unique_ptr<DeviceMemory> Open(int32_t rank, std::string* error);

  // Each throws std::runtime_error naming the runtime call that failed.
  void* Allocate(size_t bytes);
  void Free(void* p);
  void Upload(void* dev, const void* host, size_t bytes);
  void Download(void* host, const void* dev, size_t bytes);
  // Waits for the legacy default stream.
  void Sync();
  const backends::nccl_plugin::CudaApi& api() const { return *api_; }

 private:
  void Check(const char* call, int e) const;
  std::unique_ptr<backends::nccl_plugin::CudaApi> api_;
};

}  // namespace weft::collbench
