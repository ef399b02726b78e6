// Reduce-scatter(v), ring: in round k a member sends its partial of block me-k-1 to the right
// (round 0: straight from the input) and receives the left neighbour's partial of block
// me-k-2, adding its own contribution; after n-1 rounds the block it completed is its own.
// Received partials alternate between two scratch blocks (one is being sent while the other
// fills); the last round receives straight into recv unless recv is this member's block of
// the input. Each block moves in segments that are reduced as soon as they land, while still
// in cache and while later segments are in flight.
//
// Direct (one round), for small blocks when every member shares this host (they agreed on
// boards, coll/board.hpp): each member reads every other member's contribution to its block
// where it lies in their input (single copy) and adds them up once all are here, in a fixed
// order (its own, then the members 1, 2, ... places to its left), so the result does not
// depend on arrival. The bytes copied are the ring's; what goes is the ring's n-1 dependent
// rounds, each of which, with more ranks than cores, waits for a member to be scheduled (as
// the direct all-gather, allgather.cpp). The price is scratch for n-1 blocks, read whole before
// they are added (the ring adds each segment as it lands, still in cache), so only up to
// Tuning::reduce_scatter_direct_bytes of it. Measured, 4 ranks on 2 cores (collbench, median
// of 6 launches, us, ring -> direct): 128 KiB 74 -> 59, 256 KiB 99 -> 81, 512 KiB 172 -> 139,
// 1 MiB 297 -> 241; at 2 MiB (1.5 MiB of scratch) 499 -> 626, hence 1 MiB.
#include <algorithm>
#include <cstring>
#include <vector>

#include "backends/ucx/coll/algorithms.hpp"
#include "common/copy.hpp"

namespace weft::backends::ucx_plugin {

void AddReduceScatterRing(Schedule& s, const Comm& c, const Tuning& t, const Reduction& red,
                          const char* in, char* out, const uint64_t* bytes,
                          const uint64_t* displs) {
  const int32_t n = c.size(), me = c.index;
  if (n == 1) {
    if (bytes[0] != 0 && out != in + displs[0]) CopyBytes(out, in + displs[0], bytes[0]);
    return;
  }
  const int32_t left = Ring(me - 1, n), right = Ring(me + 1, n);
  const uint64_t max_block = *std::max_element(bytes, bytes + n);
  const bool in_place = out == in + displs[me];
  uint64_t total = 0;
  for (int32_t i = 0; i < n; ++i) total += bytes[i];
  // recv overlapping the input elsewhere than this member's block (the API's in-place form
  // puts the result at the start): blocks still to be sent or added may sit under it, so the
  // last round also lands in scratch and the result is copied out when the ring is done.
  const bool staged_out = !in_place && Overlaps(out, bytes[me], in, total);
  const uint64_t seg = std::max<uint64_t>(red.item, t.segment_bytes / red.item * red.item);
  char* partial[2] = {nullptr, nullptr};
  const char* sent = nullptr;  // what this round sends (last round's partial)
  for (int32_t k = 0; k < n - 1; ++k) {
    const auto [sb, rb] = collective_math::ReduceScatterRingBlocks(me, k, n);
    const bool last = k == n - 2;
    const char* src = k == 0 ? in + displs[sb] : sent;
    char* dst = out;
    if (!last || in_place || staged_out) {
      if (partial[k % 2] == nullptr) partial[k % 2] = s.Scratch(max_block);
      dst = partial[k % 2];
    }
    const char* own = in + displs[rb];
    s.NewRound();
    for (uint64_t off = 0; off < bytes[rb]; off += seg) {
      const uint64_t len = std::min(seg, bytes[rb] - off);
      if (last && in_place) {
        // out is this member's block of the input: own contribution + the neighbour's partial.
        s.Recv(left, dst + off, len, [red, o = out + off, p = dst + off, len](std::string* why) {
          return red.Into(o, p, len, why);
        });
      } else {
        s.Recv(left, dst + off, len, [red, p = dst + off, o = own + off, len](std::string* why) {
          return red.Into(p, o, len, why);
        });
      }
    }
    for (uint64_t off = 0; off < bytes[sb]; off += seg)
      s.Send(right, src + off, std::min(seg, bytes[sb] - off));
    sent = dst;
  }
  if (staged_out)
    s.Then([out, result = sent, len = bytes[me]](std::string*) {
      CopyBytes(out, result, len);
      return WEFT_OK;
    });
}

void AddReduceScatterDirect(Schedule& s, const Comm& c, const Reduction& red, const char* in,
                            char* out, const uint64_t* bytes, const uint64_t* displs) {
  const int32_t n = c.size(), me = c.index;
  const uint64_t mine = bytes[me];
  const char* own = in + displs[me];
  uint64_t total = 0;
  for (int32_t i = 0; i < n; ++i) total += bytes[i];
  // theirs + (k - 1) * mine: the contribution of member me - k.
  char* theirs = s.Scratch(std::max<uint64_t>(1, (n - 1) * mine));
  s.NewRound();
  for (int32_t k = 1; k < n; ++k) {  // the nearest members first, like the pairwise steps
    s.Recv(Ring(me - k, n), theirs + (k - 1) * mine, mine);
    const int32_t to = Ring(me + k, n);
    s.Send(to, in + displs[to], bytes[to]);
  }
  // recv overlapping the input anywhere but this member's block (the API's in-place form):
  // the sum is built in scratch and copied out (the round is over, so nobody reads `in` now).
  const bool in_place = out == own;
  const bool staged = !in_place && Overlaps(out, mine, in, total);
  s.Then([red, n, own, out, theirs, mine, in_place, staged](std::string* why) -> weft_status_t {
    if (mine == 0) return WEFT_OK;
    char* acc = staged ? theirs : out;
    if (staged) {  // acc already holds member me-1's: own + it, the same bits as below
      if (weft_status_t st = red.Into(acc, own, mine, why)) return st;
    } else if (!in_place) {
      CopyBytes(acc, own, mine);
    }
    for (int32_t k = staged ? 2 : 1; k < n; ++k)
      if (weft_status_t st = red.Into(acc, theirs + (k - 1) * mine, mine, why)) return st;
    if (staged) CopyBytes(out, acc, mine);
    return WEFT_OK;
  });
}

void BuildReduceScatterv(Schedule& s, const Comm& c, const Tuning& t, const Reduction& red,
                         const void* send, void* recv, const uint64_t* counts) {
  const int32_t n = c.size();
  std::vector<uint64_t> bytes(n), displs(n);
  uint64_t at = 0;
  for (int32_t i = 0; i < n; ++i) {
    bytes[i] = counts[i] * red.item;
    displs[i] = at;
    at += bytes[i];
  }
  const uint64_t max_block = *std::max_element(bytes.begin(), bytes.end());
  if (n > 2 && c.board != nullptr && (n - 1) * max_block <= t.reduce_scatter_direct_bytes)
    AddReduceScatterDirect(s, c, red, static_cast<const char*>(send), static_cast<char*>(recv),
                           bytes.data(), displs.data());
  else
    AddReduceScatterRing(s, c, t, red, static_cast<const char*>(send), static_cast<char*>(recv),
                         bytes.data(), displs.data());
}

}  // namespace weft::backends::ucx_plugin
