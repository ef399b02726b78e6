// The entry point and the function table of libweft-backend-ucx.so.
//
// Capabilities:
//   ASYNC: send/recv are UCP tag operations; a request progresses whenever any thread tests
//       or waits on any request of the context (the host always waits on what it posts).
//   Every collective is the plugin's own (coll/); WEFT_BACKEND_DISABLE_OPS hides them from
//       the host, which then composes them from send/recv (tests, comparisons).
//   STRIDED: send/recv of strided regions, read in place by single-copy receivers.
//   not GROUP: posted send/recv already overlap.
//   not DEVICE_CUDA: buffers must be kDLCPU or kDLCUDAHost (else WEFT_ERR_UNSUPPORTED).
//
// Every function is noexcept: an exception (an allocation in a message) becomes a status.
#include <new>

#include <weft/backend_plugin.h>

#include "backends/ucx/coll/board.hpp"
#include "backends/ucx/coll/entry.hpp"
#include "backends/ucx/params.hpp"
#include "backends/ucx/transport/comm.hpp"
#include "backends/ucx/transport/p2p.hpp"
#include "backends/ucx/transport/state.hpp"
#include "backends/ucx/transport/wait.hpp"
#include "common/plugin_kit/entry.hpp"

namespace weft::backends::ucx_plugin {
namespace {

// The plugin kit's trampoline: an exception becomes its status (no message: the layers below
// report their own failures through host->set_error before returning).
using plugin_kit::Guard;

State& StateOf(void* state) { return *static_cast<State*>(state); }

weft_status_t Init(const weft_bk_host_api_t* host, const weft_bk_init_args_t* args,
                   void** state) noexcept {
  return Guard([&]() -> weft_status_t {
    std::unique_ptr<State> s;
    if (weft_status_t st = State::Create(host, args, &s)) return st;
    *state = s.release();
    return WEFT_OK;
  });
}

void Finalize(void* state) noexcept { delete static_cast<State*>(state); }

void Abort(void* state, weft_status_t status, int32_t failed_rank, const char* reason) noexcept {
  plugin_kit::GuardVoid(  // nothing to report to
      [&] { StateOf(state).Abort(status, failed_rank, reason ? reason : "aborted"); });
}

weft_status_t AsyncError(void* state, int32_t* failed_rank) noexcept {
  return StateOf(state).AsyncError(failed_rank);
}

weft_status_t CommCreateEntry(void* state, const int32_t* ranks, int32_t n, int32_t my_index,
                              const char* prefix, int64_t timeout_ms,
                              weft_bk_comm_t** comm) noexcept {
  return Guard([&]() -> weft_status_t {
    Comm* c = nullptr;
    if (weft_status_t s = CreateComm(StateOf(state), ranks, n, my_index, prefix, timeout_ms, &c))
      return s;
    *comm = static_cast<weft_bk_comm*>(c);
    return WEFT_OK;
  });
}

void CommDestroy(weft_bk_comm_t* comm) noexcept {
  if (comm == nullptr) return;
  {
    // Calls still queued on the communicator's board (abandoned ones) keep their place: the
    // State moves them on until they are done (coll/board.hpp), under its lock.
    std::lock_guard<std::mutex> lock(comm->state->mu());
    if (comm->board) comm->state->AdoptBoard(std::move(comm->board));
  }
  delete comm;
}

weft_status_t SendEntry(weft_bk_comm_t* comm, const void* buf, uint64_t count, DLDataType dtype,
                        int32_t peer, int64_t tag, const weft_bk_op_t* args,
                        weft_bk_request_t** req) noexcept {
  return Guard([&] { return Send(*comm, buf, count, dtype, peer, tag, args, req); });
}

weft_status_t RecvEntry(weft_bk_comm_t* comm, void* buf, uint64_t count, DLDataType dtype,
                        int32_t peer, int64_t tag, const weft_bk_op_t* args,
                        weft_bk_request_t** req) noexcept {
  return Guard([&] { return Recv(*comm, buf, count, dtype, peer, tag, args, req); });
}

weft_status_t SendStridedEntry(weft_bk_comm_t* comm, const void* base,
                               const weft_bk_strided_t* layout, int32_t peer, int64_t tag,
                               const weft_bk_op_t* args, weft_bk_request_t** req) noexcept {
  return Guard([&] { return SendStrided(*comm, base, layout, peer, tag, args, req); });
}

weft_status_t RecvStridedEntry(weft_bk_comm_t* comm, void* base, const weft_bk_strided_t* layout,
                               int32_t peer, int64_t tag, const weft_bk_op_t* args,
                               weft_bk_request_t** req) noexcept {
  return Guard([&] { return RecvStrided(*comm, base, layout, peer, tag, args, req); });
}

weft_status_t TestEntry(weft_bk_request_t* req, int32_t* done) noexcept {
  return Guard([&] { return TestRequest(req, done); });
}

weft_status_t WaitEntry(weft_bk_request_t* req, int64_t timeout_ms) noexcept {
  return Guard([&] { return WaitRequest(req, timeout_ms); });
}

weft_status_t CancelEntry(weft_bk_request_t* req) noexcept {
  return Guard([&] { return CancelRequest(req); });
}

void FreeEntry(weft_bk_request_t* req) noexcept {
  plugin_kit::GuardVoid([&] { FreeRequest(req); });
}

// Every collective entry runs inside the plugin kit's Guard (an allocation failure becomes a
// status).
template <auto F>
using Guarded = plugin_kit::Entry<F>;

constexpr uint64_t kCollectiveCaps =
    WEFT_BK_CAP_ALLREDUCE | WEFT_BK_CAP_ALLGATHER | WEFT_BK_CAP_ALLGATHERV |
    WEFT_BK_CAP_REDUCE_SCATTER | WEFT_BK_CAP_REDUCE_SCATTERV | WEFT_BK_CAP_ALLTOALL |
    WEFT_BK_CAP_ALLTOALLV | WEFT_BK_CAP_BROADCAST | WEFT_BK_CAP_BARRIER;

const weft_backend_plugin_t kPlugin = {
    sizeof(weft_backend_plugin_t),
    WEFT_BACKEND_PLUGIN_ABI_VERSION,
    "ucx",
    // SIZE_SAFE: every receive checks the length it got (README, "Capabilities").
    WEFT_BK_CAP_ASYNC | WEFT_BK_CAP_STRIDED | WEFT_BK_CAP_SIZE_SAFE | kCollectiveCaps,
    Init,
    Finalize,
    Abort,
    AsyncError,
    CommCreateEntry,
    CommDestroy,
    Guarded<CollAllreduce>::Call,
    Guarded<CollAllgather>::Call,
    Guarded<CollAllgatherv>::Call,
    Guarded<CollReduceScatter>::Call,
    Guarded<CollReduceScatterv>::Call,
    Guarded<CollAlltoall>::Call,
    Guarded<CollAlltoallv>::Call,
    Guarded<CollBroadcast>::Call,
    Guarded<CollBarrier>::Call,
    SendEntry,
    RecvEntry,
    nullptr,  // group_start
    nullptr,  // group_end
    TestEntry,
    WaitEntry,
    CancelEntry,
    FreeEntry,
    SendStridedEntry,
    RecvStridedEntry,
    kParams,
    kNumParams,
};

}  // namespace
}  // namespace weft::backends::ucx_plugin

extern "C" __attribute__((visibility("default"))) const weft_backend_plugin_t*
weft_backend_plugin_v1(void) {
  return &weft::backends::ucx_plugin::kPlugin;
}
