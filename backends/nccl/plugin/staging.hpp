// Host buffers through device scratch: NCCL reads and writes device memory only, so an
// operation on host buffers (kDLCPU, and CUDA host memory) copies its inputs into scratch from
// the communicator's pool on the op's stream, runs there, and copies its outputs back, all
// without the host waiting. Regions that overlap (the in-place forms: the same buffer, or one
// member's block inside the whole) share scratch, so NCCL sees the same aliasing the caller
// made. For device buffers staging is the identity.
#pragma once

#include <cstdint>
#include <vector>

#include "backends/nccl/plugin/comm.hpp"

namespace weft::backends::nccl_plugin {

class Staging {
 public:
  Staging(Comm& c, bool host) : comm_(c), host_(host) {}

  // Registers what the op reads (In), writes (Out) or both, before Begin.
  void In(const void* p, uint64_t bytes) { Add(p, bytes, true, false); }
  void Out(void* p, uint64_t bytes) { Add(p, bytes, false, true); }
  void InOut(void* p, uint64_t bytes) { Add(p, bytes, true, true); }

  // Takes scratch and enqueues the copies in on `stream`.
  weft_status_t Begin(cudaStream_t stream);
  // Where the op finds caller address `p`: its scratch inside a registered region, else `p`
  // itself (device memory, or an empty region).
  void* Dev(const void* p) const;
  // Enqueues the copies out on `stream`.
  weft_status_t End(cudaStream_t stream);
  // The scratch, for the completion to keep until the stream passes it.
  Lease TakeLease() { return std::move(lease_); }

 private:
  struct Region {
    const char* p;
    uint64_t bytes;
    bool in, out;
    uint64_t offset = 0;  // in the scratch
  };
  void Add(const void* p, uint64_t bytes, bool in, bool out);
  weft_status_t Copy(cudaStream_t stream, bool in);

  Comm& comm_;
  bool host_;
  std::vector<Region> regions_;
  Lease lease_;
};

}  // namespace weft::backends::nccl_plugin
