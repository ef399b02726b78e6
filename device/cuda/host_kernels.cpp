// The host build of the CUDA operations' work (launch.hpp): the same per-cell code as the
// kernels (cells.hpp), run as host loops on the stream of the fake CUDA runtime
// (cudaLaunchHostFunc), so that CI runs the kernels' logic, in stream order, without a GPU.
#include <functional>
#include <memory>

#include "device/cuda/launch.hpp"
#include "device/cuda/reduce_dispatch.hpp"
#include "device/cuda/runtime.hpp"

namespace weft::device::cuda {
namespace {

void RunWork(void* data) {
  std::unique_ptr<std::function<void()>> work(static_cast<std::function<void()>*>(data));
  (*work)();
}

int Enqueue(void* stream, std::function<void()> work) {
  auto owned = std::make_unique<std::function<void()>>(std::move(work));
  const int e = cudaLaunchHostFunc(static_cast<cudaStream_t>(stream), &RunWork, owned.get());
  if (e == weft::cuda::kSuccess) owned.release();  // RunWork frees it
  return e;
}

}  // namespace

int LaunchCopy(void* stream, char* dst, const char* src, const Cells& c, int64_t item) {
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
  return Enqueue(stream, [=] {
    for (int64_t i = 0; i < lanes; ++i) acc[i] = WidenLane(k, src, i);
  });
}

int LaunchNarrow(void* stream, Lane k, const double* acc, char* dst, int64_t lanes,
                 double divisor) {
  return Enqueue(stream, [=] {
    for (int64_t i = 0; i < lanes; ++i) NarrowLane(k, acc[i], divisor, dst, i);
  });
}

const char* KernelBuild() { return "host loops on the CUDA runtime's streams (host build)"; }

}  // namespace weft::device::cuda
