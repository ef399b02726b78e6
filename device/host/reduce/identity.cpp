// FillIdentity: the element e with op(e, x) == x, written over a buffer. Used for the
// Replicate -> Partial conjugates (SPEC §2.4) and to seed composed reductions.
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "device/host/reduce/reduce.hpp"
#include "device/host/reduce/reduce_args.hpp"

namespace weft::device::host {

namespace {

// One element's bytes, built in host byte order.
struct Element {
  unsigned char bytes[16] = {};
  uint64_t size = 0;
};

template <class T>
Element Of(T v) {
  Element e;
  std::memcpy(e.bytes, &v, sizeof(T));
  e.size = sizeof(T);
  return e;
}

template <class T>
Element RealIdentity(ReduceOp op) {
  using Limits = std::numeric_limits<T>;
  constexpr bool kFloat = Limits::has_infinity;
  switch (op) {
    case ReduceOp::kSum:
      return Of<T>(kFloat ? T(-0.0) : T(0));  // -0.0 + x == x, also for -0.0
    case ReduceOp::kProd:
      return Of<T>(T(1));
    case ReduceOp::kMax:
      return Of<T>(kFloat ? T(-Limits::infinity()) : Limits::lowest());
    case ReduceOp::kMin:
      return Of<T>(kFloat ? Limits::infinity() : Limits::max());
    case ReduceOp::kAvg:
      break;
  }
  return {};
}

// float16 and bfloat16 bit patterns: -0.0, 1.0, -inf, +inf.
Element SixteenBitIdentity(ReduceOp op, bool bfloat) {
  switch (op) {
    case ReduceOp::kSum:
      return Of<uint16_t>(0x8000);
    case ReduceOp::kProd:
      return Of<uint16_t>(bfloat ? 0x3f80 : 0x3c00);
    case ReduceOp::kMax:
      return Of<uint16_t>(bfloat ? 0xff80 : 0xfc00);
    case ReduceOp::kMin:
      return Of<uint16_t>(bfloat ? 0x7f80 : 0x7c00);
    case ReduceOp::kAvg:
      break;
  }
  return {};
}

template <class T>
Element ComplexIdentity(ReduceOp op) {
  const T parts[2] = {op == ReduceOp::kProd ? T{1} : T{-0.0},
                      op == ReduceOp::kProd ? T{0} : T{-0.0}};
  Element e;
  std::memcpy(e.bytes, parts, sizeof(parts));
  e.size = sizeof(parts);
  return e;
}

template <class T8, class T16, class T32, class T64>
Element IntegerIdentity(uint8_t bits, ReduceOp op) {
  switch (bits) {
    case 8:
      return RealIdentity<T8>(op);
    case 16:
      return RealIdentity<T16>(op);
    case 32:
      return RealIdentity<T32>(op);
    default:
      return RealIdentity<T64>(op);
  }
}

// (t, op) has passed CheckElementOp.
Element IdentityOf(DType t, ReduceOp op) {
  switch (t.code) {
    case kCodeInt:
      return IntegerIdentity<int8_t, int16_t, int32_t, int64_t>(t.bits, op);
    case kCodeUInt:
      return IntegerIdentity<uint8_t, uint16_t, uint32_t, uint64_t>(t.bits, op);
    case kCodeFloat:
      if (t.bits == 16) return SixteenBitIdentity(op, false);
      return t.bits == 32 ? RealIdentity<float>(op) : RealIdentity<double>(op);
    case kCodeBfloat:
      return SixteenBitIdentity(op, true);
    case kCodeComplex:
      return t.bits == 64 ? ComplexIdentity<float>(op) : ComplexIdentity<double>(op);
    case kCodeBool:
      return Of<uint8_t>(op == ReduceOp::kProd || op == ReduceOp::kMin);
    default:
      return {};
  }
}

}  // namespace

Status FillIdentity(DType t, ReduceOp op, void* dst, uint64_t count) {
  constexpr const char* kFn = "FillIdentity";
  uint64_t bytes = 0;
  WEFT_RETURN_IF_ERROR(detail::CheckElementOp(kFn, t, op));
  WEFT_RETURN_IF_ERROR(detail::CheckBuffer(kFn, "dst", dst, t, count, &bytes));
  if (count == 0) return Status::Ok();
  const Element e = IdentityOf(t, op);
  if (e.size != static_cast<uint64_t>(ItemSize(t))) {
    return Internal(std::string(kFn) + ": no identity for " + DTypeName(t));
  }
  // Write one element, then keep doubling the filled prefix: log2(count) large copies.
  auto* out = static_cast<unsigned char*>(dst);
  std::memcpy(out, e.bytes, e.size);
  for (uint64_t done = e.size; done < bytes;) {
    const uint64_t step = done < bytes - done ? done : bytes - done;
    std::memcpy(out + done, out, step);
    done += step;
  }
  return Status::Ok();
}

}  // namespace weft::device::host
