// All-to-all(v), pairwise: in step k (1..n-1) a member sends to me+k and receives from me-k,
// so every member talks to a different peer in each step and no link carries two messages at
// once. `alltoall_inflight` steps are posted per round, which bounds the requests and
// unexpected-message memory (2 per step) while still overlapping consecutive steps. The block
// a member sends itself is copied while the first round flies.
#include <algorithm>
#include <cstring>

#include "backends/ucx/coll/algorithms.hpp"
#include "common/copy.hpp"

namespace weft::backends::ucx_plugin {

void BuildAlltoallv(Schedule& s, const Comm& c, const Tuning& t, const void* send,
                    const uint64_t* send_bytes, const uint64_t* send_displs, void* recv,
                    const uint64_t* recv_bytes, const uint64_t* recv_displs) {
  const int32_t n = c.size(), me = c.index;
  const char* in = static_cast<const char*>(send);
  char* out = static_cast<char*>(recv);
  const char* own = in + send_displs[me];
  char* own_dst = out + recv_displs[me];
  if (n == 1) {
    if (send_bytes[me] != 0 && own_dst != own) CopyBytes(own_dst, own, send_bytes[me]);
    return;
  }
  const int32_t window = std::max(1, t.alltoall_inflight);
  for (int32_t first = 1; first < n; first += window) {
    s.NewRound();
    for (int32_t k = first; k < std::min(n, first + window); ++k) {
      const auto [to, from] = collective_math::PairwisePartners(me, k, n);
      s.Recv(from, out + recv_displs[from], recv_bytes[from]);
      s.Send(to, in + send_displs[to], send_bytes[to]);
    }
    if (first == 1) s.CopyDuring(own_dst, own, send_bytes[me]);
  }
}

}  // namespace weft::backends::ucx_plugin
