// All-reduce.
//
// Small messages: recursive doubling on recv (ForEachDoublingRound, algorithms.hpp), log2 of
// the member count rounds, non-powers of two folded in and out.
//
// Large messages: ring reduce-scatter into this member's slice of recv, then ring all-gather of
// the slices in place: 2(n-1)/n of the vector crosses each link, the bandwidth optimum.
#include <cstring>
#include <vector>

#include "backends/ucx/coll/algorithms.hpp"
#include "common/copy.hpp"

namespace weft::backends::ucx_plugin {
namespace {

void RecursiveDoubling(Schedule& s, const Comm& c, const Reduction& red, char* out,
                       uint64_t bytes) {
  char* theirs = s.Scratch(bytes);
  auto reduce = [red, out, theirs, bytes](std::string* why) {
    return red.Into(out, theirs, bytes, why);
  };
  ForEachDoublingRound(c.size(), c.index, [&](const DoublingRound& r) {
    s.NewRound();
    if (r.recv) s.Recv(r.peer, r.recv_result ? out : theirs, bytes);
    if (r.send) s.Send(r.peer, out, bytes);
    if (r.reduce) s.Then(reduce);
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
