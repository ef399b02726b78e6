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
#include "common/clock.hpp"

namespace weft::backends::ucx_plugin {
namespace {

void OnEndpointError(void* arg, ucp_ep_h, ucs_status_t status) {
  auto* peer = static_cast<Peer*>(arg);
  peer->state->OnPeerError(peer, status);
}

// Waits (progressing the worker) for a close request, bounded by `until`.
void AwaitClose(ucp_worker_h worker, void* req, Clock::time_point until) {
  if (req == nullptr) return;
  if (UCS_PTR_IS_ERR(req)) return;
  while (ucp_request_check_status(req) == UCS_INPROGRESS && Clock::now() < until) {
    if (ucp_worker_progress(worker) == 0) usleep(200);  // teardown only: brief, bounded
  }
  if (ucp_request_check_status(req) == UCS_INPROGRESS) ucp_request_cancel(worker, req);
  ucp_request_free(req);
}

}  // namespace

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
      grants_.Open(static_cast<uint32_t>(tuning_.push_slots)))
    cma_.grants = grants_.Identity();
  // The board likewise needs the peers of this host to reach this process (pidfd_getfd).
  if (cma_.threshold != 0 && tuning_.board != 0 && board_.Open()) cma_.board = board_.Identity();
  if (cma_.threshold != 0 && tuning_.pipe_bytes != 0 && pipes_.Open())
    cma_.pipes = pipes_.Identity();
  const char* id = reinterpret_cast<const char*>(&cma_);
  const char* p = reinterpret_cast<const char*>(addr);
  address_.assign(id, id + sizeof(cma_));
  address_.insert(address_.end(), p, p + len);
  ucp_worker_release_address(worker_, addr);

  peers_.resize(static_cast<size_t>(args_.world_size));
  for (int32_t r = 0; r < args_.world_size; ++r) {
    peers_[r] = std::make_unique<Peer>();
    peers_[r]->state = this;
    peers_[r]->rank = r;
  }
  return WEFT_OK;
}

State::~State() {
  std::lock_guard<std::mutex> lock(mu_);
  orphans_.clear();  // board calls of destroyed communicators that never finished
  // The host freed every request before finalize, which took their loans back; this is for a
  // request leaked by a misbehaving host, whose buffer must not be written after we are gone.
  for (Request* r : std::vector<Request*>(loans_)) r->Finish(WEFT_ERR_ABORTED, "finalized");
  for (Request* r : transfers_) {  // the host freed every request before finalize
    r->in_transfer_queue = false;
    if (r->freed) delete static_cast<weft_bk_request*>(r);
  }
  transfers_.clear();
  if (worker_ != nullptr) {
    CloseEndpoints();
    // The host freed every request before finalize; what UCX still owns is a receive nobody
    // matched or a send it could not withdraw. Cancel them (receives complete at once).
    for (Request* r : Owned()) {
      r->freed = true;
      ucp_request_cancel(worker_, r->ucx);  // may call back and delete `r`
    }
    // After a failure there is nothing to drain (the endpoints were force-closed), and
    // progressing would only make UCX act on the wireup traffic of dead peers. Only a healthy
    // worker is drained.
    if (!aborted_ && first_failure_ == WEFT_OK) {
      while (ucp_worker_progress(worker_) != 0) {
      }
    }
    // Whatever is left is released by ucp_worker_destroy, which may still call back: keep
    // the objects alive (not `freed`) until it returned.
    std::vector<Request*> orphans = Owned();
    for (Request* r : orphans) r->freed = false;
    ucp_worker_destroy(worker_);
    for (Request* r : orphans) delete static_cast<weft_bk_request*>(r);
    owned_ = nullptr;
  }
  if (context_ != nullptr) ucp_cleanup(context_);
  if (wake_fd_ >= 0) close(wake_fd_);
}

void State::CloseEndpoints() {
  // Healthy peers: flush, so that sends in flight still arrive and nobody sees an error.
  // Failed peers (or after an abort): force, since a flush would wait for a dead peer.
  const auto until = Clock::now() + std::chrono::seconds(2);
  std::vector<void*> closing;
  for (auto& p : peers_) ClosePeer(*p, p->failed || aborted_, &closing);
  for (void* req : closing) AwaitClose(worker_, req, until);
}

