// WEFT_HD marks a function that both the host compiler and nvcc compile: the element math of
// the reductions (device/host/reduce/element_ops.hpp, half_float.hpp) is one source for the
// host kernels and the CUDA kernels (device/cuda/), so that both round alike by construction.
#pragma once

#if defined(__CUDACC__)
#define WEFT_HD __host__ __device__
#else
#define WEFT_HD
#endif
