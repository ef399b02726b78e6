// Dissemination barrier: in round k each member signals member + 2^k and waits for member -
// 2^k, so after ceil(log2 n) rounds every member has (transitively) heard from all the others.
#include "backends/ucx/coll/algorithms.hpp"

namespace weft::backends::ucx_plugin {

void BuildBarrier(Schedule& s, const Comm& c) {
  static const char kToken = 1;
  const int32_t n = c.size(), me = c.index;
  if (n == 1) return;
  char* sink = s.Scratch(1);
  for (int32_t k = 1; k < n; k <<= 1) {
    const auto [to, from] = collective_math::PairwisePartners(me, k, n);
    s.NewRound();
    s.Recv(from, sink, 1);
    s.Send(to, &kToken, 1);
  }
}

}  // namespace weft::backends::ucx_plugin
