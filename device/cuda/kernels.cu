// The CUDA kernels of the device operations (launch.hpp): a thread per cell (per destination
// cell for reductions) over the per-cell code shared with the host build (cells.hpp), with a
// grid-stride loop so that any region fits one launch.
#include <cuda_runtime.h>

#include <algorithm>

#include "device/cuda/launch.hpp"
#include "device/cuda/reduce_dispatch.hpp"

namespace weft::device::cuda {
namespace {

constexpr int kThreads = 256;

unsigned Blocks(int64_t n) {
  return static_cast<unsigned>(std::max<int64_t>(1, std::min<int64_t>((n + kThreads - 1) / kThreads, 65535)));
}

__device__ int64_t First() { return blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; }
__device__ int64_t Step() { return static_cast<int64_t>(gridDim.x) * blockDim.x; }

__global__ void CopyKernel(char* dst, const char* src, Cells c, int64_t item, int64_t n) {
  for (int64_t i = First(); i < n; i += Step()) {
    int64_t o = 0, s = 0;
    c.Offsets(i, &o, &s);
    CopyCell(dst + o, src + s, item);
  }
}

__global__ void FillKernel(char* dst, Cells c, Element e, int64_t item, int64_t n) {
  for (int64_t i = First(); i < n; i += Step()) {
    int64_t o = 0, unused = 0;
    c.Offsets(i, &o, &unused);
    CopyCell(dst + o, reinterpret_cast<const char*>(e.bytes), item);
  }
}

template <class Fn>
__global__ void ReduceKernel(char* inout, const char* in, ReduceCells c, int64_t n) {
  for (int64_t cell = First(); cell < n; cell += Step()) ReduceOut<Fn>(c, inout, in, cell);
}

__global__ void WidenKernel(Lane k, const char* src, double* acc, int64_t lanes) {
  for (int64_t i = First(); i < lanes; i += Step()) acc[i] = WidenLane(k, src, i);
}

__global__ void NarrowKernel(Lane k, const double* acc, char* dst, int64_t lanes, double d) {
  for (int64_t i = First(); i < lanes; i += Step()) NarrowLane(k, acc[i], d, dst, i);
}

}  // namespace

int LaunchCopy(void* stream, char* dst, const char* src, const Cells& c, int64_t item) {
  const int64_t n = c.Volume();
  CopyKernel<<<Blocks(n), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(dst, src, c, item, n);
  return static_cast<int>(cudaGetLastError());
}

int LaunchFill(void* stream, char* dst, const Cells& c, const Element& e, int64_t item) {
  const int64_t n = c.Volume();
  FillKernel<<<Blocks(n), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(dst, c, e, item, n);
  return static_cast<int>(cudaGetLastError());
}

int LaunchReduce(void* stream, DType t, ReduceOp op, char* inout, const char* in,
                 const ReduceCells& c, bool* known) {
  int e = 0;
  *known = VisitReduction(t, op, [&](auto f) {
    using Fn = typename decltype(f)::type;
    const int64_t n = c.out.Volume();
    ReduceKernel<Fn><<<Blocks(n), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(inout, in, c, n);
    e = static_cast<int>(cudaGetLastError());
  });
  return e;
}

int LaunchWiden(void* stream, Lane k, const char* src, double* acc, int64_t lanes) {
  WidenKernel<<<Blocks(lanes), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(k, src, acc,
                                                                                  lanes);
  return static_cast<int>(cudaGetLastError());
}

int LaunchNarrow(void* stream, Lane k, const double* acc, char* dst, int64_t lanes,
                 double divisor) {
  NarrowKernel<<<Blocks(lanes), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(k, acc, dst,
                                                                                   lanes, divisor);
  return static_cast<int>(cudaGetLastError());
}

const char* KernelBuild() { return "CUDA kernels"; }

}  // namespace weft::device::cuda
