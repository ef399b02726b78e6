// The index arithmetic of the collective algorithms that the host's composed collectives
// (backends/host/composed_ops.cpp) and the UCX plugin's own (backends/ucx/coll/) compute alike:
// ring neighbours and blocks, pairwise partners, the even split of a vector over the members,
// the binomial tree's parent. Header-only and self-contained (constexpr, no Weft symbols), so
// that backend plugins, which link nothing of Weft's, use it too.
#pragma once

#include <cstdint>

namespace weft::collective_math {

// Position `i` on a ring of n members, for any i (negative too).
constexpr int32_t RingIndex(int64_t i, int32_t n) {
  return static_cast<int32_t>(((i % n) + n) % n);
}

// The blocks member `me` sends to its right neighbour and receives from its left one in step k
// of a ring.
struct RingBlocks {
  int32_t send;
  int32_t recv;
};
// All-gather: step k forwards the block that started k hops to the left (step 0: its own).
constexpr RingBlocks AllgatherRingBlocks(int32_t me, int32_t k, int32_t n) {
  return {RingIndex(int64_t{me} - k, n), RingIndex(int64_t{me} - k - 1, n)};
}
// Reduce-scatter: step k sends the partial sum of block me-k-1 and receives that of block
// me-k-2, so that the last step (k = n-2) receives the member's own block.
constexpr RingBlocks ReduceScatterRingBlocks(int32_t me, int32_t k, int32_t n) {
  return {RingIndex(int64_t{me} - k - 1, n), RingIndex(int64_t{me} - k - 2, n)};
}

// Step k (1..n-1) of a pairwise exchange (all-to-all) or of dissemination (barrier, k a power
// of two): send to me+k, receive from me-k, so each link carries one message per step.
struct Partners {
  int32_t to;
  int32_t from;
};
constexpr Partners PairwisePartners(int32_t me, int64_t k, int32_t n) {
  return {RingIndex(me + k, n), RingIndex(me - k, n)};
}

// Member i's share of `count` elements split evenly over n members: the first count % n
// members get one element more.
constexpr uint64_t EvenShare(uint64_t count, int32_t n, int32_t i) {
  const auto members = static_cast<uint64_t>(n);
  return count / members + (static_cast<uint64_t>(i) < count % members ? 1 : 0);
}

// Binomial tree over positions relative to the root (vr = 0 is the root): the lowest set bit
// of vr, or the first power of two >= n for the root. The parent is vr - mask; the children
// are vr + m for every power of two m < mask with vr + m < n.
constexpr int32_t BinomialMask(int32_t vr, int32_t n) {
  int32_t mask = 1;
  while (mask < n && !(vr & mask)) mask <<= 1;
  return mask;
}

}  // namespace weft::collective_math
