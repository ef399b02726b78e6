// Where a tensor's bytes lie (SPEC §6.2, §10): data + byte_offset, then `span` bytes. A range
// that wraps around the address space, or that reaches past the largest user address space a
// 64-bit Linux gives a process, cannot be memory the caller owns; it is refused before any
// pointer is formed from it, naming byte_offset and its value.
#pragma once

#include <dlpack/dlpack.h>

#include <cstdint>

#include "common/status.hpp"

namespace weft::api {

// No user address reaches this on x86-64 (2^47, or 2^56 with 5-level paging), AArch64 (2^52;
// tagged pointers keep their tag in the top byte, which the check leaves out), RISC-V (Sv57:
// 2^56) or POWER (2^52). Elsewhere only wrapping is refused.
#if defined(__x86_64__) || defined(__aarch64__) || defined(__riscv) || defined(__powerpc64__)
inline constexpr uint64_t kUserAddressEnd = uint64_t{1} << 56;
#else
inline constexpr uint64_t kUserAddressEnd = UINT64_MAX;
#endif

// Whether the `span` bytes (> 0) from t->data + t->byte_offset lie in the address space.
// A few instructions and no Status: collectives check every buffer on every call.
inline bool ByteRangeOk(const DLTensor* t, uint64_t span) {
  uint64_t address = reinterpret_cast<uintptr_t>(t->data);
#if defined(__aarch64__)
  address &= (uint64_t{1} << 56) - 1;  // the pointer's tag, if any, is not part of the address
#endif
  if constexpr (kUserAddressEnd == uint64_t{1} << 56) {
    // Each term below 2^56, so that the sum cannot wrap; then the sum. (Any term of 2^56 or
    // more would make the sum, span > 0, end past the limit or wrap: refused either way.)
    return ((address | t->byte_offset | span) >> 56) == 0 &&
           address + t->byte_offset + span <= kUserAddressEnd;
  } else {
    uint64_t first = 0, end = 0;
    return !__builtin_add_overflow(address, t->byte_offset, &first) &&
           !__builtin_add_overflow(first, span, &end);
  }
}

// The error for a range ByteRangeOk refused, naming `name`->byte_offset. Cold.
[[gnu::cold]] Status ByteRangeError(const DLTensor* t, const char* name, uint64_t span);

}  // namespace weft::api
