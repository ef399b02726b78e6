// The `self` backend: a world of one process. Every collective is a copy; point-to-point to
// oneself matches sends and receives by tag in order. It is what a single process gets by
// default and the baseline for Weft's own dispatch overhead.
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "common/copy.hpp"
#include "common/plugin_kit/entry.hpp"
#include "weft/backend_plugin.h"

struct weft_bk_request {
  weft_status_t status = WEFT_OK;
  bool done = true;
  void* recv_buf = nullptr;  // a receive still waiting for its send
  uint64_t recv_bytes = 0;
};

struct SelfState {
  const weft_bk_host_api_t* host = nullptr;
};

struct weft_bk_comm {
  SelfState* state = nullptr;
  std::mutex mu;
  std::map<int64_t, std::deque<std::vector<char>>> unmatched_sends;  // by tag
  std::map<int64_t, std::deque<weft_bk_request*>> pending_recvs;     // by tag
};

namespace {

uint64_t Bytes(uint64_t count, DLDataType t) { return count * (t.bits / 8u); }

weft_status_t Fail(weft_bk_comm* c, weft_status_t s, const char* msg) {
  c->state->host->set_error(c->state->host->host_data, msg);
  return s;
}

bool OnHost(const weft_bk_op_t* a) {
  return a == nullptr || a->device.device_type == kDLCPU || a->device.device_type == kDLCUDAHost;
}

weft_status_t Finish(weft_bk_request_t** req, weft_status_t s) {
  if (req) {
    auto* r = new (std::nothrow) weft_bk_request();  // freed by request_free (C ABI ownership)
    if (!r) return WEFT_ERR_OUT_OF_MEMORY;
    r->status = s;
    *req = r;
  }
  return s;
}

weft_status_t Copy(weft_bk_comm* c, const void* src, void* dst, uint64_t bytes,
                   const weft_bk_op_t* a, weft_bk_request_t** req) {
  if (!OnHost(a)) return Fail(c, WEFT_ERR_UNSUPPORTED, "self: device memory is not supported");
  if (bytes && src != dst) weft::CopyBytes(dst, src, bytes);
  return Finish(req, WEFT_OK);
}

weft_status_t CheckPeer(weft_bk_comm* c, int32_t peer) {
  return peer == 0 ? WEFT_OK
                   : Fail(c, WEFT_ERR_INVALID_ARGUMENT, "self: the only peer is group index 0");
}

weft_status_t Init(const weft_bk_host_api_t* host, const weft_bk_init_args_t* args, void** state) {
  if (args->world_size != 1) {
    host->set_error(host->host_data, "self: the self backend runs a world of exactly 1 rank");
    return WEFT_ERR_INVALID_USAGE;
  }
  auto* s = new (std::nothrow) SelfState();
  if (!s) return WEFT_ERR_OUT_OF_MEMORY;
  s->host = host;
  *state = s;
  return WEFT_OK;
}

void Finalize(void* state) { delete static_cast<SelfState*>(state); }
void Abort(void*, weft_status_t, int32_t, const char*) {}
weft_status_t AsyncError(void*, int32_t*) { return WEFT_OK; }

weft_status_t CommCreate(void* state, const int32_t*, int32_t nranks, int32_t my_index, const char*,
                         int64_t, weft_bk_comm_t** comm) {
  auto* s = static_cast<SelfState*>(state);
  if (nranks != 1 || my_index != 0) {
    s->host->set_error(s->host->host_data, "self: communicators have exactly one member");
    return WEFT_ERR_INVALID_ARGUMENT;
  }
  auto* c = new (std::nothrow) weft_bk_comm();
  if (!c) return WEFT_ERR_OUT_OF_MEMORY;
  c->state = s;
  *comm = c;
  return WEFT_OK;
}

void CommDestroy(weft_bk_comm_t* comm) { delete comm; }

weft_status_t Allreduce(weft_bk_comm_t* c, const void* send, void* recv, uint64_t count,
                        DLDataType t, int32_t, const weft_bk_op_t* a, weft_bk_request_t** req) {
  return Copy(c, send, recv, Bytes(count, t), a, req);
}
weft_status_t Allgather(weft_bk_comm_t* c, const void* send, void* recv, uint64_t count,
                        DLDataType t, const weft_bk_op_t* a, weft_bk_request_t** req) {
  return Copy(c, send, recv, Bytes(count, t), a, req);
}
weft_status_t Allgatherv(weft_bk_comm_t* c, const void* send, uint64_t n, void* recv,
                         const uint64_t*, const uint64_t* displs, DLDataType t,
                         const weft_bk_op_t* a, weft_bk_request_t** req) {
  return Copy(c, send, static_cast<char*>(recv) + Bytes(displs[0], t), Bytes(n, t), a, req);
}
weft_status_t ReduceScatter(weft_bk_comm_t* c, const void* send, void* recv, uint64_t count,
                            DLDataType t, int32_t, const weft_bk_op_t* a, weft_bk_request_t** req) {
  return Copy(c, send, recv, Bytes(count, t), a, req);
}
weft_status_t ReduceScatterv(weft_bk_comm_t* c, const void* send, void* recv,
                             const uint64_t* counts, DLDataType t, int32_t, const weft_bk_op_t* a,
                             weft_bk_request_t** req) {
  return Copy(c, send, recv, Bytes(counts[0], t), a, req);
}
weft_status_t Alltoallv(weft_bk_comm_t* c, const void* send, const uint64_t* sc, const uint64_t* sd,
                        void* recv, const uint64_t* rc, const uint64_t* rd, DLDataType t,
                        const weft_bk_op_t* a, weft_bk_request_t** req) {
  if (sc[0] != rc[0])
    return Fail(c, WEFT_ERR_INVALID_ARGUMENT, "self: alltoallv send and receive counts differ");
  return Copy(c, static_cast<const char*>(send) + Bytes(sd[0], t),
              static_cast<char*>(recv) + Bytes(rd[0], t), Bytes(sc[0], t), a, req);
}
weft_status_t Broadcast(weft_bk_comm_t* c, void*, uint64_t, DLDataType, int32_t root,
                        const weft_bk_op_t* a, weft_bk_request_t** req) {
  if (weft_status_t s = CheckPeer(c, root); s != WEFT_OK) return s;
  return Copy(c, nullptr, nullptr, 0, a, req);
}
weft_status_t Barrier(weft_bk_comm_t*, const weft_bk_op_t*, weft_bk_request_t** req) {
  return Finish(req, WEFT_OK);
}

weft_status_t SendBody(weft_bk_comm_t* c, const void* buf, uint64_t count, DLDataType t,
                       int32_t peer, int64_t tag, const weft_bk_op_t* a, weft_bk_request_t** req) {
  if (weft_status_t s = CheckPeer(c, peer); s != WEFT_OK) return s;
  if (!OnHost(a)) return Fail(c, WEFT_ERR_UNSUPPORTED, "self: device memory is not supported");
  const uint64_t bytes = Bytes(count, t);
  std::lock_guard<std::mutex> lock(c->mu);
  auto& waiting = c->pending_recvs[tag];
  if (!waiting.empty()) {
    weft_bk_request* r = waiting.front();
    waiting.pop_front();
    if (r->recv_bytes != bytes) {
      r->status = WEFT_ERR_INVALID_ARGUMENT;
      c->state->host->set_error(c->state->host->host_data, "self: message size mismatch");
    } else if (bytes) {
      weft::CopyBytes(r->recv_buf, buf, bytes);
    }
    r->done = true;
  } else {
    const char* p = static_cast<const char*>(buf);
    c->unmatched_sends[tag].emplace_back(p, p + bytes);
  }
  return Finish(req, WEFT_OK);
}

weft_status_t RecvBody(weft_bk_comm_t* c, void* buf, uint64_t count, DLDataType t, int32_t peer,
                       int64_t tag, const weft_bk_op_t* a, weft_bk_request_t** req) {
  if (weft_status_t s = CheckPeer(c, peer); s != WEFT_OK) return s;
  if (!OnHost(a)) return Fail(c, WEFT_ERR_UNSUPPORTED, "self: device memory is not supported");
  const uint64_t bytes = Bytes(count, t);
  std::lock_guard<std::mutex> lock(c->mu);
  auto& sent = c->unmatched_sends[tag];
  if (!sent.empty()) {
    std::vector<char> msg = std::move(sent.front());
    sent.pop_front();
    if (msg.size() != bytes) return Fail(c, WEFT_ERR_INVALID_ARGUMENT, "self: size mismatch");
    if (bytes) weft::CopyBytes(buf, msg.data(), bytes);
    return Finish(req, WEFT_OK);
  }
  if (!req)  // nobody else can ever send: blocking here would hang forever
    return Fail(c, WEFT_ERR_INVALID_USAGE, "self: blocking receive with no matching send");
  auto* r = new (std::nothrow) weft_bk_request();
  if (!r) return WEFT_ERR_OUT_OF_MEMORY;
  r->done = false;
  r->recv_buf = buf;
  r->recv_bytes = bytes;
  c->pending_recvs[tag].push_back(r);
  *req = r;
  return WEFT_OK;
}

// Queuing a message or a receive allocates (std::map, std::deque, the message's copy): what that
// throws becomes a status and a message here, never an exception across the C ABI.
template <typename Body>
weft_status_t Guarded(weft_bk_comm_t* c, Body&& body) noexcept {
  return weft::plugin_kit::Guard(std::forward<Body>(body), [c](const weft::plugin_kit::Failure& f) {
    const std::string m = "self: " + f.message;
    c->state->host->set_error(c->state->host->host_data, m.c_str());
    return f.status;
  });
}

weft_status_t Send(weft_bk_comm_t* c, const void* buf, uint64_t count, DLDataType t, int32_t peer,
                   int64_t tag, const weft_bk_op_t* a, weft_bk_request_t** req) {
  return Guarded(c, [&] { return SendBody(c, buf, count, t, peer, tag, a, req); });
}

weft_status_t Recv(weft_bk_comm_t* c, void* buf, uint64_t count, DLDataType t, int32_t peer,
                   int64_t tag, const weft_bk_op_t* a, weft_bk_request_t** req) {
  return Guarded(c, [&] { return RecvBody(c, buf, count, t, peer, tag, a, req); });
}

weft_status_t GroupNoop(weft_bk_comm_t*) { return WEFT_OK; }

weft_status_t RequestTest(weft_bk_request_t* r, int32_t* done) {
  *done = r->done ? 1 : 0;
  return WEFT_OK;
}
weft_status_t RequestWait(weft_bk_request_t* r, int64_t) {
  return r->done ? r->status : WEFT_IN_PROGRESS;
}
weft_status_t RequestCancel(weft_bk_request_t* r) {
  if (!r->done) {
    r->done = true;
    r->status = WEFT_ERR_ABORTED;
  }
  return WEFT_OK;
}
void RequestFree(weft_bk_request_t* r) { delete r; }

const weft_backend_plugin_t kPlugin = {
    sizeof(weft_backend_plugin_t),
    WEFT_BACKEND_PLUGIN_ABI_VERSION,
    "self",
    WEFT_BK_CAP_ALLREDUCE | WEFT_BK_CAP_ALLGATHER | WEFT_BK_CAP_ALLGATHERV |
        WEFT_BK_CAP_REDUCE_SCATTER | WEFT_BK_CAP_REDUCE_SCATTERV | WEFT_BK_CAP_ALLTOALL |
        WEFT_BK_CAP_ALLTOALLV | WEFT_BK_CAP_BROADCAST | WEFT_BK_CAP_BARRIER | WEFT_BK_CAP_GROUP |
        WEFT_BK_CAP_ASYNC | WEFT_BK_CAP_SIZE_SAFE,  // one member: nobody to disagree with
    Init,
    Finalize,
    Abort,
    AsyncError,
    CommCreate,
    CommDestroy,
    Allreduce,
    Allgather,
    Allgatherv,
    ReduceScatter,
    ReduceScatterv,
    Allgather,  // alltoall of one member: the same copy
    Alltoallv,
    Broadcast,
    Barrier,
    Send,
    Recv,
    GroupNoop,
    GroupNoop,
    RequestTest,
    RequestWait,
    RequestCancel,
    RequestFree,
};

}  // namespace

extern "C" __attribute__((visibility("default"))) const weft_backend_plugin_t*
weft_backend_plugin_v1(void) {
  return &kPlugin;
}
