#include "backends/gloo/gloo_comm.hpp"

#include <gloo/common/error.h>

#include "backends/gloo/deadline.hpp"
#include "backends/gloo/gloo_store_adapter.hpp"
#include "backends/gloo/request.hpp"

namespace weft::backends::gloo_plugin {

weft_status_t Comm::Create(std::shared_ptr<State> state, const int32_t* world_ranks,
                           int32_t nranks, int32_t my_index, const char* store_prefix,
                           int64_t timeout_ms, std::shared_ptr<Comm>* out) {
  const Host& host = state->host();
  if (world_ranks == nullptr || store_prefix == nullptr || nranks < 1 || my_index < 0 ||
      my_index >= nranks) {
    return host.Fail(WEFT_ERR_INVALID_ARGUMENT,
                     "comm_create: need world_ranks, store_prefix and 0 <= my_index (" +
                         std::to_string(my_index) + ") < nranks (" + std::to_string(nranks) +
                         ")");
  }
  auto comm = std::make_shared<Comm>(state, std::vector<int32_t>(world_ranks, world_ranks + nranks),
                                     my_index);
  if (weft_status_t s = comm->CheckUsable("comm_create"); s != WEFT_OK) return s;
  if (nranks > 1) {
    if (weft_status_t s = comm->Connect(store_prefix, timeout_ms); s != WEFT_OK) return s;
  }
  std::string abort_message;
  if (weft_status_t s = state->Register(comm.get(), &abort_message); s != WEFT_OK) {
    return host.Fail(s, "comm_create: " + abort_message);
  }
  comm->registered_ = true;
  *out = std::move(comm);
  return WEFT_OK;
}

Comm::Comm(std::shared_ptr<State> state, std::vector<int32_t> ranks, int32_t index)
    : state_(std::move(state)), ranks_(std::move(ranks)), index_(index) {}

Comm::~Comm() {
  if (registered_) state_->Unregister(this);
}

weft_status_t Comm::Connect(const char* store_prefix, int64_t timeout_ms) {
  const std::string op = "comm_create (member " + std::to_string(index_) + " of " +
                         std::to_string(size()) + ", prefix " + store_prefix + ")";
  if (!state_->device()) {
    return host().Fail(WEFT_ERR_INVALID_ARGUMENT, op + ": more members than the world has");
  }
  const Deadline deadline = Deadline::FromTimeoutMs(timeout_ms);
  try {
    auto mesh = std::make_shared<MeshContext>(index_, size());
    // Pairs wait up to 5x this for their TCP connect; the store calls use `deadline` itself.
    mesh->setTimeout(deadline.GlooTimeout());
    StoreAdapter store(host(), store_prefix, deadline);
    std::shared_ptr<::gloo::transport::Device> device = state_->device();
    mesh->connectFullMesh(store, device);
    mesh_ = std::move(mesh);
  } catch (...) {
    const Failure f = ClassifyCurrentException();
    return host().Fail(f.status, op + ": " + f.message);
  }
  host().Log(WEFT_LOG_DEBUG, "gloo: connected " + op);
  return WEFT_OK;
}

Failure Comm::Unusable(const std::string& op) const {
  std::string abort_message;
  if (weft_status_t s = state_->Aborted(&abort_message); s != WEFT_OK) {
    return {s, op + ": " + abort_message};
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (failed_ == WEFT_OK) return {};
  return {failed_, op + ": communicator failed earlier: " + failed_message_};
}

weft_status_t Comm::CheckUsable(const std::string& op) const {
  const Failure f = Unusable(op);
  return f.status == WEFT_OK ? WEFT_OK : host().Fail(f.status, f.message);
}

Failure Comm::FailWith(const std::string& op, Failure failure) {
  // An abort, or an earlier failure that poisoned the communicator, is the real cause of
  // whatever Gloo reported: the closed connections are only its consequence.
  if (Failure earlier = Unusable(op); earlier.status != WEFT_OK) {
    host().Fail(earlier.status, earlier.message);
    return earlier;
  }
  int32_t failed_rank = -1;
  if (failure.status == WEFT_ERR_PEER_FAILURE) {
    failure.message = DescribePeerFailure(failure.message, &failed_rank);
  }
  failure.message = op + ": " + failure.message;
  Poison(failure.status, failure.message);
  state_->RecordFailure(failure.status, failed_rank);
  host().Log(WEFT_LOG_WARN, "gloo: " + failure.message);
  host().Fail(failure.status, failure.message);
  return failure;
}

void Comm::Poison(weft_status_t status, const std::string& message) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (failed_ == WEFT_OK) {
      failed_ = status;
      failed_message_ = message;
    }
  }
  loopback_.FailAll(status, message);
  if (!mesh_) return;
  for (int32_t i = 0; i < size(); ++i) {
    if (i != index_) TrackedPair::Of(mesh_->getPair(i))->Fail("weft: " + message);
  }
  // Pairs that had failed before fail nothing more; the buffers must still all fail.
  mesh_->tracking()->FailAll(std::make_exception_ptr(::gloo::IoException("weft: " + message)));
}

std::string Comm::DescribePeerFailure(const std::string& gloo_text, int32_t* failed_rank) const {
  *failed_rank = -1;
  for (int32_t i = 0; mesh_ && i < size(); ++i) {
    if (i == index_) continue;
    const std::string peer = TrackedPair::Of(mesh_->getPair(i))->PeerText();
    if (!peer.empty() && gloo_text.find(peer) != std::string::npos) {
      *failed_rank = ranks_[i];
      return "connection to rank " + std::to_string(ranks_[i]) + " (member " + std::to_string(i) +
             ") failed: " + gloo_text;
    }
  }
  return "a connection failed: " + gloo_text;
}

void Comm::Detach(std::unique_ptr<Request> request) {
  if (request->Test()) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (!closed_) detached_.push_back(std::move(request));
}

void Comm::ReapDetached() {
  std::vector<std::unique_ptr<Request>> pending;
  {
    std::lock_guard<std::mutex> lock(mu_);
    pending.swap(detached_);
  }
  if (pending.empty()) return;
  // Test() may fail a request and poison the communicator, which takes mu_: not under it.
  std::erase_if(pending, [](const std::unique_ptr<Request>& r) { return r->Test(); });
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& r : pending) detached_.push_back(std::move(r));
}

void Comm::Close() {
  std::vector<std::unique_ptr<Request>> dropped;
  std::lock_guard<std::mutex> lock(mu_);
  closed_ = true;
  dropped.swap(detached_);
}

}  // namespace weft::backends::gloo_plugin
