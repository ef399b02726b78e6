// CPU reduction kernels: the host implementation of the device layer's reduce, widen and narrow
// (device/README.md), also handed to backend plugins as host->reduce and used by the host's
// composed collectives.
//
// Semantics (SPEC §2.4, §6.2), identical on every rank and in every build:
// - Dtypes: float16, bfloat16, float32, float64, complex64, complex128, int8..64, uint8..64 and
//   bool (DLPack {6, 8, 1}). Ops sum, max, min, prod; avg is composed by callers from the
//   accumulator functions below.
// - float16/bfloat16 are computed in float32 and rounded once per element per call
//   (round-to-nearest-even). float32 has at least 2p+2 bits for both, so that single float32
//   operation followed by the rounding is the correctly rounded half/bfloat16 result. On x86-64
//   CPUs with AVX2 and F16C they run vectorized hardware conversions (sixteen_bit_avx2.hpp),
//   with the same results as the portable software conversions used elsewhere.
// - Integer sum/prod wrap modulo 2^bits (computed in unsigned arithmetic).
// - bool: sum and max are OR, prod and min are AND; any non-zero byte reads as true and the
//   result bytes are 0 or 1.
// - complex: sum is per component; prod is exactly (a+bi)(c+di) = (ac-bd) + (ad+bc)i with
//   each product and sum rounded (no fused multiply-add, no Annex G infinity recovery).
// - float max/min: NaN propagates (either operand NaN gives NaN); max(-0.0, +0.0) is +0.0 and
//   min(-0.0, +0.0) is -0.0 in either order, so the result does not depend on rank order.
// - Every op is commutative. Which NaN comes out when both operands are NaN (its payload) is
//   unspecified: the compiler may commute a + b.
//
// Buffers need no alignment. `count` is in elements (a complex element is two components).
// A pointer may be NULL only when count is 0. Errors are kInvalidArgument with a message that
// names the function, dtype and op; nothing is written when an error is returned.
#pragma once

#include <cstdint>

#include "common/dtype.hpp"
#include "common/status.hpp"

namespace weft::device::host {

// inout[i] = op(inout[i], in[i]). `in` may equal `inout` (op(x, x)) but may not otherwise
// overlap it.
Status ReduceInto(DType t, ReduceOp op, void* inout, const void* in, uint64_t count);

// ReduceInto's loop for (t, op) as a plain function, for callers that reduce many times with
// one pair (the backend plugins, through weft_bk_host_api_t.reduce_kernel): it checks nothing,
// so `inout` and `in` must be equal or disjoint and hold `count` elements each. Null for a pair
// ReduceInto rejects (avg included).
using DirectReduceFn = void (*)(void* inout, const void* in, uint64_t count);
DirectReduceFn ReduceKernel(DType t, ReduceOp op);

// out[i] = op(a[i], b[i]). `out` may equal `a` and/or `b`; any other overlap of `out` with an
// input is rejected. `a` and `b` may overlap each other freely (they are only read).
Status Reduce3(DType t, ReduceOp op, void* out, const void* a, const void* b, uint64_t count);

// Writes the identity element of `op` for `t` into `count` elements of dst, so that
// op(identity, x) == x bit for bit:
//   sum:  0, but -0.0 for floating types (and both components of complex), since
//         -0.0 + x == x for every x including -0.0 (SPEC §2.4); false for bool.
//   prod: 1 (1+0i for complex); true for bool.
//   max:  lowest: -inf for floats, the minimum integer, false for bool.
//   min:  highest: +inf for floats, the maximum integer, true for bool.
// Complex prod caveat: (1+0i)(c+di) computed by the formula above turns a -0.0 component
// into +0.0 in some sign combinations and an infinite component into NaN; every finite value
// with non-zero components is kept exactly.
Status FillIdentity(DType t, ReduceOp op, void* dst, uint64_t count);

// avg (SPEC §2.4): types of 32 bits or fewer accumulate in float64 (complex64 in complex128),
// so that summing k copies of x is exact and R -> P(avg) -> R gives x back bit for bit.
// float64 and complex128 accumulate in themselves: their avg is sum/k correctly rounded, which
// gives x back only when the running sums j*x are exact (k <= 2, or x with at most
// 53 - log2(k) significant bits).
// Callers: WidenToAccumulator each contribution, ReduceInto(acc type, kSum, ...), then
// NarrowFromAccumulatorDividing by the group size.
//
// The accumulator dtype of `t`, or DType{} (all zero) when avg is not defined for `t`.
DType AvgAccumulatorType(DType t);

// acc[i] = t -> AvgAccumulatorType(t) of src[i] (exact: every such t converts exactly).
Status WidenToAccumulator(DType t, const void* src, void* acc, uint64_t count);

// dst[i] = acc[i] / divisor rounded to nearest-even into `t`, once: the quotient is rounded
// directly to t, never through an intermediate format. NaN stays NaN (quieted, top payload bits
// kept); overflow gives +-inf. `divisor` must be in [1, 2^53] so that it is exact in float64.
Status NarrowFromAccumulatorDividing(DType t, const void* acc, void* dst, uint64_t count,
                                     int64_t divisor);

}  // namespace weft::device::host
