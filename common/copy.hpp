// Byte copies that stay fast whatever the two addresses are.
//
// Why not plain memcpy: on some x86 processors (seen on the AMD EPYC VMs this project runs
// on) the `rep movsb` that glibc's memcpy uses for mid-sized copies, and that the kernel uses
// for process_vm_readv, runs 6 to 25 times slower when the destination lies 1 to 63 bytes
// past the source modulo 4 KiB: each load then looks like it depends on a store just made
// (4K aliasing). That is exactly where two equal buffers allocated one after the other by
// malloc end up (a 16-byte chunk header apart). Measured, 128 KiB: memcpy 2.6 us, 42.5 us with
// the destination 16 bytes ahead; a 128-byte vector loop 3.1 us either way. So such copies
// take a vector loop (AVX2 where the processor has it) instead. Other processors do not care
// (an Intel Xeon VM: 64 KiB 1.10 vs 1.16 us), and there the workaround only costs (single copy
// used to read such messages through a scratch buffer: a second copy of every byte), so
// whether this processor suffers is measured once, on first use.
// Header-only (with the header-only parameter declarations), so that backend plugins use it too.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "common/copy_param.hpp"
#include "common/param_parse.hpp"

namespace weft {

// Whether `dst` lies 1..63 bytes past `src` modulo 4 KiB (the skew described above).
inline bool SkewedCopy(const void* dst, const void* src) {
  const auto skew = (reinterpret_cast<uintptr_t>(dst) - reinterpret_cast<uintptr_t>(src)) & 4095;
  return skew != 0 && skew < 64;
}

namespace copy_detail {

#if defined(__x86_64__)
inline void RepMovsb(void* d, const void* s, size_t n) {
  asm volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
}

// Microseconds of one `rep movsb` copy of 16 KiB to `skew` bytes past the source modulo 4 KiB.
inline double RepMovsbMicros(char* buf, size_t skew) {
  constexpr size_t kBytes = 16 << 10;
  const auto t0 = std::chrono::steady_clock::now();
  RepMovsb(buf + 2 * kBytes + skew, buf, kBytes);
  const auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::micro>(t1 - t0).count();
}
#endif

}  // namespace copy_detail

// Whether this processor copies slowly at that skew: measured once (a few microseconds), a
// skewed copy twice as slow as an aligned one counting as slow (AMD EPYC: 6-25 times).
// WEFT_COPY_SKEW_SLOW=1 or 0 says so instead (tests of the workaround on any processor).
inline bool SkewSlowsCopies() {
#if defined(__x86_64__)
  static const bool slow = [] {
    // Read here, in whichever module runs this (libweft or a plugin), through the declaration
    // libweft checks at context creation, which fails there if the text is malformed.
    if (const param::Parsed p = param::Read(params::kCopySkewSlowParam); p.ok() && p.value.set)
      return p.value.number == 1;
    constexpr size_t kSize = 3 * (16 << 10) + 4096;
    char* buf = static_cast<char*>(std::aligned_alloc(4096, kSize));
    if (buf == nullptr) return true;  // the workaround is correct either way
    std::memset(buf, 1, kSize);
    // The best of 8 of each, taken in turns (a clock ramping up meanwhile favours neither).
    double aligned = 1e30, skewed = 1e30;
    for (int i = 0; i < 8; ++i) {
      aligned = std::min(aligned, copy_detail::RepMovsbMicros(buf, 0));
      skewed = std::min(skewed, copy_detail::RepMovsbMicros(buf, 16));
    }
    std::free(buf);
    return skewed > 2 * aligned;
  }();
  return slow;
#else
  return false;
#endif
}

// Whether copying to `dst` from `src` is the slow case above on this processor.
inline bool SlowCopySkew(const void* dst, const void* src) {
  return SkewedCopy(dst, src) && SkewSlowsCopies();
}

namespace copy_detail {

// glibc copies below this with vector moves already, and from about L2's size on with
// non-temporal stores (measured unaffected at 512 KiB and beyond).
inline constexpr size_t kLoopFrom = 1024;
inline constexpr size_t kLoopBelow = 512 << 10;

// Forward copies in vector blocks; the tail goes to memcpy. No overlap (the caller checks).
#if defined(__x86_64__)
__attribute__((target("avx2"))) inline void LoopAvx2(char* d, const char* s, size_t n) {
  size_t i = 0;
  for (; i + 128 <= n; i += 128) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i + 32));
    const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i + 64));
    const __m256i e = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i + 96));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + i), a);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + i + 32), b);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + i + 64), c);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + i + 96), e);
  }
  std::memcpy(d + i, s + i, n - i);
}

inline void LoopSse2(char* d, const char* s, size_t n) {
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 16));
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 32));
    const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 48));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + i), a);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + i + 16), b);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + i + 32), c);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + i + 48), e);
  }
  std::memcpy(d + i, s + i, n - i);
}

inline bool HasAvx2() {
  static const bool yes = __builtin_cpu_supports("avx2");
  return yes;
}
#endif

}  // namespace copy_detail

// memmove(dst, src, n), without the slow case above.
inline void CopyBytes(void* dst, const void* src, size_t n) {
  auto* d = static_cast<char*>(dst);
  const auto* s = static_cast<const char*>(src);
#if defined(__x86_64__)
  const bool overlap = d < s + n && s < d + n;
  if (n >= copy_detail::kLoopFrom && n < copy_detail::kLoopBelow && !overlap &&
      SlowCopySkew(d, s)) {
    if (copy_detail::HasAvx2())
      copy_detail::LoopAvx2(d, s, n);
    else
      copy_detail::LoopSse2(d, s, n);
    return;
  }
#endif
  if (n != 0) std::memmove(d, s, n);
}

}  // namespace weft
