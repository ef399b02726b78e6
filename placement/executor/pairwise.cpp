#include "placement/executor/pairwise.hpp"

#include <algorithm>

#include "common/params.hpp"

namespace weft::placement::executor {
namespace {

// The chunks of a box: consecutive runs of its outermost dim of extent > 1, each a contiguous
// range of the box's row-major order. Both ends derive them from the same global box and the
// same chunk size (a must-match variable), so they agree on the count and sizes without
// talking.
std::vector<Box> Chunks(const Box& b, int64_t item, int64_t chunk_bytes) {
  std::vector<Box> out;
  if (b.Empty()) return out;
  int32_t d = 0;
  while (d < b.ndim - 1 && b.shape[d] == 1) ++d;
  const int64_t row = d < b.ndim ? b.Volume() / b.shape[d] : 1;
  const int64_t rows = d < b.ndim ? b.shape[d] : 1;
  const int64_t per = std::max<int64_t>(1, chunk_bytes / std::max<int64_t>(1, row * item));
  for (int64_t r = 0; r < rows; r += per) {
    Box c = b;
    if (d < b.ndim) {
      c.offset[d] = b.offset[d] + r;
      c.shape[d] = std::min(per, rows - r);
    }
    out.push_back(c);
  }
  return out;
}

// Staging offsets (elements) of the pieces that are not contiguous in v; -1 for direct ones.
std::vector<int64_t> StageOffsets(const std::vector<Box>& boxes, size_t self, const TensorView& v,
                                  int64_t* total) {
  std::vector<int64_t> at(boxes.size(), -1);
  *total = 0;
  for (size_t k = 0; k < boxes.size(); ++k) {
    if (k == self || boxes[k].Empty() || IsContiguous(v, boxes[k])) continue;
    at[k] = *total;
    *total += boxes[k].Volume();
  }
  return at;
}

// The box's elements in `v` as the plugin's strided region (byte strides).
weft_bk_strided_t StridedOf(const TensorView& v, const Box& b) {
  weft_bk_strided_t l{};
  l.struct_size = sizeof(l);
  l.item_bytes = static_cast<uint64_t>(v.item);
  l.ndim = static_cast<uint32_t>(b.ndim);
  for (int32_t d = 0; d < b.ndim; ++d) {
    l.shape[d] = static_cast<uint64_t>(b.shape[d]);
    l.strides[d] = v.strides[d] * v.item;
  }
  return l;
}

}  // namespace

int64_t PairwiseStagedBytes(const std::vector<Box>& send_boxes, const std::vector<Box>& recv_boxes,
                            size_t self, const TensorView& from, const TensorView& to) {
  int64_t s = 0, r = 0;
  StageOffsets(send_boxes, self, from, &s);
  StageOffsets(recv_boxes, self, to, &r);
  return (s + r) * from.item;
}

namespace {

// Chunk `c` of `v` sent to or received from member k where it lies: one plain message when the
// chunk is contiguous there, else one strided message (the backend moves the rows itself).
Result<std::unique_ptr<backends::Communicator::Request>> PostInPlace(
    backends::Communicator& comm, bool is_recv, const TensorView& v, const Box& c, size_t k,
    int64_t tag, const backends::OpArgs& args) {
  char* at = v.At(c.offset.data());
  const auto peer = static_cast<int32_t>(k);
  if (IsContiguous(v, c)) {
    const auto bytes = static_cast<uint64_t>(c.Volume() * v.item);
    return is_recv ? comm.PostRecv(at, bytes, peer, tag, args)
                   : comm.PostSend(at, bytes, peer, tag, args);
  }
  return is_recv ? comm.PostRecvStrided(at, StridedOf(v, c), peer, tag, args)
                 : comm.PostSendStrided(at, StridedOf(v, c), peer, tag, args);
}

// Copies the kept block in slices, looking at the exchange between them: a peer's request for
// this rank's bytes (a push or a read answer, whose copy runs inside that look) is then served
// within one slice instead of after the whole copy, so the peers' transfers and this copy
// overlap rather than queue behind one another (S0 -> S1 on 2 ranks: the handshake waited out
// the whole keep copy on both sides).
using Requests = std::vector<std::unique_ptr<backends::Communicator::Request>>;

Status CopyKeptWhileProgressing(const device::Queue& q, const TensorView& from,
                                const TensorView& to, const Box& keep, Requests& recvs,
                                Requests& sends, backends::Communicator& comm) {
  constexpr int64_t kSliceBytes = int64_t{64} << 10;
  size_t next = 0;  // the first request (receives, then sends) not yet seen done
  for (const Box& c : Chunks(keep, from.item, kSliceBytes)) {
    WEFT_RETURN_IF_ERROR(CopyBox(q, from, to, c));
    while (next < recvs.size() + sends.size()) {
      auto& r = next < recvs.size() ? recvs[next] : sends[next - recvs.size()];
      WEFT_ASSIGN_OR_RETURN(const bool done, comm.Test(*r));
      if (!done) break;
      ++next;
    }
  }
  return Status::Ok();
}

// What every transfer of one exchange shares.
struct Exchange {
  const TensorView &from, &to;
  const device::Queue& q;
  backends::Communicator& comm;
  const backends::OpArgs& args;
  int64_t item, chunk, tag;
  bool strided;  // the plugin moves strided pieces whole (PostInPlace)
};

using Requests = std::vector<std::unique_ptr<backends::Communicator::Request>>;

// A receive posted chunk by chunk.
struct Pending {
  size_t member;
  Box chunk;
  char* staged;  // null: landed in place
};

// Every receive, chunk by chunk, straight into `to` where the piece is contiguous (rat[k] < 0)
// or whole where the plugin moves strided pieces; else into staging at base + rat[k] items.
Status PostRecvs(const Exchange& x, const std::vector<Box>& boxes, size_t self,
                 const std::vector<int64_t>& rat, char* base, Requests& recvs,
                 std::vector<Pending>& pending) {
  const size_t n = boxes.size();
  for (size_t i = 1; i <= n; ++i) {
    const size_t k = (self + n - i) % n;  // from the members before us first: they send to us first
    if (k == self || boxes[k].Empty()) continue;
    if (x.strided && rat[k] >= 0) {
      // Chunk by chunk like the sender (both derive the chunks from the global box, whatever
      // either side's memory looks like), each chunk straight into place.
      for (const Box& c : Chunks(boxes[k], x.item, x.chunk)) {
        WEFT_ASSIGN_OR_RETURN(auto r, PostInPlace(x.comm, true, x.to, c, k, x.tag, x.args));
        recvs.push_back(std::move(r));
        pending.push_back({k, c, nullptr});
      }
      continue;
    }
    char* stage = rat[k] >= 0 ? base + rat[k] * x.item : nullptr;
    for (const Box& c : Chunks(boxes[k], x.item, x.chunk)) {
      char* at = stage ? stage : x.to.At(c.offset.data());
      WEFT_ASSIGN_OR_RETURN(auto r, x.comm.PostRecv(at, static_cast<uint64_t>(c.Volume() * x.item),
                                                    static_cast<int32_t>(k), x.tag, x.args));
      recvs.push_back(std::move(r));
      pending.push_back({k, c, stage});
      if (stage) stage += c.Volume() * x.item;
    }
  }
  return Status::Ok();
}

// Sends in a rotation (member self+1 first), packing each chunk just before it leaves.
Status PostSends(const Exchange& x, const std::vector<Box>& boxes, size_t self,
                 const std::vector<int64_t>& sat, char* base, Requests& sends) {
  const size_t n = boxes.size();
  for (size_t i = 1; i <= n; ++i) {
    const size_t k = (self + i) % n;
    if (k == self || boxes[k].Empty()) continue;
    if (x.strided && sat[k] >= 0) {
      for (const Box& c : Chunks(boxes[k], x.item, x.chunk)) {
        WEFT_ASSIGN_OR_RETURN(auto r, PostInPlace(x.comm, false, x.from, c, k, x.tag, x.args));
        sends.push_back(std::move(r));
      }
      continue;
    }
    char* stage = sat[k] >= 0 ? base + sat[k] * x.item : nullptr;
    for (const Box& c : Chunks(boxes[k], x.item, x.chunk)) {
      const char* at = x.from.At(c.offset.data());
      if (stage) {
        WEFT_RETURN_IF_ERROR(Pack(x.q, x.from, c, stage));
        at = stage;
        stage += c.Volume() * x.item;
      }
      WEFT_ASSIGN_OR_RETURN(auto r, x.comm.PostSend(at, static_cast<uint64_t>(c.Volume() * x.item),
                                                    static_cast<int32_t>(k), x.tag, x.args));
      sends.push_back(std::move(r));
    }
  }
  return Status::Ok();
}

}  // namespace

Result<int64_t> AlltoallChunkBytes() { return params::Int("WEFT_ALLTOALL_CHUNK_BYTES"); }

Status PairwiseExchange(const std::vector<Box>& send_boxes, const std::vector<Box>& recv_boxes,
                        size_t self, const Box* keep, const TensorView& from, const TensorView& to,
                        device::Workspace& send_stage, device::Workspace& recv_stage,
                        const device::Queue& q, backends::Communicator& comm,
                        const backends::OpArgs& args) {
  const int64_t item = from.item;
  WEFT_ASSIGN_OR_RETURN(const int64_t chunk, AlltoallChunkBytes());
  const int64_t tag = comm.NextInternalTag();
  // A plugin that moves strided regions itself (UCX: one cross-memory read from the sender's
  // rows into the receiver's) takes every non-contiguous piece whole: no packing, no staging.
  const bool strided = comm.HasStrided() && from.block.ndim <= WEFT_BK_MAX_DIMS;
  int64_t stotal = 0, rtotal = 0;
  auto sat = StageOffsets(send_boxes, self, from, &stotal);
  auto rat = StageOffsets(recv_boxes, self, to, &rtotal);
  if (strided) stotal = rtotal = 0;
  WEFT_ASSIGN_OR_RETURN(char* const send_base, q.Reserve(send_stage, stotal * item));
  WEFT_ASSIGN_OR_RETURN(char* const recv_base, q.Reserve(recv_stage, rtotal * item));

  const Exchange x{from, to, q, comm, args, item, chunk, tag, strided};
  std::vector<Pending> pending;
  Requests recvs, sends;
  WEFT_RETURN_IF_ERROR(PostRecvs(x, recv_boxes, self, rat, recv_base, recvs, pending));
  WEFT_RETURN_IF_ERROR(PostSends(x, send_boxes, self, sat, send_base, sends));
  if (keep && !keep->Empty()) {
    WEFT_RETURN_IF_ERROR(CopyKeptWhileProgressing(q, from, to, *keep, recvs, sends, comm));
  }
  for (size_t i = 0; i < recvs.size(); ++i) {
    WEFT_RETURN_IF_ERROR(comm.WaitOne(*recvs[i], -1, args));
    if (pending[i].staged) WEFT_RETURN_IF_ERROR(Unpack(q, pending[i].staged, to, pending[i].chunk));
  }
  return comm.WaitAll(sends, args);
}

}  // namespace weft::placement::executor
