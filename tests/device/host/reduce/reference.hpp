// Independent reference arithmetic for the reduction kernel tests. Nothing here shares code
// with device/host/reduce: floating values are decoded and encoded from their IEEE fields with
// ldexp/frexp, computed in long double (exact for sums and products of float32 and narrower),
// and rounded by scaling to an integer with nearbyintl (ties-to-even in the default mode).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace weft::device::host::test {

// A binary floating format: precision p (with the implicit bit), exponent field width.
struct Format {
  int p;
  int ebits;
  int Bias() const { return (1 << (ebits - 1)) - 1; }
  int Emin() const { return 1 - Bias(); }
  int Emax() const { return Bias(); }
  uint64_t ExpAll() const { return (uint64_t{1} << ebits) - 1; }
  int Width() const { return p + ebits; }  // sign + exponent + (p-1) fraction bits
};
inline constexpr Format kHalfFmt{11, 5};
inline constexpr Format kBf16Fmt{8, 8};
inline constexpr Format kF32Fmt{24, 8};

// The value of a bit pattern of format f, NaN for NaNs.
inline long double Decode(uint64_t bits, Format f) {
  const int frac_bits = f.p - 1;
  const bool neg = (bits >> (f.Width() - 1)) & 1;
  const uint64_t field = (bits >> frac_bits) & f.ExpAll();
  const uint64_t frac = bits & ((uint64_t{1} << frac_bits) - 1);
  long double v;
  if (field == f.ExpAll()) {
    v = frac == 0 ? INFINITY : NAN;
  } else if (field == 0) {
    v = std::ldexp(static_cast<long double>(frac), f.Emin() - frac_bits);
  } else {
    v = std::ldexp(static_cast<long double>(frac + (uint64_t{1} << frac_bits)),
                   static_cast<int>(field) - f.Bias() - frac_bits);
  }
  return neg ? -v : v;
}

// Rounds v to format f, nearest-even, with subnormals and overflow to +-inf.
inline long double RoundTo(long double v, Format f) {
  if (v == 0 || std::isnan(v) || std::isinf(v)) return v;
  int e = 0;
  std::frexp(v, &e);  // |v| in [2^(e-1), 2^e)
  const int lead = e - 1 > f.Emin() ? e - 1 : f.Emin();
  const int quantum = lead - (f.p - 1);
  const long double r = std::ldexp(std::nearbyint(std::ldexp(v, -quantum)), quantum);
  const long double max_finite = std::ldexp(2.0L - std::ldexp(1.0L, 1 - f.p), f.Emax());
  if (std::fabs(r) > max_finite) return std::copysign(static_cast<long double>(INFINITY), v);
  return r;
}

// The bit pattern of v, which must be representable in f (NaN gives the canonical quiet NaN).
inline uint64_t Encode(long double v, Format f) {
  const int frac_bits = f.p - 1;
  const uint64_t sign = std::signbit(v) ? uint64_t{1} << (f.Width() - 1) : 0;
  const uint64_t inf = f.ExpAll() << frac_bits;
  if (std::isnan(v)) return inf | (uint64_t{1} << (frac_bits - 1));
  const long double a = std::fabs(v);
  if (std::isinf(a)) return sign | inf;
  if (a == 0) return sign;
  int e = 0;
  std::frexp(a, &e);
  if (e - 1 < f.Emin()) {
    return sign | static_cast<uint64_t>(std::ldexp(a, frac_bits - f.Emin()));
  }
  const auto sig = static_cast<uint64_t>(std::ldexp(a, frac_bits - (e - 1)));
  const auto field = static_cast<uint64_t>(e - 1 + f.Bias());
  return sign | (field << frac_bits) | (sig - (uint64_t{1} << frac_bits));
}

inline bool IsNaNBits(uint64_t bits, Format f) { return std::isnan(Decode(bits, f)); }

// max/min as documented: NaN wins, max(-0, +0) = +0, min(-0, +0) = -0.
inline long double RefMax(long double a, long double b) {
  if (std::isnan(a) || std::isnan(b)) return NAN;
  if (a == 0 && b == 0) return (std::signbit(a) && std::signbit(b)) ? -0.0L : 0.0L;
  return a > b ? a : b;
}
inline long double RefMin(long double a, long double b) {
  if (std::isnan(a) || std::isnan(b)) return NAN;
  if (a == 0 && b == 0) return (std::signbit(a) || std::signbit(b)) ? -0.0L : 0.0L;
  return a < b ? a : b;
}

template <class T>
T Load(const void* p, uint64_t i) {
  T v;
  std::memcpy(&v, static_cast<const unsigned char*>(p) + i * sizeof(T), sizeof(T));
  return v;
}
template <class T>
void Store(void* p, uint64_t i, T v) {
  std::memcpy(static_cast<unsigned char*>(p) + i * sizeof(T), &v, sizeof(T));
}

}  // namespace weft::device::host::test
