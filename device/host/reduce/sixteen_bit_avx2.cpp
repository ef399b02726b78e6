// Built with -mavx2 -mf16c (x86-64 only); reached only after a CPU check in reduce_kernels.cpp.
#include "device/host/reduce/sixteen_bit_avx2.hpp"

#include <immintrin.h>

#include <cstdint>
#include <cstring>

namespace weft::device::host::detail {

namespace {

// The float32 op on 8 lanes, the formulas of element_ops.hpp: max/min pick the ordered
// operand; for equal or unordered operands, equal non-zero values are kept and the arithmetic
// `tie` gives max(-0, +0) = +0, min(-0, +0) = -0, and NaN when either is NaN.
template <VecOp kOp>
__m256 Apply8(__m256 a, __m256 b) {
  if constexpr (kOp == VecOp::kSum) return _mm256_add_ps(a, b);
  if constexpr (kOp == VecOp::kProd) return _mm256_mul_ps(a, b);
  constexpr int kFirst = kOp == VecOp::kMax ? _CMP_GT_OQ : _CMP_LT_OQ;
  const __m256 keep = _mm256_and_ps(_mm256_cmp_ps(a, b, _CMP_EQ_OQ),
                                    _mm256_cmp_ps(a, _mm256_setzero_ps(), _CMP_NEQ_OQ));
  const __m256 sign = _mm256_set1_ps(-0.0f);  // x ^ sign is -x, also for zeros (0 - x is not)
  const __m256 arith = kOp == VecOp::kMax ? _mm256_add_ps(a, b)
                                          : _mm256_xor_ps(_mm256_sub_ps(_mm256_xor_ps(a, sign), b),
                                                          sign);  // -(-a - b)
  const __m256 tie = _mm256_blendv_ps(arith, a, keep);
  const __m256 b_or_tie = _mm256_blendv_ps(tie, b, _mm256_cmp_ps(b, a, kFirst));
  return _mm256_blendv_ps(b_or_tie, a, _mm256_cmp_ps(a, b, kFirst));
}

__m256 WidenBfloat16(__m128i v) {
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(v), 16));
}

// Round-to-nearest-even into the top 16 bits; NaN stays NaN with the quiet bit set (as
// half_float.hpp's FloatToBfloat16).
__m128i NarrowBfloat16(__m256 f) {
  const __m256i bits = _mm256_castps_si256(f);
  const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(bits, 16), _mm256_set1_epi32(1));
  const __m256i bias = _mm256_add_epi32(_mm256_set1_epi32(0x7fff), lsb);
  const __m256i rounded = _mm256_srli_epi32(_mm256_add_epi32(bits, bias), 16);
  const __m256i nan = _mm256_or_si256(_mm256_srli_epi32(bits, 16), _mm256_set1_epi32(0x40));
  const __m256i mag = _mm256_and_si256(bits, _mm256_set1_epi32(0x7fffffff));
  const __m256i is_nan = _mm256_cmpgt_epi32(mag, _mm256_set1_epi32(0x7f800000));
  const __m256i r = _mm256_blendv_epi8(rounded, nan, is_nan);
  // packus works within 128-bit halves: gather the two low quarters, then take 128 bits.
  const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(r, r), 0x08);
  return _mm256_castsi256_si128(packed);
}

// Eight values at a time: widen exactly, compute in float32, round to nearest-even once.
template <SixteenBit kType, VecOp kOp>
void Block8(unsigned char* out, const unsigned char* a, const unsigned char* b) {
  const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a));
  const __m128i y = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b));
  __m128i r;
  if constexpr (kType == SixteenBit::kFloat16) {
    r = _mm256_cvtps_ph(Apply8<kOp>(_mm256_cvtph_ps(x), _mm256_cvtph_ps(y)),
                        _MM_FROUND_TO_NEAREST_INT);
  } else {
    r = NarrowBfloat16(Apply8<kOp>(WidenBfloat16(x), WidenBfloat16(y)));
  }
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), r);
}

}  // namespace

template <SixteenBit kType, VecOp kOp>
void SixteenBitAvx2Loop(void* out, const void* a, const void* b, uint64_t n) {
  auto* o = static_cast<unsigned char*>(out);
  const auto* x = static_cast<const unsigned char*>(a);
  const auto* y = static_cast<const unsigned char*>(b);
  const uint64_t whole = n / 8 * 8;
  for (uint64_t i = 0; i < whole; i += 8) Block8<kType, kOp>(o + 2 * i, x + 2 * i, y + 2 * i);
  if (whole == n) return;
  // The last n % 8 values go through a padded block so nothing outside the buffers is touched.
  unsigned char tx[16] = {}, ty[16] = {}, to[16];
  const uint64_t tail = 2 * (n - whole);
  std::memcpy(tx, x + 2 * whole, tail);
  std::memcpy(ty, y + 2 * whole, tail);
  Block8<kType, kOp>(to, tx, ty);
  std::memcpy(o + 2 * whole, to, tail);
}

#define WEFT_INSTANTIATE_(type, op)                                                              \
  template void SixteenBitAvx2Loop<SixteenBit::type, VecOp::op>(void*, const void*, const void*, \
                                                                uint64_t);
WEFT_INSTANTIATE_(kFloat16, kSum)
WEFT_INSTANTIATE_(kFloat16, kProd)
WEFT_INSTANTIATE_(kFloat16, kMax)
WEFT_INSTANTIATE_(kFloat16, kMin)
WEFT_INSTANTIATE_(kBfloat16, kSum)
WEFT_INSTANTIATE_(kBfloat16, kProd)
WEFT_INSTANTIATE_(kBfloat16, kMax)
WEFT_INSTANTIATE_(kBfloat16, kMin)
#undef WEFT_INSTANTIATE_

}  // namespace weft::device::host::detail
