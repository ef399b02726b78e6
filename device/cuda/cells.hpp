// The per-cell work of the CUDA device operations, one source for both builds: nvcc compiles
// it into the kernels (kernels.cu) and the host compiler into the host build that runs the
// same loops on the fake CUDA runtime's streams (host_kernels.cpp), so what CI tests without a
// GPU is the kernels' own logic. The element math is the host reductions' (element_ops.hpp,
// WEFT_HD): a GPU rounds every reduction exactly as the CPU does.
#pragma once

#include <cstdint>
#include <cstring>

#include "device/hd.hpp"
#include "device/host/reduce/element_ops.hpp"
#include "device/host/reduce/round_double.hpp"
#include "device/region.hpp"

namespace weft::device::cuda {

// An index space and up to two operands' strides in bytes, normalised on the host (dims of one
// cell dropped, dims contiguous in both operands merged). Passed to kernels by value.
struct Cells {
  int32_t ndim = 0;
  int64_t extent[kMaxDims] = {};
  int64_t a[kMaxDims] = {};  // first operand (the destination)
  int64_t b[kMaxDims] = {};  // second operand (the source)

  WEFT_HD int64_t Volume() const {
    int64_t v = 1;
    for (int32_t d = 0; d < ndim; ++d) v *= extent[d];
    return v;
  }
  // The byte offsets of cell `linear` (row-major) in both operands.
  WEFT_HD void Offsets(int64_t linear, int64_t* oa, int64_t* ob) const {
    int64_t x = 0, y = 0;
    for (int32_t d = ndim - 1; d >= 0; --d) {
      const int64_t i = linear % extent[d];
      linear /= extent[d];
      x += i * a[d];
      y += i * b[d];
    }
    *oa = x;
    *ob = y;
  }
};

// A reduction's cells split in two: `out` holds the dims where the destination moves (a thread
// per destination cell), `repeat` the dims where it stays (stride 0: the halo adjoint of a
// replicated edge), walked in row-major order inside the thread so that repeated contributions
// add in the order the host adds them.
struct ReduceCells {
  Cells out;
  Cells repeat;
};

// A fill element by value (kMaxItemBytes at most).
struct Element {
  unsigned char bytes[kMaxItemBytes];
};

WEFT_HD inline void CopyCell(char* dst, const char* src, int64_t item) {
  for (int64_t k = 0; k < item; ++k) dst[k] = src[k];
}

// Complex sum: component-wise (each component rounded once, as the host's lane loop does).
template <class T>
struct ComplexSumFn {
  using Lane = T;
  using Value = host::detail::Complex<T>;
  static constexpr int kLanes = 2;
  WEFT_HD static Value Apply(Value x, Value y) {
    return {host::detail::SumFn<T>::Apply(x.re, y.re), host::detail::SumFn<T>::Apply(x.im, y.im)};
  }
};

// inout = Fn(inout, in) on one element at any alignment.
template <class Fn>
WEFT_HD inline void ReduceCell(char* inout, const char* in) {
  using V = typename Fn::Value;
  V x, y;
  memcpy(&x, inout, sizeof(V));
  memcpy(&y, in, sizeof(V));
  x = Fn::Apply(x, y);
  memcpy(inout, &x, sizeof(V));
}

// One destination cell of a reduction: its repeated contributions in row-major order.
template <class Fn>
WEFT_HD inline void ReduceOut(const ReduceCells& c, char* inout, const char* in, int64_t cell) {
  int64_t o = 0, i = 0;
  c.out.Offsets(cell, &o, &i);
  const int64_t n = c.repeat.Volume();
  for (int64_t r = 0; r < n; ++r) {
    int64_t ro = 0, ri = 0;
    c.repeat.Offsets(r, &ro, &ri);
    ReduceCell<Fn>(inout + o, in + i + ri);
  }
}

// avg's lanes (SPEC §2.4): a complex number is two lanes of its component type.
enum class Lane : int32_t { kHalf, kBfloat16, kFloat32, kFloat64 };

// acc = the lane widened to float64, exactly.
WEFT_HD inline double WidenLane(Lane k, const char* src, int64_t i) {
  if (k == Lane::kFloat64) {
    double v;
    memcpy(&v, src + i * 8, 8);
    return v;
  }
  if (k == Lane::kFloat32) {
    float v;
    memcpy(&v, src + i * 4, 4);
    return v;
  }
  uint16_t v;
  memcpy(&v, src + i * 2, 2);
  return k == Lane::kHalf ? host::detail::HalfToFloat(v) : host::detail::Bfloat16ToFloat(v);
}

// dst lane = acc / divisor rounded once into the lane's format.
WEFT_HD inline void NarrowLane(Lane k, double acc, double divisor, char* dst, int64_t i) {
  using namespace host::detail;
  if (k == Lane::kFloat64) {
    const double q = acc / divisor;
    memcpy(dst + i * 8, &q, 8);
    return;
  }
  // Local copies: device code may not refer to the namespace-scope structures themselves.
  constexpr NarrowFormat f32 = kFloat32Format, f16 = kFloat16Format, bf16 = kBfloat16Format;
  if (k == Lane::kFloat32) {
    const uint32_t bits = DivideAndRound(acc, divisor, f32);
    memcpy(dst + i * 4, &bits, 4);
    return;
  }
  const auto bits =
      static_cast<uint16_t>(DivideAndRound(acc, divisor, k == Lane::kHalf ? f16 : bf16));
  memcpy(dst + i * 2, &bits, 2);
}

}  // namespace weft::device::cuda
