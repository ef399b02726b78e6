// send/recv over ucp_tag_send_nbx / ucp_tag_recv_nbx, as asynchronous requests.
#include "backends/ucx/transport/p2p.hpp"

#include <unistd.h>

#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "backends/ucx/transport/comm.hpp"
#include "backends/ucx/transport/owned_send.hpp"
#include "backends/ucx/transport/request.hpp"
#include "backends/ucx/transport/scratch.hpp"
#include "backends/ucx/transport/wait.hpp"
#include "backends/ucx/tuning_table.hpp"
#include "common/clock.hpp"

namespace weft::backends::ucx_plugin {
namespace {

const DLDataType kBytes{kDLUInt, 8, 1};
// Strided single-copy senders pack runs shorter than this (see PostSendLocked); the second
// applies where the receiver can have us write instead (grants.hpp).
// (kPackRunsBelow, kPackRunsBelowWritable: tuning_table.hpp)

constexpr uint64_t kFullMask = ~uint64_t{0};

struct Checked {
  uint64_t bytes = 0;
  uint64_t tag = 0;  // bits 48..0 of the wire tag (comm.hpp)
};

weft_status_t Check(Comm& c, uint64_t count, DLDataType t, int32_t peer, int64_t tag,
                    const weft_bk_op_t* a, const std::string& op, Checked* out) {
  State& st = *c.state;
  if (!OnHost(a))
    return st.Fail(WEFT_ERR_UNSUPPORTED,
                   op + ": device memory is not supported (kDLCPU and kDLCUDAHost only)");
  if (peer < 0 || peer >= c.size())
    return st.Fail(WEFT_ERR_INVALID_ARGUMENT,
                   op + ": peer outside the group of " + std::to_string(c.size()));
  if (!EncodeTag(tag, &out->tag))
    return st.Fail(WEFT_ERR_INVALID_ARGUMENT, op + ": tag has no UCX encoding");
  const uint64_t item = (uint64_t{t.bits} * (t.lanes ? t.lanes : 1) + 7) / 8;
  if (item != 0 && count > UINT64_MAX / item)
    return st.Fail(WEFT_ERR_INVALID_ARGUMENT, op + ": message size overflows");
  out->bytes = count * item;
  return WEFT_OK;
}

std::string Describe(const char* what, int32_t rank, int64_t tag) {
  return std::string(what) + " rank " + std::to_string(rank) + " (tag " + std::to_string(tag) + ")";
}

}  // namespace

weft_status_t Deliver(std::unique_ptr<weft_bk_request> r, weft_bk_request_t** req) {
  if (req != nullptr) {
    *req = r.release();
    return WEFT_OK;
  }
  weft_bk_request* raw = r.release();
  const weft_status_t s = WaitRequest(raw, -1);
  FreeRequest(raw);
  return s;
}

namespace {

ucp_request_param_t Params(Request* r) {
  ucp_request_param_t p{};
  p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
                   UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FIELD_MEMORY_TYPE;
  p.datatype = ucp_dt_make_contig(1);
  p.memory_type = UCS_MEMORY_TYPE_HOST;  // checked above; spares UCX a memory-type lookup
  p.user_data = r;
  return p;
}

// The checks and the request object send and receive share.
weft_status_t NewRequest(Comm& c, uint64_t count, DLDataType t, int32_t peer, int64_t tag,
                         const weft_bk_op_t* a, bool is_recv, Checked* k,
                         std::unique_ptr<weft_bk_request>* out) {
  const int32_t rank = (peer >= 0 && peer < c.size()) ? c.ranks[peer] : -1;
  std::string op = Describe(is_recv ? "receive from" : "send to", rank, tag);
  if (weft_status_t s = Check(c, count, t, peer, tag, a, op, k)) return s;
  auto r = std::unique_ptr<weft_bk_request>(new (std::nothrow) weft_bk_request());
  if (!r) return WEFT_ERR_OUT_OF_MEMORY;
  r->state = c.state;
  r->is_recv = is_recv;
  r->peer_rank = rank;
  r->bytes = k->bytes;
  r->deadline = DeadlineOf(a);
  r->op = std::move(op);
  *out = std::move(r);
  return WEFT_OK;
}

}  // namespace

namespace {

// The receive of a single-copy receiver's answer (an Ack or a push request, into r->desc).
void PostAckReceive(Request* r, uint64_t ack_tag) {
  State& st = *r->state;
  ucp_request_param_t p = Params(r);
  p.op_attr_mask |= UCP_OP_ATTR_FLAG_NO_IMM_CMPL | UCP_OP_ATTR_FIELD_RECV_INFO;
  ucp_tag_recv_info_t info{};
  p.recv_info.tag_info = &info;
  p.cb.recv = &OnAckDone;
  void* h = ucp_tag_recv_nbx(st.worker(), &r->desc, sizeof(Descriptor), ack_tag, kFullMask, &p);
  if (UCS_PTR_IS_ERR(h)) return CompleteSend(r, UCS_PTR_STATUS(h));
  if (h != nullptr && !r->called_back) {
    r->ucx = h;
    st.Track(r);
  }
}

// A single-copy send: wait for the receiver's answer (the request UCX owns: an Ack, or a
// push request, landing in r->desc), then tell the receiver where the bytes are.
// `pipe`: a channel's token (State::PipeFor) when the bytes also flow through a pipe.
void PostCmaSend(Request* r, ucp_ep_h ep, const void* buf, uint64_t wire_tag, uint64_t ack_tag,
                 const Layout& layout, uint64_t pipe) {
  State& st = *r->state;
  r->cma_send = true;
  r->pipe = pipe;  // held from here: whatever ends the op lets go of it (Request::Finish)
  r->user_buf = const_cast<void*>(buf);  // a push writes from here
  r->layout = layout;
  // Through a pipe the receiver's outcome comes back in the channel (pipes.hpp), not as an Ack.
  if (pipe == 0) PostAckReceive(r, ack_tag);
  if (r->done) return;
  auto d = std::make_unique<Descriptor>();
  // Writable: we mapped the receiver's grant table, so it may hand us its buffer instead.
  if (st.peer(r->peer_rank).grants != nullptr) d->magic = kWritableMagic;
  if (pipe != 0) {
    d->magic = kPipeMagic;
    d->grant = pipe;
  }
  d->address = reinterpret_cast<uint64_t>(buf);
  d->length = r->bytes;
  d->pid = st.pid();
  d->sender_rank = st.rank();
  d->layout = layout;
  const size_t bytes = layout.ndim == 0 && pipe == 0 ? kShortDescriptorBytes : sizeof(Descriptor);
  const ucs_status_t sent = SendOwned(ep, std::move(d), wire_tag, bytes);
  if (sent == UCS_OK) {
    // The descriptor first, so the receiver can attach while we copy.
    if (r->pipe != 0) st.StartPipeSend(r);
    return;
  }
  std::string msg;
  const weft_status_t s = MapFailure(*r, sent, &msg);
  r->Cancel(s, msg);  // withdraws the ack receive, lets go of the pipe
}

}  // namespace

void PostSendLocked(Request* r, ucp_ep_h ep, const void* buf, uint64_t wire_tag, uint64_t ack_tag,
                    const Layout* strided) {
  const Peer& peer = r->state->peer(r->peer_rank);
  const uint64_t cma = peer.cma_bytes;
  const bool single_copy = cma != 0 && r->bytes >= cma;
  // A reader pays per page of the sender it touches and per remote piece (the kernel pins
  // pages and looks up the mapping for each), so rows shorter than 2 KiB leave packed (from a
  // reused buffer): the receiver then reads a dense buffer, still straight into its own
  // strided memory. Measured, S0 -> S1 on 2 ranks: 1 KiB rows 47 vs 54 us per MiB packed vs
  // in place; 2 KiB rows 167 vs 226 us per 4 MiB in place vs packed. A receiver that can
  // have us write (a push: our rows are the writer's cheap local pieces) is better off with
  // the rows as they lie down to 1 KiB; below that, the writer's per-piece cost wins again
  // (256 KiB: 1 KiB rows 32 us written vs 39 us packed and read; 512 B rows 43 vs 35 us).
  const uint64_t pack_below = peer.grants != nullptr ? kPackRunsBelowWritable : kPackRunsBelow;
  r->strided = strided != nullptr && strided->ndim != 0;
  // Through a pipe (pipes.hpp) the rows are packed into the ring as they lie.
  const uint64_t pipe = single_copy ? r->state->PipeFor(r) : 0;
  const bool pack = strided != nullptr && strided->ndim != 0 && pipe == 0 &&
                    (!single_copy || strided->run < pack_below);
  if (single_copy && !pack)
    return PostCmaSend(r, ep, buf, wire_tag, ack_tag, strided ? *strided : Contiguous(r->bytes),
                       pipe);
  if (pack) {
    // Small, or a peer without single copy: the bytes leave packed, from a buffer the request
    // keeps until UCX is done with it.
    std::shared_ptr<ScratchBuffer> packed = r->state->Staging(r->bytes);
    if (r->chose_way) {  // the packing is part of this single copy's cost (PathChoice)
      const Clock::time_point start = Clock::now();
      PackRuns(static_cast<const char*>(buf), *strided, packed->data.get());
      r->copy_ns = NanosecondsSince(start);
    } else {
      PackRuns(static_cast<const char*>(buf), *strided, packed->data.get());
    }
    buf = packed->data.get();
    r->keep_alive = std::move(packed);
    if (single_copy) return PostCmaSend(r, ep, buf, wire_tag, ack_tag, Contiguous(r->bytes), 0);
  }
  ucp_request_param_t p = Params(r);
  p.cb.send = &OnSendDone;
  void* h = ucp_tag_send_nbx(ep, buf, r->bytes, wire_tag, &p);
  if (h == nullptr) {
    r->Finish(WEFT_OK, {});
  } else if (UCS_PTR_IS_ERR(h)) {
    CompleteSend(r, UCS_PTR_STATUS(h));
  } else if (!r->called_back) {
    r->ucx = h;
    r->state->Track(r);
  }
}

void PostRecvLocked(Request* r, void* buf, uint64_t wire_tag, uint64_t ack_tag,
                    const Layout* strided) {
  const uint64_t cma = r->state->peer(r->peer_rank).cma_bytes;
  r->user_buf = buf;
  r->ack_tag = ack_tag;
  r->layout = strided ? *strided : Contiguous(r->bytes);
  // From a single-copy peer, a large receive takes the descriptor, and one shorter than a
  // descriptor lands in `desc` first so that a descriptor sent to it is seen whole (cma.hpp).
  r->cma_recv = cma != 0 && r->bytes >= cma;
  // (<=: a pipe's descriptor is always whole, so a receive of exactly its size must see it.)
  r->bounced = cma != 0 && r->bytes <= sizeof(Descriptor);
  if (r->layout.ndim != 0 && !r->cma_recv && !r->bounced) {
    // Lands packed in a buffer the request keeps, unpacked when it completes.
    std::shared_ptr<ScratchBuffer> staging = r->state->Staging(r->bytes);
    r->staged = staging->data.get();
    buf = r->staged;
    r->keep_alive = std::move(staging);
  }
  void* into = (r->cma_recv || r->bounced) ? static_cast<void*>(&r->desc) : buf;
  const uint64_t len = (r->cma_recv || r->bounced) ? sizeof(Descriptor) : r->bytes;
  ucp_tag_recv_info_t info{};
  ucp_request_param_t p = Params(r);
  // UCX 1.13 does not fill recv_info on every immediate completion (the length came back 0
  // for matched eager messages), so receives always complete through the callback.
  p.op_attr_mask |= UCP_OP_ATTR_FIELD_RECV_INFO | UCP_OP_ATTR_FLAG_NO_IMM_CMPL;
  p.cb.recv = &OnRecvDone;
  p.recv_info.tag_info = &info;
  void* h = ucp_tag_recv_nbx(r->state->worker(), into, len, wire_tag, kFullMask, &p);
  if (h == nullptr) {
    CompleteRecv(r, UCS_OK, info.length);
  } else if (UCS_PTR_IS_ERR(h)) {
    CompleteRecv(r, UCS_PTR_STATUS(h), 0);
  } else if (!r->called_back) {
    r->ucx = h;
    r->state->Track(r);
  }
}

namespace {

// The four table entries: checks, the request, the posting under the lock.
weft_status_t Post(Comm& c, bool is_recv, void* buf, uint64_t count, DLDataType t,
                   const Layout* strided, int32_t peer, int64_t tag, const weft_bk_op_t* a,
                   weft_bk_request_t** req) {
  State& st = *c.state;
  Checked k;
  std::unique_ptr<weft_bk_request> r;
  if (weft_status_t s = NewRequest(c, count, t, peer, tag, a, is_recv, &k, &r)) return s;
  std::unique_lock<std::mutex> lock(st.mu());
  // A receive needs no endpoint, but one from a failed peer would never match.
  ucp_ep_h ep = nullptr;
  if (weft_status_t s = st.Endpoint(r->peer_rank, r->op.c_str(), &ep)) return s;
  if (is_recv)
    PostRecvLocked(r.get(), buf, WireTag(c.id, peer, k.tag), AckTag(c.id, c.index, k.tag), strided);
  else
    PostSendLocked(r.get(), ep, buf, WireTag(c.id, c.index, k.tag), AckTag(c.id, peer, k.tag),
                   strided);
  lock.unlock();
  return Deliver(std::move(r), req);
}

weft_status_t PostStrided(Comm& c, bool is_recv, void* base, const weft_bk_strided_t* layout,
                          int32_t peer, int64_t tag, const weft_bk_op_t* a,
                          weft_bk_request_t** req) {
  const char* what = is_recv ? "receive: " : "send: ";
  Layout l;
  std::string why;
  if (!Normalize(layout, &l, &why)) return c.state->Fail(WEFT_ERR_INVALID_ARGUMENT, what + why);
  if (base == nullptr && l.Bytes() != 0)
    return c.state->Fail(WEFT_ERR_INVALID_ARGUMENT, std::string(what) + "base is NULL");
  return Post(c, is_recv, base, l.Bytes(), kBytes, &l, peer, tag, a, req);
}

}  // namespace

weft_status_t Send(Comm& c, const void* buf, uint64_t count, DLDataType t, int32_t peer,
                   int64_t tag, const weft_bk_op_t* a, weft_bk_request_t** req) {
  return Post(c, false, const_cast<void*>(buf), count, t, nullptr, peer, tag, a, req);
}

weft_status_t Recv(Comm& c, void* buf, uint64_t count, DLDataType t, int32_t peer, int64_t tag,
                   const weft_bk_op_t* a, weft_bk_request_t** req) {
  return Post(c, true, buf, count, t, nullptr, peer, tag, a, req);
}

weft_status_t SendStrided(Comm& c, const void* base, const weft_bk_strided_t* layout, int32_t peer,
                          int64_t tag, const weft_bk_op_t* a, weft_bk_request_t** req) {
  return PostStrided(c, false, const_cast<void*>(base), layout, peer, tag, a, req);
}

weft_status_t RecvStrided(Comm& c, void* base, const weft_bk_strided_t* layout, int32_t peer,
                          int64_t tag, const weft_bk_op_t* a, weft_bk_request_t** req) {
  return PostStrided(c, true, base, layout, peer, tag, a, req);
}

}  // namespace weft::backends::ucx_plugin
