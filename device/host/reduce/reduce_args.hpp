// Argument checks shared by the reduction entry points, so that every function rejects bad
// input the same way and with a message that names itself, the dtype and the op.
#pragma once

#include <cstdint>

#include "common/dtype.hpp"
#include "common/status.hpp"

namespace weft::device::host::detail {

// (t, op) must be one an element kernel implements: ReduceValidFor, and not avg (which callers
// compose from the accumulator functions).
Status CheckElementOp(const char* fn, DType t, ReduceOp op);

// The message for a buffer CheckBuffer rejects. Out of line and cold: the check itself runs
// on every reduction and stays a few instructions inline.
[[gnu::cold]] Status BufferError(const char* fn, const char* name, const void* p, DType t,
                                 uint64_t count);

// `count` elements of `t` must fit in memory, and `p` may be NULL only when count is 0.
// On success *bytes is the buffer's size.
inline Status CheckBuffer(const char* fn, const char* name, const void* p, DType t, uint64_t count,
                          uint64_t* bytes) {
  const auto item = static_cast<uint64_t>(ItemSize(t));
  if (__builtin_mul_overflow(count, item, bytes) || (p == nullptr && count != 0)) [[unlikely]]
    return BufferError(fn, name, p, t, count);
  return Status::Ok();
}

// Whether [x, x+x_bytes) and [y, y+y_bytes) share a byte.
bool Overlaps(const void* x, uint64_t x_bytes, const void* y, uint64_t y_bytes);

}  // namespace weft::device::host::detail
