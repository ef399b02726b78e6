// Per-element reduction functors. Each names its storage lane type (`Lane`), how many lanes
// make one element (`kLanes`), the value it computes on (`Value`) and `Apply(a, b)`. They are
// branch-free selects so that the loops in reduce_loops.hpp vectorize.
#pragma once

#include "device/hd.hpp"

#include <cstdint>
#include <type_traits>

#include "device/host/reduce/half_float.hpp"

namespace weft::device::host::detail {

template <class T>
struct OneLane {
  using Lane = T;
  using Value = T;
  static constexpr int kLanes = 1;
};

// Integer sum/prod wrap modulo 2^bits: compute in an unsigned type at least as wide as
// `unsigned`, since uint8/uint16 operands would otherwise be promoted to (signed) int and
// 65535 * 65535 would overflow it.
template <class T>
using WrapType =
    std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

template <class T>
struct SumFn : OneLane<T> {
  WEFT_HD static T Apply(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(static_cast<WrapType<T>>(a) + static_cast<WrapType<T>>(b));
    } else {
      return a + b;
    }
  }
};

template <class T>
struct ProdFn : OneLane<T> {
  WEFT_HD static T Apply(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(static_cast<WrapType<T>>(a) * static_cast<WrapType<T>>(b));
    } else {
      return a * b;
    }
  }
};

// Floating max/min: an ordered pair picks the larger/smaller. Otherwise the operands are
// equal or unordered: equal non-zero values are the same value; for zeros and NaNs the
// arithmetic `tie` gives +0.0 for max(-0, +0), -0.0 for min, and NaN when either is NaN.
template <class T>
struct MaxFn : OneLane<T> {
  WEFT_HD static T Apply(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
      return a > b ? a : b;
    } else {
      const T tie = ((a == b) & (a != 0)) ? a : a + b;
      return a > b ? a : (b > a ? b : tie);
    }
  }
};

template <class T>
struct MinFn : OneLane<T> {
  WEFT_HD static T Apply(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
      return a < b ? a : b;
    } else {
      const T tie = ((a == b) & (a != 0)) ? a : -(-a - b);
      return a < b ? a : (b < a ? b : tie);
    }
  }
};

// bool: any non-zero byte is true; results are 0 or 1.
struct OrFn : OneLane<uint8_t> {
  WEFT_HD static uint8_t Apply(uint8_t a, uint8_t b) { return static_cast<uint8_t>((a | b) != 0); }
};
struct AndFn : OneLane<uint8_t> {
  WEFT_HD static uint8_t Apply(uint8_t a, uint8_t b) {
    return static_cast<uint8_t>((a != 0) & (b != 0));
  }
};

struct HalfCodec {
  WEFT_HD static float Widen(uint16_t v) { return HalfToFloat(v); }
  WEFT_HD static uint16_t Narrow(float f) { return FloatToHalf(f); }
};
struct Bfloat16Codec {
  WEFT_HD static float Widen(uint16_t v) { return Bfloat16ToFloat(v); }
  WEFT_HD static uint16_t Narrow(float f) { return FloatToBfloat16(f); }
};

// A 16-bit floating type computed in float32 and rounded once.
template <class Codec, template <class> class Fn>
struct Via32Fn : OneLane<uint16_t> {
  WEFT_HD static uint16_t Apply(uint16_t a, uint16_t b) {
    return Codec::Narrow(Fn<float>::Apply(Codec::Widen(a), Codec::Widen(b)));
  }
};

template <class T>
struct Complex {
  T re;
  T im;
};

// (a+bi)(c+di) by the textbook formula, each operation rounded (SPEC §2.4).
template <class T>
struct ComplexProdFn {
  using Lane = T;
  using Value = Complex<T>;
  static constexpr int kLanes = 2;
  WEFT_HD static Value Apply(Value x, Value y) {
    return {x.re * y.re - x.im * y.im, x.re * y.im + x.im * y.re};
  }
};

}  // namespace weft::device::host::detail
