// The State's side of pipes (pipes.hpp): which messages take one, filling and draining them
// during progress, the receiver's answers, and letting go of channels whenever an op ends.
#include <algorithm>
#include <atomic>
#include <string>

#include "backends/ucx/transport/request.hpp"
#include "backends/ucx/transport/state.hpp"
#include "common/clock.hpp"

namespace weft::backends::ucx_plugin {
namespace {

void Remove(std::vector<Request*>* list, Request* r) {
  for (size_t i = 0; i < list->size(); ++i)
    if ((*list)[i] == r) {
      (*list)[i] = list->back();
      list->pop_back();
      return;
    }
}

// After moving a counter or answering: the other side may have gone to sleep before it saw
// that (pipes.hpp). The fence orders our stores before our read of its `sleeping` word.
void WakePeer(const PeerPipes* p) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (p != nullptr) p->WakeIfSleeping();
}

// A receiver's status for a message its sender withdrew, from how the send ended: a peer's
// failure or a deadline as they are (see EndPipe), anything else ABORTED.
weft_status_t Withdrawal(weft_status_t send_status) {
  return send_status == WEFT_ERR_PEER_FAILURE || send_status == WEFT_ERR_TIMEOUT ? send_status
                                                                                 : WEFT_ERR_ABORTED;
}

std::string WithdrawnMessage(const Request& r, weft_status_t send_status) {
  return r.Name() + ": the sender withdrew the message (its send ended with status " +
         std::to_string(send_status) + ")";
}

// The sender's view of how the receiver ended a message.
std::string Outcome(const Request& r, weft_status_t s, uint64_t receive_bytes) {
  if (s == WEFT_ERR_INVALID_ARGUMENT)
    return r.Name() + ": the receiver posted " + std::to_string(receive_bytes) +
           " bytes for this " + std::to_string(r.bytes) + "-byte message; sizes must match";
  return r.Name() + ": the receiver could not take the message (status " + std::to_string(s) + ")";
}

}  // namespace

uint64_t State::PipeFor(Request* r) {
  Peer& p = peers_[r->peer_rank];
  // A message larger than the ring needs both sides running at once: only with a CPU per rank
  // (spin_ > 0 says so), else single copy, which one side does alone. The receiver must have
  // mapped our pipes to answer through them.
  if (r->done || r->bulk || p.pipes == nullptr || r->bytes > tuning_.pipe_bytes ||
      (spin_ == Clock::duration::zero() && r->bytes > kPipeRingBytes) ||
      !pipes_.MappedBy(r->peer_rank))
    return 0;
  // Strided messages with a CPU per rank always take the pipe: their rows go into the ring as
  // they lie, where single copy pays per row in the kernel or packs first, and the measured
  // choice kept single copy when the host had put the two vCPUs on two L3s, where pipes were
  // the faster way. Redistribute S0 -> S1 on 2 ranks, ratio to the raw all-to-all at 1 / 4 / 16
  // MiB (collbench --pattern S0-S1), vCPUs on two L3s, everything through pipes
  // (WEFT_UCX_PIPE_ADAPT=0) 0.77-0.87 / 0.65-0.87 / 0.90-0.93 against 0.50-0.52 / 0.55-0.71 /
  // 0.73-0.80 measured; on one L3, this rule against the measured choice for strided messages
  // (medians of 16 launches) 0.81 / 0.78 / 0.90 against 0.81 / 0.67 / 0.83.
  const bool strided_pipe = r->strided && cpu_per_rank_;
  if (tuning_.pipe_adapt != 0 && !strided_pipe) {
    if (!p.ways) p.ways = std::make_unique<PathChoice>();
    r->chose_way = true;
    if (p.ways->Choose(r->bytes, r->strided, CoarseNow()) != PathChoice::kPipe) return 0;
  }
  return pipes_.Acquire();
}

void State::RecordWay(const Request& r, PathChoice::Way way, uint64_t ns) {
  Peer& p = peers_[r.peer_rank];
  if (!r.chose_way || !p.ways) return;  // chose_way: PipeFor made p.ways
  if (!p.ways->Record(way, r.bytes, r.strided, ns, CoarseNow())) return;
  const auto cost = [&](PathChoice::Way w) {
    return std::to_string(static_cast<int64_t>(p.ways->CostPerKiB(w, r.bytes, r.strided)));
  };
  const bool piped = p.ways->Preferred(r.bytes, r.strided) == PathChoice::kPipe;
  const std::string line =
      "ucx: rank " + std::to_string(rank()) + " now sends " + (r.strided ? "strided " : "") +
      "messages like this one of " + std::to_string(r.bytes) + " bytes to rank " +
      std::to_string(r.peer_rank) + (piped ? " through pipes" : " by single copy") +
      " (copies: single copy " + cost(PathChoice::kSingleCopy) + " ns/KiB, pipes " +
      cost(PathChoice::kPipe) + " ns/KiB)";
  host_->log(host_->host_data, WEFT_LOG_DEBUG, line.c_str());
}

void State::StartPipeSend(Request* r) {
  r->pipe_pos = r->copy_ns = 0;
  pipe_sends_.push_back(r);
  Peer& p = peers_[r->peer_rank];
  if (!p.piped)
    LogOnce(&p.piped, "ucx: rank " + std::to_string(rank()) + " sends messages to rank " +
                          std::to_string(r->peer_rank) + " through pipes (shared memory)");
  AdvancePipes();  // what fits goes now: a message no larger than the ring needs no partner
}

