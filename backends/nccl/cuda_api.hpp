// The CUDA runtime through a table of function pointers (dynamic_library.hpp): the calls the
// NCCL backend, the CUDA device operations and the tests' device buffers make, resolved once from
// the library WEFT_CUDART_LIBRARY names (the fake runtime of the tests is one such library).
#pragma once

#include <memory>
#include <string>

#include "backends/nccl/dynamic_library.hpp"
#include "device/cuda/cuda_abi.hpp"

namespace weft::backends::nccl_plugin {

struct CudaApi {
  cudaError_t (*GetDeviceCount)(int*) = nullptr;
  cudaError_t (*SetDevice)(int) = nullptr;
  cudaError_t (*GetDevice)(int*) = nullptr;
  cudaError_t (*RuntimeGetVersion)(int*) = nullptr;
  const char* (*GetErrorString)(cudaError_t) = nullptr;
  cudaError_t (*GetLastError)() = nullptr;
  cudaError_t (*Malloc)(void**, size_t) = nullptr;
  cudaError_t (*Free)(void*) = nullptr;
  cudaError_t (*MallocHost)(void**, size_t) = nullptr;
  cudaError_t (*FreeHost)(void*) = nullptr;
  cudaError_t (*MallocManaged)(void**, size_t, unsigned) = nullptr;
  cudaError_t (*PointerGetAttributes)(cudaPointerAttributes*, const void*) = nullptr;
  cudaError_t (*MemcpyAsync)(void*, const void*, size_t, int, cudaStream_t) = nullptr;
  cudaError_t (*Memcpy2DAsync)(void*, size_t, const void*, size_t, size_t, size_t, int,
                               cudaStream_t) = nullptr;
  cudaError_t (*MemsetAsync)(void*, int, size_t, cudaStream_t) = nullptr;
  cudaError_t (*StreamCreateWithFlags)(cudaStream_t*, unsigned) = nullptr;
  cudaError_t (*StreamDestroy)(cudaStream_t) = nullptr;
  cudaError_t (*StreamSynchronize)(cudaStream_t) = nullptr;
  cudaError_t (*DeviceSynchronize)() = nullptr;
  cudaError_t (*StreamQuery)(cudaStream_t) = nullptr;
  cudaError_t (*StreamWaitEvent)(cudaStream_t, cudaEvent_t, unsigned) = nullptr;
  cudaError_t (*EventCreateWithFlags)(cudaEvent_t*, unsigned) = nullptr;
  cudaError_t (*EventDestroy)(cudaEvent_t) = nullptr;
  cudaError_t (*EventRecord)(cudaEvent_t, cudaStream_t) = nullptr;
  cudaError_t (*EventQuery)(cudaEvent_t) = nullptr;
  cudaError_t (*EventSynchronize)(cudaEvent_t) = nullptr;
  cudaError_t (*LaunchHostFunc)(cudaStream_t, cudaHostFn_t, void*) = nullptr;

  // Opens the runtime and resolves every entry; nullptr and `why` (which library, which
  // symbols) when it cannot.
  static std::unique_ptr<CudaApi> Load(std::string* why);
  // Whether a device is visible; else `why` says so with the runtime's own reason (no driver,
  // no device, CUDA_VISIBLE_DEVICES empty).
  bool DeviceVisible(std::string* why) const;
  // "cudaMalloc: out of memory (2)".
  std::string Describe(const char* call, cudaError_t e) const;

  std::unique_ptr<DynamicLibrary> library;
};

}  // namespace weft::backends::nccl_plugin
