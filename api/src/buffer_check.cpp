#include "api/src/buffer_check.hpp"

#include <string>

namespace weft::api {
namespace {
std::string Str(int64_t v) { return std::to_string(v); }
}  // namespace

Result<Buffer> CheckBuffer(const DLTensor* t, const char* name) {
  // The name becomes a string only on the error paths: this runs on every call.
  auto n = [name] { return std::string(name); };
  if (!t) return InvalidArgument(n() + " is NULL");
  Buffer b;
  b.dtype = DType{t->dtype.code, t->dtype.bits, t->dtype.lanes};
  if (!IsMovable(b.dtype))
    return InvalidArgument(n() + "->dtype " + DTypeName(b.dtype) +
                           " is not supported (whole bytes, one lane)");
  if (t->ndim < 0 || t->ndim > 32)
    return InvalidArgument(n() + "->ndim is " + Str(t->ndim) + " but must be 0..32");
  if (t->ndim > 0 && !t->shape) return InvalidArgument(n() + "->shape is NULL");
  int64_t numel = 1, expect_stride = 1;
  for (int32_t d = t->ndim - 1; d >= 0; --d) {
    if (t->shape[d] < 0)
      return InvalidArgument(n() + "->shape[" + Str(d) + "] is " + Str(t->shape[d]));
    if (t->strides && t->shape[d] > 1 && t->strides[d] != expect_stride)
      return InvalidArgument(n() + "->strides[" + Str(d) + "] is " + Str(t->strides[d]) +
                             " but collectives need a contiguous tensor (expected " +
                             Str(expect_stride) + ")");
    if (t->shape[d] != 0 && numel > INT64_MAX / 16 / t->shape[d])
      return InvalidArgument(n() + " has too many elements");
    numel *= t->shape[d];
    expect_stride *= t->shape[d];
  }
  b.numel = numel;
  if (!t->data && numel > 0) return InvalidArgument(n() + "->data is NULL");
  b.data = static_cast<char*>(t->data) + t->byte_offset;
  b.device = t->device;
  if (t->device.device_type != kDLCPU && t->device.device_type != kDLCUDAHost &&
      t->device.device_type != kDLCUDA)
    return Unsupported(n() + "->device.device_type is " + Str(t->device.device_type) +
                       ": Weft moves CPU, CUDA host and CUDA device memory");
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
