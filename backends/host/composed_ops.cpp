#include "backends/host/composed_ops.hpp"

#include <cstring>
#include <vector>

#include "common/collective_math.hpp"
#include "common/copy.hpp"
#include "device/host/reduce/reduce.hpp"
#include "device/queue.hpp"

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

// dst = src, `bytes` of them, on the op's memory: a plain copy on the host, the device
// operations' copy (enqueued on the op's stream) on a device.
Status CopyOn(const OpArgs& a, void* dst, const void* src, uint64_t bytes) {
  if (a.OnHost()) {
    CopyBytes(dst, src, bytes);
    return Status::Ok();
  }
  WEFT_ASSIGN_OR_RETURN(const device::Queue q, device::Queue::For(a.device, a.stream));
  int64_t extent = static_cast<int64_t>(bytes), unit = 1;
  return q.Copy(device::Region{static_cast<char*>(dst), &unit},
                device::ConstRegion{static_cast<const char*>(src), &unit},
                device::Shape{1, &extent}, 1);
}

// out = blocks[0] op blocks[1] op ... op blocks[n-1], `count` elements each, in member order.
Status FoldInOrder(const OpArgs& a, DType t, ReduceOp op, char* out, const char* blocks, int32_t n,
                   uint64_t count) {
  const uint64_t bytes = count * static_cast<uint64_t>(ItemSize(t));
  if (a.OnHost()) {
    WEFT_RETURN_IF_ERROR(device::host::Reduce3(t, op, out, blocks, blocks + bytes, count));
    for (int32_t j = 2; j < n; ++j)
      WEFT_RETURN_IF_ERROR(device::host::Reduce3(t, op, out, out, blocks + j * bytes, count));
    return Status::Ok();
  }
  // On a device: the first block copied, then each later one reduced into it, in order.
  WEFT_RETURN_IF_ERROR(CopyOn(a, out, blocks, bytes));
  WEFT_ASSIGN_OR_RETURN(const device::Queue q, device::Queue::For(a.device, a.stream));
  int64_t extent = static_cast<int64_t>(count), unit = 1;
  for (int32_t j = 1; j < n; ++j)
    WEFT_RETURN_IF_ERROR(q.Reduce(t, op, device::Region{out, &unit},
                                  device::ConstRegion{blocks + j * bytes, &unit},
                                  device::Shape{1, &extent}));
  return Status::Ok();
}

}  // namespace

Status Allgatherv(Communicator& c, const void* send, uint64_t send_bytes, void* recv,
                  std::span<const uint64_t> bytes, std::span<const uint64_t> displs,
                  const OpArgs& a) {
  const int32_t n = c.size(), me = c.index();
  char* out = static_cast<char*>(recv);
  if (send_bytes && out + displs[me] != send)
    WEFT_RETURN_IF_ERROR(CopyOn(a, out + displs[me], send, send_bytes));
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
  const uint64_t mine = counts[me];
  char* out = static_cast<char*>(recv);
  if (n == 1) {
    if (mine && out != send) return CopyOn(a, out, send, mine * item);
    return Status::Ok();
  }
  // Every member's block `me` lands here (an all-to-all-v: member j's block j goes to j), and
  // is then folded in member order, ((x0 op x1) op x2) ...: the result's bits depend on the
  // inputs alone, never on the backend, the algorithm or the tuning, and every member of any
  // backend gets the same (WEFT_DETERMINISTIC_REDUCTIONS bypasses the plugins' own). The wire
  // carries what a ring would (each member sends n-1 blocks and receives n-1); the price is a
  // scratch of n blocks instead of two. Once the blocks are here `send` is no longer read, so
  // recv may overlap it anywhere (the in-place forms).
  std::vector<uint64_t> send_displs(n, 0), recv_counts(n, mine), recv_displs(n, 0);
  for (int32_t j = 1; j < n; ++j) {
    send_displs[j] = send_displs[j - 1] + counts[j - 1];
    recv_displs[j] = recv_displs[j - 1] + mine;
  }
  // The blocks live where the buffers do (device memory for device buffers).
  WEFT_ASSIGN_OR_RETURN(const device::Queue q, device::Queue::For(a.device, a.stream));
  WEFT_ASSIGN_OR_RETURN(device::Buffer blocks, q.Allocate(n * mine * item));
  WEFT_RETURN_IF_ERROR(
      c.Alltoallv(send, counts, send_displs, blocks.data(), recv_counts, recv_displs, t, a));
  if (mine == 0) return Status::Ok();
  return FoldInOrder(a, t, op, out, blocks.data(), n, mine);
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
  // Reduce-scatter into this rank's slice of recv (in member order), then all-gather the
  // slices in place. The reduce-scatter reads send before it writes recv, so recv may equal send.
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
  if (send_bytes[me])
    WEFT_RETURN_IF_ERROR(CopyOn(a, out + recv_displs[me], in + send_displs[me], send_bytes[me]));
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
    WEFT_RETURN_IF_ERROR(Exchange(c, &out, 1, to, &in, 1, from, tag, a.ForHostMemory()));
  }
  return Status::Ok();
}

}  // namespace weft::backends::composed
