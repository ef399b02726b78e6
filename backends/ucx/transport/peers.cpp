#include "backends/ucx/transport/peers.hpp"

#include <unistd.h>

#include <chrono>
#include <string>

#include "backends/ucx/transport/state.hpp"
#include "backends/ucx/tuning_table.hpp"

namespace weft::backends::ucx_plugin {
namespace {

// Waits (progressing the worker) for a close request, bounded by `until`.
void AwaitClose(ucp_worker_h worker, void* req, Clock::time_point until) {
  if (req == nullptr) return;
  if (UCS_PTR_IS_ERR(req)) return;
  while (ucp_request_check_status(req) == UCS_INPROGRESS && Clock::now() < until) {
    if (ucp_worker_progress(worker) == 0) usleep(kCloseNapUs);  // teardown only: brief, bounded
  }
  if (ucp_request_check_status(req) == UCS_INPROGRESS) ucp_request_cancel(worker, req);
  ucp_request_free(req);
}

}  // namespace

void Peers::Create(State* state, int32_t world_size) {
  peers_.resize(static_cast<size_t>(world_size));
  for (int32_t r = 0; r < world_size; ++r) {
    peers_[r] = std::make_unique<Peer>();
    peers_[r]->state = state;
    peers_[r]->rank = r;
  }
}

void Peers::OnEndpointError(void* arg, ucp_ep_h, ucs_status_t status) {
  auto* peer = static_cast<Peer*>(arg);
  peer->state->OnPeerError(peer, status);
}

void Peers::MarkFailed(Peer* peer, ucs_status_t status) {
  if (peer->failed) return;
  peer->failed = true;
  peer->why = status;
  error_pending_ = true;  // handled after progress returns, outside UCX's callback
}

std::string Peers::FailureText(const Peer& p) {
  return "rank " + std::to_string(p.rank) + " failed (UCX: " + ucs_status_string(p.why) + ")";
}

void Peers::Close(Peer& p, bool force, std::vector<void*>* closing) {
  if (p.ep == nullptr) return;
  ucp_request_param_t param{};
  param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
  param.flags = force ? UCP_EP_CLOSE_FLAG_FORCE : 0;
  void* req = ucp_ep_close_nbx(p.ep, &param);
  p.ep = nullptr;
  if (req == nullptr || UCS_PTR_IS_ERR(req)) return;
  if (closing != nullptr)
    closing->push_back(req);
  else
    ucp_request_free(req);
}

void Peers::CloseAll(ucp_worker_h worker, bool force) {
  // Healthy peers: flush, so that sends in flight still arrive and nobody sees an error.
  // Failed peers (or after an abort): force, since a flush would wait for a dead peer.
  const auto until = Clock::now() + kCloseBound;
  std::vector<void*> closing;
  for (auto& p : peers_) Close(*p, p->failed || force, &closing);
  for (void* req : closing) AwaitClose(worker, req, until);
}

}  // namespace weft::backends::ucx_plugin
