// Scratch memory for collectives (reduction partials, Bruck's rotated blocks), reused across
// calls on one communicator: fresh pages fault on first touch, which at tens of MiB costs more
// than the transfer itself. A buffer is shared between the collective and each UCX request
// that points into it, so a request UCX still owns after the collective ended (a matched
// receive cannot be withdrawn) never writes into freed memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "backends/ucx/transport/comm.hpp"

namespace weft::backends::ucx_plugin {

struct ScratchBuffer {
  struct Free {
    void operator()(char* p) const;
  };
  std::unique_ptr<char, Free> data;
  uint64_t capacity = 0;
};

// A buffer of at least `bytes` (64-byte aligned) that no other collective uses: a cached one
// when one is free and big enough, else a new one, which the cache keeps in place of its
// smallest free buffer. Requires State::mu() (the cache lives in the communicator).
std::shared_ptr<ScratchBuffer> AcquireScratch(Comm& c, uint64_t bytes);
// The same from any cache of buffers (State keeps one for packed point-to-point messages).
std::shared_ptr<ScratchBuffer> AcquireFrom(std::vector<std::shared_ptr<ScratchBuffer>>& cache,
                                           uint64_t bytes);

}  // namespace weft::backends::ucx_plugin
