// send/recv over ucp_tag_send_nbx / ucp_tag_recv_nbx, as asynchronous requests.
#include "backends/ucx/p2p.hpp"

#include <memory>
#include <mutex>
#include <new>
#include <string>

#include "backends/ucx/comm.hpp"
#include "backends/ucx/request.hpp"
#include "backends/ucx/wait.hpp"

namespace weft::backends::ucx_plugin {
namespace {

constexpr uint64_t kFullMask = ~uint64_t{0};

bool OnHost(const weft_bk_op_t* a) {
  return a == nullptr || a->device.device_type == kDLCPU || a->device.device_type == kDLCUDAHost;
}

Clock::time_point DeadlineOf(const weft_bk_op_t* a) {
  if (a == nullptr || a->timeout_ms < 0) return Clock::time_point::max();
  return Clock::now() + std::chrono::milliseconds(a->timeout_ms);
}

struct Checked {
  uint64_t bytes = 0;
  uint32_t tag = 0;
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

// Hands `r` to the caller, or waits for it when the caller asked for a blocking op.
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

weft_status_t Send(Comm& c, const void* buf, uint64_t count, DLDataType t, int32_t peer,
                   int64_t tag, const weft_bk_op_t* a, weft_bk_request_t** req) {
  State& st = *c.state;
  Checked k;
  std::unique_ptr<weft_bk_request> r;
  if (weft_status_t s = NewRequest(c, count, t, peer, tag, a, false, &k, &r)) return s;
  const int32_t rank = r->peer_rank;
  const std::string& op = r->op;

  std::unique_lock<std::mutex> lock(st.mu());
  ucp_ep_h ep = nullptr;
  if (weft_status_t s = st.Endpoint(rank, op.c_str(), &ep)) return s;
  ucp_request_param_t p = Params(r.get());
  p.cb.send = &OnSendDone;
  void* h = ucp_tag_send_nbx(ep, buf, k.bytes, WireTag(c.id, c.index, k.tag), &p);
  if (h == nullptr) {
    r->Finish(WEFT_OK, {});
  } else if (UCS_PTR_IS_ERR(h)) {
    CompleteSend(r.get(), UCS_PTR_STATUS(h));
  } else if (!r->called_back) {
    r->ucx = h;
    st.Track(r.get());
  }
  lock.unlock();
  return Deliver(std::move(r), req);
}

weft_status_t Recv(Comm& c, void* buf, uint64_t count, DLDataType t, int32_t peer, int64_t tag,
                   const weft_bk_op_t* a, weft_bk_request_t** req) {
  State& st = *c.state;
  Checked k;
  std::unique_ptr<weft_bk_request> r;
  if (weft_status_t s = NewRequest(c, count, t, peer, tag, a, true, &k, &r)) return s;
  const int32_t rank = r->peer_rank;
  const std::string& op = r->op;

  std::unique_lock<std::mutex> lock(st.mu());
  // A receive needs no endpoint, but one from a failed peer would never match.
  ucp_ep_h ep = nullptr;
  if (weft_status_t s = st.Endpoint(rank, op.c_str(), &ep)) return s;
  ucp_tag_recv_info_t info{};
  ucp_request_param_t p = Params(r.get());
  // UCX 1.13 does not fill recv_info on every immediate completion (the length came back 0
  // for matched eager messages), so receives always complete through the callback.
  p.op_attr_mask |= UCP_OP_ATTR_FIELD_RECV_INFO | UCP_OP_ATTR_FLAG_NO_IMM_CMPL;
  p.cb.recv = &OnRecvDone;
  p.recv_info.tag_info = &info;
  void* h = ucp_tag_recv_nbx(st.worker(), buf, k.bytes, WireTag(c.id, peer, k.tag), kFullMask, &p);
  if (h == nullptr) {
    CompleteRecv(r.get(), UCS_OK, info.length);
  } else if (UCS_PTR_IS_ERR(h)) {
    CompleteRecv(r.get(), UCS_PTR_STATUS(h), 0);
  } else if (!r->called_back) {
    r->ucx = h;
    st.Track(r.get());
  }
  lock.unlock();
  return Deliver(std::move(r), req);
}

}  // namespace weft::backends::ucx_plugin
