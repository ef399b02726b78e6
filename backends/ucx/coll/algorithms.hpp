// The collective algorithms of the UCX plugin, each written as rounds of a Schedule (issue 6):
//
//   barrier          dissemination: ceil(log2 n) rounds of 1-byte messages
//   broadcast        binomial tree; a pipelined chain of segments for large messages
//   all-reduce       recursive doubling (non-powers of two fold the extra members in and out)
//                    for small messages; ring reduce-scatter + ring all-gather for large ones
//   reduce-scatter   ring, each block reduced segment by segment as it lands
//   all-gather(v)    ring straight into recv; Bruck through scratch for small results; direct
//                    (one round, every block read where it lies) for members on one host
//   all-to-all(v)    pairwise exchange with a bounded number of steps in flight
//
// Arguments are checked by the caller (entry.cpp); sizes are bytes unless named counts. Every
// member of a communicator builds the same sequence of messages per peer pair, which is what
// matching in posting order (one tag per collective) needs.
#pragma once

#include <cstdint>

#include <weft/backend_plugin.h>

#include "backends/ucx/coll/schedule.hpp"
#include "backends/ucx/tuning.hpp"
#include "common/collective_math.hpp"

namespace weft::backends::ucx_plugin {

// A reduction through the host's kernels (every backend rounds identically).
struct Reduction {
  const weft_bk_host_api_t* host = nullptr;
  DLDataType dtype{};
  int32_t op = 0;
  uint64_t item = 0;  // bytes per element
  // The host's kernel for (dtype, op) where the host hands it out (ABI 1.2), called directly:
  // host->reduce checks its arguments on every call, which costs more than reducing the few
  // bytes of a small all-reduce. item == 1 << item_shift then (reducible dtypes have one lane).
  weft_bk_reduce_fn kernel = nullptr;
  uint32_t item_shift = 0;

  // inout[i] = op(inout[i], in[i]) for `bytes` bytes (a multiple of item).
  weft_status_t Into(void* inout, const void* in, uint64_t bytes, std::string* why) const;
  // mine = lower op upper, where `mine` belongs to the lower member of the two when `below`:
  // both partners of a pairwise step then compute the same expression. Commutativity is not
  // enough for equal bits: max(+0, -0) and NaN + NaN keep the first operand's sign or payload.
  // The upper member reduces into `theirs` and copies the result back.
  weft_status_t InMemberOrder(bool below, void* mine, void* theirs, uint64_t bytes,
                              std::string* why) const;
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
// All-gather: `send` is this member's block (it may already be in place in `out`); `pushed`:
// the blocks are received with Schedule::RecvPushed.
void AddAllgatherRing(Schedule& s, const Comm& c, const void* send, char* out,
                      const uint64_t* bytes, const uint64_t* displs, bool pushed = false);
// The same in one round: every member sends its block to every other one.
void AddAllgatherDirect(Schedule& s, const Comm& c, const void* send, char* out,
                        const uint64_t* bytes, const uint64_t* displs);
// Reduce-scatter: `in` holds every block at displs; `out` gets this member's, reduced; it may
// be this member's block of `in` (in place).
void AddReduceScatterRing(Schedule& s, const Comm& c, const Tuning& t, const Reduction& red,
                          const char* in, char* out, const uint64_t* bytes, const uint64_t* displs);
// The same in one round: every member reads its block's contributions from all the others.
void AddReduceScatterDirect(Schedule& s, const Comm& c, const Reduction& red, const char* in,
                            char* out, const uint64_t* bytes, const uint64_t* displs);

// Group index arithmetic modulo n (common/collective_math.hpp, shared with the host's composed
// collectives, as are the ring blocks, pairwise partners, even shares and binomial masks).
inline int32_t Ring(int64_t i, int32_t n) { return collective_math::RingIndex(i, n); }

// Whether [a, a + a_bytes) and [b, b + b_bytes) share a byte.
inline bool Overlaps(const void* a, uint64_t a_bytes, const void* b, uint64_t b_bytes) {
  const auto x = reinterpret_cast<uintptr_t>(a), y = reinterpret_cast<uintptr_t>(b);
  return a_bytes != 0 && b_bytes != 0 && x < y + b_bytes && y < x + a_bytes;
}

// Whether an all-reduce of `count` elements (`bytes`) over n members takes the ring; else
// recursive doubling.
inline bool AllreduceUsesRing(const Tuning& t, int32_t n, uint64_t bytes, uint64_t count) {
  return n > 1 && bytes >= t.allreduce_ring_bytes && count >= static_cast<uint64_t>(n);
}

// One round of recursive doubling, seen from one member: with `peer`, receive its vector
// (into scratch, or straight into the result when `recv_result`) and/or send this member's,
// then reduce what came in when `reduce`.
struct DoublingRound {
  int32_t peer;
  bool recv, recv_result, send, reduce;
};

// Calls f(round) for member `me`'s rounds of recursive doubling over n members, in order,
// while f returns true. log2(p) rounds for p the largest power of two <= n; with n = p + r,
// the first 2r members pair up: each even one hands its vector to the odd one above it and
// sits out, getting the result back at the end. In the rounds proper a member swaps its
// vector with the partner whose (virtual) index differs in one bit and reduces; both
// partners combine the same two sub-results in member order (Reduction::InMemberOrder), so all
// members end with bit-identical values, signed zeros and NaN payloads included. The schedule
// (allreduce.cpp) and the inline small all-reduce (small.cpp) both walk this, so they exchange the
// same messages in the same order.
template <typename F>
void ForEachDoublingRound(int32_t n, int32_t me, F&& f) {
  int32_t p = 1;
  while (p * 2 <= n) p *= 2;
  const int32_t extra = n - p;
  if (me < 2 * extra && me % 2 == 0) {  // folded out: hand over, then wait for the result
    if (f(DoublingRound{me + 1, false, false, true, false}))
      f(DoublingRound{me + 1, true, true, false, false});
    return;
  }
  if (me < 2 * extra && !f(DoublingRound{me - 1, true, false, false, true})) return;
  const int32_t v = me < 2 * extra ? me / 2 : me - extra;  // index among the p members
  auto real = [extra](int32_t virt) { return virt < extra ? 2 * virt + 1 : virt + extra; };
  for (int32_t mask = 1; mask < p; mask <<= 1)
    if (!f(DoublingRound{real(v ^ mask), true, false, true, true})) return;
  if (me < 2 * extra) f(DoublingRound{me - 1, false, false, true, false});  // give it back
}

}  // namespace weft::backends::ucx_plugin
