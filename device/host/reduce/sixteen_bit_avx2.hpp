// float16 and bfloat16 reductions with AVX2 (and the F16C conversion instructions for
// float16), used instead of the portable loops when the CPU has both: the portable software
// conversions cost tens of instructions per element under SSE2. Results are identical: both
// paths widen exactly, compute the same float32 formulas and round to nearest-even once.
//
// sixteen_bit_avx2.cpp is the only file built with -mavx2 -mf16c. It includes none of the
// shared inline headers, so the linker can never pick an AVX-encoded copy of a shared inline
// function for code that runs on CPUs without AVX.
#pragma once

#include <cstdint>

namespace weft::device::host::detail {

enum class SixteenBit { kFloat16, kBfloat16 };
enum class VecOp { kSum, kProd, kMax, kMin };

// out[i] = op(a[i], b[i]) over n values. `out` may equal `a` and/or `b` (each block is loaded
// before it is stored); no other overlap. Call only when the CPU has AVX2 and F16C.
template <SixteenBit kType, VecOp kOp>
void SixteenBitAvx2Loop(void* out, const void* a, const void* b, uint64_t n);

}  // namespace weft::device::host::detail
