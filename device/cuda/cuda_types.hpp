// The CUDA runtime's values and structures the NCCL backend uses, with the runtime's own
// numbers and layouts (driver_types.h, CUDA 12 and 13), in a namespace: cuda_abi.hpp gives them
// the runtime's C names, and tests/backends/nccl/abi_test.cpp compares them with the real
// header in a translation unit that includes both.
#pragma once

namespace weft::cuda {

using Error = int;  // enum cudaError

inline constexpr Error kSuccess = 0;
inline constexpr Error kErrorInvalidValue = 1;
inline constexpr Error kErrorMemoryAllocation = 2;
inline constexpr Error kErrorInsufficientDriver = 35;
inline constexpr Error kErrorNoDevice = 100;
inline constexpr Error kErrorInvalidDevice = 101;
inline constexpr Error kErrorInvalidResourceHandle = 400;
inline constexpr Error kErrorNotReady = 600;

inline constexpr int kMemoryTypeUnregistered = 0, kMemoryTypeHost = 1, kMemoryTypeDevice = 2,
                     kMemoryTypeManaged = 3;
inline constexpr int kMemcpyHostToHost = 0, kMemcpyHostToDevice = 1, kMemcpyDeviceToHost = 2,
                     kMemcpyDeviceToDevice = 3, kMemcpyDefault = 4;
inline constexpr unsigned kStreamNonBlocking = 0x01;
inline constexpr unsigned kEventDisableTiming = 0x02;

struct PointerAttributes {
  int type;  // enum cudaMemoryType
  int device;
  void* devicePointer;
  void* hostPointer;
  long reserved[8];
};

}  // namespace weft::cuda
