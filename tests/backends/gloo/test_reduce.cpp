#include <algorithm>
#include <cstring>

#include "tests/backends/gloo/test_host.hpp"

namespace weft::test {
namespace {

template <typename T>
T Apply(int32_t op, T a, T b) {
  switch (op) {
    case WEFT_REDUCE_SUM:
      return a + b;
    case WEFT_REDUCE_MAX:
      return std::max(a, b);
    case WEFT_REDUCE_MIN:
      return std::min(a, b);
    default:
      return a * b;
  }
}

template <typename T>
void ReduceAs(int32_t op, void* inout, const void* in, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) {
    T a, b;
    std::memcpy(&a, static_cast<char*>(inout) + i * sizeof(T), sizeof(T));
    std::memcpy(&b, static_cast<const char*>(in) + i * sizeof(T), sizeof(T));
    a = Apply(op, a, b);
    std::memcpy(static_cast<char*>(inout) + i * sizeof(T), &a, sizeof(T));
  }
}

void ReduceHalf(int32_t op, void* inout, const void* in, uint64_t n) {
  auto* out = static_cast<uint16_t*>(inout);
  const auto* src = static_cast<const uint16_t*>(in);
  for (uint64_t i = 0; i < n; ++i) {
    out[i] = FloatToHalf(Apply(op, HalfToFloat(out[i]), HalfToFloat(src[i])));
  }
}

}  // namespace

uint16_t FloatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000;
  const int32_t exp = static_cast<int32_t>((x >> 23) & 0xff) - 127 + 15;
  const uint32_t mant = (x >> 13) & 0x3ff;  // truncates: exact for small integers
  if ((x & 0x7fffffff) == 0) return static_cast<uint16_t>(sign);
  return static_cast<uint16_t>(sign | (static_cast<uint32_t>(exp) << 10) | mant);
}

float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  const uint32_t exp = (h >> 10) & 0x1f;
  const uint32_t mant = h & 0x3ff;
  const uint32_t x = exp == 0 ? sign : sign | ((exp - 15 + 127) << 23) | (mant << 13);
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

weft_status_t TestReduce(DLDataType t, int32_t op, void* inout, const void* in, uint64_t n) {
  if (t.lanes != 1) return WEFT_ERR_UNSUPPORTED;
  if (t.code == kDLFloat && t.bits == 16) return ReduceHalf(op, inout, in, n), WEFT_OK;
  if (t.code == kDLFloat && t.bits == 32) return ReduceAs<float>(op, inout, in, n), WEFT_OK;
  if (t.code == kDLFloat && t.bits == 64) return ReduceAs<double>(op, inout, in, n), WEFT_OK;
  if (t.code == kDLInt && t.bits == 32) return ReduceAs<int32_t>(op, inout, in, n), WEFT_OK;
  if (t.code == kDLComplex && t.bits == 128 && op == WEFT_REDUCE_SUM) {
    return ReduceAs<double>(op, inout, in, 2 * n), WEFT_OK;  // (re, im) pairs add per part
  }
  return WEFT_ERR_UNSUPPORTED;
}

}  // namespace weft::test
