#include "backends/ucx/transport/state.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <thread>
#include <vector>

#include "backends/ucx/transport/config.hpp"
#include "backends/ucx/transport/owned_send.hpp"
#include "backends/ucx/transport/request.hpp"
#include "backends/ucx/transport/scratch.hpp"
#include "backends/ucx/tuning_table.hpp"
#include "common/clock.hpp"

namespace weft::backends::ucx_plugin {

State::State(const weft_bk_host_api_t* host, const weft_bk_init_args_t& args, const Tuning& tuning)
    : host_(host),
      args_(args),
      tuning_(tuning),
      cpu_per_rank_(CpuPerRank(args.local_world_size > 0 ? args.local_world_size : 1)),
      spin_(std::chrono::microseconds(SpinMicroseconds(tuning_, cpu_per_rank_))) {}

weft_status_t State::Fail(weft_status_t status, const std::string& message) const {
  const std::string text = "ucx: " + message;
  host_->set_error(host_->host_data, text.c_str());
  return status;
}

weft_status_t State::Create(const weft_bk_host_api_t* host, const weft_bk_init_args_t* args,
                            std::unique_ptr<State>* out) {
  if (host == nullptr || args == nullptr || host->struct_size < sizeof(weft_bk_host_api_t))
    return WEFT_ERR_INVALID_ARGUMENT;
  if (args->world_size < 1 || args->world_rank < 0 || args->world_rank >= args->world_size) {
    host->set_error(host->host_data, "ucx: init: rank outside the world");
    return WEFT_ERR_INVALID_ARGUMENT;
  }
  Tuning tuning;
  std::string why;
  if (!ReadTuning(&tuning, &why)) {
    host->set_error(host->host_data, ("ucx: init: " + why).c_str());
    return WEFT_ERR_INVALID_ARGUMENT;
  }
  auto s = std::unique_ptr<State>(new (std::nothrow) State(host, *args, tuning));
  if (!s) return WEFT_ERR_OUT_OF_MEMORY;
  if (weft_status_t st = s->Open(); st != WEFT_OK) return st;
  *out = std::move(s);
  return WEFT_OK;
}

weft_status_t State::Open() {
  std::string why;
  ucp_config_t* config = nullptr;
  if (ReadConfig(&config, &why) != UCS_OK) return Fail(WEFT_ERR_BACKEND, why);
  ucp_params_t params{};
  params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED;
  params.features = UCP_FEATURE_TAG | UCP_FEATURE_WAKEUP;
  params.mt_workers_shared = 0;
  ucs_status_t s = ucp_init(&params, config, &context_);
  ucp_config_release(config);
  if (s != UCS_OK) return Fail(WEFT_ERR_BACKEND, std::string("ucp_init: ") + ucs_status_string(s));

  ucp_worker_params_t wp{};
  wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
  wp.thread_mode = UCS_THREAD_MODE_SERIALIZED;  // serialized by mu_ (see state.hpp)
  s = ucp_worker_create(context_, &wp, &worker_);
  if (s != UCS_OK)
    return Fail(WEFT_ERR_BACKEND, std::string("ucp_worker_create: ") + ucs_status_string(s));
  s = ucp_worker_get_efd(worker_, &worker_fd_);
  if (s != UCS_OK)
    return Fail(WEFT_ERR_BACKEND, std::string("ucp_worker_get_efd: ") + ucs_status_string(s));
  wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) return Fail(WEFT_ERR_SYSTEM, "eventfd failed");

  ucp_address_t* addr = nullptr;
  size_t len = 0;
  s = ucp_worker_get_address(worker_, &addr, &len);
  if (s != UCS_OK)
    return Fail(WEFT_ERR_BACKEND, std::string("ucp_worker_get_address: ") + ucs_status_string(s));
  cma_ = LocalCmaIdentity(tuning_.cma_bytes);
  // Lending buffers to writers only makes sense where single copy runs at all.
  if (cma_.threshold != 0 && tuning_.push_slots != 0 &&
      single_copy_.grants().Open(static_cast<uint32_t>(tuning_.push_slots)))
    cma_.grants = single_copy_.grants().Identity();
  // The board likewise needs the peers of this host to reach this process (pidfd_getfd).
  if (cma_.threshold != 0 && tuning_.board != 0 && board_.Open()) cma_.board = board_.Identity();
  if (cma_.threshold != 0 && tuning_.pipe_bytes != 0 && pipes_.Open())
    cma_.pipes = pipes_.Identity();
  const char* id = reinterpret_cast<const char*>(&cma_);
  const char* p = reinterpret_cast<const char*>(addr);
  address_.assign(id, id + sizeof(cma_));
  address_.insert(address_.end(), p, p + len);
  ucp_worker_release_address(worker_, addr);

