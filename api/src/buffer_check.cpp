#include "api/src/buffer_check.hpp"

#include <string>

#include "api/src/byte_range.hpp"

namespace weft::api {
namespace {
std::string Str(int64_t v) { return std::to_string(v); }

// What CheckBuffer found wrong.
enum class Flaw { kNull, kDtype, kNdim, kShapeNull, kExtent, kStride, kTooMany, kData, kDevice };

// The message for `flaw` in `t` (at dim d, where stride `expect` was due), naming the argument.
// Out of line and cold: CheckBuffer runs on every call, and stays a few dozen instructions
// without the code that builds messages.
[[gnu::cold, gnu::noinline]] Status Explain(Flaw flaw, const DLTensor* t, const char* name,
                                            int32_t d = 0, int64_t expect = 0) {
  const std::string n(name);
  switch (flaw) {
    case Flaw::kNull:
      return InvalidArgument(n + " is NULL");
    case Flaw::kDtype:
      return InvalidArgument(n + "->dtype " +
                             DTypeName(DType{t->dtype.code, t->dtype.bits, t->dtype.lanes}) +
                             " is not supported (whole bytes, one lane)");
    case Flaw::kNdim:
      return InvalidArgument(n + "->ndim is " + Str(t->ndim) + " but must be 0..32");
    case Flaw::kShapeNull:
      return InvalidArgument(n + "->shape is NULL");
    case Flaw::kExtent:
      return InvalidArgument(n + "->shape[" + Str(d) + "] is " + Str(t->shape[d]));
    case Flaw::kStride:
      return InvalidArgument(n + "->strides[" + Str(d) + "] is " + Str(t->strides[d]) +
                             " but collectives need a contiguous tensor (expected " + Str(expect) +
                             ")");
    case Flaw::kTooMany:
      return InvalidArgument(n + " has too many elements");
    case Flaw::kData:
      return InvalidArgument(n + "->data is NULL");
    case Flaw::kDevice:
      break;
  }
  return Unsupported(n + "->device.device_type is " + Str(t->device.device_type) +
                     ": Weft moves CPU, CUDA host and CUDA device memory");
}

}  // namespace

Result<Buffer> CheckBuffer(const DLTensor* t, const char* name) {
  if (!t) return Explain(Flaw::kNull, t, name);
  const DType dtype{t->dtype.code, t->dtype.bits, t->dtype.lanes};
  if (!IsMovable(dtype)) return Explain(Flaw::kDtype, t, name);
  if (t->ndim < 0 || t->ndim > 32) return Explain(Flaw::kNdim, t, name);
  if (t->ndim > 0 && !t->shape) return Explain(Flaw::kShapeNull, t, name);
  // numel and the byte count (numel * 16 at most) must fit in int64.
  constexpr int64_t kMaxElements = INT64_MAX / 16;
  int64_t numel = 1, expect_stride = 1;
  for (int32_t d = t->ndim - 1; d >= 0; --d) {
    const int64_t extent = t->shape[d];
    if (extent < 0) return Explain(Flaw::kExtent, t, name, d);
    if (t->strides && extent > 1 && t->strides[d] != expect_stride)
      return Explain(Flaw::kStride, t, name, d, expect_stride);
    int64_t product = 0;  // numel * extent > kMaxElements, without a division
    if (__builtin_mul_overflow(numel, extent, &product) || product > kMaxElements)
      return Explain(Flaw::kTooMany, t, name);
    numel = product;
    expect_stride *= extent;
  }
  if (!t->data && numel > 0) return Explain(Flaw::kData, t, name);
  const auto type = t->device.device_type;
  if (type != kDLCPU && type != kDLCUDAHost && type != kDLCUDA)
    return Explain(Flaw::kDevice, t, name);
  Buffer b;
  b.dtype = dtype;
  b.numel = numel;
  b.device = t->device;
  b.data = static_cast<char*>(t->data);  // an empty buffer touches nothing: no offset to check
  // At most 2^59 elements of at most 31 bytes: the byte count fits in 64 bits.
  if (numel > 0) {
    if (!ByteRangeOk(t, b.bytes())) return ByteRangeError(t, name, b.bytes());
    b.data += t->byte_offset;
  }
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
