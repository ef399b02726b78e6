// All-gather(v). Ring (n-1 rounds): in round k a member forwards the block that started k hops
// to its left and receives the next one straight into its place in recv, so nothing is staged.
// Direct (one round), when every member shares this host (they agreed on boards, coll/board.hpp):
// each member reads every other member's block where it lies (single copy), so no member waits
// for a block to be forwarded; the bytes copied are the ring's, without its n-1 dependent
// rounds, which with more ranks than cores each wait for a member to be scheduled.
// Bruck (ceil(log2 n) rounds) for small results, where the round count dominates: blocks are
// kept in a scratch buffer in order of distance from this member (position j holds block
// me + j), so what a member has after round k is one contiguous prefix; in round k it sends
// min(2^k, n - 2^k) blocks of that prefix to me - 2^k and appends as many from me + 2^k, and at
// the end the positions are copied to their places in recv.
#include <algorithm>
#include <cstring>
#include <vector>

#include "backends/ucx/coll/algorithms.hpp"
#include "common/copy.hpp"

namespace weft::backends::ucx_plugin {
namespace {

void CopyOwn(const void* send, char* dst, uint64_t bytes) {
  if (bytes != 0 && dst != send) CopyBytes(dst, send, bytes);
}

void Bruck(Schedule& s, const Comm& c, const void* send, char* out, const uint64_t* bytes,
           const uint64_t* displs, uint64_t total) {
  const int32_t n = c.size(), me = c.index;
  std::vector<uint64_t> off(n + 1, 0);  // byte offset of position j in the scratch buffer
  for (int32_t j = 0; j < n; ++j) off[j + 1] = off[j] + bytes[Ring(me + j, n)];
  char* tmp = s.Scratch(total);
  CopyOwn(send, tmp, bytes[me]);  // position 0 is sent in round 0: copy before posting
  for (int32_t d = 1; d < n; d <<= 1) {
    const int32_t cnt = std::min(d, n - d);
    s.NewRound();
    s.Recv(Ring(me + d, n), tmp + off[d], off[d + cnt] - off[d]);
    s.Send(Ring(me - d, n), tmp, off[cnt]);
  }
  s.Then([tmp, out, n, me, off = std::move(off), b = std::vector<uint64_t>(bytes, bytes + n),
          dsp = std::vector<uint64_t>(displs, displs + n)](std::string*) {
    for (int32_t j = 0; j < n; ++j) {
      const int32_t blk = Ring(me + j, n);
      if (b[blk] != 0) CopyBytes(out + dsp[blk], tmp + off[j], b[blk]);
    }
    return WEFT_OK;
  });
}

}  // namespace

void AddAllgatherRing(Schedule& s, const Comm& c, const void* send, char* out,
                      const uint64_t* bytes, const uint64_t* displs, bool pushed) {
  const int32_t n = c.size(), me = c.index;
  const int32_t right = Ring(me + 1, n), left = Ring(me - 1, n);
  for (int32_t k = 0; k < n - 1; ++k) {
    const auto [sb, rb] = collective_math::AllgatherRingBlocks(me, k, n);
    s.NewRound();
    if (pushed)
      s.RecvPushed(left, out + displs[rb], bytes[rb]);
    else
      s.Recv(left, out + displs[rb], bytes[rb]);
    // Round 0 sends this member's block from `send`, so copying it into recv can overlap.
    s.Send(right, k == 0 ? send : out + displs[sb], bytes[sb]);
    if (k == 0) s.CopyDuring(out + displs[me], send, bytes[me]);
  }
}

void AddAllgatherDirect(Schedule& s, const Comm& c, const void* send, char* out,
                        const uint64_t* bytes, const uint64_t* displs) {
  const int32_t n = c.size(), me = c.index;
  s.NewRound();
  for (int32_t k = 1; k < n; ++k) {  // from the nearest members first, like the pairwise steps
    const int32_t from = Ring(me - k, n);
    s.Recv(from, out + displs[from], bytes[from]);
    s.Send(Ring(me + k, n), send, bytes[me]);
  }
  s.CopyDuring(out + displs[me], send, bytes[me]);
}

void BuildAllgatherv(Schedule& s, const Comm& c, const Tuning& t, const void* send, void* recv,
                     const uint64_t* bytes, const uint64_t* displs) {
  char* out = static_cast<char*>(recv);
  const int32_t n = c.size();
  if (n == 1) {
    CopyOwn(send, out + displs[0], bytes[0]);
    return;
  }
  uint64_t total = 0, extent = 0;  // gathered bytes; recv's span (displacements may leave gaps)
  for (int32_t i = 0; i < n; ++i) {
    total += bytes[i];
    extent = std::max(extent, displs[i] + bytes[i]);
  }
  // In place with the contribution anywhere but its own block (the API's form puts it at the
  // start of recv): the first block received could land on it before it is sent, so it moves
  // to its block now, before anything is posted.
  char* own = out + displs[c.index];
  if (send != own && Overlaps(send, bytes[c.index], out, extent)) {
    CopyBytes(own, send, bytes[c.index]);
    send = own;
  }
  if (total < t.allgather_bruck_bytes && n > 2)
    Bruck(s, c, send, out, bytes, displs, total);
  else if (n > 2 && c.board != nullptr && t.allgather_direct != 0)
    AddAllgatherDirect(s, c, send, out, bytes, displs);
  else
    AddAllgatherRing(s, c, send, out, bytes, displs);
}

}  // namespace weft::backends::ucx_plugin
