// The collective algorithms of the UCX plugin, each written as rounds of a Schedule (issue 6):
//
//   barrier          dissemination: ceil(log2 n) rounds of 1-byte messages
//   broadcast        binomial tree; a pipelined chain of segments for large messages
//   all-reduce       recursive doubling (non-powers of two fold the extra members in and out)
//                    for small messages; ring reduce-scatter + ring all-gather for large ones
//   reduce-scatter   ring, each block reduced segment by segment as it lands
//   all-gather(v)    ring straight into recv; Bruck through scratch for small results
//   all-to-all(v)    pairwise exchange with a bounded number of steps in flight
//
// Arguments are checked by the caller (entry.cpp); sizes are bytes unless named counts. Every
// member of a communicator builds the same sequence of messages per peer pair, which is what
// matching in posting order (one tag per collective) needs.
#pragma once

#include <cstdint>

#include <weft/backend_plugin.h>

#include "backends/ucx/coll/schedule.hpp"
#include "backends/ucx/coll/tuning.hpp"

namespace weft::backends::ucx_plugin {

// A reduction through the host's kernels (every backend rounds identically).
struct Reduction {
  const weft_bk_host_api_t* host = nullptr;
  DLDataType dtype{};
  int32_t op = 0;
  uint64_t item = 0;  // bytes per element

  // inout[i] = op(inout[i], in[i]) for `bytes` bytes (a multiple of item).
  weft_status_t Into(void* inout, const void* in, uint64_t bytes, std::string* why) const;
};

void BuildBarrier(Schedule& s, const Comm& c);
void BuildBroadcast(Schedule& s, const Comm& c, const Tuning& t, void* buf, uint64_t bytes,
                    int32_t root);
// bytes[i], displs[i]: member i's block in recv. `send` holds this member's block.
void BuildAllgatherv(Schedule& s, const Comm& c, const Tuning& t, const void* send, void* recv,
                     const uint64_t* bytes, const uint64_t* displs);
// counts[i]: elements of member i's block; send holds all blocks back to back.
void BuildReduceScatterv(Schedule& s, const Comm& c, const Tuning& t, const Reduction& red,
                         const void* send, void* recv, const uint64_t* counts);
void BuildAllreduce(Schedule& s, const Comm& c, const Tuning& t, const Reduction& red,
                    const void* send, void* recv, uint64_t count);
void BuildAlltoallv(Schedule& s, const Comm& c, const Tuning& t, const void* send,
                    const uint64_t* send_bytes, const uint64_t* send_displs, void* recv,
                    const uint64_t* recv_bytes, const uint64_t* recv_displs);

// The ring phases, shared by all-reduce: rounds appended to `s`; sizes and offsets in bytes.
// All-gather: `send` is this member's block (it may already be in place in `out`).
void AddAllgatherRing(Schedule& s, const Comm& c, const void* send, char* out,
                      const uint64_t* bytes, const uint64_t* displs);
// Reduce-scatter: `in` holds every block at displs; `out` gets this member's, reduced; it may
// be this member's block of `in` (in place).
void AddReduceScatterRing(Schedule& s, const Comm& c, const Tuning& t, const Reduction& red,
                          const char* in, char* out, const uint64_t* bytes, const uint64_t* displs);

// Group index arithmetic modulo n.
inline int32_t Ring(int64_t i, int32_t n) { return static_cast<int32_t>(((i % n) + n) % n); }

}  // namespace weft::backends::ucx_plugin
