// The CUDA runtime calls the device operations make, declared with the runtime's C names over
// cuda_abi.hpp's types: host code of the CUDA operations needs no CUDA header, and links
// against the real runtime (libweft-device-cuda.so) or the fake one (its host build for CI)
// alike. kernels.cu, which nvcc compiles with the real header, does not include this.
#pragma once

#include <cstddef>

#include "device/cuda/cuda_abi.hpp"

extern "C" {
cudaError_t cudaGetDevice(int* device);
cudaError_t cudaSetDevice(int device);
const char* cudaGetErrorString(cudaError_t error);
cudaError_t cudaGetLastError(void);
cudaError_t cudaMallocAsync(void** ptr, size_t bytes, cudaStream_t stream);
cudaError_t cudaFreeAsync(void* ptr, cudaStream_t stream);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, int kind,
                            cudaStream_t stream);
cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch,
                              size_t width, size_t height, int kind, cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaMemsetAsync(void* dst, int value, size_t bytes, cudaStream_t stream);
cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* data);
}
