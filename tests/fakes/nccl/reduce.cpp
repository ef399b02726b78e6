#include "tests/fakes/nccl/reduce.hpp"

#include <algorithm>
#include <cstdint>

#include "device/host/reduce/half_float.hpp"

namespace weft::fake_nccl {
namespace {

using device::host::detail::Bfloat16ToFloat;
using device::host::detail::FloatToBfloat16;
using device::host::detail::FloatToHalf;
using device::host::detail::HalfToFloat;

template <typename T>
T Apply(ncclRedOp_t op, T a, T b) {
  switch (op) {
    case nccl::kProd:
      return static_cast<T>(a * b);
    case nccl::kMax:
      return std::max(a, b);
    case nccl::kMin:
      return std::min(a, b);
    default:  // sum, and avg's sum
      return static_cast<T>(a + b);
  }
}

template <typename T>
void Loop(ncclRedOp_t op, void* acc, const void* in, size_t n) {
  T* a = static_cast<T*>(acc);
  const T* b = static_cast<const T*>(in);
  for (size_t i = 0; i < n; ++i) a[i] = Apply(op, a[i], b[i]);
}

template <float (*Widen)(uint16_t), uint16_t (*Narrow)(float)>
void Loop16(ncclRedOp_t op, void* acc, const void* in, size_t n) {
  uint16_t* a = static_cast<uint16_t*>(acc);
  const uint16_t* b = static_cast<const uint16_t*>(in);
  for (size_t i = 0; i < n; ++i) a[i] = Narrow(Apply(op, Widen(a[i]), Widen(b[i])));
}

}  // namespace

size_t TypeSize(ncclDataType_t type) {
  switch (type) {
    case nccl::kInt8:
    case nccl::kUint8:
    case nccl::kFloat8e4m3:
    case nccl::kFloat8e5m2:
      return 1;
    case nccl::kFloat16:
    case nccl::kBfloat16:
      return 2;
    case nccl::kInt32:
    case nccl::kUint32:
    case nccl::kFloat32:
      return 4;
    case nccl::kInt64:
    case nccl::kUint64:
    case nccl::kFloat64:
      return 8;
    default:
      return 0;
  }
}

bool CanReduce(ncclDataType_t type, ncclRedOp_t op) {
  return TypeSize(type) > 0 && type != nccl::kFloat8e4m3 && type != nccl::kFloat8e5m2 &&
         op >= nccl::kSum && op <= nccl::kAvg;
}

void Reduce(ncclDataType_t type, ncclRedOp_t op, void* acc, const void* in, size_t n) {
  switch (type) {
    case nccl::kInt8:
      return Loop<int8_t>(op, acc, in, n);
    case nccl::kUint8:
      return Loop<uint8_t>(op, acc, in, n);
    case nccl::kInt32:
      return Loop<int32_t>(op, acc, in, n);
    case nccl::kUint32:
      return Loop<uint32_t>(op, acc, in, n);
    case nccl::kInt64:
      return Loop<int64_t>(op, acc, in, n);
    case nccl::kUint64:
      return Loop<uint64_t>(op, acc, in, n);
    case nccl::kFloat16:
      return Loop16<HalfToFloat, FloatToHalf>(op, acc, in, n);
    case nccl::kBfloat16:
      return Loop16<Bfloat16ToFloat, FloatToBfloat16>(op, acc, in, n);
    case nccl::kFloat32:
      return Loop<float>(op, acc, in, n);
    case nccl::kFloat64:
      return Loop<double>(op, acc, in, n);
    default:
      return;
  }
}

namespace {

template <typename T>
void DivideLoop(void* acc, size_t count, int n) {
  T* a = static_cast<T*>(acc);
  for (size_t i = 0; i < count; ++i) a[i] = static_cast<T>(a[i] / static_cast<T>(n));
}

template <float (*Widen)(uint16_t), uint16_t (*Narrow)(float)>
void DivideLoop16(void* acc, size_t count, int n) {
  uint16_t* a = static_cast<uint16_t*>(acc);
  for (size_t i = 0; i < count; ++i) a[i] = Narrow(Widen(a[i]) / static_cast<float>(n));
}

}  // namespace

void Divide(ncclDataType_t type, void* acc, size_t count, int n) {
  switch (type) {
    case nccl::kInt8:
      return DivideLoop<int8_t>(acc, count, n);
    case nccl::kUint8:
      return DivideLoop<uint8_t>(acc, count, n);
    case nccl::kInt32:
      return DivideLoop<int32_t>(acc, count, n);
    case nccl::kUint32:
      return DivideLoop<uint32_t>(acc, count, n);
    case nccl::kInt64:
      return DivideLoop<int64_t>(acc, count, n);
    case nccl::kUint64:
      return DivideLoop<uint64_t>(acc, count, n);
    case nccl::kFloat16:
      return DivideLoop16<HalfToFloat, FloatToHalf>(acc, count, n);
    case nccl::kBfloat16:
      return DivideLoop16<Bfloat16ToFloat, FloatToBfloat16>(acc, count, n);
    case nccl::kFloat32:
      return DivideLoop<float>(acc, count, n);
    case nccl::kFloat64:
      return DivideLoop<double>(acc, count, n);
    default:
      return;
  }
}

}  // namespace weft::fake_nccl
