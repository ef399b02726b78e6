// All-reduce.
//
// Small messages: recursive doubling on recv, log2(p) rounds for p the largest power of two
// <= n. With n = p + r, the first 2r members pair up: each even one hands its vector to the
// odd one above it and sits out, getting the result back at the end. In the rounds proper a
// member swaps its vector with the partner whose (virtual) index differs in one bit and
// reduces; both partners combine the same two sub-results, and every op is commutative, so all
// members end with bit-identical values.
//
// Large messages: ring reduce-scatter into this member's slice of recv, then ring all-gather of
// the slices in place: 2(n-1)/n of the vector crosses each link, the bandwidth optimum.
#include <cstring>
#include <vector>

#include "backends/ucx/coll/algorithms.hpp"

namespace weft::backends::ucx_plugin {
namespace {

void RecursiveDoubling(Schedule& s, const Comm& c, const Reduction& red, char* out,
                       uint64_t bytes) {
  const int32_t n = c.size(), me = c.index;
  int32_t p = 1;
  while (p * 2 <= n) p *= 2;
  const int32_t extra = n - p;
  char* theirs = s.Scratch(bytes);
  auto reduce = [red, out, theirs, bytes](std::string* why) {
    return red.Into(out, theirs, bytes, why);
  };
  if (me < 2 * extra && me % 2 == 0) {  // folded out: hand over, then wait for the result
    s.NewRound();
    s.Send(me + 1, out, bytes);
    s.NewRound();
    s.Recv(me + 1, out, bytes);
    return;
  }
  if (me < 2 * extra) {  // take the even neighbour's vector in
    s.NewRound();
    s.Recv(me - 1, theirs, bytes);
    s.Then(reduce);
  }
  const int32_t v = me < 2 * extra ? me / 2 : me - extra;  // index among the p members
  auto real = [extra](int32_t virt) { return virt < extra ? 2 * virt + 1 : virt + extra; };
  for (int32_t mask = 1; mask < p; mask <<= 1) {
    const int32_t partner = real(v ^ mask);
    s.NewRound();
    s.Recv(partner, theirs, bytes);
    s.Send(partner, out, bytes);
    s.Then(reduce);
  }
  if (me < 2 * extra) {  // give the result back
    s.NewRound();
    s.Send(me - 1, out, bytes);
  }
}

}  // namespace

void BuildAllreduce(Schedule& s, const Comm& c, const Tuning& t, const Reduction& red,
                    const void* send, void* recv, uint64_t count) {
  const int32_t n = c.size();
  const uint64_t bytes = count * red.item;
  char* out = static_cast<char*>(recv);
  const bool ring = n > 1 && bytes >= t.allreduce_ring_bytes && count >= static_cast<uint64_t>(n);
  if (!ring) {
    if (bytes != 0 && out != send) std::memmove(out, send, bytes);
    if (n > 1 && bytes != 0) RecursiveDoubling(s, c, red, out, bytes);
    return;
  }
  std::vector<uint64_t> block(n), displs(n);
  uint64_t at = 0;
  for (int32_t i = 0; i < n; ++i) {  // the first count % n members get one element more
    block[i] = (count / n + (static_cast<uint64_t>(i) < count % n ? 1 : 0)) * red.item;
    displs[i] = at;
    at += block[i];
  }
  char* mine = out + displs[c.index];
  AddReduceScatterRing(s, c, t, red, static_cast<const char*>(send), mine, block.data(),
                       displs.data());
  AddAllgatherRing(s, c, mine, out, block.data(), displs.data());
}

}  // namespace weft::backends::ucx_plugin
