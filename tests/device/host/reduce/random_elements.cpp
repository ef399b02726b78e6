// Test inputs: random bit patterns (every class of value, including NaN payloads and
// subnormals), small integers (so that sums and products stay ordinary), and special values.
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "tests/device/host/reduce/reference.hpp"
#include "tests/device/host/reduce/reference_ops.hpp"

namespace weft::device::host::test {

namespace {

// Special lane values of a floating format with `ebits` exponent and `p` precision bits.
std::vector<uint64_t> FloatSpecials(Format f) {
  const int frac = f.p - 1;
  const uint64_t sign = uint64_t{1} << (f.Width() - 1);
  const uint64_t inf = f.ExpAll() << frac;
  const uint64_t qnan = inf | (uint64_t{1} << (frac - 1)) | 1;
  const uint64_t max = inf - 1;
  const uint64_t one = static_cast<uint64_t>(f.Bias()) << frac;
  return {0,
          sign,
          inf,
          sign | inf,
          qnan,
          sign | qnan,
          max,
          sign | max,
          1,
          sign | 1,
          one,
          sign | one,
          (uint64_t{1} << frac) - 1,
          uint64_t{1} << frac};
}

uint64_t RandomLane(int lane_bits, const Format* f, std::mt19937_64& gen) {
  const uint64_t bits = gen() >> (64 - lane_bits);
  const int kind = static_cast<int>(gen() % 8);
  if (kind == 0 && f != nullptr) {
    const std::vector<uint64_t> s = FloatSpecials(*f);
    return s[gen() % s.size()];
  }
  if (kind <= 2 && f != nullptr) {  // a small integer, exact in every format
    return Encode(static_cast<long double>(static_cast<int>(gen() % 17) - 8), *f);
  }
  return bits;
}

uint64_t RandomDouble(std::mt19937_64& gen) {
  const double specials[] = {0.0,
                             -0.0,
                             std::numeric_limits<double>::infinity(),
                             -std::numeric_limits<double>::infinity(),
                             std::numeric_limits<double>::quiet_NaN(),
                             std::numeric_limits<double>::max(),
                             std::numeric_limits<double>::denorm_min(),
                             1.0,
                             -1.0};
  const int kind = static_cast<int>(gen() % 8);
  double v = static_cast<double>(static_cast<int>(gen() % 17) - 8);
  if (kind == 0) v = specials[gen() % std::size(specials)];
  uint64_t bits;
  std::memcpy(&bits, &v, 8);
  return kind <= 2 ? bits : gen();
}

uint64_t RandomInteger(int bits, std::mt19937_64& gen) {
  const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  const uint64_t high = uint64_t{1} << (bits - 1);
  const uint64_t specials[] = {0, 1, mask, high, high - 1, 2};  // 0, 1, -1, min, max, 2
  if (gen() % 4 == 0) return specials[gen() % std::size(specials)];
  return gen() & mask;
}

}  // namespace

std::vector<unsigned char> RandomElements(DType t, uint64_t count, std::mt19937_64& gen) {
  const int lanes = t.code == kCodeComplex ? 2 : 1;
  const int lane_bits = t.bits / lanes;
  const int lane_bytes = lane_bits / 8;
  const Format* f = t.code == kCodeBfloat                                          ? &kBf16Fmt
                    : lane_bits == 16 && t.code != kCodeInt && t.code != kCodeUInt ? &kHalfFmt
                    : lane_bits == 32 && (t.code == kCodeFloat || t.code == kCodeComplex) ? &kF32Fmt
                                                                                          : nullptr;
  const bool is_double = lane_bits == 64 && (t.code == kCodeFloat || t.code == kCodeComplex);
  std::vector<unsigned char> out(count * lanes * lane_bytes);
  for (uint64_t i = 0; i < count * lanes; ++i) {
    uint64_t v;
    if (t.code == kCodeBool) {
      v = gen() % 2 == 0 ? 0 : 1 + gen() % 255;  // true is any non-zero byte
    } else if (t.code == kCodeInt || t.code == kCodeUInt) {
      v = RandomInteger(lane_bits, gen);
    } else {
      v = is_double ? RandomDouble(gen) : RandomLane(lane_bits, f, gen);
    }
    std::memcpy(out.data() + i * lane_bytes, &v, lane_bytes);
  }
  return out;
}

}  // namespace weft::device::host::test
