// ReduceInto and Reduce3: validate once, pick one templated loop for (dtype, op, aliasing)
// once, and run it over the whole buffer (no per-element dispatch).
#include <cstdint>
#include <string>

#include "device/host/reduce/element_ops.hpp"
#include "device/host/reduce/reduce.hpp"
#include "device/host/reduce/reduce_args.hpp"
#include "device/host/reduce/reduce_loops.hpp"
#include "device/host/reduce/sixteen_bit_avx2.hpp"

namespace weft::device::host {

namespace {

using detail::Aliasing;
using Loop = void (*)(Aliasing, void*, const void*, const void*, uint64_t);

struct Kernel {
  Loop loop = nullptr;
  uint64_t lanes = 1;  // lanes per element the loop sees (complex sum runs over components)
  DirectReduceFn direct = nullptr;  // the same loop as inout[i] = op(inout[i], in[i])
};

// A loop as a plain function of (inout, in, count): what ReduceKernel hands out.
template <Loop kLoop, uint64_t kLanes>
void Direct(void* inout, const void* in, uint64_t count) {
  kLoop(inout == in ? Aliasing::kSelf : Aliasing::kInto, inout, in, nullptr, count * kLanes);
}

template <Loop kLoop, uint64_t kLanes = 1>
Kernel K() {
  return {kLoop, kLanes, &Direct<kLoop, kLanes>};
}

template <class T>
Kernel ForReal(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
      return K<&detail::RunLoop<detail::SumFn<T>>>();
    case ReduceOp::kProd:
      return K<&detail::RunLoop<detail::ProdFn<T>>>();
    case ReduceOp::kMax:
      return K<&detail::RunLoop<detail::MaxFn<T>>>();
    case ReduceOp::kMin:
      return K<&detail::RunLoop<detail::MinFn<T>>>();
    case ReduceOp::kAvg:
      break;
  }
  return {};
}

template <class Codec>
Kernel ForPortableSixteenBit(ReduceOp op) {
  using detail::Via32Fn;
  switch (op) {
    case ReduceOp::kSum:
      return K<&detail::RunLoop<Via32Fn<Codec, detail::SumFn>>>();
    case ReduceOp::kProd:
      return K<&detail::RunLoop<Via32Fn<Codec, detail::ProdFn>>>();
    case ReduceOp::kMax:
      return K<&detail::RunLoop<Via32Fn<Codec, detail::MaxFn>>>();
    case ReduceOp::kMin:
      return K<&detail::RunLoop<Via32Fn<Codec, detail::MinFn>>>();
    case ReduceOp::kAvg:
      break;
  }
  return {};
}

#if WEFT_REDUCE_AVX2
// sixteen_bit_avx2.cpp's loops need AVX2 and F16C (and the OS saving AVX state): checked once.
bool CpuHasAvx2F16C() {
  static const bool has = [] {
    __builtin_cpu_init();  // in case the first call comes from a static initializer
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
  }();
  return has;
}

template <detail::SixteenBit kType, detail::VecOp kOp>
void RunAvx2(Aliasing shape, void* out, const void* in, const void* in2, uint64_t n) {
  const void* a = shape == Aliasing::kThree ? in : out;
  const void* b = shape == Aliasing::kThree ? in2 : (shape == Aliasing::kSelf ? out : in);
  detail::SixteenBitAvx2Loop<kType, kOp>(out, a, b, n);
}

template <detail::SixteenBit kType>
Kernel ForSixteenBitAvx2(ReduceOp op) {
  using detail::VecOp;
  switch (op) {
    case ReduceOp::kSum:
      return K<&RunAvx2<kType, VecOp::kSum>>();
    case ReduceOp::kProd:
      return K<&RunAvx2<kType, VecOp::kProd>>();
    case ReduceOp::kMax:
      return K<&RunAvx2<kType, VecOp::kMax>>();
    case ReduceOp::kMin:
      return K<&RunAvx2<kType, VecOp::kMin>>();
    case ReduceOp::kAvg:
      break;
  }
  return {};
}
#endif

// float16 and bfloat16: the AVX2 loops where the CPU has them, else the portable ones.
template <detail::SixteenBit kType, class Codec>
Kernel ForSixteenBit(ReduceOp op) {
#if WEFT_REDUCE_AVX2
  if (CpuHasAvx2F16C()) return ForSixteenBitAvx2<kType>(op);
#endif
  return ForPortableSixteenBit<Codec>(op);
}

template <class T>
Kernel ForComplex(ReduceOp op) {
  if (op == ReduceOp::kSum) return K<&detail::RunLoop<detail::SumFn<T>>, 2>();
  if (op == ReduceOp::kProd) return K<&detail::RunLoop<detail::ComplexProdFn<T>>>();
  return {};
}

Kernel ForBool(ReduceOp op) {
  if (op == ReduceOp::kSum || op == ReduceOp::kMax) return K<&detail::RunLoop<detail::OrFn>>();
  if (op == ReduceOp::kProd || op == ReduceOp::kMin) return K<&detail::RunLoop<detail::AndFn>>();
  return {};
}

template <class T8, class T16, class T32, class T64>
Kernel ForIntegerBits(uint8_t bits, ReduceOp op) {
  switch (bits) {
    case 8:
      return ForReal<T8>(op);
    case 16:
      return ForReal<T16>(op);
    case 32:
      return ForReal<T32>(op);
    case 64:
      return ForReal<T64>(op);
    default:
      return {};
  }
}

// Only combinations that passed CheckElementOp reach here; anything else yields no loop.
Kernel SelectKernel(DType t, ReduceOp op) {
  switch (t.code) {
    case kCodeInt:
      return ForIntegerBits<int8_t, int16_t, int32_t, int64_t>(t.bits, op);
    case kCodeUInt:
      return ForIntegerBits<uint8_t, uint16_t, uint32_t, uint64_t>(t.bits, op);
    case kCodeFloat:
      if (t.bits == 16) return ForSixteenBit<detail::SixteenBit::kFloat16, detail::HalfCodec>(op);
      if (t.bits == 32) return ForReal<float>(op);
      if (t.bits == 64) return ForReal<double>(op);
      return {};
    case kCodeBfloat:
      return ForSixteenBit<detail::SixteenBit::kBfloat16, detail::Bfloat16Codec>(op);
    case kCodeComplex:
      return t.bits == 64 ? ForComplex<float>(op) : ForComplex<double>(op);
    case kCodeBool:
      return ForBool(op);
    default:
      return {};
  }
}

// SelectKernel for every valid (dtype, op), once: a call then finds its loop with one indexed
// load instead of validating the pair and walking the switches (an 8-byte all-reduce pays
// this on every call: measured, its whole reduction took a sixth of its time on 2 ranks).
// Built once, with the pairs CheckElementOp accepts; null for the others.
constexpr int kCodes = 7, kWidths = 5, kOps = kNumReduceOps;

int WidthIndex(uint8_t bits) {
  switch (bits) {
    case 8:
      return 0;
    case 16:
      return 1;
    case 32:
      return 2;
    case 64:
      return 3;
    case 128:
      return 4;
    default:
      return -1;
  }
}

struct KernelTable {
  Kernel k[kCodes][kWidths][kOps];
  KernelTable() {
    constexpr uint8_t kBits[kWidths] = {8, 16, 32, 64, 128};
    for (int c = 0; c < kCodes; ++c)
      for (int w = 0; w < kWidths; ++w)
        for (int o = 0; o < kOps; ++o) {
          const DType t{static_cast<uint8_t>(c), kBits[w], 1};
          const auto op = static_cast<ReduceOp>(o);
          if (detail::CheckElementOp("", t, op).ok()) k[c][w][o] = SelectKernel(t, op);
        }
  }
};

// The loop for (t, op), or null when the pair has none (the caller reports why).
const Kernel* Lookup(DType t, ReduceOp op) {
  static const KernelTable table;
  const int w = WidthIndex(t.bits);
  const auto o = static_cast<uint32_t>(op);
  if (t.lanes != 1 || t.code >= kCodes || w < 0 || o >= static_cast<uint32_t>(kOps)) return nullptr;
  const Kernel& k = table.k[t.code][w][o];
  return k.loop != nullptr ? &k : nullptr;
}

// Why (t, op) has no loop: CheckElementOp's message, or an internal error should the table
// and the check ever disagree.
Status NoKernel(const char* fn, DType t, ReduceOp op) {
  WEFT_RETURN_IF_ERROR(detail::CheckElementOp(fn, t, op));
  return Internal(std::string(fn) + ": no kernel for " + DTypeName(t) + " " + ReduceOpName(op));
}

Status OverlapError(const char* fn, const char* out, const char* in) {
  return InvalidArgument(std::string(fn) + ": " + out + " overlaps " + in +
                         " without being equal to it");
}

}  // namespace