void State::ClosePeer(Peer& p, bool force, std::vector<void*>* closing) {
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

weft_status_t State::Connect(int32_t rank, const std::vector<char>& address) {
  Peer& p = *peers_[rank];
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
  ep.err_handler.cb = &OnEndpointError;
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
  ucp_ep_print_info(peers_[rank]->ep, f);
  std::fclose(f);
  const std::string line = "ucx: rank " + std::to_string(args_.world_rank) + " endpoint to rank " +
                           std::to_string(rank) + ":\n" + std::string(text, len);
  std::free(text);
  host_->log(host_->host_data, WEFT_LOG_DEBUG, line.c_str());
}

bool State::Connected(int32_t rank) const { return peers_[rank]->ep != nullptr; }

weft_status_t State::Aborted(std::string* message) const {
  if (!aborted_) return WEFT_OK;
  *message = abort_message_;
  return abort_status_;
}

weft_status_t State::Endpoint(int32_t rank, const char* op, ucp_ep_h* ep) {
  std::string why;
  const weft_status_t s = EndpointOrWhy(rank, ep, &why);
  return s == WEFT_OK ? s : Fail(s, std::string(op) + ": " + why);
}

weft_status_t State::EndpointOrWhy(int32_t rank, ucp_ep_h* ep, std::string* why) {
  if (weft_status_t a = Aborted(why); a != WEFT_OK) return a;
  const Peer& p = *peers_[rank];
  if (p.failed) {
    *why = "rank " + std::to_string(rank) + " failed (UCX: " + ucs_status_string(p.why) + ")";
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
  if (peer_error_pending_) HandlePeerFailures();
  while (!transfers_.empty()) {  // copying may progress nothing, but answers are sends: loop
    std::vector<Request*> now;
    now.swap(transfers_);
    for (Request* r : now) TransferQueued(r);
  }
  if (!loans_.empty()) CheckLoans();
  if (!pipe_sends_.empty() || !pipe_recvs_.empty()) AdvancePipes();
  // Backwards: a queue that empties leaves the list (its place taken by the last one, which
  // was already visited).
  for (size_t i = watchers_.size(); i-- > 0;)
    if (i < watchers_.size()) watchers_[i]->Advance();
}

void State::Watch(BoardWaiter* w) { watchers_.push_back(w); }

void State::Unwatch(BoardWaiter* w) {
  for (size_t i = 0; i < watchers_.size(); ++i)
    if (watchers_[i] == w) {
      watchers_[i] = watchers_.back();
      watchers_.pop_back();
      return;
    }
}

void State::AdoptBoard(std::shared_ptr<BoardWaiter> queue) {
  // Orphans that finished go now (each unwatched itself when it emptied).
  std::erase_if(orphans_, [](const std::shared_ptr<BoardWaiter>& q) { return q->Idle(); });
  if (!queue->Idle()) orphans_.push_back(std::move(queue));
}

void State::Track(Request* r) {
  if (r->tracked) return;
  r->tracked = true;
  r->owned_prev = nullptr;
  r->owned_next = owned_;
  if (owned_ != nullptr) owned_->owned_prev = r;
  owned_ = r;
}

void State::Untrack(Request* r) {
  if (!r->tracked) return;
  r->tracked = false;
  if (r->owned_prev != nullptr)
    r->owned_prev->owned_next = r->owned_next;
  else
    owned_ = r->owned_next;
  if (r->owned_next != nullptr) r->owned_next->owned_prev = r->owned_prev;
  r->owned_prev = r->owned_next = nullptr;
}

std::vector<Request*> State::Owned() const {
  std::vector<Request*> out;
  for (Request* r = owned_; r != nullptr; r = r->owned_next) out.push_back(r);
  return out;
}

std::shared_ptr<ScratchBuffer> State::Staging(uint64_t bytes) {
  return AcquireFrom(staging_, bytes);
}

void State::QueueTransfer(Request* r) {
  r->in_transfer_queue = true;
  transfers_.push_back(r);
}

void State::TransferQueued(Request* r) {
  if (r->is_recv)
    ReadQueued(r);
  else
    WriteQueued(r);
}

void State::NoteCopyFailure(weft_status_t s, int32_t peer_rank, std::string* why) {
  if (s != WEFT_ERR_PEER_FAILURE) return;
  *why = "rank " + std::to_string(peer_rank) + " failed (" + *why + ")";
  RecordFailure(s, peer_rank);
}

void State::LogOnce(bool* logged, const std::string& line) const {
  if (*logged) return;
  *logged = true;
  host_->log(host_->host_data, WEFT_LOG_DEBUG, line.c_str());
}

void State::ReadQueued(Request* r) {
  r->in_transfer_queue = false;
  weft_status_t s = r->status;
  if (r->desc.magic == kPipeMagic) {  // answered through the pipe, not with an Ack
    AnswerPipe(r);
    if (r->freed) delete static_cast<weft_bk_request*>(r);
    return;
  }
  uint64_t copy_ns = 0;
  if (!r->done) {         // not cancelled, failed or aborted meanwhile
    if (Lend(r)) return;  // the sender writes; CheckLoans ends the receive
    std::string why;
    const Clock::time_point start = Clock::now();
    s = r->desc.layout.Bytes() == r->desc.length
            ? ReadRemoteRegion(r->desc.pid, r->desc.address, r->desc.layout,
                               static_cast<char*>(r->user_buf), r->layout, &why, ReadBounce())
            : (why = "the sender's descriptor is inconsistent", WEFT_ERR_INVALID_ARGUMENT);
    copy_ns = NanosecondsSince(start);
    Peer& p = *peers_[r->peer_rank];
    if (s == WEFT_OK && !p.read)
      LogOnce(&p.read, "ucx: rank " + std::to_string(rank()) + " reads messages of rank " +
                           std::to_string(r->peer_rank) + " (single copy)");
    NoteCopyFailure(s, r->peer_rank, &why);
    r->Finish(s, s == WEFT_OK ? std::string() : r->Name() + ": " + why);
  }
  SendAck(r->peer_rank, r->ack_tag, s, r->bytes, copy_ns);
  if (r->freed) delete static_cast<weft_bk_request*>(r);
}

Bounce State::ReadBounce() {
  // Page-aligned, so that a piece placed at the source's offset in its page has the source's
  // alignment (cma.hpp); one page more for that offset.
  if (!bounce_) bounce_.reset(new (std::nothrow) char[Bounce::kBounceBytes + 2 * 4096]);
  if (!bounce_) return Bounce{};  // read directly
  const auto at = reinterpret_cast<uintptr_t>(bounce_.get());
  return Bounce{bounce_.get() + (4096 - at % 4096) % 4096};
}

bool State::Lend(Request* r) {
  Peer& p = *peers_[r->peer_rank];
  // Worth it when the sender's memory is in more pieces than ours: the writer's pieces are
  // the cheap, local ones (grants.hpp); or when the receive asks for it (Schedule::RecvPushed:
  // the sender's memory should not end up cached here, coll/allreduce.cpp). The read path
  // reports an inconsistent descriptor.
  if (r->desc.magic != kWritableMagic || !grants_.open() || p.ep == nullptr || p.failed ||
      aborted_ || r->desc.layout.Bytes() != r->desc.length ||
      (r->desc.layout.Runs() <= r->layout.Runs() && !r->lend))
    return false;
  const uint64_t token = grants_.Lend();
  if (token == 0) return false;  // every slot is out: read this one
  auto d = std::make_unique<Descriptor>();
  d->magic = kPushMagic;
  d->address = reinterpret_cast<uint64_t>(r->user_buf);
  d->length = r->bytes;
  d->pid = pid();
  d->sender_rank = rank();
  d->layout = r->layout;
  d->grant = token;
  r->loan = token;
  loans_.push_back(r);
  if (!p.lent)
    LogOnce(&p.lent, "ucx: rank " + std::to_string(rank()) + " lends receive buffers to rank " +
                         std::to_string(r->peer_rank) + " to write into (single copy, pushed)");
  const ucs_status_t sent = SendOwned(p.ep, std::move(d), r->ack_tag);
  if (sent != UCS_OK) {
    std::string msg;
    const weft_status_t s = MapFailure(*r, sent, &msg);
    r->Finish(s, msg);  // takes the loan back
  }
  return true;
}

void State::EndLoan(Request* r) {
  const uint64_t token = r->loan;
  r->loan = 0;
  for (size_t i = 0; i < loans_.size(); ++i) {
    if (loans_[i] != r) continue;
    loans_.erase(loans_.begin() + static_cast<std::ptrdiff_t>(i));
    break;
  }
  // Afterwards the sender cannot write into the buffer any more (it may be reused now), unless
  // it was stopped mid-write (grants.hpp): say so, since nothing else will.
  if (!grants_.Reclaim(token, static_cast<pid_t>(peers_[r->peer_rank]->pid), r->status))
    host_->log(host_->host_data, WEFT_LOG_WARN,
               ("ucx: " + r->Name() + ": rank " + std::to_string(r->peer_rank) +
                " was stopped (or slow) while writing into the receive buffer when the receive "
                "ended; it writes nothing more once it resumes, but a copy the kernel had begun "
                "still lands")
                   .c_str());
}

void State::CheckLoans() {
  for (size_t i = 0; i < loans_.size();) {
    Request* r = loans_[i];
    weft_status_t s = WEFT_OK;
    if (!grants_.Finished(r->loan, &s)) {
      ++i;
      continue;
    }
    // Finish takes the loan back, which removes r from loans_.
    r->Finish(s, s == WEFT_OK ? std::string()
                              : r->Name() + ": the sender could not write the message (status " +
                                    std::to_string(s) + ")");
  }
}

void State::WriteQueued(Request* r) {
  r->in_transfer_queue = false;
  Peer& p = *peers_[r->peer_rank];
  const uint64_t token = r->desc.grant;
  const weft_status_t refused = p.grants == nullptr ? WEFT_ERR_ABORTED : p.grants->Claim(token);
  if (refused != WEFT_OK) {
    // The receiver took its buffer back (its receive ended) before we got to write: how it
    // ended is ours (a deadline stays a deadline, grants.hpp).
    if (!r->done)
      r->Finish(refused, r->Name() +
                             ": the receiver withdrew its receive before the message was "
                             "written (its receive ended with status " +
                             std::to_string(refused) + ")");
  } else {
    weft_status_t s = r->status;
    std::string why;
    if (!r->done) {  // else: cancelled, failed or freed meanwhile; the receiver learns why
      const Clock::time_point start = Clock::now();
      s = r->desc.length == r->bytes && r->desc.layout.Bytes() == r->bytes
              ? WriteRemoteRegion(p.pid, r->desc.address, r->desc.layout,
                                  static_cast<const char*>(r->user_buf), r->layout, &why, *p.grants,
                                  token)
              : (why = "the receiver's push request is inconsistent", WEFT_ERR_INVALID_ARGUMENT);
      if (s == WEFT_OK) RecordWay(*r, PathChoice::kSingleCopy, NanosecondsSince(start));
      NoteCopyFailure(s, r->peer_rank, &why);
    }
    p.grants->Complete(token, s);
    if (s == WEFT_OK && !p.pushed)
      LogOnce(&p.pushed, "ucx: rank " + std::to_string(rank()) +
                             " writes messages into buffers rank " + std::to_string(r->peer_rank) +
                             " lends it (single copy, pushed)");
    r->Finish(s, s == WEFT_OK ? std::string() : r->Name() + ": " + why);
  }
  if (r->freed) delete static_cast<weft_bk_request*>(r);
}

void State::SendAck(int32_t rank, uint64_t ack_tag, weft_status_t status, uint64_t receive_bytes,
                    uint64_t copy_ns) {
  const Peer& p = *peers_[rank];
  if (p.ep == nullptr || p.failed || aborted_) return;  // nobody left to tell
  auto ack = std::make_unique<Ack>();
  ack->status = status;
  ack->copy_ns = static_cast<uint32_t>(std::min<uint64_t>(copy_ns, UINT32_MAX));
  ack->receive_bytes = receive_bytes;
  (void)SendOwned(p.ep, std::move(ack), ack_tag);  // a peer that cannot take it is failing
}

void State::OnPeerError(Peer* peer, ucs_status_t status) {
  if (peer->failed) return;
  peer->failed = true;
  peer->why = status;
  peer_error_pending_ = true;  // handled after progress returns, outside UCX's callback
}

void State::FailRequest(Request* r, weft_status_t status, const std::string& message) {
  r->Cancel(status, message);
}

void State::HandlePeerFailures() {
  peer_error_pending_ = false;
  for (auto& p : peers_) {
    if (!p->failed || p->failure_handled) continue;
    p->failure_handled = true;
    const std::string text =
        "rank " + std::to_string(p->rank) + " failed (UCX: " + ucs_status_string(p->why) + ")";
    bool used = false;
    for (Request* r : Owned()) {
      if (r->peer_rank != p->rank || r->done) continue;
      used = true;
      FailRequest(r, WEFT_ERR_PEER_FAILURE, r->Name() + ": " + text);
    }
    for (Request* r : transfers_) {
      if (r->peer_rank != p->rank || r->done) continue;
      used = true;
      r->Finish(WEFT_ERR_PEER_FAILURE, r->Name() + ": " + text);
    }
    for (Request* r : std::vector<Request*>(loans_)) {  // Finish removes r from loans_
      if (r->peer_rank != p->rank) continue;
      used = true;
      r->Finish(WEFT_ERR_PEER_FAILURE, r->Name() + ": " + text);
    }
    if (FailPipes(p->rank, WEFT_ERR_PEER_FAILURE, text)) used = true;
    // A peer that finished and destroyed its worker looks the same as one that died; only a
    // failure that hit an operation is reported as the context's asynchronous error.
    if (used) RecordFailure(WEFT_ERR_PEER_FAILURE, p->rank);
    ClosePeer(*p, true, nullptr);
  }
}

void State::Abort(weft_status_t status, int32_t failed_rank, const std::string& reason) {
  // Before the lock: a waiter holding it sees the request and steps aside (LetAbortIn).
  abort_requested_.store(true, std::memory_order_release);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (aborted_) return;
    aborted_ = true;
    abort_status_ = status == WEFT_OK ? WEFT_ERR_ABORTED : status;
    abort_message_ = reason;
    if (first_failure_ == WEFT_OK) {
      first_failure_ = abort_status_;
      first_failed_rank_ = failed_rank;
    }
    for (Request* r : Owned())
      if (!r->done) FailRequest(r, abort_status_, r->Name() + ": " + reason);
    for (Request* r : transfers_)
      if (!r->done) r->Finish(abort_status_, r->Name() + ": " + reason);
    for (Request* r : std::vector<Request*>(loans_))
      r->Finish(abort_status_, r->Name() + ": " + reason);
    FailPipes(-1, abort_status_, reason);
    // Close every connection (SPEC §10): peers waiting on this rank see its endpoints go and
    // fail too, instead of waiting for their deadline. Sends still queued complete with errors.
    for (auto& p : peers_) ClosePeer(*p, true, nullptr);
  }
  const uint64_t one = 1;
  (void)!write(wake_fd_, &one, sizeof(one));  // wake a waiter sleeping in poll()
}

void State::LetAbortIn(std::unique_lock<std::mutex>& lock) {
  while (abort_requested_.load(std::memory_order_acquire) && !aborted_) {
    lock.unlock();
    std::this_thread::sleep_for(std::chrono::microseconds(100));
    lock.lock();
  }
}

weft_status_t State::AsyncError(int32_t* failed_rank) {
  std::lock_guard<std::mutex> lock(mu_);
  if (failed_rank != nullptr) *failed_rank = first_failed_rank_;
  return first_failure_;
}

void State::RecordFailure(weft_status_t status, int32_t failed_rank) {
  if (first_failure_ != WEFT_OK) return;
  first_failure_ = status;
  first_failed_rank_ = failed_rank;
}

}  // namespace weft::backends::ucx_plugin
