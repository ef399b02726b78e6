// avg support (SPEC §2.4): widening into the accumulator type and the final division.
#include <bit>
#include <cstdint>
#include <cstring>
#include <string>

#include "device/host/reduce/half_float.hpp"
#include "device/host/reduce/reduce.hpp"
#include "device/host/reduce/reduce_args.hpp"
#include "device/host/reduce/round_double.hpp"
#include "device/host/reduce/unaligned.hpp"

namespace weft::device::host {

namespace {

using detail::Unaligned;

constexpr DType kFloat64{kCodeFloat, 64, 1};
constexpr DType kComplex128{kCodeComplex, 128, 1};
constexpr int64_t kMaxExactDivisor = int64_t{1} << 53;

uint64_t LanesOf(DType t) { return t.code == kCodeComplex ? 2 : 1; }
// Bits of one lane: a complex64 is two float32 lanes.
uint64_t LaneBits(DType t) { return t.bits / LanesOf(t); }

template <class Src, class Widen>
void WidenLanes(const void* src, void* acc, uint64_t lanes, Widen widen) {
  const auto* s = static_cast<const Unaligned<Src>*>(src);
  auto* d = static_cast<Unaligned<double>*>(acc);
  for (uint64_t i = 0; i < lanes; ++i) d[i] = widen(s[i]);
}

// Lanes stored as the low bits of a uint32 pattern (float32, or a 16-bit type).
template <class Dst>
void NarrowLanes(const void* acc, void* dst, uint64_t lanes, double divisor,
                 detail::NarrowFormat f) {
  const auto* a = static_cast<const Unaligned<double>*>(acc);
  auto* d = static_cast<Unaligned<Dst>*>(dst);
  for (uint64_t i = 0; i < lanes; ++i) {
    const uint32_t bits = detail::DivideAndRound(a[i], divisor, f);
    if constexpr (sizeof(Dst) == 4) {
      d[i] = std::bit_cast<Dst>(bits);
    } else {
      d[i] = static_cast<Dst>(bits);
    }
  }
}

// float64 lanes: one IEEE division is already the correctly rounded quotient.
void DivideLanes(const void* acc, void* dst, uint64_t lanes, double divisor) {
  const auto* a = static_cast<const Unaligned<double>*>(acc);
  auto* d = static_cast<Unaligned<double>*>(dst);
  for (uint64_t i = 0; i < lanes; ++i) d[i] = a[i] / divisor;
}

Status CheckAvgType(const char* fn, DType t) {
  std::string why;
  if (!ReduceValidFor(ReduceOp::kAvg, t, &why)) {
    return InvalidArgument(std::string(fn) + ": no avg for " + DTypeName(t) + ": " + why);
  }
  return Status::Ok();
}

// The narrow buffer (`bytes` long) and the accumulator (`acc_bytes`) may share memory only as
// the in-place float64/complex128 case: the same pointer and size.
Status CheckPair(const char* fn, const void* p, uint64_t bytes, const void* acc,
                 uint64_t acc_bytes) {
  if (p == acc && bytes == acc_bytes) return Status::Ok();
  if (detail::Overlaps(p, bytes, acc, acc_bytes)) {
    return InvalidArgument(std::string(fn) + ": the input and output buffers overlap");
  }
  return Status::Ok();
}

}  // namespace

DType AvgAccumulatorType(DType t) {
  if (!ReduceValidFor(ReduceOp::kAvg, t, nullptr)) return {};
  return t.code == kCodeComplex ? kComplex128 : kFloat64;
}

Status WidenToAccumulator(DType t, const void* src, void* acc, uint64_t count) {
  constexpr const char* kFn = "WidenToAccumulator";
  WEFT_RETURN_IF_ERROR(CheckAvgType(kFn, t));
  uint64_t bytes = 0, acc_bytes = 0;
  WEFT_RETURN_IF_ERROR(detail::CheckBuffer(kFn, "src", src, t, count, &bytes));
  WEFT_RETURN_IF_ERROR(
      detail::CheckBuffer(kFn, "acc", acc, AvgAccumulatorType(t), count, &acc_bytes));
  WEFT_RETURN_IF_ERROR(CheckPair(kFn, src, bytes, acc, acc_bytes));
  if (count == 0) return Status::Ok();
  const uint64_t lanes = count * LanesOf(t);
  if (LaneBits(t) == 16) {
    if (t.code == kCodeBfloat) {
      WidenLanes<uint16_t>(src, acc, lanes, [](uint16_t v) { return detail::Bfloat16ToFloat(v); });
    } else {
      WidenLanes<uint16_t>(src, acc, lanes, [](uint16_t v) { return detail::HalfToFloat(v); });
    }
  } else if (LaneBits(t) == 32) {
    WidenLanes<float>(src, acc, lanes, [](float v) { return v; });
  } else if (src != acc) {
    std::memcpy(acc, src, bytes);  // float64 and complex128 accumulate in themselves
  }
  return Status::Ok();
}

Status NarrowFromAccumulatorDividing(DType t, const void* acc, void* dst, uint64_t count,
                                     int64_t divisor) {
  constexpr const char* kFn = "NarrowFromAccumulatorDividing";
  WEFT_RETURN_IF_ERROR(CheckAvgType(kFn, t));
  if (divisor < 1 || divisor > kMaxExactDivisor) {
    return InvalidArgument(std::string(kFn) + ": divisor " + std::to_string(divisor) +
                           " is outside [1, 2^53]");
  }
  uint64_t bytes = 0, acc_bytes = 0;
  WEFT_RETURN_IF_ERROR(detail::CheckBuffer(kFn, "dst", dst, t, count, &bytes));
  WEFT_RETURN_IF_ERROR(
      detail::CheckBuffer(kFn, "acc", acc, AvgAccumulatorType(t), count, &acc_bytes));
  WEFT_RETURN_IF_ERROR(CheckPair(kFn, dst, bytes, acc, acc_bytes));
  if (count == 0) return Status::Ok();
  const uint64_t lanes = count * LanesOf(t);
  const auto d = static_cast<double>(divisor);
  if (t.code == kCodeBfloat) {
    NarrowLanes<uint16_t>(acc, dst, lanes, d, detail::kBfloat16Format);
  } else if (LaneBits(t) == 16) {
    NarrowLanes<uint16_t>(acc, dst, lanes, d, detail::kFloat16Format);
  } else if (LaneBits(t) == 32) {
    NarrowLanes<float>(acc, dst, lanes, d, detail::kFloat32Format);
  } else {
    DivideLanes(acc, dst, lanes, d);  // float64, complex128
  }
  return Status::Ok();
}

}  // namespace weft::device::host