  peers_.Create(this, args_.world_size);
  return WEFT_OK;
}

State::~State() {
  std::lock_guard<std::mutex> lock(mu_);
  watchers_.ClearAdopted();  // board calls of destroyed communicators that never finished
  single_copy_.Close();
  if (worker_ != nullptr) {
    peers_.CloseAll(worker_, failures_.aborted());
    // The host freed every request before finalize; what UCX still owns is a receive nobody
    // matched or a send it could not withdraw. Cancel them (receives complete at once).
    for (Request* r : owned_.All()) {
      r->freed = true;
      ucp_request_cancel(worker_, r->ucx);  // may call back and delete `r`
    }
    // After a failure there is nothing to drain (the endpoints were force-closed), and
    // progressing would only make UCX act on the wireup traffic of dead peers. Only a healthy
    // worker is drained.
    if (failures_.healthy()) {
      while (ucp_worker_progress(worker_) != 0) {
      }
    }
    // Whatever is left is released by ucp_worker_destroy, which may still call back: keep
    // the objects alive (not `freed`) until it returned.
    std::vector<Request*> orphans = owned_.All();
    for (Request* r : orphans) r->freed = false;
    ucp_worker_destroy(worker_);
    for (Request* r : orphans) delete static_cast<weft_bk_request*>(r);
    owned_.Clear();
  }
  if (context_ != nullptr) ucp_cleanup(context_);
  if (wake_fd_ >= 0) close(wake_fd_);
}

weft_status_t State::Connect(int32_t rank, const std::vector<char>& address) {
  Peer& p = peers_[rank];
  if (p.ep != nullptr || p.failed) return WEFT_OK;
  CmaIdentity theirs;
  if (address.size() <= sizeof(theirs))
    return Fail(WEFT_ERR_BACKEND, "connecting to rank " + std::to_string(rank) +
                                      ": its published address is too short");
  std::memcpy(&theirs, address.data(), sizeof(theirs));
  // Messages to oneself go through UCX's loopback transport, a single copy already.
  p.cma_bytes = rank == args_.world_rank ? 0 : PairThreshold(cma_, theirs);
  p.pid = theirs.pid;
  if (p.cma_bytes != 0 && theirs.grants.slots != 0) {
    // Where we can map its grant table, this peer may ask us to write messages into it.
    auto g = std::make_unique<PeerGrants>();
    if (g->Open(static_cast<pid_t>(theirs.pid), theirs.grants)) p.grants = std::move(g);
  }
  if (p.cma_bytes != 0 && theirs.board.areas != 0) {
    auto b = std::make_unique<PeerBoard>();
    if (b->Open(static_cast<pid_t>(theirs.pid), theirs.board)) p.board = std::move(b);
  }
  if (p.cma_bytes != 0 && theirs.pipes.channels != 0 && pipes_.open()) {
    auto q = std::make_unique<PeerPipes>();
    if (q->Open(static_cast<pid_t>(theirs.pid), theirs.pipes, args_.world_rank))
      p.pipes = std::move(q);
  }
  ucp_ep_params_t ep{};
  ep.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
                  UCP_EP_PARAM_FIELD_ERR_HANDLER;
  ep.address = reinterpret_cast<const ucp_address_t*>(address.data() + sizeof(theirs));
  ep.err_mode = UCP_ERR_HANDLING_MODE_PEER;
  ep.err_handler.cb = &Peers::OnEndpointError;
  ep.err_handler.arg = &p;
  const ucs_status_t s = ucp_ep_create(worker_, &ep, &p.ep);
  if (s != UCS_OK) {
    p.ep = nullptr;
    return Fail(WEFT_ERR_BACKEND, "connecting to rank " + std::to_string(rank) +
                                      ": ucp_ep_create: " + ucs_status_string(s));
  }
  LogEndpoint(rank);
  return WEFT_OK;
}

void State::LogEndpoint(int32_t rank) const {
  // Which transports carry each lane (posix/sysv/cma on one host, tcp across hosts): at debug
  // level only (WEFT_LOG_LEVEL=debug), since the text is long.
  char* text = nullptr;
  size_t len = 0;
  FILE* f = open_memstream(&text, &len);
  if (f == nullptr) return;
  ucp_ep_print_info(peers_[rank].ep, f);
  std::fclose(f);
  const std::string line = "ucx: rank " + std::to_string(args_.world_rank) + " endpoint to rank " +
                           std::to_string(rank) + ":\n" + std::string(text, len);
  std::free(text);
  host_->log(host_->host_data, WEFT_LOG_DEBUG, line.c_str());
}

