// The context every conformance case shares: created once per process (one launch per world
// size runs every case), destroyed collectively at exit.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/device_buffers.hpp"
#include "weft/weft.h"

namespace conformance {

struct World {
  weft_context_t* ctx = nullptr;
  int32_t rank = 0, size = 1;
};
World& TheWorld();

// A 1-D contiguous tensor over `data`: CPU memory, or tagged as CUDA memory in the device
// launches (tests/support/device_buffers.hpp).
struct Tensor {
  int64_t shape[1];
  DLTensor t;
  Tensor(void* data, int64_t numel, DLDataType dtype)
      : shape{numel}, t{data, weft::test::BufferDevice(), 1, dtype, shape, nullptr, 0} {}
  Tensor(const Tensor& o) : Tensor(o.t.data, o.shape[0], o.t.dtype) {}
  Tensor& operator=(const Tensor&) = delete;
  DLTensor* get() { return &t; }
};

// A call that must succeed; on device buffers its work is then waited for, since the cases
// read the results on the host (on host buffers a successful call has completed already).
#define WEFT_OK_OR_FAIL(call)                                                  \
  do {                                                                         \
    const weft_status_t s_ = (call);                                           \
    ASSERT_EQ(s_, WEFT_OK) << #call << ": " << weft_status_string(s_) << " | " \
                           << weft_last_error();                               \
    weft::test::SyncDevice();                                                  \
  } while (0)

}  // namespace conformance