void State::AnswerPipe(Request* r) {
  Peer& p = peers_[r->peer_rank];
  if (p.pipes == nullptr) {
    // Cannot happen: the sender saw our bit in its file (pipes.hpp), set when we mapped it.
    // Nothing can answer the sender then (it waits for its deadline); say so loudly.
    if (!r->done) r->Finish(WEFT_ERR_INTERNAL, r->Name() + ": a pipe this rank cannot map");
    host_->log(host_->host_data, WEFT_LOG_ERROR, r->message.c_str());
    return;
  }
  if (!p.pipes->Attach(r->desc.grant)) {  // the sender's op ended: nobody waits for an answer
    weft_status_t why = WEFT_ERR_ABORTED;
    (void)p.pipes->Withdrawn(r->desc.grant, &why);
    if (!r->done) r->Finish(Withdrawal(why), WithdrawnMessage(*r, why));
    return;
  }
  if (r->done) {  // refused (sizes), cancelled or failed before the descriptor was looked at
    p.pipes->Detach(r->desc.grant, r->status, r->bytes);
    WakePeer(p.pipes.get());
    return;
  }
  r->pipe = r->desc.grant;
  r->pipe_pos = r->copy_ns = 0;
  pipe_recvs_.push_back(r);
  AdvancePipes();
}

void State::EndPipe(Request* r) {
  const uint64_t token = r->pipe;
  r->pipe = 0;
  if (!r->is_recv) {
    Remove(&pipe_sends_, r);
    // A send that ended early withdraws the message, with how it ended: the receiver fails
    // with PEER_FAILURE when this op failed with a peer (so its host waits for the verdict
    // that names the rank that failed first, SPEC §10, rather than reporting an ABORTED that
    // would hide it), with TIMEOUT when it passed its deadline (a rank stopped somewhere:
    // the receiver's call is the same one and times out too), else with ABORTED.
    if (pipes_.Release(token, r->status)) WakePeer(peers_[r->peer_rank].pipes.get());
    return;
  }
  Remove(&pipe_recvs_, r);
  const PeerPipes* from = peers_[r->peer_rank].pipes.get();
  // Completes (or fails) the sender's op; our copy time is part of its sample (RecordWay).
  from->Detach(token, r->status, r->bytes, r->copy_ns);
  WakePeer(from);
}

void State::AdvancePipes() {
  // Backwards: an op that ends leaves its list, its place taken by one already visited.
  for (size_t i = pipe_sends_.size(); i-- > 0;) {
    if (i >= pipe_sends_.size()) continue;
    Request* r = pipe_sends_[i];
    if (!pipes_.Live(r->pipe)) {  // the receiver answered
      weft_status_t s = WEFT_ERR_INTERNAL;
      uint64_t receive_bytes = 0, copy_ns = 0;
      if (!pipes_.Result(r->pipe, &s, &receive_bytes, &copy_ns)) s = WEFT_ERR_INTERNAL;
      if (s == WEFT_OK) RecordWay(*r, PathChoice::kPipe, r->copy_ns + copy_ns);
      r->Finish(s, s == WEFT_OK ? std::string() : Outcome(*r, s, receive_bytes));
      continue;
    }
    if (r->pipe_pos < r->bytes &&
        FillPipe(pipes_.channel(r->pipe), static_cast<const char*>(r->user_buf), r->layout,
                 r->bytes, &r->pipe_pos, &r->copy_ns))
      WakePeer(peers_[r->peer_rank].pipes.get());
  }
  for (size_t i = pipe_recvs_.size(); i-- > 0;) {
    if (i >= pipe_recvs_.size()) continue;
    Request* r = pipe_recvs_[i];
    const PeerPipes& from = *peers_[r->peer_rank].pipes;
    // Withdrawn first: a sender that produced every byte before it withdrew still delivers.
    weft_status_t why = WEFT_OK;
    const bool withdrawn = from.Withdrawn(r->pipe, &why);
    if (DrainPipe(from.channel(r->pipe), static_cast<char*>(r->user_buf), r->layout, r->bytes,
                  &r->pipe_pos, &r->copy_ns))
      WakePeer(&from);
    if (r->pipe_pos == r->bytes)
      r->Finish(WEFT_OK, {});  // EndPipe answers
    else if (withdrawn)
      r->Finish(Withdrawal(why), WithdrawnMessage(*r, why));
  }
}

bool State::PipesReady() const {
  for (const Request* r : pipe_sends_)
    if (!pipes_.Live(r->pipe) || PipeHasSpace(pipes_.channel(r->pipe), r->pipe_pos, r->bytes))
      return true;
  for (const Request* r : pipe_recvs_) {
    const PeerPipes& from = *peers_[r->peer_rank].pipes;
    weft_status_t why = WEFT_OK;
    if (PipeHasData(from.channel(r->pipe), r->pipe_pos) || from.Withdrawn(r->pipe, &why))
      return true;
  }
  return false;
}

bool State::FailPipes(int32_t rank, weft_status_t status, const std::string& why) {
  bool any = false;
  for (std::vector<Request*>* list : {&pipe_sends_, &pipe_recvs_})
    for (Request* r : std::vector<Request*>(*list))  // Finish removes r from the list
      if (rank < 0 || r->peer_rank == rank) {
        any = true;
        r->Finish(status, r->Name() + ": " + why);
      }
  return any;
}

}  // namespace weft::backends::ucx_plugin
