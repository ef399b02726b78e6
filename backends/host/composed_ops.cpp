#include "backends/host/composed_ops.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

#include "common/collective_math.hpp"
#include "common/copy.hpp"
#include "device/host/reduce/reduce.hpp"
#include "device/host/reduce/reduce_args.hpp"

namespace weft::backends::composed {
namespace {

using Reqs = std::vector<std::unique_ptr<Communicator::Request>>;

using collective_math::RingIndex;

// One ring step: send [sbuf, sbytes) right while receiving [rbuf, rbytes) from the left.
Status Exchange(Communicator& c, const void* sbuf, uint64_t sbytes, int32_t to, void* rbuf,
                uint64_t rbytes, int32_t from, int64_t tag, const OpArgs& a) {
  Reqs reqs;
  WEFT_ASSIGN_OR_RETURN(auto r, c.PostRecv(rbuf, rbytes, from, tag, a));
  reqs.push_back(std::move(r));
  WEFT_ASSIGN_OR_RETURN(auto s, c.PostSend(sbuf, sbytes, to, tag, a));
  reqs.push_back(std::move(s));
  return c.WaitAll(reqs, a);
}

}  // namespace

Status Allgatherv(Communicator& c, const void* send, uint64_t send_bytes, void* recv,
                  std::span<const uint64_t> bytes, std::span<const uint64_t> displs,
                  const OpArgs& a) {
  const int32_t n = c.size(), me = c.index();
  char* out = static_cast<char*>(recv);
  if (send_bytes && out + displs[me] != send) CopyBytes(out + displs[me], send, send_bytes);
  const int64_t tag = c.NextInternalTag();
  // Step s forwards the block that originated s hops to the left.
  for (int32_t s = 0; s < n - 1; ++s) {
    const auto [sb, rb] = collective_math::AllgatherRingBlocks(me, s, n);
    WEFT_RETURN_IF_ERROR(Exchange(c, out + displs[sb], bytes[sb], RingIndex(me + 1, n),
                                  out + displs[rb], bytes[rb], RingIndex(me - 1, n), tag, a));
  }
  return Status::Ok();
}

Status ReduceScatterv(Communicator& c, const void* send, void* recv,
                      std::span<const uint64_t> counts, DType t, ReduceOp op, const OpArgs& a) {
  const int32_t n = c.size(), me = c.index();
  const uint64_t item = static_cast<uint64_t>(ItemSize(t));
  std::vector<uint64_t> displ(n + 1, 0);
  for (int32_t i = 0; i < n; ++i) displ[i + 1] = displ[i] + counts[i];
  const char* in = static_cast<const char*>(send);
  char* out = static_cast<char*>(recv);
  if (n == 1) {
    if (counts[0] && out != in) CopyBytes(out, in, counts[0] * item);
    return Status::Ok();
  }
  // Ring: step s sends the partial sum of block me-s-1 (step 0: straight from the input) and
  // receives the partial sum of block me-s-2, which it adds to this rank's own input for that
  // block. Only two block-sized buffers are needed, never a copy of the whole input; the last
  // step reduces straight into recv (which may be this rank's block of send: out == a is fine).
  // Only when recv overlaps that block without being it (the in-place form puts the result at
  // the start of send) does the last step reduce into scratch and move the result over.
  const uint64_t max_count = *std::max_element(counts.begin(), counts.end());
  std::vector<char> acc(max_count * item), tmp(max_count * item);
  const char* own = in + displ[me] * item;
  const uint64_t own_bytes = counts[me] * item;
  const bool staged = out != own && device::host::detail::Overlaps(out, own_bytes, own, own_bytes);
  const int64_t tag = c.NextInternalTag();
  for (int32_t s = 0; s < n - 1; ++s) {
    const auto [sb, rb] = collective_math::ReduceScatterRingBlocks(me, s, n);
    const char* sbuf = s == 0 ? in + displ[sb] * item : acc.data();
    WEFT_RETURN_IF_ERROR(Exchange(c, sbuf, counts[sb] * item, RingIndex(me + 1, n), tmp.data(),
                                  counts[rb] * item, RingIndex(me - 1, n), tag, a));
    // The last block received is this rank's own.
    char* dst = s == n - 2 && !staged ? out : acc.data();
    WEFT_RETURN_IF_ERROR(
        device::host::Reduce3(t, op, dst, in + displ[rb] * item, tmp.data(), counts[rb]));
  }
  if (staged) CopyBytes(out, acc.data(), own_bytes);
  return Status::Ok();
}

Status Allreduce(Communicator& c, const void* send, void* recv, uint64_t count, DType t,
                 ReduceOp op, const OpArgs& a) {
  const int32_t n = c.size();
  const uint64_t item = static_cast<uint64_t>(ItemSize(t));
  std::vector<uint64_t> counts(n), bytes(n), displs(n);
  for (int32_t i = 0; i < n; ++i) {
    counts[i] = collective_math::EvenShare(count, n, i);
    bytes[i] = counts[i] * item;
    displs[i] = i ? displs[i - 1] + bytes[i - 1] : 0;
  }
  char* out = static_cast<char*>(recv);
  // Reduce-scatter into this rank's slice of recv, then all-gather the slices in place. The
  // ring reads block i of send only while producing block i, so recv may equal send.
  WEFT_RETURN_IF_ERROR(ReduceScatterv(c, send, out + displs[c.index()], counts, t, op, a));
  return Allgatherv(c, out + displs[c.index()], bytes[c.index()], out, bytes, displs, a);
}

Status Alltoallv(Communicator& c, const void* send, std::span<const uint64_t> send_bytes,
                 std::span<const uint64_t> send_displs, void* recv,
                 std::span<const uint64_t> recv_bytes, std::span<const uint64_t> recv_displs,
                 const OpArgs& a) {
  const int32_t n = c.size(), me = c.index();
  const char* in = static_cast<const char*>(send);
  char* out = static_cast<char*>(recv);
  if (send_bytes[me] != recv_bytes[me])
    return InvalidArgument("alltoallv: this rank sends itself " + std::to_string(send_bytes[me]) +
                           " bytes but expects " + std::to_string(recv_bytes[me]));
  if (send_bytes[me]) CopyBytes(out + recv_displs[me], in + send_displs[me], send_bytes[me]);
  const int64_t tag = c.NextInternalTag();
  // Pairwise: at step s talk to me+s and me-s, so each link carries one message per step.
  for (int32_t s = 1; s < n; ++s) {
    const auto [to, from] = collective_math::PairwisePartners(me, s, n);
    WEFT_RETURN_IF_ERROR(Exchange(c, in + send_displs[to], send_bytes[to], to,
                                  out + recv_displs[from], recv_bytes[from], from, tag, a));
  }
  return Status::Ok();
}

Status Broadcast(Communicator& c, void* buf, uint64_t bytes, int32_t root, const OpArgs& a) {
  const int32_t n = c.size();
  const int32_t vr = RingIndex(c.index() - root, n);  // rank relative to the root
  const int64_t tag = c.NextInternalTag();
  int32_t mask = collective_math::BinomialMask(vr, n);
  if (vr != 0) {  // receive from the parent: clear the lowest set bit
    WEFT_ASSIGN_OR_RETURN(auto r, c.PostRecv(buf, bytes, RingIndex(vr - mask + root, n), tag, a));
    Reqs reqs;
    reqs.push_back(std::move(r));
    WEFT_RETURN_IF_ERROR(c.WaitAll(reqs, a));
  }
  Reqs reqs;
  for (mask >>= 1; mask > 0; mask >>= 1) {  // then forward to the children
    if (vr + mask < n) {
      WEFT_ASSIGN_OR_RETURN(auto s, c.PostSend(buf, bytes, RingIndex(vr + mask + root, n), tag, a));
      reqs.push_back(std::move(s));
    }
  }
  return c.WaitAll(reqs, a);
}

Status Barrier(Communicator& c, const OpArgs& a) {
  const int32_t n = c.size(), me = c.index();
  const int64_t tag = c.NextInternalTag();
  char out = 1, in = 0;
  for (int32_t k = 1; k < n; k <<= 1) {
    const auto [to, from] = collective_math::PairwisePartners(me, k, n);
    WEFT_RETURN_IF_ERROR(Exchange(c, &out, 1, to, &in, 1, from, tag, a));
  }
  return Status::Ok();
}

}  // namespace weft::backends::composed
