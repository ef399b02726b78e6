#include "tools/collbench/dtypes.hpp"

#include <weft/types.h>

#include <cmath>
#include <cstring>

namespace weft::collbench {
namespace {

struct Named {
  const char* alias;
  DType type;
};

const std::vector<Named>& Table() {
  static const std::vector<Named> table = {
      {"float32", {"float32", {kDLFloat, 32, 1}, Kind::kFloat}},
      {"float", {"float32", {kDLFloat, 32, 1}, Kind::kFloat}},
      {"float64", {"float64", {kDLFloat, 64, 1}, Kind::kFloat}},
      {"double", {"float64", {kDLFloat, 64, 1}, Kind::kFloat}},
      {"float16", {"float16", {kDLFloat, 16, 1}, Kind::kHalf}},
      {"half", {"float16", {kDLFloat, 16, 1}, Kind::kHalf}},
      {"bfloat16", {"bfloat16", {kDLBfloat, 16, 1}, Kind::kBfloat}},
      {"complex64", {"complex64", {kDLComplex, 64, 1}, Kind::kComplex}},
      {"complex128", {"complex128", {kDLComplex, 128, 1}, Kind::kComplex}},
      {"int8", {"int8", {kDLInt, 8, 1}, Kind::kInt}},
      {"int16", {"int16", {kDLInt, 16, 1}, Kind::kInt}},
      {"int32", {"int32", {kDLInt, 32, 1}, Kind::kInt}},
      {"int64", {"int64", {kDLInt, 64, 1}, Kind::kInt}},
      {"uint8", {"uint8", {kDLUInt, 8, 1}, Kind::kUInt}},
      {"uint16", {"uint16", {kDLUInt, 16, 1}, Kind::kUInt}},
      {"uint32", {"uint32", {kDLUInt, 32, 1}, Kind::kUInt}},
      {"uint64", {"uint64", {kDLUInt, 64, 1}, Kind::kUInt}},
      {"bool", {"bool", WEFT_DLPACK_BOOL, Kind::kBool}},
  };
  return table;
}

// IEEE binary16 from a float, round to nearest even; the values collbench writes are normal
// or zero, so subnormal results flush to zero.
uint16_t FloatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const int exp = static_cast<int>((x >> 23) & 0xffu) - 127 + 15;
  if ((x & 0x7fffffffu) == 0 || exp <= 0) return static_cast<uint16_t>(sign);
  if (exp >= 31) return static_cast<uint16_t>(sign | 0x7c00u);
  uint32_t h = (static_cast<uint32_t>(exp) << 10) | ((x & 0x7fffffu) >> 13);
  const uint32_t rest = x & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;  // may carry into the exponent
  return static_cast<uint16_t>(sign | h);
}

double HalfToDouble(uint16_t h) {
  const int sign = (h & 0x8000) ? -1 : 1;
  const int exp = (h >> 10) & 0x1f;
  const int mant = h & 0x3ff;
  if (exp == 0) return sign * std::ldexp(mant, -24);
  if (exp == 31) return mant ? NAN : sign * INFINITY;
  return sign * std::ldexp(mant + 1024, exp - 25);
}

uint16_t FloatToBfloat(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(x >> 16);
}

double BfloatToDouble(uint16_t b) {
  const uint32_t x = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

uint64_t ReadBits(const void* p, int64_t bytes) {
  uint64_t u = 0;
  std::memcpy(&u, p, static_cast<size_t>(bytes));  // little-endian host
  return u;
}

uint64_t Mask(int64_t bytes) { return bytes >= 8 ? ~0ull : (1ull << (8 * bytes)) - 1; }

// The integer at p as a double, sign-extended for signed types.
double IntValue(const DType& t, const void* p) {
  const uint64_t u = ReadBits(p, t.bytes());
  if (t.kind == Kind::kUInt || t.bytes() == 8) {
    return t.kind == Kind::kUInt ? static_cast<double>(u) : static_cast<double>(int64_t(u));
  }
  const uint64_t sign = 1ull << (8 * t.bytes() - 1);
  return static_cast<double>(static_cast<int64_t>((u ^ sign) - sign));
}

double FloatValue(const DType& t, const void* p, double* imag) {
  *imag = 0;
  switch (t.kind) {
    case Kind::kHalf:
      return HalfToDouble(static_cast<uint16_t>(ReadBits(p, 2)));
    case Kind::kBfloat:
      return BfloatToDouble(static_cast<uint16_t>(ReadBits(p, 2)));
    case Kind::kComplex:
      if (t.bytes() == 8) {
        float re[2];
        std::memcpy(re, p, 8);
        *imag = re[1];
        return re[0];
      } else {
        double re[2];
        std::memcpy(re, p, 16);
        *imag = re[1];
        return re[0];
      }
    default:
      if (t.bytes() == 4) {
        float f;
        std::memcpy(&f, p, 4);
        return f;
      } else {
        double d;
        std::memcpy(&d, p, 8);
        return d;
      }
  }
}

double Tolerance(const DType& t) {
  if (t.kind == Kind::kHalf || t.kind == Kind::kBfloat) return 1e-2;
  return t.dl.bits / t.dl.lanes / (t.kind == Kind::kComplex ? 2 : 1) <= 32 ? 1e-6 : 1e-12;
}

bool IsOr(int redop) { return redop == WEFT_REDUCE_SUM || redop == WEFT_REDUCE_MAX; }

}  // namespace

const DType* FindDType(const std::string& name) {
  for (const Named& n : Table()) {
    if (name == n.alias) return &n.type;
  }
  return nullptr;
}

std::vector<std::string> DTypeNames() {
  std::vector<std::string> names;
  for (const Named& n : Table()) {
    if (std::string(n.alias) == n.type.name) names.emplace_back(n.alias);
  }
  return names;
}

double InputValue(int redop, int32_t rank, int64_t index, const DType& t) {
  if (t.kind == Kind::kBool) {
    const bool hit = (rank + index) % 3 == 0;
    return IsOr(redop) ? hit : !hit;  // OR of sparse ones, AND of sparse zeros
  }
  switch (redop) {
    case WEFT_REDUCE_PROD:  // at most 2^8: exact in bfloat16, wraps in 8-bit integers
      return (rank < 8 && (rank + index) % 2 == 0) ? 2 : 1;
    case WEFT_REDUCE_MAX:
    case WEFT_REDUCE_MIN:
      return static_cast<double>((rank * 3 + index) % 7 + 1);
    default:  // sum, avg: at most 8 per rank
      return static_cast<double>(rank % 4 + 1 + index % 5);
  }
}

double ExpectedValue(int redop, int32_t nranks, int64_t index, const DType& t) {
  double acc = InputValue(redop, 0, index, t);
  for (int32_t r = 1; r < nranks; ++r) {
    const double v = InputValue(redop, r, index, t);
    if (t.kind == Kind::kBool) {
      acc = IsOr(redop) ? (acc != 0 || v != 0) : (acc != 0 && v != 0);
      continue;
    }
    switch (redop) {
      case WEFT_REDUCE_PROD:
        acc *= v;
        break;
      case WEFT_REDUCE_MAX:
        acc = std::fmax(acc, v);
        break;
      case WEFT_REDUCE_MIN:
        acc = std::fmin(acc, v);
        break;
      default:
        acc += v;
    }
  }
  return redop == WEFT_REDUCE_AVG ? acc / nranks : acc;
}

void Encode(const DType& t, void* p, double v) {
  const auto bytes = static_cast<size_t>(t.bytes());
  switch (t.kind) {
    case Kind::kBool: {
      const uint8_t b = v != 0;
      std::memcpy(p, &b, 1);
      return;
    }
    case Kind::kInt:
    case Kind::kUInt: {
      const auto u = static_cast<uint64_t>(static_cast<int64_t>(v));
      std::memcpy(p, &u, bytes);  // little-endian: the low bytes, i.e. modulo 2^bits
      return;
    }
    case Kind::kHalf: {
      const uint16_t h = FloatToHalf(static_cast<float>(v));
      std::memcpy(p, &h, 2);
      return;
    }
    case Kind::kBfloat: {
      const uint16_t b = FloatToBfloat(static_cast<float>(v));
      std::memcpy(p, &b, 2);
      return;
    }
    case Kind::kComplex:
      if (bytes == 8) {
        const float c[2] = {static_cast<float>(v), 0.0f};
        std::memcpy(p, c, 8);
      } else {
        const double c[2] = {v, 0.0};
        std::memcpy(p, c, 16);
      }
      return;
    case Kind::kFloat:
      if (bytes == 4) {
        const auto f = static_cast<float>(v);
        std::memcpy(p, &f, 4);
      } else {
        std::memcpy(p, &v, 8);
      }
      return;
  }
}

bool Matches(const DType& t, const void* p, double expected, int redop) {
  if (t.kind == Kind::kBool) return ReadBits(p, 1) == (expected != 0 ? 1u : 0u);
  if (t.kind == Kind::kInt || t.kind == Kind::kUInt) {
    if (redop == WEFT_REDUCE_AVG) return std::fabs(IntValue(t, p) - expected) <= 1.0;
    const auto want = static_cast<uint64_t>(static_cast<int64_t>(expected));
    return ((ReadBits(p, t.bytes()) ^ want) & Mask(t.bytes())) == 0;
  }
  double imag = 0;
  const double got = FloatValue(t, p, &imag);
  if (imag != 0) return false;
  if (redop != WEFT_REDUCE_AVG) return got == expected;
  return std::fabs(got - expected) <= Tolerance(t) * std::fmax(1.0, std::fabs(expected));
}

}  // namespace weft::collbench
