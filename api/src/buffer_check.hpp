// Validation of the DLTensors handed to communicating calls (SPEC §6.2): every reason a
// buffer can be wrong becomes an error naming the argument, before anything is sent.
#pragma once

#include <dlpack/dlpack.h>

#include <cstdint>

#include "common/dtype.hpp"
#include "common/result.hpp"

namespace weft::api {

struct Buffer {
  char* data = nullptr;  // data + byte_offset
  int64_t numel = 0;
  DType dtype;
  DLDevice device{kDLCPU, 0};
  uint64_t bytes() const { return static_cast<uint64_t>(numel) * ItemSize(dtype); }
};

// A contiguous (compact) tensor of a movable dtype on a known device. `name` is the argument.
Result<Buffer> CheckBuffer(const DLTensor* t, const char* name);
// Output checks on top: no zero strides (guaranteed by compactness) and no partial overlap
// with the input; the same start address is the in-place form.
Status CheckNoOverlap(const Buffer& in, const char* in_name, const Buffer& out,
                      const char* out_name);
Status CheckSameType(const Buffer& a, const char* an, const Buffer& b, const char* bn);

}  // namespace weft::api