bool State::Connected(int32_t rank) const { return peers_[rank].ep != nullptr; }

weft_status_t State::Endpoint(int32_t rank, const char* op, ucp_ep_h* ep) {
  std::string why;
  const weft_status_t s = EndpointOrWhy(rank, ep, &why);
  return s == WEFT_OK ? s : Fail(s, std::string(op) + ": " + why);
}

weft_status_t State::EndpointOrWhy(int32_t rank, ucp_ep_h* ep, std::string* why) {
  if (weft_status_t a = Aborted(why); a != WEFT_OK) return a;
  const Peer& p = peers_[rank];
  if (p.failed) {
    *why = Peers::FailureText(p);
    return WEFT_ERR_PEER_FAILURE;
  }
  if (p.ep == nullptr) {
    *why = "no endpoint to rank " + std::to_string(rank);
    return WEFT_ERR_INTERNAL;
  }
  *ep = p.ep;
  return WEFT_OK;
}

void State::Progress() {
  while (ucp_worker_progress(worker_) != 0) {
  }
  if (peers_.TakeErrorPending()) HandlePeerFailures();
  single_copy_.Advance();
  if (!pipe_sends_.empty() || !pipe_recvs_.empty()) AdvancePipes();
  watchers_.Advance();
}

std::shared_ptr<ScratchBuffer> State::Staging(uint64_t bytes) {
  return AcquireFrom(staging_, bytes);
}

void State::LogOnce(bool* logged, const std::string& line) const {
  if (*logged) return;
  *logged = true;
  host_->log(host_->host_data, WEFT_LOG_DEBUG, line.c_str());
}

void State::OnPeerError(Peer* peer, ucs_status_t status) { peers_.MarkFailed(peer, status); }

void State::FailRequest(Request* r, weft_status_t status, const std::string& message) {
  r->Cancel(status, message);
}

void State::HandlePeerFailures() {
  for (auto& p : peers_) {
    if (!p->failed || p->failure_handled) continue;
    p->failure_handled = true;
    const std::string text = Peers::FailureText(*p);
    bool used = false;
    for (Request* r : owned_.All()) {
      if (r->peer_rank != p->rank || r->done) continue;
      used = true;
      FailRequest(r, WEFT_ERR_PEER_FAILURE, r->Name() + ": " + text);
    }
    if (single_copy_.FailWith(p->rank, WEFT_ERR_PEER_FAILURE, text)) used = true;
    if (FailPipes(p->rank, WEFT_ERR_PEER_FAILURE, text)) used = true;
    // A peer that finished and destroyed its worker looks the same as one that died; only a
    // failure that hit an operation is reported as the context's asynchronous error.
    if (used) RecordFailure(WEFT_ERR_PEER_FAILURE, p->rank);
    Peers::Close(*p, true, nullptr);
  }
}

void State::Abort(weft_status_t status, int32_t failed_rank, const std::string& reason) {
  // Before the lock: a waiter holding it sees the request and steps aside (LetAbortIn).
  failures_.RequestAbort();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!failures_.StartAbort(status, failed_rank, reason)) return;
    const weft_status_t s = failures_.abort_status();
    for (Request* r : owned_.All())
      if (!r->done) FailRequest(r, s, r->Name() + ": " + reason);
    single_copy_.FailWith(-1, s, reason);
    FailPipes(-1, s, reason);
    // Close every connection (SPEC §10): peers waiting on this rank see its endpoints go and
    // fail too, instead of waiting for their deadline. Sends still queued complete with errors.
    for (auto& p : peers_) Peers::Close(*p, true, nullptr);
  }
  const uint64_t one = 1;
  (void)!write(wake_fd_, &one, sizeof(one));  // wake a waiter sleeping in poll()
}

void State::LetAbortIn(std::unique_lock<std::mutex>& lock) {
  while (failures_.AbortWaiting()) {
    lock.unlock();
    std::this_thread::sleep_for(kAbortStepAside);
    lock.lock();
  }
}

weft_status_t State::AsyncError(int32_t* failed_rank) {
  std::lock_guard<std::mutex> lock(mu_);
  return failures_.First(failed_rank);
}

}  // namespace weft::backends::ucx_plugin
