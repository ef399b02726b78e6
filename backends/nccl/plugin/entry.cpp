// The NCCL backend plugin's table (SPEC §6.6, §7): libweft-backend-nccl.so. Every function runs
// inside the plugin kit's guard, so no exception crosses the C ABI.
#include <memory>

#include "backends/nccl/params.hpp"
#include "backends/nccl/plugin/comm.hpp"
#include "backends/nccl/plugin/completion.hpp"
#include "backends/nccl/plugin/ops.hpp"
#include "backends/nccl/plugin/state.hpp"
#include "common/plugin_kit/entry.hpp"

namespace weft::backends::nccl_plugin {
namespace {

State& StateOf(void* s) { return *static_cast<State*>(s); }

weft_status_t Init(const weft_bk_host_api_t* host, const weft_bk_init_args_t* args, void** state) {
  std::unique_ptr<State> s;
  if (weft_status_t st = State::Create(host, args, &s); st != WEFT_OK) return st;
  *state = s.release();  // deleted by finalize (C ABI ownership)
  return WEFT_OK;
}

void Finalize(void* state) {
  plugin_kit::GuardVoid([&] { delete static_cast<State*>(state); });
}

void Abort(void* state, weft_status_t status, int32_t failed_rank, const char* reason) {
  plugin_kit::GuardVoid([&] {
    StateOf(state).AbortAll(status, failed_rank, reason ? reason : "the host aborted the context");
  });
}

weft_status_t AsyncError(void* state, int32_t* failed_rank) {
  State& s = StateOf(state);
  const weft_status_t st = s.Poll();
  if (failed_rank) *failed_rank = s.failed_rank();
  return st;
}

weft_status_t CommCreate(void* state, const int32_t*, int32_t nranks, int32_t my_index,
                         const char* prefix, int64_t timeout_ms, weft_bk_comm_t** comm) {
  State& s = StateOf(state);
  if (nranks < 1 || my_index < 0 || my_index >= nranks)
    return s.Fail(WEFT_ERR_INVALID_ARGUMENT, "comm_create: member " + std::to_string(my_index) +
                                                 " of " + std::to_string(nranks));
  std::unique_ptr<Comm> c;
  if (weft_status_t st = Comm::Create(s, nranks, my_index, prefix, timeout_ms, &c); st != WEFT_OK)
    return st;
  s.Register(c.get());
  *comm = Handle(c.release());  // deleted by comm_destroy (C ABI ownership)
  return WEFT_OK;
}

void CommDestroy(weft_bk_comm_t* comm) {
  plugin_kit::GuardVoid([&] {
    std::unique_ptr<Comm> c(&Of(comm));
    c->state().Unregister(c.get());
  });
}

// Messages collect per communicator anyway (p2p.hpp): a host group adds nothing.
weft_status_t GroupMark(weft_bk_comm_t*) { return WEFT_OK; }

weft_status_t RequestTest(weft_bk_request_t* r, int32_t* done) { return r->impl->Test(done); }
weft_status_t RequestWait(weft_bk_request_t* r, int64_t timeout_ms) {
  return r->impl->Wait(timeout_ms);
}
weft_status_t RequestCancel(weft_bk_request_t* r) { return r->impl->Cancel(); }
void RequestFree(weft_bk_request_t* r) {
  plugin_kit::GuardVoid([&] { delete r; });
}

template <auto F>
constexpr auto Guarded = &plugin_kit::Entry<F>::Call;

const weft_backend_plugin_t kPlugin = {
    sizeof(weft_backend_plugin_t),
    WEFT_BACKEND_PLUGIN_ABI_VERSION,
    "nccl",
    WEFT_BK_CAP_ALLREDUCE | WEFT_BK_CAP_ALLGATHER | WEFT_BK_CAP_ALLGATHERV |
        WEFT_BK_CAP_REDUCE_SCATTER | WEFT_BK_CAP_REDUCE_SCATTERV | WEFT_BK_CAP_ALLTOALL |
        WEFT_BK_CAP_ALLTOALLV | WEFT_BK_CAP_BROADCAST | WEFT_BK_CAP_BARRIER | WEFT_BK_CAP_GROUP |
        WEFT_BK_CAP_ASYNC | WEFT_BK_CAP_DEVICE_CUDA |
        // NCCL writes no member's buffer past its own counts: members that disagree get
        // unspecified output, or a stalled group that the deadline aborts (README.md).
        WEFT_BK_CAP_SIZE_SAFE |
        // NCCL has no tags: a pair's messages match in posting order.
        WEFT_BK_CAP_UNTAGGED_P2P,
    Guarded<Init>,
    Finalize,
    Abort,
    Guarded<AsyncError>,
    Guarded<CommCreate>,
    CommDestroy,
    Guarded<ops::Allreduce>,
    Guarded<ops::Allgather>,
    Guarded<ops::Allgatherv>,
    Guarded<ops::ReduceScatter>,
    Guarded<ops::ReduceScatterv>,
    Guarded<ops::Alltoall>,
    Guarded<ops::Alltoallv>,
    Guarded<ops::Broadcast>,
    Guarded<ops::Barrier>,
    Guarded<ops::Send>,
    Guarded<ops::Recv>,
    GroupMark,
    GroupMark,
    Guarded<RequestTest>,
    Guarded<RequestWait>,
    Guarded<RequestCancel>,
    RequestFree,
    nullptr,  // send_strided: the host packs
    nullptr,  // recv_strided
    kParams,
    kNumParams,
};

}  // namespace
}  // namespace weft::backends::nccl_plugin

extern "C" __attribute__((visibility("default"))) const weft_backend_plugin_t*
weft_backend_plugin_v1(void) {
  return &weft::backends::nccl_plugin::kPlugin;
}
