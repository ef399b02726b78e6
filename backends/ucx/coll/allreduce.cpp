// All-reduce.
//
// Small messages: recursive doubling on recv (ForEachDoublingRound, algorithms.hpp), log2 of
// the member count rounds, non-powers of two folded in and out.
//
// Large messages: ring reduce-scatter into this member's slice of recv, then ring all-gather of
// the slices in place: 2(n-1)/n of the vector crosses each link, the bandwidth optimum.
//
// Why the all-gather half is written by the senders (a push, grants.hpp) rather than read by the
// receivers, by single copy only: a slice this member reduced and a neighbour read stays cached on
// the neighbour's core, and this member's next reduce-scatter, writing the slice again, first has
// to take every line back from there. Measured on 2 ranks of an AMD EPYC VM, 1 MiB in two 512 KiB
// halves, ns per KiB of a half (bench/ucx/handoff.c, a model of the two phases): with the two vCPUs
// on one L3 the reduce-scatter's read costs 116 when the slice was read last time against 80 when
// it was pushed, the whole cycle 276 against 236; with the vCPUs on two L3s (the host moves them
// there for seconds at a time) 495-600 against 80-106, the cycle 725 against 238. Where the
// receiver then reads the result (a vectorized sum, as a program using it would), the push still
// gains 12-15% (near 300 against 264, far 775 against 655). Pipes lose to it: every line of a ring
// is handed between the cores twice (the reader's copy, then the writer's next one), and the
// adaptive choice between them flipped from call to call (1 MiB: 90 to 150 us, against 108 steady).
// Measured in collbench, 2 ranks, near: 256 KiB 41 -> 29 us, 1 MiB 92..159 -> 108..136 us, 4 MiB
// unchanged; against Open MPI (bench/openmpi/compare.sh -n 2, busbw, median of 4 / 5 rounds) at
// 256 KiB / 1 MiB / 4 MiB 1.66x / 1.07x / 1.68x before, 3.72x / 5.43x / 5.27x after. Not with more
// ranks than CPUs: a push waits for the sender to be scheduled once more (4 ranks on 2 cores: 256
// KiB 129 -> 165..315 us).
#include <cstring>
#include <vector>

#include "backends/ucx/coll/algorithms.hpp"
#include "common/copy.hpp"

namespace weft::backends::ucx_plugin {
namespace {

void RecursiveDoubling(Schedule& s, const Comm& c, const Reduction& red, char* out,
                       uint64_t bytes) {
  char* theirs = s.Scratch(bytes);
  ForEachDoublingRound(c.size(), c.index, [&](const DoublingRound& r) {
    s.NewRound();
    if (r.recv) s.Recv(r.peer, r.recv_result ? out : theirs, bytes);
    if (r.send) s.Send(r.peer, out, bytes);
    if (r.reduce)
      s.Then([red, out, theirs, bytes, below = c.index < r.peer](std::string* why) {
        return red.InMemberOrder(below, out, theirs, bytes, why);
      });
    return true;
  });
}

}  // namespace

void BuildAllreduce(Schedule& s, const Comm& c, const Tuning& t, const Reduction& red,
                    const void* send, void* recv, uint64_t count) {
  const int32_t n = c.size();
  const uint64_t bytes = count * red.item;
  char* out = static_cast<char*>(recv);
  if (!AllreduceUsesRing(t, n, bytes, count)) {
    if (bytes != 0 && out != send) CopyBytes(out, send, bytes);
    if (n > 1 && bytes != 0) RecursiveDoubling(s, c, red, out, bytes);
    return;
  }
  std::vector<uint64_t> block(n), displs(n);
  uint64_t at = 0;
  for (int32_t i = 0; i < n; ++i) {  // the first count % n members get one element more
    block[i] = collective_math::EvenShare(count, n, i) * red.item;
    displs[i] = at;
    at += block[i];
  }
  char* mine = out + displs[c.index];
  AddReduceScatterRing(s, c, t, red, static_cast<const char*>(send), mine, block.data(),
                       displs.data());
  const bool push = t.allreduce_push >= 2 || (t.allreduce_push == 1 && c.state->cpu_per_rank());
  if (push) s.NoPipes();
  AddAllgatherRing(s, c, mine, out, block.data(), displs.data(), push);
}

}  // namespace weft::backends::ucx_plugin
