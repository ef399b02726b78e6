#include "device/host/host_ops.hpp"

#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>

#include "common/copy.hpp"
#include "device/host/reduce/reduce.hpp"
#include "device/host/reduce/reduce_args.hpp"
#include "device/host/row_walk.hpp"

namespace weft::device::host {
namespace {

using detail::ForEachRow;
using detail::Normalize;
using detail::Rows;

// Calls fn(std::integral_constant<int64_t, K>) with K = item for the common item sizes, so that
// the per-cell copies inline to plain moves, and K = 0 (size known only at run time) otherwise.
template <class Fn>
void WithItem(int64_t item, Fn&& fn) {
  switch (item) {
    case 1:
      return fn(std::integral_constant<int64_t, 1>{});
    case 2:
      return fn(std::integral_constant<int64_t, 2>{});
    case 4:
      return fn(std::integral_constant<int64_t, 4>{});
    case 8:
      return fn(std::integral_constant<int64_t, 8>{});
    case 16:
      return fn(std::integral_constant<int64_t, 16>{});
    default:
      return fn(std::integral_constant<int64_t, 0>{});
  }
}

std::string Str(int64_t v) { return std::to_string(v); }

[[gnu::cold]] Status OperationError(const char* fn, const Target& t, const Shape& s, int64_t item) {
  const std::string at = std::string("host ") + fn + ": ";
  if (t.stream != nullptr)
    return InvalidArgument(at + "host memory takes no stream, but stream is not NULL");
  if (s.ndim < 0 || s.ndim > kMaxDims)
    return InvalidArgument(at + "shape.ndim is " + Str(s.ndim) + ", outside [0, " + Str(kMaxDims) +
                           "]");
  if (s.ndim > 0 && s.extent == nullptr)
    return InvalidArgument(at + "shape.extent is NULL for " + Str(s.ndim) + " dims");
  for (int32_t d = 0; d < s.ndim; ++d)
    if (s.extent[d] < 0)
      return InvalidArgument(at + "shape.extent[" + Str(d) + "] is " + Str(s.extent[d]));
  return InvalidArgument(at + "item is " + Str(item) + " bytes");
}

// The checks every operation makes: one predictable branch when the arguments are good (the
// executors' hot path), the message built only when they are not.
Status CheckOperation(const char* fn, const Target& t, const Shape& s, int64_t item) {
  bool ok = t.stream == nullptr && s.ndim >= 0 && s.ndim <= kMaxDims && item > 0 &&
            (s.ndim == 0 || s.extent != nullptr);
  for (int32_t d = 0; ok && d < s.ndim; ++d) ok = s.extent[d] >= 0;
  if (ok) [[likely]]
    return Status::Ok();
  return OperationError(fn, t, s, item);
}

Status CheckTarget(const char* fn, const Target& t) {
  if (t.stream == nullptr) [[likely]]
    return Status::Ok();
  return OperationError(fn, t, Shape{}, 1);
}

[[gnu::cold]] Status OperandError(const char* fn, const char* name, bool no_data) {
  return InvalidArgument(std::string("host ") + fn + ": " + name +
                         (no_data ? ".data is NULL" : ".stride is NULL") +
                         " for a non-empty shape");
}

// An operand of a non-empty operation: its data, and strides for the shape's dims.
template <class R>
Status CheckOperand(const char* fn, const char* name, const R& r, int32_t ndim) {
  if (r.data != nullptr && (ndim == 0 || r.stride != nullptr)) [[likely]]
    return Status::Ok();
  return OperandError(fn, name, r.data == nullptr);
}

// One row of cells `ds` and `ss` bytes apart.
template <int64_t K>
void CopyCells(char* d, const char* s, int64_t n, int64_t ds, int64_t ss, int64_t item) {
  const auto size = static_cast<size_t>(K != 0 ? K : item);
  for (int64_t i = 0; i < n; ++i) std::memcpy(d + i * ds, s + i * ss, size);
}

template <int64_t K>
void FillCells(char* d, int64_t n, int64_t ds, const char* e, int64_t item) {
  const auto size = static_cast<size_t>(K != 0 ? K : item);
  for (int64_t i = 0; i < n; ++i) std::memcpy(d + i * ds, e, size);
}

// A contiguous row of n cells of a non-zero element: the first cell, then the filled prefix
// doubled (log2(n) memcpys) where the size is only known at run time.
template <int64_t K>
void FillRun(char* d, int64_t n, const char* e, int64_t item) {
  if constexpr (K != 0) {
    FillCells<K>(d, n, K, e, K);
  } else {
    const auto bytes = static_cast<size_t>(n * item);
    std::memcpy(d, e, static_cast<size_t>(item));
    for (size_t done = static_cast<size_t>(item); done < bytes;) {
      const size_t step = done < bytes - done ? done : bytes - done;
      std::memcpy(d + done, d, step);
      done += step;
    }
  }
}

}  // namespace

HostOps& HostOps::Get() {
  static HostOps ops;
  return ops;
}

Result<void*> HostOps::Allocate(const Target& t, size_t bytes) {
  WEFT_RETURN_IF_ERROR(CheckTarget("Allocate", t));
  void* p = bytes == 0 ? nullptr : std::malloc(bytes);
  if (p == nullptr)
    return Status(Code::kOutOfMemory,
                  "host Allocate: no memory for " + std::to_string(bytes) + " bytes");
  return p;
}

void HostOps::Free(const Target&, void* p, size_t) noexcept { std::free(p); }

Status HostOps::Copy(const Target& t, const Region& dst, const ConstRegion& src, const Shape& shape,
                     int64_t item) {
  WEFT_RETURN_IF_ERROR(CheckOperation("Copy", t, shape, item));
  if (shape.Empty()) return Status::Ok();
  WEFT_RETURN_IF_ERROR(CheckOperand("Copy", "dst", dst, shape.ndim));
  WEFT_RETURN_IF_ERROR(CheckOperand("Copy", "src", src, shape.ndim));
  const Rows<2> r = Normalize<2>(shape, {dst.stride, src.stride}, item);
  const int64_t ds = r.step(0, item), ss = r.step(1, item);
  if (ds == item && ss == item) {  // rows contiguous on both sides: memcpy each
    ForEachRow(r, [&](const std::array<int64_t, 2>& off, int64_t n) {
      CopyBytes(dst.data + off[0], src.data + off[1], static_cast<size_t>(n * item));
    });
    return Status::Ok();
  }
  WithItem(item, [&](auto k) {
    ForEachRow(r, [&](const std::array<int64_t, 2>& off, int64_t n) {
      CopyCells<decltype(k)::value>(dst.data + off[0], src.data + off[1], n, ds, ss, item);
    });
  });
  return Status::Ok();
}

Status HostOps::Fill(const Target& t, const Region& dst, const Shape& shape, const void* element,
                     int64_t item) {
  WEFT_RETURN_IF_ERROR(CheckOperation("Fill", t, shape, item));
  if (item > kMaxItemBytes)
    return InvalidArgument("host Fill: item is " + Str(item) + " bytes, more than " +
                           Str(kMaxItemBytes));
  if (shape.Empty()) return Status::Ok();
  WEFT_RETURN_IF_ERROR(CheckOperand("Fill", "dst", dst, shape.ndim));
  if (element == nullptr) return InvalidArgument("host Fill: element is NULL");
  const auto* e = static_cast<const char*>(element);
  bool zero = true;  // all-zero elements (zeros, +0.0) on contiguous rows: one memset a row
  for (int64_t b = 0; b < item; ++b) zero = zero && e[b] == 0;
  const Rows<1> r = Normalize<1>(shape, {dst.stride}, item);
  const int64_t ds = r.step(0, item);
  WithItem(item, [&](auto k) {
    constexpr int64_t K = decltype(k)::value;
    ForEachRow(r, [&](const std::array<int64_t, 1>& off, int64_t n) {
      char* d = dst.data + off[0];
      if (ds != item)
        FillCells<K>(d, n, ds, e, item);
      else if (zero)
        std::memset(d, 0, static_cast<size_t>(n * item));
      else
        FillRun<K>(d, n, e, item);
    });
  });
  return Status::Ok();
}

Status HostOps::Reduce(const Target& t, DType type, ReduceOp op, const Region& inout,
                       const ConstRegion& in, const Shape& shape) {
  const int64_t item = ItemSize(type);
  WEFT_RETURN_IF_ERROR(detail::CheckElementOp("host Reduce", type, op));
  WEFT_RETURN_IF_ERROR(CheckOperation("Reduce", t, shape, item));
  if (shape.Empty()) return Status::Ok();
  WEFT_RETURN_IF_ERROR(CheckOperand("Reduce", "inout", inout, shape.ndim));
  WEFT_RETURN_IF_ERROR(CheckOperand("Reduce", "in", in, shape.ndim));
  const Rows<2> r = Normalize<2>(shape, {inout.stride, in.stride}, item);
  const int64_t os = r.step(0, item), is = r.step(1, item);
  Status st;
  if (os == item && is == item) {  // contiguous rows: the checked kernel entry, a row at a time
    ForEachRow(r, [&](const std::array<int64_t, 2>& off, int64_t n) {
      if (st.ok())
        st = ReduceInto(type, op, inout.data + off[0], in.data + off[1], static_cast<uint64_t>(n));
    });
    return st;
  }
  // Cell by cell (strided, or inout repeating a cell), in order, through the bare kernel.
  const DirectReduceFn kernel = ReduceKernel(type, op);
  if (kernel == nullptr) return Internal("host Reduce: no kernel for " + DTypeName(type));
  ForEachRow(r, [&](const std::array<int64_t, 2>& off, int64_t n) {
    char* o = inout.data + off[0];
    const char* f = in.data + off[1];
    for (int64_t i = 0; i < n; ++i) kernel(o + i * os, f + i * is, 1);
  });
  return Status::Ok();
}

Status HostOps::Widen(const Target& t, DType type, const void* src, void* acc, uint64_t count) {
  WEFT_RETURN_IF_ERROR(CheckTarget("Widen", t));
  return WidenToAccumulator(type, src, acc, count);
}

Status HostOps::Narrow(const Target& t, DType type, const void* acc, void* dst, uint64_t count,
                       int64_t divisor) {
  WEFT_RETURN_IF_ERROR(CheckTarget("Narrow", t));
  return NarrowFromAccumulatorDividing(type, acc, dst, count, divisor);
}

Status HostOps::ToHost(const Target& t, void* host, const void* src, size_t bytes) {
  WEFT_RETURN_IF_ERROR(CheckTarget("ToHost", t));
  if (bytes > 0 && (host == nullptr || src == nullptr))
    return InvalidArgument("host ToHost: host or src is NULL");
  if (bytes > 0) std::memcpy(host, src, bytes);
  return Status::Ok();
}

Status HostOps::FromHost(const Target& t, void* dst, const void* host, size_t bytes) {
  return ToHost(t, dst, host, bytes);
}

Status HostOps::Synchronize(const Target& t) { return CheckTarget("Synchronize", t); }

}  // namespace weft::device::host
