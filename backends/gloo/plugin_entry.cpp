// The entry point and the function table of libweft-backend-gloo.so.
//
// Capabilities (what the table fills in):
//   ALLREDUCE, ALLGATHER, ALLGATHERV, ALLTOALL, ALLTOALLV, BROADCAST, BARRIER
//       Gloo's own algorithms. They block; a request asked for comes back already complete.
//   ASYNC
//       send/recv: Gloo's device thread progresses posted unbound-buffer operations without
//       the caller; request_test/wait only look. This is the only asynchronous part.
//   not REDUCE_SCATTER(V): NULL, the host composes them as a ring over send/recv.
//   not GROUP: NULL, posted send/recv already overlap.
//   not DEVICE_CUDA: buffers must be kDLCPU or kDLCUDAHost (else WEFT_ERR_UNSUPPORTED).
//
// Every function here is noexcept and catches what the layers below did not; the C++ code
// below reports through host->set_error and returns statuses.
#include <new>
#include <utility>

#include <weft/backend_plugin.h>

#include "backends/gloo/handles.hpp"
#include "backends/gloo/ops.hpp"
#include "backends/gloo/params.hpp"
#include "common/clock.hpp"
#include "common/plugin_kit/entry.hpp"

namespace weft::backends::gloo_plugin {
namespace {

// For the rare exception the layers below let through (an allocation in a message): the plugin
// kit's trampoline, with Gloo's classification and the host told when there is one.
template <typename F>
weft_status_t Guard(const Host* host, F&& body) noexcept {
  return plugin_kit::Guard(
      std::forward<F>(body),
      [host](const plugin_kit::Failure& f) {
        if (host != nullptr) host->Fail(f.status, f.message);
        return f.status;
      },
      [] { return ClassifyCurrentException(); });
}

State& StateOf(void* state) { return *static_cast<StateHandle*>(state)->state; }

weft_status_t Init(const weft_bk_host_api_t* host, const weft_bk_init_args_t* args,
                   void** state) noexcept {
  return Guard(nullptr, [&]() -> weft_status_t {
    std::shared_ptr<State> s;
    if (weft_status_t st = State::Create(host, args, &s); st != WEFT_OK) return st;
    auto* handle = new (std::nothrow) StateHandle{std::move(s)};
    if (handle == nullptr) return WEFT_ERR_OUT_OF_MEMORY;
    *state = handle;
    return WEFT_OK;
  });
}

void Finalize(void* state) noexcept { delete static_cast<StateHandle*>(state); }

void Abort(void* state, weft_status_t status, int32_t failed_rank, const char* reason) noexcept {
  // Nothing to report to; the pairs signalled before an exception stay signalled.
  plugin_kit::GuardVoid(
      [&] { StateOf(state).Abort(status, failed_rank, reason ? reason : "no reason given"); });
}

weft_status_t AsyncError(void* state, int32_t* failed_rank) noexcept {
  return StateOf(state).AsyncError(failed_rank);
}

weft_status_t CommCreate(void* state, const int32_t* ranks, int32_t n, int32_t my_index,
                         const char* prefix, int64_t timeout_ms, weft_bk_comm_t** comm) noexcept {
  const auto& owner = static_cast<StateHandle*>(state)->state;
  return Guard(&owner->host(), [&]() -> weft_status_t {
    std::shared_ptr<Comm> c;
    if (weft_status_t s = Comm::Create(owner, ranks, n, my_index, prefix, timeout_ms, &c)) {
      return s;
    }
    auto* handle = new (std::nothrow) weft_bk_comm{std::move(c)};
    if (handle == nullptr) return owner->host().Fail(WEFT_ERR_OUT_OF_MEMORY, "comm_create");
    *comm = handle;
    return WEFT_OK;
  });
}

void CommDestroy(weft_bk_comm_t* comm) noexcept {
  if (comm == nullptr) return;
  plugin_kit::GuardVoid([&] { comm->comm->Close(); });
  delete comm;
}

weft_status_t AllreduceEntry(weft_bk_comm_t* comm, const void* send, void* recv, uint64_t count,
                             DLDataType dtype, int32_t op, const weft_bk_op_t* args,
                             weft_bk_request_t** req) noexcept {
  Comm& c = *comm->comm;
  return Guard(&c.host(), [&]() -> weft_status_t {
    return Allreduce(c, send, recv, count, dtype, op, args, req);
  });
}

weft_status_t AllgatherEntry(weft_bk_comm_t* comm, const void* send, void* recv, uint64_t count,
                             DLDataType dtype, const weft_bk_op_t* args,
                             weft_bk_request_t** req) noexcept {
  Comm& c = *comm->comm;
  return Guard(&c.host(), [&]() -> weft_status_t {
    return Allgather(c, send, recv, count, dtype, args, req);
  });
}

weft_status_t AllgathervEntry(weft_bk_comm_t* comm, const void* send, uint64_t send_count,
                              void* recv, const uint64_t* recv_counts, const uint64_t* recv_displs,
                              DLDataType dtype, const weft_bk_op_t* args,
                              weft_bk_request_t** req) noexcept {
  Comm& c = *comm->comm;
  return Guard(&c.host(), [&]() -> weft_status_t {
    return Allgatherv(c, send, send_count, recv, recv_counts, recv_displs, dtype, args, req);
  });
}

weft_status_t AlltoallEntry(weft_bk_comm_t* comm, const void* send, void* recv, uint64_t count,
                            DLDataType dtype, const weft_bk_op_t* args,
                            weft_bk_request_t** req) noexcept {
  Comm& c = *comm->comm;
  return Guard(&c.host(),
               [&]() -> weft_status_t { return Alltoall(c, send, recv, count, dtype, args, req); });
}

weft_status_t AlltoallvEntry(weft_bk_comm_t* comm, const void* send, const uint64_t* send_counts,
                             const uint64_t* send_displs, void* recv, const uint64_t* recv_counts,
                             const uint64_t* recv_displs, DLDataType dtype,
                             const weft_bk_op_t* args, weft_bk_request_t** req) noexcept {
  Comm& c = *comm->comm;
  return Guard(&c.host(), [&]() -> weft_status_t {
    return Alltoallv(c, send, send_counts, send_displs, recv, recv_counts, recv_displs, dtype, args,
                     req);
  });
}

weft_status_t BroadcastEntry(weft_bk_comm_t* comm, void* buf, uint64_t count, DLDataType dtype,
                             int32_t root, const weft_bk_op_t* args,
                             weft_bk_request_t** req) noexcept {
  Comm& c = *comm->comm;
  return Guard(&c.host(),
               [&]() -> weft_status_t { return Broadcast(c, buf, count, dtype, root, args, req); });
}

weft_status_t BarrierEntry(weft_bk_comm_t* comm, const weft_bk_op_t* args,
                           weft_bk_request_t** req) noexcept {
  Comm& c = *comm->comm;
  return Guard(&c.host(), [&]() -> weft_status_t { return Barrier(c, args, req); });
}

weft_status_t SendEntry(weft_bk_comm_t* comm, const void* buf, uint64_t count, DLDataType dtype,
                        int32_t peer, int64_t tag, const weft_bk_op_t* args,
                        weft_bk_request_t** req) noexcept {
  const auto& c = comm->comm;
  return Guard(&c->host(),
               [&]() -> weft_status_t { return Send(c, buf, count, dtype, peer, tag, args, req); });
}

weft_status_t RecvEntry(weft_bk_comm_t* comm, void* buf, uint64_t count, DLDataType dtype,
                        int32_t peer, int64_t tag, const weft_bk_op_t* args,
                        weft_bk_request_t** req) noexcept {
  const auto& c = comm->comm;
  return Guard(&c->host(),
               [&]() -> weft_status_t { return Recv(c, buf, count, dtype, peer, tag, args, req); });
}

weft_status_t RequestTest(weft_bk_request_t* req, int32_t* done) noexcept {
  return Guard(nullptr, [&]() -> weft_status_t {
    *done = req->request->Test() ? 1 : 0;
    return WEFT_OK;
  });
}

weft_status_t RequestWait(weft_bk_request_t* req, int64_t timeout_ms) noexcept {
  return Guard(nullptr, [&]() -> weft_status_t {
    Request& r = *req->request;
    if (!r.WaitUntil(DeadlineFromTimeoutMs(timeout_ms)))
      return static_cast<weft_status_t>(WEFT_IN_PROGRESS);
    const Failure& f = r.outcome();
    // Report again: the message is the calling thread's, and this may be another thread.
    if (f.status != WEFT_OK && req->comm) req->comm->host().Fail(f.status, f.message);
    return f.status;
  });
}

weft_status_t RequestCancel(weft_bk_request_t* req) noexcept {
  return Guard(nullptr, [&]() -> weft_status_t {
    req->request->Cancel();
    return WEFT_OK;
  });
}

void RequestFree(weft_bk_request_t* req) noexcept {
  // A pending point-to-point operation goes on: its waiter thread owns what Gloo may still
  // write into, until the operation ends.
  delete req;
}

constexpr uint64_t kCapabilities =
    WEFT_BK_CAP_ALLREDUCE | WEFT_BK_CAP_ALLGATHER | WEFT_BK_CAP_ALLGATHERV | WEFT_BK_CAP_ALLTOALL |
    WEFT_BK_CAP_ALLTOALLV | WEFT_BK_CAP_BROADCAST | WEFT_BK_CAP_BARRIER | WEFT_BK_CAP_ASYNC;

const weft_backend_plugin_t kTable = {
    sizeof(weft_backend_plugin_t),
    WEFT_BACKEND_PLUGIN_ABI_VERSION,
    "gloo",
    kCapabilities,
    &Init,
    &Finalize,
    &Abort,
    &AsyncError,
    &CommCreate,
    &CommDestroy,
    &AllreduceEntry,
    &AllgatherEntry,
    &AllgathervEntry,
    nullptr,  // reduce_scatter: composed by the host over send/recv
    nullptr,  // reduce_scatterv: likewise
    &AlltoallEntry,
    &AlltoallvEntry,
    &BroadcastEntry,
    &BarrierEntry,
    &SendEntry,
    &RecvEntry,
    nullptr,  // group_start
    nullptr,  // group_end
    &RequestTest,
    &RequestWait,
    &RequestCancel,
    &RequestFree,
    nullptr,  // send_strided: the host packs
    nullptr,  // recv_strided
    kParams,
    kNumParams,
};

}  // namespace
}  // namespace weft::backends::gloo_plugin

extern "C" __attribute__((visibility("default"))) const weft_backend_plugin_t*
weft_backend_plugin_v1(void) {
  return &weft::backends::gloo_plugin::kTable;
}
