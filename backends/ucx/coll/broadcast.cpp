// Broadcast. Small messages: a binomial tree (ceil(log2 n) rounds; a member receives from the
// member that differs in its lowest set bit relative to the root, then forwards to its
// children). Large messages over 3+ members: a chain root -> root+1 -> ... in segments, so
// every link carries a segment at once and the time is about (segments + n - 2) segment
// transfers instead of log2(n) whole-message ones.
#include <algorithm>

#include "backends/ucx/coll/algorithms.hpp"

namespace weft::backends::ucx_plugin {
namespace {

void Binomial(Schedule& s, const Comm& c, char* buf, uint64_t bytes, int32_t root) {
  const int32_t n = c.size();
  const int32_t vr = Ring(c.index - root, n);  // position relative to the root
  int32_t mask = collective_math::BinomialMask(vr, n);
  if (vr != 0) {  // the parent clears the lowest set bit
    s.NewRound();
    s.Recv(Ring(vr - mask + root, n), buf, bytes);
  }
  bool round_open = false;
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (vr + mask >= n) continue;
    if (!round_open) s.NewRound();
    round_open = true;
    s.Send(Ring(vr + mask + root, n), buf, bytes);
  }
}

void Chain(Schedule& s, const Comm& c, const Tuning& t, char* buf, uint64_t bytes, int32_t root) {
  const int32_t n = c.size();
  const int64_t p = Ring(c.index - root, n);  // position in the chain
  const uint64_t seg = t.segment_bytes;
  const int64_t chunks = static_cast<int64_t>((bytes + seg - 1) / seg);
  const int32_t prev = Ring(c.index - 1, n), next = Ring(c.index + 1, n);
  auto piece = [&](int64_t k, uint64_t* len) {
    const uint64_t off = static_cast<uint64_t>(k) * seg;
    *len = std::min(seg, bytes - off);
    return buf + off;
  };
  // Round r: receive chunk r - p + 1 from prev, send chunk r - p (received last round) to next.
  for (int64_t r = 0; r < chunks + n - 2; ++r) {
    const int64_t in = r - p + 1, out = r - p;
    const bool recv = p >= 1 && in >= 0 && in < chunks;
    const bool send = p <= n - 2 && out >= 0 && out < chunks;
    if (!recv && !send) continue;
    s.NewRound();
    uint64_t len = 0;
    if (recv) {
      char* at = piece(in, &len);
      s.Recv(prev, at, len);
    }
    if (send) {
      char* at = piece(out, &len);
      s.Send(next, at, len);
    }
  }
}

}  // namespace

void BuildBroadcast(Schedule& s, const Comm& c, const Tuning& t, void* buf, uint64_t bytes,
                    int32_t root) {
  if (c.size() == 1) return;
  char* b = static_cast<char*>(buf);
  if (c.size() > 2 && bytes >= t.broadcast_chain_bytes && bytes > t.segment_bytes)
    Chain(s, c, t, b, bytes, root);
  else
    Binomial(s, c, b, bytes, root);
}

}  // namespace weft::backends::ucx_plugin
