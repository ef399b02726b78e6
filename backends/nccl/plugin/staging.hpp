// Host buffers through device scratch: NCCL reads and writes device memory only, so an
// operation on host buffers (kDLCPU, and CUDA host memory) runs on scratch from the
// communicator's pool. Its inputs are copied, at the call, into a page-locked bounce block and
// from there to the scratch on the op's stream; its outputs go back to the bounce block on the
// stream and reach the caller's buffers on the host, as the op's first host work, once the
// stream has passed them. So no copy ever waits for the stream (a copy with pageable memory
// would: scratch_pool.hpp), and nothing is written into the caller's buffers after the
// operation has failed or timed out and its call returned. Regions that overlap (the in-place
// forms: the same buffer, or one member's block inside the whole) share scratch, so NCCL sees
// the same aliasing the caller made. For device buffers staging is the identity.
#pragma once

#include <cstdint>
#include <functional>
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

  // Takes scratch and a bounce block, copies the inputs into the bounce block and enqueues
  // their copies to the scratch on `stream`.
  weft_status_t Begin(cudaStream_t stream);
  // Where the op finds caller address `p`: its scratch inside a registered region, else `p`
  // itself (device memory, or an empty region).
  void* Dev(const void* p) const;
  // Enqueues the copies of the outputs to the bounce block on `stream`.
  weft_status_t End(cudaStream_t stream);
  // The host work that delivers the outputs from the bounce block, to run once the stream has
  // passed End's copies; empty when nothing comes out.
  std::function<weft_status_t()> Deliver() const;
  // Keeps `l`, scratch of the op's own, with the staging's until the stream passes the op.
  void Hold(Lease l) { held_.push_back(std::move(l)); }
  // The scratch, the bounce block and what Hold kept, for the completion to keep until the
  // stream passes them.
  std::vector<Lease> TakeLeases();

 private:
  struct Region {
    const char* p;
    uint64_t bytes;
    bool in, out;
    uint64_t offset = 0;  // in the scratch and in the bounce block
  };
  void Add(const void* p, uint64_t bytes, bool in, bool out);
  weft_status_t Copy(cudaStream_t stream, bool in);

  Comm& comm_;
  bool host_;
  std::vector<Region> regions_;
  Lease lease_, bounce_;
  std::vector<Lease> held_;
};

}  // namespace weft::backends::nccl_plugin
