// The element loops behind ReduceInto/Reduce3, one template per aliasing shape so that each
// loop can promise the compiler (with __restrict) exactly what holds, and g++ vectorizes it.
// Buffers may be unaligned (see unaligned.hpp).
#pragma once

#include <cstdint>

#include "device/host/reduce/unaligned.hpp"

namespace weft::device::host::detail {

template <class Fn>
using LanePtr = Unaligned<typename Fn::Lane>*;
template <class Fn>
using ConstLanePtr = const Unaligned<typename Fn::Lane>*;

template <class Fn>
inline typename Fn::Value LoadElement(ConstLanePtr<Fn> p, uint64_t i) {
  if constexpr (Fn::kLanes == 1) {
    return p[i];
  } else {
    return {p[2 * i], p[2 * i + 1]};
  }
}

template <class Fn>
inline void StoreElement(LanePtr<Fn> p, uint64_t i, typename Fn::Value v) {
  if constexpr (Fn::kLanes == 1) {
    p[i] = v;
  } else {
    p[2 * i] = v.re;
    p[2 * i + 1] = v.im;
  }
}

// io[i] = op(io[i], in[i]); io and in do not overlap.
template <class Fn>
void IntoLoop(LanePtr<Fn> __restrict io, ConstLanePtr<Fn> __restrict in, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) {
    StoreElement<Fn>(io, i, Fn::Apply(LoadElement<Fn>(io, i), LoadElement<Fn>(in, i)));
  }
}

// out[i] = op(a[i], b[i]); out overlaps neither input (a and b are only read, so they may).
template <class Fn>
void ThreeLoop(LanePtr<Fn> __restrict out, ConstLanePtr<Fn> __restrict a,
               ConstLanePtr<Fn> __restrict b, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) {
    StoreElement<Fn>(out, i, Fn::Apply(LoadElement<Fn>(a, i), LoadElement<Fn>(b, i)));
  }
}

// io[i] = op(io[i], io[i]): both operands are the output (rare; not worth vectorizing).
template <class Fn>
void SelfLoop(LanePtr<Fn> io, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) {
    const typename Fn::Value v = LoadElement<Fn>(io, i);
    StoreElement<Fn>(io, i, Fn::Apply(v, v));
  }
}

// Which of the loops above a call needs; decided once per call from the pointers.
enum class Aliasing { kInto, kThree, kSelf };

// One entry point per (lane type, op): `in2` is ignored for kInto and kSelf, where the output
// is the other operand.
template <class Fn>
void RunLoop(Aliasing shape, void* out, const void* in, const void* in2, uint64_t n) {
  const auto o = static_cast<LanePtr<Fn>>(out);
  const auto a = static_cast<ConstLanePtr<Fn>>(in);
  switch (shape) {
    case Aliasing::kInto:
      return IntoLoop<Fn>(o, a, n);
    case Aliasing::kThree:
      return ThreeLoop<Fn>(o, a, static_cast<ConstLanePtr<Fn>>(in2), n);
    case Aliasing::kSelf:
      return SelfLoop<Fn>(o, n);
  }
}

}  // namespace weft::device::host::detail
