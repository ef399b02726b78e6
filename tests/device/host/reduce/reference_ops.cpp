#include "tests/device/host/reduce/reference_ops.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>

#include "tests/device/host/reduce/reference.hpp"

namespace weft::device::host::test {

namespace {

uint64_t Mask(int bits) { return bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; }

uint64_t ReadBits(const unsigned char* p, int bytes) {
  uint64_t v = 0;
  std::memcpy(&v, p, bytes);  // little-endian host
  return v;
}
void WriteBits(unsigned char* p, int bytes, uint64_t v) { std::memcpy(p, &v, bytes); }

int64_t SignExtend(uint64_t v, int bits) {
  if (bits == 64) return static_cast<int64_t>(v);
  const uint64_t sign = uint64_t{1} << (bits - 1);
  return static_cast<int64_t>((v ^ sign) - sign);
}

uint64_t RefInteger(DType t, ReduceOp op, uint64_t a, uint64_t b) {
  const uint64_t m = Mask(t.bits);
  const bool is_signed = t.code == kCodeInt;
  const auto less = [&](uint64_t x, uint64_t y) {
    return is_signed ? SignExtend(x, t.bits) < SignExtend(y, t.bits) : x < y;
  };
  switch (op) {
    case ReduceOp::kSum:
      return (a + b) & m;
    case ReduceOp::kProd:
      return (a * b) & m;
    case ReduceOp::kMax:
      return less(a, b) ? b : a;
    case ReduceOp::kMin:
      return less(a, b) ? a : b;
    default:
      return 0;
  }
}

uint64_t RefBool(ReduceOp op, uint64_t a, uint64_t b) {
  const bool x = a != 0, y = b != 0;
  return (op == ReduceOp::kSum || op == ReduceOp::kMax) ? (x || y) : (x && y);
}

// One lane of a binary16/bfloat16/float32 (or complex64 component) reduction.
long double RefLane(ReduceOp op, long double a, long double b, Format f) {
  switch (op) {
    case ReduceOp::kSum:
      return RoundTo(a + b, f);
    case ReduceOp::kProd:
      return RoundTo(a * b, f);
    case ReduceOp::kMax:
      return RefMax(a, b);
    case ReduceOp::kMin:
      return RefMin(a, b);
    default:
      return NAN;
  }
}

double RefDouble(ReduceOp op, double a, double b) {
  switch (op) {
    case ReduceOp::kSum:
      return a + b;
    case ReduceOp::kProd:
      return a * b;
    case ReduceOp::kMax:
      return static_cast<double>(RefMax(a, b));
    case ReduceOp::kMin:
      return static_cast<double>(RefMin(a, b));
    default:
      return NAN;
  }
}

// (a+bi)(c+di) = (ac - bd) + (ad + bc)i, each step rounded to float32.
void RefComplex64Prod(const long double x[2], const long double y[2], long double out[2]) {
  const auto r = [](long double v) { return RoundTo(v, kF32Fmt); };
  out[0] = r(r(x[0] * y[0]) - r(x[1] * y[1]));
  out[1] = r(r(x[0] * y[1]) + r(x[1] * y[0]));
}

void RefComplex64(ReduceOp op, const unsigned char* a, const unsigned char* b, unsigned char* out) {
  long double x[2], y[2], z[2];
  for (int i = 0; i < 2; ++i) {
    x[i] = Decode(ReadBits(a + 4 * i, 4), kF32Fmt);
    y[i] = Decode(ReadBits(b + 4 * i, 4), kF32Fmt);
  }
  if (op == ReduceOp::kProd) {
    RefComplex64Prod(x, y, z);
  } else {
    for (int i = 0; i < 2; ++i) z[i] = RoundTo(x[i] + y[i], kF32Fmt);
  }
  for (int i = 0; i < 2; ++i) WriteBits(out + 4 * i, 4, Encode(z[i], kF32Fmt));
}

void RefComplex128(ReduceOp op, const unsigned char* a, const unsigned char* b,
                   unsigned char* out) {
  const double x0 = Load<double>(a, 0), x1 = Load<double>(a, 1);
  const double y0 = Load<double>(b, 0), y1 = Load<double>(b, 1);
  if (op == ReduceOp::kProd) {
    const double ac = x0 * y0, bd = x1 * y1, ad = x0 * y1, bc = x1 * y0;
    Store<double>(out, 0, ac - bd);
    Store<double>(out, 1, ad + bc);
  } else {
    Store<double>(out, 0, x0 + y0);
    Store<double>(out, 1, x1 + y1);
  }
}

const Format* LaneFormat(DType t) {
  if (t.code == kCodeBfloat) return &kBf16Fmt;
  if (t.code == kCodeFloat && t.bits == 16) return &kHalfFmt;
  if ((t.code == kCodeFloat && t.bits == 32) || (t.code == kCodeComplex && t.bits == 64))
    return &kF32Fmt;
  return nullptr;
}

}  // namespace

std::vector<DType> AllReducibleTypes() {
  return {kF16, kBF16, kF32, kF64, kC64, kC128, kBool, kI8,
          kI16, kI32,  kI64, kU8,  kU16, kU32,  kU64};
}

std::vector<OpCase> AllElementCases() {
  std::vector<OpCase> cases;
  for (const DType t : AllReducibleTypes()) {
    for (const ReduceOp op : kElementOps) {
      if (ReduceValidFor(op, t, nullptr)) cases.push_back({t, op});
    }
  }
  return cases;
}

std::string CaseName(const OpCase& c) { return DTypeName(c.t) + "_" + ReduceOpName(c.op); }

void RefElement(DType t, ReduceOp op, const unsigned char* a, const unsigned char* b,
                unsigned char* out) {
  const int bytes = t.bits / 8;
  if (t.code == kCodeInt || t.code == kCodeUInt) {
    WriteBits(out, bytes, RefInteger(t, op, ReadBits(a, bytes), ReadBits(b, bytes)));
  } else if (t.code == kCodeBool) {
    WriteBits(out, 1, RefBool(op, ReadBits(a, 1), ReadBits(b, 1)));
  } else if (t.code == kCodeComplex) {
    t.bits == 64 ? RefComplex64(op, a, b, out) : RefComplex128(op, a, b, out);
  } else if (t.bits == 64) {
    Store<double>(out, 0, RefDouble(op, Load<double>(a, 0), Load<double>(b, 0)));
  } else {
    const Format f = *LaneFormat(t);
    const long double r =
        RefLane(op, Decode(ReadBits(a, bytes), f), Decode(ReadBits(b, bytes), f), f);
    WriteBits(out, bytes, Encode(r, f));
  }
}

bool SameElement(DType t, const unsigned char* got, const unsigned char* want) {
  const int bytes = t.bits / 8;
  const bool floating = t.code == kCodeFloat || t.code == kCodeBfloat || t.code == kCodeComplex;
  if (!floating) return std::memcmp(got, want, bytes) == 0;
  const int lanes = t.code == kCodeComplex ? 2 : 1;
  const int lane_bytes = bytes / lanes;
  for (int i = 0; i < lanes; ++i) {
    const unsigned char* g = got + i * lane_bytes;
    const unsigned char* w = want + i * lane_bytes;
    const bool g_nan = lane_bytes == 8 ? std::isnan(Load<double>(g, 0))
                                       : IsNaNBits(ReadBits(g, lane_bytes), *LaneFormat(t));
    const bool w_nan = lane_bytes == 8 ? std::isnan(Load<double>(w, 0))
                                       : IsNaNBits(ReadBits(w, lane_bytes), *LaneFormat(t));
    if (g_nan != w_nan) return false;
    if (!g_nan && std::memcmp(g, w, lane_bytes) != 0) return false;
  }
  return true;
}

std::string ElementHex(DType t, const unsigned char* e) {
  std::string s = "0x";
  char buf[3];
  for (int i = t.bits / 8 - 1; i >= 0; --i) {
    std::snprintf(buf, sizeof(buf), "%02x", e[i]);
    s += buf;
  }
  return s;
}

}  // namespace weft::device::host::test
