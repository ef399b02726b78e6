#include "device/cuda/cuda_ops.hpp"

#include <cstring>
#include <string>
#include <utility>

#include "device/cuda/launch.hpp"
#include "device/cuda/runtime.hpp"
#include "device/host/reduce/reduce_args.hpp"

namespace weft::device::cuda {
namespace {

std::string Str(int64_t v) { return std::to_string(v); }

Status RuntimeError(const char* fn, const char* call, int e) {
  cudaGetLastError();  // not sticky for the next call
  return Status(Code::kBackend, std::string("cuda ") + fn + ": " + call + ": " +
                                    cudaGetErrorString(e) + " (" + Str(e) + ")");
}

// Runs the operation on the target's device: the calling thread may have another current.
Status UseDevice(const char* fn, const Target& t) {
  int current = -1;
  if (cudaGetDevice(&current) == weft::cuda::kSuccess && current == t.device.device_id)
    return Status::Ok();
  if (int e = cudaSetDevice(t.device.device_id); e != weft::cuda::kSuccess)
    return RuntimeError(fn, "cudaSetDevice", e);
  return Status::Ok();
}

Status CheckShape(const char* fn, const Shape& s, int64_t item) {
  if (s.ndim < 0 || s.ndim > kMaxDims)
    return InvalidArgument(std::string("cuda ") + fn + ": shape.ndim is " + Str(s.ndim));
  if (s.ndim > 0 && s.extent == nullptr)
    return InvalidArgument(std::string("cuda ") + fn + ": shape.extent is NULL");
  for (int32_t d = 0; d < s.ndim; ++d)
    if (s.extent[d] < 0)
      return InvalidArgument(std::string("cuda ") + fn + ": shape.extent[" + Str(d) + "] is " +
                             Str(s.extent[d]));
  if (item <= 0) return InvalidArgument(std::string("cuda ") + fn + ": item is " + Str(item));
  return Status::Ok();
}

template <class R>
Status CheckOperand(const char* fn, const char* name, const R& r, int32_t ndim) {
  if (r.data != nullptr && (ndim == 0 || r.stride != nullptr)) return Status::Ok();
  return InvalidArgument(std::string("cuda ") + fn + ": " + name +
                         (r.data == nullptr ? ".data" : ".stride") + " is NULL");
}

// The cells of `shape` with strides a (and b) in bytes: dims of one cell dropped, dims that
// continue the next inner one in both operands merged, so that a contiguous region is one dim.
Cells Normalize(const Shape& s, const int64_t* a, const int64_t* b, int64_t item) {
  // Built innermost first: each dim either continues the last one kept (its stride is that
  // dim's whole span in both operands) or starts a new one.
  Cells r;
  for (int32_t d = s.ndim - 1; d >= 0; --d) {
    if (s.extent[d] == 1) continue;
    const int64_t sa = a[d] * item, sb = (b ? b[d] : a[d]) * item;
    const int32_t k = r.ndim - 1;
    if (k >= 0 && sa == r.a[k] * r.extent[k] && sb == r.b[k] * r.extent[k]) {
      r.extent[k] *= s.extent[d];
      continue;
    }
    r.extent[r.ndim] = s.extent[d];
    r.a[r.ndim] = sa;
    r.b[r.ndim] = sb;
    ++r.ndim;
  }
  for (int32_t i = 0, j = r.ndim - 1; i < j; ++i, --j) {  // outermost first again
    std::swap(r.extent[i], r.extent[j]);
    std::swap(r.a[i], r.a[j]);
    std::swap(r.b[i], r.b[j]);
  }
  return r;
}

// The runtime's copy engines where the cells allow: one cudaMemcpyAsync for a contiguous
// region, cudaMemcpy2DAsync for contiguous rows. kNeedsKernel where they do not.
constexpr int kNeedsKernel = -1;
int CopyEngine(const Cells& c, int64_t item, char* dst, const char* src, cudaStream_t s) {
  if (c.ndim == 0 || (c.ndim == 1 && c.a[0] == item && c.b[0] == item)) {
    const int64_t n = c.ndim == 0 ? 1 : c.extent[0];
    return cudaMemcpyAsync(dst, src, static_cast<size_t>(n * item), weft::cuda::kMemcpyDefault, s);
  }
  const int64_t width = c.ndim == 2 ? c.extent[1] * item : 0;
  if (c.ndim == 2 && c.a[1] == item && c.b[1] == item && c.a[0] >= width && c.b[0] >= width)
    return cudaMemcpy2DAsync(dst, static_cast<size_t>(c.a[0]), src, static_cast<size_t>(c.b[0]),
                             static_cast<size_t>(width), static_cast<size_t>(c.extent[0]),
                             weft::cuda::kMemcpyDefault, s);
  return kNeedsKernel;
}

}  // namespace

CudaOps& CudaOps::Get() {
  static CudaOps ops;
  return ops;
}

Result<void*> CudaOps::Allocate(const Target& t, size_t bytes) {
  WEFT_RETURN_IF_ERROR(UseDevice("Allocate", t));
  void* p = nullptr;
  const int e = cudaMallocAsync(&p, bytes ? bytes : 1, static_cast<cudaStream_t>(t.stream));
  if (e != weft::cuda::kSuccess) {
    cudaGetLastError();
    return Status(Code::kOutOfMemory, "cuda Allocate: cudaMallocAsync of " + std::to_string(bytes) +
                                          " bytes: " + cudaGetErrorString(e) + " (" + Str(e) + ")");
  }
  return p;
}

void CudaOps::Free(const Target& t, void* p, size_t) noexcept {
  if (p == nullptr || !UseDevice("Free", t).ok()) return;
  if (cudaFreeAsync(p, static_cast<cudaStream_t>(t.stream)) != weft::cuda::kSuccess)
    cudaGetLastError();
}

Status CudaOps::Copy(const Target& t, const Region& dst, const ConstRegion& src, const Shape& shape,
                     int64_t item) {
  WEFT_RETURN_IF_ERROR(CheckShape("Copy", shape, item));
  if (shape.Empty()) return Status::Ok();
  WEFT_RETURN_IF_ERROR(CheckOperand("Copy", "dst", dst, shape.ndim));
  WEFT_RETURN_IF_ERROR(CheckOperand("Copy", "src", src, shape.ndim));
  WEFT_RETURN_IF_ERROR(UseDevice("Copy", t));
  const Cells c = Normalize(shape, dst.stride, src.stride, item);
  if (const int e = CopyEngine(c, item, dst.data, src.data, static_cast<cudaStream_t>(t.stream));
      e != kNeedsKernel)
    return e == weft::cuda::kSuccess ? Status::Ok() : RuntimeError("Copy", "cudaMemcpy*Async", e);
  const int e = LaunchCopy(t.stream, dst.data, src.data, c, item);
  return e == weft::cuda::kSuccess ? Status::Ok() : RuntimeError("Copy", KernelBuild(), e);
}

Status CudaOps::Fill(const Target& t, const Region& dst, const Shape& shape, const void* element,
                     int64_t item) {
  WEFT_RETURN_IF_ERROR(CheckShape("Fill", shape, item));
  if (item > kMaxItemBytes)
    return InvalidArgument("cuda Fill: item is " + Str(item) + " bytes, more than " +
                           Str(kMaxItemBytes));
  if (shape.Empty()) return Status::Ok();
  WEFT_RETURN_IF_ERROR(CheckOperand("Fill", "dst", dst, shape.ndim));
  if (element == nullptr) return InvalidArgument("cuda Fill: element is NULL");
  WEFT_RETURN_IF_ERROR(UseDevice("Fill", t));
  Element e{};
  std::memcpy(e.bytes, element, static_cast<size_t>(item));
  bool zero = true;
  for (int64_t k = 0; k < item; ++k) zero = zero && e.bytes[k] == 0;
  const Cells c = Normalize(shape, dst.stride, nullptr, item);
  if (zero && (c.ndim == 0 || (c.ndim == 1 && c.a[0] == item))) {
    const int64_t n = c.ndim == 0 ? 1 : c.extent[0];
    const int r = cudaMemsetAsync(dst.data, 0, static_cast<size_t>(n * item),
                                  static_cast<cudaStream_t>(t.stream));
    return r == weft::cuda::kSuccess ? Status::Ok() : RuntimeError("Fill", "cudaMemsetAsync", r);
  }
  const int r = LaunchFill(t.stream, dst.data, c, e, item);
  return r == weft::cuda::kSuccess ? Status::Ok() : RuntimeError("Fill", KernelBuild(), r);
}

Status CudaOps::Reduce(const Target& t, DType type, ReduceOp op, const Region& inout,
                       const ConstRegion& in, const Shape& shape) {
  const int64_t item = ItemSize(type);
  WEFT_RETURN_IF_ERROR(host::detail::CheckElementOp("cuda Reduce", type, op));
  WEFT_RETURN_IF_ERROR(CheckShape("Reduce", shape, item));
  if (shape.Empty()) return Status::Ok();
  WEFT_RETURN_IF_ERROR(CheckOperand("Reduce", "inout", inout, shape.ndim));
  WEFT_RETURN_IF_ERROR(CheckOperand("Reduce", "in", in, shape.ndim));
  WEFT_RETURN_IF_ERROR(UseDevice("Reduce", t));
  // Destination dims get a thread each; dims where the destination repeats a cell are walked
  // inside the thread, in order.
  const Cells all = Normalize(shape, inout.stride, in.stride, item);
  ReduceCells rc;
  for (int32_t d = 0; d < all.ndim; ++d) {
    Cells& to = all.a[d] == 0 ? rc.repeat : rc.out;
    to.extent[to.ndim] = all.extent[d];
    to.a[to.ndim] = all.a[d];
    to.b[to.ndim] = all.b[d];
    ++to.ndim;
  }
  bool known = false;
  const int r = LaunchReduce(t.stream, type, op, inout.data, in.data, rc, &known);
  if (!known) return Internal("cuda Reduce: no element function for " + DTypeName(type));
  return r == weft::cuda::kSuccess ? Status::Ok() : RuntimeError("Reduce", KernelBuild(), r);
}

namespace {

// avg's lane format of t and its lanes per element, or an error naming the dtype.
Status AvgLanes(const char* fn, DType t, Lane* k, int64_t* per) {
  std::string why;
  if (!ReduceValidFor(ReduceOp::kAvg, t, &why))
    return InvalidArgument(std::string("cuda ") + fn + ": no avg for " + DTypeName(t) + ": " + why);
  *per = t.code == kCodeComplex ? 2 : 1;
  const int64_t bits = t.bits / *per;
  *k = bits == 64              ? Lane::kFloat64
       : bits == 32            ? Lane::kFloat32
       : t.code == kCodeBfloat ? Lane::kBfloat16
                               : Lane::kHalf;
  return Status::Ok();
}

}  // namespace

Status CudaOps::Widen(const Target& t, DType type, const void* src, void* acc, uint64_t count) {
  Lane k{};
  int64_t per = 1;
  WEFT_RETURN_IF_ERROR(AvgLanes("Widen", type, &k, &per));
  if (count == 0) return Status::Ok();
  if ((src == nullptr) || (acc == nullptr))
    return InvalidArgument("cuda Widen: src or acc is NULL");
  WEFT_RETURN_IF_ERROR(UseDevice("Widen", t));
  const auto lanes = static_cast<int64_t>(count) * per;
  if (k == Lane::kFloat64) {  // float64 and complex128 accumulate in themselves
    if (src == acc) return Status::Ok();
    const int e = cudaMemcpyAsync(acc, src, static_cast<size_t>(lanes * 8),
                                  weft::cuda::kMemcpyDefault, static_cast<cudaStream_t>(t.stream));
    return e == weft::cuda::kSuccess ? Status::Ok() : RuntimeError("Widen", "cudaMemcpyAsync", e);
  }
  const int e =
      LaunchWiden(t.stream, k, static_cast<const char*>(src), static_cast<double*>(acc), lanes);
  return e == weft::cuda::kSuccess ? Status::Ok() : RuntimeError("Widen", KernelBuild(), e);
}

Status CudaOps::Narrow(const Target& t, DType type, const void* acc, void* dst, uint64_t count,
                       int64_t divisor) {
  Lane k{};
  int64_t per = 1;
  WEFT_RETURN_IF_ERROR(AvgLanes("Narrow", type, &k, &per));
  if (divisor < 1 || divisor > (int64_t{1} << 53))
    return InvalidArgument("cuda Narrow: divisor " + Str(divisor) + " is outside [1, 2^53]");
  if (count == 0) return Status::Ok();
  if ((dst == nullptr) || (acc == nullptr))
    return InvalidArgument("cuda Narrow: acc or dst is NULL");
  WEFT_RETURN_IF_ERROR(UseDevice("Narrow", t));
  const int e = LaunchNarrow(t.stream, k, static_cast<const double*>(acc), static_cast<char*>(dst),
                             static_cast<int64_t>(count) * per, static_cast<double>(divisor));
  return e == weft::cuda::kSuccess ? Status::Ok() : RuntimeError("Narrow", KernelBuild(), e);
}

Status CudaOps::ToHost(const Target& t, void* host, const void* src, size_t bytes) {
  if (bytes == 0) return Status::Ok();
  if (host == nullptr || src == nullptr) return InvalidArgument("cuda ToHost: host or src is NULL");
  WEFT_RETURN_IF_ERROR(UseDevice("ToHost", t));
  // cudaMemcpyDefault: unified addressing tells the direction (and pinned from pageable).
  const int e = cudaMemcpyAsync(host, src, bytes, weft::cuda::kMemcpyDefault,
                                static_cast<cudaStream_t>(t.stream));
  return e == weft::cuda::kSuccess ? Status::Ok() : RuntimeError("ToHost", "cudaMemcpyAsync", e);
}

Status CudaOps::FromHost(const Target& t, void* dst, const void* host, size_t bytes) {
  if (bytes == 0) return Status::Ok();
  if (host == nullptr || dst == nullptr)
    return InvalidArgument("cuda FromHost: dst or host is NULL");
  WEFT_RETURN_IF_ERROR(UseDevice("FromHost", t));
  const int e = cudaMemcpyAsync(dst, host, bytes, weft::cuda::kMemcpyDefault,
                                static_cast<cudaStream_t>(t.stream));
  return e == weft::cuda::kSuccess ? Status::Ok() : RuntimeError("FromHost", "cudaMemcpyAsync", e);
}

Status CudaOps::Synchronize(const Target& t) {
  WEFT_RETURN_IF_ERROR(UseDevice("Synchronize", t));
  const int e = cudaStreamSynchronize(static_cast<cudaStream_t>(t.stream));
  return e == weft::cuda::kSuccess ? Status::Ok()
                                   : RuntimeError("Synchronize", "cudaStreamSynchronize", e);
}

}  // namespace weft::device::cuda
