#include "device/element.hpp"

#include <cmath>
#include <complex>
#include <cstring>

#include "device/host/reduce/half_float.hpp"
#include "device/host/reduce/reduce.hpp"

namespace weft::device {

Result<Element> IdentityElement(DType t, ReduceOp op) {
  Element e{};
  if (ItemSize(t) > kMaxItemBytes)
    return InvalidArgument("IdentityElement: " + DTypeName(t) + " is wider than " +
                           std::to_string(kMaxItemBytes) + " bytes");
  WEFT_RETURN_IF_ERROR(host::FillIdentity(t, op, e.data(), 1));
  return e;
}

Element ElementOf(DType t, double v) {
  Element e{};
  auto put = [&e](auto x) { std::memcpy(e.data(), &x, sizeof(x)); };
  switch (t.code) {
    case kCodeFloat:
      if (t.bits == 16)
        put(host::detail::FloatToHalf(static_cast<float>(v)));
      else if (t.bits == 32)
        put(static_cast<float>(v));
      else if (t.bits == 64)
        put(v);
      break;
    case kCodeBfloat:
      if (t.bits == 16) put(host::detail::FloatToBfloat16(static_cast<float>(v)));
      break;
    case kCodeComplex:
      if (t.bits == 64)
        put(std::complex<float>(static_cast<float>(v), 0.f));
      else if (t.bits == 128)
        put(std::complex<double>(v, 0.0));
      break;
    case kCodeBool:
      e[0] = v != 0 ? 1 : 0;
      break;
    case kCodeInt:
    case kCodeUInt: {
      // Truncate toward zero, then wrap to the width (two's complement), as a C cast through
      // int64 would for values in range; out-of-range doubles saturate to int64 first.
      const double c = std::trunc(v);
      const int64_t i = c >= 9.2e18    ? INT64_MAX
                        : c <= -9.2e18 ? INT64_MIN
                                       : static_cast<int64_t>(c);
      const auto bytes = std::min<size_t>(sizeof(i), static_cast<size_t>(t.bits / 8));
      std::memcpy(e.data(), &i, bytes);  // little-endian low bytes
      break;
    }
    default:
      break;
  }
  return e;
}

DType AccumulatorType(DType t) { return host::AvgAccumulatorType(t); }

}  // namespace weft::device
