// Closed-form test values and their encodings for every dtype, written independently of
// Weft's reduction kernels: each rank fills its buffers from (rank, index) and checks results
// against a formula computed here in double precision.
#pragma once

#include <dlpack/dlpack.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace conformance {

struct Type {
  const char* name;
  DLDataType dl;
  bool is_float, is_complex, is_bool, is_signed;
  int bytes() const { return dl.bits / 8; }
};

inline const std::vector<Type>& AllTypes() {
  static const std::vector<Type> types = {
      {"int8", {kDLInt, 8, 1}, false, false, false, true},
      {"int16", {kDLInt, 16, 1}, false, false, false, true},
      {"int32", {kDLInt, 32, 1}, false, false, false, true},
      {"int64", {kDLInt, 64, 1}, false, false, false, true},
      {"uint8", {kDLUInt, 8, 1}, false, false, false, false},
      {"uint16", {kDLUInt, 16, 1}, false, false, false, false},
      {"uint32", {kDLUInt, 32, 1}, false, false, false, false},
      {"uint64", {kDLUInt, 64, 1}, false, false, false, false},
      {"float16", {kDLFloat, 16, 1}, true, false, false, true},
      {"bfloat16", {kDLBfloat, 16, 1}, true, false, false, true},
      {"float32", {kDLFloat, 32, 1}, true, false, false, true},
      {"float64", {kDLFloat, 64, 1}, true, false, false, true},
      {"complex64", {kDLComplex, 64, 1}, true, true, false, true},
      {"complex128", {kDLComplex, 128, 1}, true, true, false, true},
      {"bool", {6, 8, 1}, false, false, true, false},
  };
  return types;
}

// float -> IEEE half, round to nearest even (inputs here are small and exact or need one
// rounding; handles normal and subnormal results).
inline uint16_t ToHalf(double d) {
  float f = static_cast<float>(d);
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000;
  const int exp = static_cast<int>((x >> 23) & 0xff) - 127 + 15;
  uint32_t mant = x & 0x7fffff;
  if ((x & 0x7fffffff) == 0) return static_cast<uint16_t>(sign);
  if (exp >= 31) return static_cast<uint16_t>(sign | 0x7c00);
  if (exp <= 0) {  // subnormal half
    mant |= 0x800000;
    const int shift = 14 - exp;
    uint32_t h = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1))) ++h;
    return static_cast<uint16_t>(sign | h);
  }
  uint32_t h = (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
  const uint32_t rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (h & 1))) ++h;
  return static_cast<uint16_t>(sign | h);
}

inline uint16_t ToBf16(double d) {
  float f = static_cast<float>(d);
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t lsb = (x >> 16) & 1;
  x += 0x7fff + lsb;
  return static_cast<uint16_t>(x >> 16);
}

// Writes the value (re, im) of type t at p. Integers wrap modulo 2^bits (two's complement).
inline void Encode(const Type& t, void* p, double re, double im = 0) {
  if (t.is_bool) {
    *static_cast<uint8_t*>(p) = re != 0 ? 1 : 0;
  } else if (!t.is_float) {
    const uint64_t v = static_cast<uint64_t>(static_cast<int64_t>(re));
    std::memcpy(p, &v, t.bytes());  // little-endian low bytes = value mod 2^bits
  } else if (t.is_complex && t.dl.bits == 64) {
    const float v[2] = {static_cast<float>(re), static_cast<float>(im)};
    std::memcpy(p, v, 8);
  } else if (t.is_complex) {
    const double v[2] = {re, im};
    std::memcpy(p, v, 16);
  } else if (t.dl.code == kDLBfloat) {
    const uint16_t v = ToBf16(re);
    std::memcpy(p, &v, 2);
  } else if (t.dl.bits == 16) {
    const uint16_t v = ToHalf(re);
    std::memcpy(p, &v, 2);
  } else if (t.dl.bits == 32) {
    const float v = static_cast<float>(re);
    std::memcpy(p, &v, 4);
  } else {
    std::memcpy(p, &re, 8);
  }
}

inline std::vector<char> EncodeOne(const Type& t, double re, double im = 0) {
  std::vector<char> b(t.bytes());
  Encode(t, b.data(), re, im);
  return b;
}

}  // namespace conformance
