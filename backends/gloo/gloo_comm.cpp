#include "backends/gloo/gloo_comm.hpp"

#include <gloo/common/error.h>
#include <gloo/transport/tcp/address.h>

#include "backends/gloo/deadline.hpp"
#include "backends/gloo/gloo_store_adapter.hpp"

namespace weft::backends::gloo_plugin {

weft_status_t Comm::Create(const std::shared_ptr<State>& state, const int32_t* world_ranks,
                           int32_t nranks, int32_t my_index, const char* store_prefix,
                           int64_t timeout_ms, std::shared_ptr<Comm>* out) {
  const Host& host = state->host();
  if (world_ranks == nullptr || store_prefix == nullptr || nranks < 1 || my_index < 0 ||
      my_index >= nranks) {
    return host.Fail(WEFT_ERR_INVALID_ARGUMENT,
                     "comm_create: need world_ranks, store_prefix and 0 <= my_index (" +
                         std::to_string(my_index) + ") < nranks (" + std::to_string(nranks) + ")");
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
    mesh->setTimeout(GlooTimeout(deadline));
    StoreAdapter store(host(), store_prefix, deadline);
    std::shared_ptr<::gloo::transport::Device> device = state_->device();
    mesh->connectFullMesh(store, device);
    mesh_ = std::move(mesh);
    LearnPeerAddresses(store);
  } catch (...) {
    const Failure f = ClassifyCurrentException();
    return host().Fail(f.status, op + ": " + f.message);
  }
  host().Log(WEFT_LOG_DEBUG, "gloo: connected " + op);
  return WEFT_OK;
}

void Comm::LearnPeerAddresses(const StoreAdapter& store) {
  // Gloo's rendezvous publishes, under key "<i>", member i's listening address for each of its
  // pairs, in member order without i itself; ours is entry (index_ > i ? index_ - 1 : index_).
  peer_texts_.assign(size(), std::string());
  for (int32_t i = 0; i < size(); ++i) {
    const std::vector<char> all = store.Seen(std::to_string(i));
    if (i == index_ || all.empty() || all.size() % (size() - 1) != 0) continue;
    const size_t width = all.size() / (size() - 1);
    const size_t at = static_cast<size_t>(index_ > i ? index_ - 1 : index_) * width;
    try {
      const std::vector<char> mine(all.begin() + at, all.begin() + at + width);
      peer_texts_[i] = ::gloo::transport::tcp::Address(mine).str();
    } catch (...) {  // naming is best effort
    }
  }
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
  if (mesh_) mesh_->guarded()->Fail("weft: " + message);
}

std::string Comm::DescribePeerFailure(const std::string& gloo_text, int32_t* failed_rank) const {
  *failed_rank = -1;
  for (int32_t i = 0; i < static_cast<int32_t>(peer_texts_.size()); ++i) {
    const std::string& peer = peer_texts_[i];
    if (!peer.empty() && gloo_text.find(peer) != std::string::npos) {
      *failed_rank = ranks_[i];
      return "connection to rank " + std::to_string(ranks_[i]) + " (member " + std::to_string(i) +
             ") failed: " + gloo_text;
    }
  }
  return "a connection failed: " + gloo_text;
}

void Comm::Close() {
  if (mesh_) mesh_->guarded()->Interrupt("communicator destroyed");
}

}  // namespace weft::backends::gloo_plugin
