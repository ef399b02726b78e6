// Which element functor reduces (dtype, op): the same choices as the host kernels
// (device/host/reduce/reduce_kernels.cpp) make, for both builds of the CUDA operations. Host
// code: it picks a template to launch, once per operation.
#pragma once

#include <cstdint>
#include <type_traits>

#include "common/dtype.hpp"
#include "device/cuda/cells.hpp"

namespace weft::device::cuda {

template <class Fn>
struct Functor {
  using type = Fn;
};

namespace dispatch_detail {
using namespace host::detail;

template <class T, class Visit>
bool Real(ReduceOp op, Visit&& v) {
  switch (op) {
    case ReduceOp::kSum:
      return v(Functor<SumFn<T>>{}), true;
    case ReduceOp::kProd:
      return v(Functor<ProdFn<T>>{}), true;
    case ReduceOp::kMax:
      return v(Functor<MaxFn<T>>{}), true;
    case ReduceOp::kMin:
      return v(Functor<MinFn<T>>{}), true;
    default:
      return false;
  }
}

template <class Codec, class Visit>
bool Sixteen(ReduceOp op, Visit&& v) {
  switch (op) {
    case ReduceOp::kSum:
      return v(Functor<Via32Fn<Codec, SumFn>>{}), true;
    case ReduceOp::kProd:
      return v(Functor<Via32Fn<Codec, ProdFn>>{}), true;
    case ReduceOp::kMax:
      return v(Functor<Via32Fn<Codec, MaxFn>>{}), true;
    case ReduceOp::kMin:
      return v(Functor<Via32Fn<Codec, MinFn>>{}), true;
    default:
      return false;
  }
}

template <class T, class Visit>
bool ComplexOf(ReduceOp op, Visit&& v) {
  if (op == ReduceOp::kSum) return v(Functor<ComplexSumFn<T>>{}), true;
  if (op == ReduceOp::kProd) return v(Functor<ComplexProdFn<T>>{}), true;
  return false;
}

template <class Visit>
bool Integer(DType t, ReduceOp op, Visit&& v) {
  const bool s = t.code == kCodeInt;
  switch (t.bits) {
    case 8:
      return s ? Real<int8_t>(op, v) : Real<uint8_t>(op, v);
    case 16:
      return s ? Real<int16_t>(op, v) : Real<uint16_t>(op, v);
    case 32:
      return s ? Real<int32_t>(op, v) : Real<uint32_t>(op, v);
    case 64:
      return s ? Real<int64_t>(op, v) : Real<uint64_t>(op, v);
    default:
      return false;
  }
}

template <class Visit>
bool Floating(DType t, ReduceOp op, Visit&& v) {
  if (t.code == kCodeBfloat) return t.bits == 16 && Sixteen<Bfloat16Codec>(op, v);
  if (t.code == kCodeComplex)
    return t.bits == 64 ? ComplexOf<float>(op, v) : t.bits == 128 && ComplexOf<double>(op, v);
  if (t.bits == 16) return Sixteen<HalfCodec>(op, v);
  if (t.bits == 32) return Real<float>(op, v);
  return t.bits == 64 && Real<double>(op, v);
}
}  // namespace dispatch_detail

// Calls v(Functor<Fn>{}) with the element functor of (t, op); false when there is none (avg,
// or a dtype without reductions).
template <class Visit>
bool VisitReduction(DType t, ReduceOp op, Visit&& v) {
  if (t.lanes != 1) return false;
  if (t.code == kCodeBool) {
    if (t.bits != 8) return false;
    if (op == ReduceOp::kSum || op == ReduceOp::kMax) return v(Functor<host::detail::OrFn>{}), true;
    if (op == ReduceOp::kProd || op == ReduceOp::kMin)
      return v(Functor<host::detail::AndFn>{}), true;
    return false;
  }
  if (t.code == kCodeInt || t.code == kCodeUInt) return dispatch_detail::Integer(t, op, v);
  if (t.code == kCodeFloat || t.code == kCodeBfloat || t.code == kCodeComplex)
    return dispatch_detail::Floating(t, op, v);
  return false;
}

}  // namespace weft::device::cuda