Status ReduceInto(DType t, ReduceOp op, void* inout, const void* in, uint64_t count) {
  constexpr const char* kFn = "ReduceInto";
  const Kernel* k = Lookup(t, op);
  if (k == nullptr) return NoKernel(kFn, t, op);
  uint64_t bytes = 0;
  WEFT_RETURN_IF_ERROR(detail::CheckBuffer(kFn, "inout", inout, t, count, &bytes));
  WEFT_RETURN_IF_ERROR(detail::CheckBuffer(kFn, "in", in, t, count, &bytes));
  if (count == 0) return Status::Ok();
  if (inout == in) {
    k->loop(Aliasing::kSelf, inout, in, nullptr, count * k->lanes);
    return Status::Ok();
  }
  if (detail::Overlaps(inout, bytes, in, bytes)) return OverlapError(kFn, "inout", "in");
  k->loop(Aliasing::kInto, inout, in, nullptr, count * k->lanes);
  return Status::Ok();
}

Status Reduce3(DType t, ReduceOp op, void* out, const void* a, const void* b, uint64_t count) {
  constexpr const char* kFn = "Reduce3";
  const Kernel* k = Lookup(t, op);
  if (k == nullptr) return NoKernel(kFn, t, op);
  uint64_t bytes = 0;
  WEFT_RETURN_IF_ERROR(detail::CheckBuffer(kFn, "out", out, t, count, &bytes));
  WEFT_RETURN_IF_ERROR(detail::CheckBuffer(kFn, "a", a, t, count, &bytes));
  WEFT_RETURN_IF_ERROR(detail::CheckBuffer(kFn, "b", b, t, count, &bytes));
  if (count == 0) return Status::Ok();
  const uint64_t n = count * k->lanes;
  const bool is_a = out == a;
  const bool is_b = out == b;
  if (is_a && is_b) return k->loop(Aliasing::kSelf, out, a, nullptr, n), Status::Ok();
  if (!is_a && detail::Overlaps(out, bytes, a, bytes)) return OverlapError(kFn, "out", "a");
  if (!is_b && detail::Overlaps(out, bytes, b, bytes)) return OverlapError(kFn, "out", "b");
  if (is_a) return k->loop(Aliasing::kInto, out, b, nullptr, n), Status::Ok();
  // Every op is commutative (up to which NaN payload survives), so out == b is op(b, a).
  if (is_b) return k->loop(Aliasing::kInto, out, a, nullptr, n), Status::Ok();
  k->loop(Aliasing::kThree, out, a, b, n);
  return Status::Ok();
}

DirectReduceFn ReduceKernel(DType t, ReduceOp op) {
  const Kernel* k = Lookup(t, op);
  return k != nullptr ? k->direct : nullptr;
}

}  // namespace weft::device::host
