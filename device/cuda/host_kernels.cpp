// The host build of the CUDA operations' work (launch.hpp): the same per-cell code as the
// kernels (cells.hpp), run as host loops on the stream of the fake CUDA runtime
// (cudaLaunchHostFunc), so that CI runs the kernels' logic, in stream order, without a GPU.
#include <functional>
#include <memory>

#include "device/cuda/launch.hpp"
#include "device/cuda/reduce_dispatch.hpp"
#include "device/cuda/runtime.hpp"

extern "C" int fakeCudaIsDeviceRange(const void*, size_t);

namespace weft::device::cuda {
namespace {

void RunWork(void* data) {
  std::unique_ptr<std::function<void()>> work(static_cast<std::function<void()>*>(data));
  (*work)();
}

// The offsets of the first bytes of the cells of operand `which` (0: a, 1: b) lie in
// [lo, hi]; strides may be negative (reflected copies).
struct Span {
  int64_t lo = 0, hi = 0;
};
Span Covered(const Cells& c, int which, Span s = {}) {
  for (int32_t d = 0; d < c.ndim; ++d) {
    const int64_t reach = (c.extent[d] - 1) * (which == 0 ? c.a[d] : c.b[d]);
    (reach < 0 ? s.lo : s.hi) += reach;
  }
  return s;
}

// A kernel given a host pointer faults on a GPU. The fake runtime knows its allocations
// (fakeCudaIsDeviceRange, FAKE_CUDA_CHECK_POINTERS=1): the launch fails rather than the host
// loop reading host memory a real device could not.
bool OnDevice(const void* base, Span s, int64_t item) {
  if (s.hi + item - s.lo <= 0) return true;
  return fakeCudaIsDeviceRange(static_cast<const char*>(base) + s.lo,
                               static_cast<size_t>(s.hi + item - s.lo)) != 0;
}

int Enqueue(void* stream, std::function<void()> work) {
  auto owned = std::make_unique<std::function<void()>>(std::move(work));
  const int e = cudaLaunchHostFunc(static_cast<cudaStream_t>(stream), &RunWork, owned.get());
  if (e == weft::cuda::kSuccess) owned.release();  // RunWork frees it
  return e;
}

}  // namespace

int LaunchCopy(void* stream, char* dst, const char* src, const Cells& c, int64_t item) {
  if (!OnDevice(dst, Covered(c, 0), item) || !OnDevice(src, Covered(c, 1), item))
    return weft::cuda::kErrorInvalidValue;
  return Enqueue(stream, [=] {
    const int64_t n = c.Volume();
    for (int64_t i = 0; i < n; ++i) {
      int64_t o = 0, s = 0;
      c.Offsets(i, &o, &s);
      CopyCell(dst + o, src + s, item);
    }
  });
}

int LaunchFill(void* stream, char* dst, const Cells& c, const Element& e, int64_t item) {
  if (!OnDevice(dst, Covered(c, 0), item)) return weft::cuda::kErrorInvalidValue;
  return Enqueue(stream, [=] {
    const int64_t n = c.Volume();
    for (int64_t i = 0; i < n; ++i) {
      int64_t o = 0, unused = 0;
      c.Offsets(i, &o, &unused);
      CopyCell(dst + o, reinterpret_cast<const char*>(e.bytes), item);
    }
  });
}

int LaunchReduce(void* stream, DType t, ReduceOp op, char* inout, const char* in,
                 const ReduceCells& c, bool* known) {
  // Item sizes differ by type; the span's end is checked to the last cell's first byte.
  if (!OnDevice(inout, Covered(c.repeat, 0, Covered(c.out, 0)), 1) ||
      !OnDevice(in, Covered(c.repeat, 1, Covered(c.out, 1)), 1)) {
    *known = true;
    return weft::cuda::kErrorInvalidValue;
  }
  int e = weft::cuda::kSuccess;
  *known = VisitReduction(t, op, [&](auto f) {
    using Fn = typename decltype(f)::type;
    e = Enqueue(stream, [=] {
      const int64_t n = c.out.Volume();
      for (int64_t cell = 0; cell < n; ++cell) ReduceOut<Fn>(c, inout, in, cell);
    });
  });
  return e;
}

int LaunchWiden(void* stream, Lane k, const char* src, double* acc, int64_t lanes) {
  if (!OnDevice(src, {}, 1) || !OnDevice(acc, {}, lanes * int64_t{sizeof(double)}))
    return weft::cuda::kErrorInvalidValue;
  return Enqueue(stream, [=] {
    for (int64_t i = 0; i < lanes; ++i) acc[i] = WidenLane(k, src, i);
  });
}

int LaunchNarrow(void* stream, Lane k, const double* acc, char* dst, int64_t lanes,
                 double divisor) {
  if (!OnDevice(acc, {}, lanes * int64_t{sizeof(double)}) || !OnDevice(dst, {}, 1))
    return weft::cuda::kErrorInvalidValue;
  return Enqueue(stream, [=] {
    for (int64_t i = 0; i < lanes; ++i) NarrowLane(k, acc[i], divisor, dst, i);
  });
}

const char* KernelBuild() { return "host loops on the CUDA runtime's streams (host build)"; }

}  // namespace weft::device::cuda
