#include "api/src/buffer_check.hpp"

#include <string>

namespace weft::api {
namespace {
std::string Str(int64_t v) { return std::to_string(v); }

// Why `t` fails CheckBuffer's fast test below, naming the argument. Out of line and cold: the
// fast path runs on every call and stays a few dozen instructions without the message code.
[[gnu::cold, gnu::noinline]] Status BadBuffer(const DLTensor* t, const char* name) {
  const std::string n(name);
  if (!t) return InvalidArgument(n + " is NULL");
  const DType dtype{t->dtype.code, t->dtype.bits, t->dtype.lanes};
  if (!IsMovable(dtype))
    return InvalidArgument(n + "->dtype " + DTypeName(dtype) +
                           " is not supported (whole bytes, one lane)");
  if (t->ndim < 0 || t->ndim > 32)
    return InvalidArgument(n + "->ndim is " + Str(t->ndim) + " but must be 0..32");
  if (t->ndim > 0 && !t->shape) return InvalidArgument(n + "->shape is NULL");
  int64_t numel = 1, expect_stride = 1;
  for (int32_t d = t->ndim - 1; d >= 0; --d) {
    if (t->shape[d] < 0)
      return InvalidArgument(n + "->shape[" + Str(d) + "] is " + Str(t->shape[d]));
    if (t->strides && t->shape[d] > 1 && t->strides[d] != expect_stride)
      return InvalidArgument(n + "->strides[" + Str(d) + "] is " + Str(t->strides[d]) +
                             " but collectives need a contiguous tensor (expected " +
                             Str(expect_stride) + ")");
    if (t->shape[d] != 0 && numel > INT64_MAX / 16 / t->shape[d])
      return InvalidArgument(n + " has too many elements");
    numel *= t->shape[d];
    expect_stride *= t->shape[d];
  }
  if (!t->data && numel > 0) return InvalidArgument(n + "->data is NULL");
  return Unsupported(n + "->device.device_type is " + Str(t->device.device_type) +
                     ": Weft moves CPU, CUDA host and CUDA device memory");
}

}  // namespace

Result<Buffer> CheckBuffer(const DLTensor* t, const char* name) {
  // The fast test accepts exactly what BadBuffer does not reject; any doubt goes there.
  if (!t || t->ndim < 0 || t->ndim > 32 || (t->ndim > 0 && !t->shape)) return BadBuffer(t, name);
  const DType dtype{t->dtype.code, t->dtype.bits, t->dtype.lanes};
  if (!IsMovable(dtype)) return BadBuffer(t, name);
  // numel and the byte count (numel * 16 at most) must fit in int64.
  constexpr int64_t kMaxElements = INT64_MAX / 16;
  int64_t numel = 1, expect_stride = 1;
  for (int32_t d = t->ndim - 1; d >= 0; --d) {
    const int64_t extent = t->shape[d];
    if (extent < 0) return BadBuffer(t, name);
    if (t->strides && extent > 1 && t->strides[d] != expect_stride) return BadBuffer(t, name);
    int64_t product = 0;  // numel * extent > kMaxElements, without a division
    if (__builtin_mul_overflow(numel, extent, &product) || product > kMaxElements)
      return BadBuffer(t, name);
    numel = product;
    expect_stride *= extent;
  }
  if (!t->data && numel > 0) return BadBuffer(t, name);
  const auto type = t->device.device_type;
  if (type != kDLCPU && type != kDLCUDAHost && type != kDLCUDA) return BadBuffer(t, name);
  Buffer b;
  b.dtype = dtype;
  b.numel = numel;
  b.data = static_cast<char*>(t->data) + t->byte_offset;
  b.device = t->device;
  return b;
}

Status CheckNoOverlap(const Buffer& in, const char* in_name, const Buffer& out,
                      const char* out_name) {
  if (in.bytes() == 0 || out.bytes() == 0 || in.data == out.data) return Status::Ok();
  const bool disjoint = in.data + in.bytes() <= out.data || out.data + out.bytes() <= in.data;
  if (!disjoint)
    return InvalidArgument(std::string(in_name) + " and " + out_name +
                           " overlap without being the same buffer (in-place form)");
  return Status::Ok();
}

Status CheckSameType(const Buffer& a, const char* an, const Buffer& b, const char* bn) {
  if (!(a.dtype == b.dtype))
    return InvalidArgument(std::string(an) + " is " + DTypeName(a.dtype) + " but " + bn + " is " +
                           DTypeName(b.dtype));
  if (a.device.device_type != b.device.device_type || a.device.device_id != b.device.device_id)
    return InvalidArgument(std::string(an) + " and " + bn + " are on different devices");
  return Status::Ok();
}

}  // namespace weft::api
