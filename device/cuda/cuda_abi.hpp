// The part of the CUDA runtime's C ABI the NCCL plugin and the device operations call, under
// the runtime's C names, so that nothing of Weft needs the CUDA headers to build: the library
// is opened at run time (cuda_api.hpp), and the fake runtime of the tests (tests/fakes/cudart)
// implements the same declarations. Values and layouts: cuda_types.hpp.
#pragma once

#include "device/cuda/cuda_types.hpp"

extern "C" {

typedef weft::cuda::Error cudaError_t;
typedef struct CUstream_st* cudaStream_t;
typedef struct CUevent_st* cudaEvent_t;
typedef void (*cudaHostFn_t)(void* user_data);
typedef weft::cuda::PointerAttributes cudaPointerAttributes;

}  // extern "C"
