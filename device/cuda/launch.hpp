// What the CUDA operations enqueue beyond the runtime's copies: one entry per kind of work,
// each enqueuing on `stream` and returning the runtime's error code (0: success). Two builds
// implement it from the same cells.hpp: kernels.cu (nvcc, the GPU) and host_kernels.cpp (the
// host compiler, on the fake runtime's streams).
#pragma once

#include <cstdint>

#include "common/dtype.hpp"
#include "device/cuda/cells.hpp"

namespace weft::device::cuda {

int LaunchCopy(void* stream, char* dst, const char* src, const Cells& c, int64_t item);
int LaunchFill(void* stream, char* dst, const Cells& c, const Element& e, int64_t item);
// *known is false when (t, op) has no element functor (nothing is enqueued then).
int LaunchReduce(void* stream, DType t, ReduceOp op, char* inout, const char* in,
                 const ReduceCells& c, bool* known);
// avg: acc[i] = lane i of src widened; dst lane i = acc[i] / divisor rounded once.
int LaunchWiden(void* stream, Lane k, const char* src, double* acc, int64_t lanes);
int LaunchNarrow(void* stream, Lane k, const double* acc, char* dst, int64_t lanes, double divisor);
// What the work runs on, for messages and the table ("CUDA kernels", "host loops").
const char* KernelBuild();

}  // namespace weft::device::cuda
