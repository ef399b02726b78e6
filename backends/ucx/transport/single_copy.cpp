#include "backends/ucx/transport/single_copy.hpp"

#include <algorithm>
#include <new>

#include "backends/ucx/transport/owned_send.hpp"
#include "backends/ucx/transport/request.hpp"
#include "backends/ucx/transport/state.hpp"
#include "common/clock.hpp"

namespace weft::backends::ucx_plugin {

void SingleCopyQueue::Queue(Request* r) {
  r->in_transfer_queue = true;
  transfers_.push_back(r);
}

void SingleCopyQueue::RunTransfers() {
  while (!transfers_.empty()) {  // copying may progress nothing, but answers are sends: loop
    std::vector<Request*> now;
    now.swap(transfers_);
    for (Request* r : now) Transfer(r);
  }
}

void SingleCopyQueue::Transfer(Request* r) {
  if (r->is_recv)
    Read(r);
  else
    Write(r);
}

void SingleCopyQueue::NoteCopyFailure(weft_status_t s, int32_t peer_rank, std::string* why) {
  if (s != WEFT_ERR_PEER_FAILURE) return;
  *why = "rank " + std::to_string(peer_rank) + " failed (" + *why + ")";
  st_.RecordFailure(s, peer_rank);
}

void SingleCopyQueue::Read(Request* r) {
  r->in_transfer_queue = false;
  weft_status_t s = r->status;
  if (r->desc.magic == kPipeMagic) {  // answered through the pipe, not with an Ack
    st_.AnswerPipe(r);
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
    Peer& p = st_.peers_[r->peer_rank];
    if (s == WEFT_OK && !p.read)
      st_.LogOnce(&p.read, "ucx: rank " + std::to_string(st_.rank()) + " reads messages of rank " +
                               std::to_string(r->peer_rank) + " (single copy)");
    NoteCopyFailure(s, r->peer_rank, &why);
    r->Finish(s, s == WEFT_OK ? std::string() : r->Name() + ": " + why);
  }
  SendAck(r->peer_rank, r->ack_tag, s, r->bytes, copy_ns);
  if (r->freed) delete static_cast<weft_bk_request*>(r);
}

Bounce SingleCopyQueue::ReadBounce() {
  // Page-aligned, so that a piece placed at the source's offset in its page has the source's
  // alignment (cma.hpp); one page more for that offset.
  if (!bounce_) bounce_.reset(new (std::nothrow) char[kBounceBytes + 2 * 4096]);
  if (!bounce_) return Bounce{};  // read directly
  const auto at = reinterpret_cast<uintptr_t>(bounce_.get());
  return Bounce{bounce_.get() + (4096 - at % 4096) % 4096};
}

bool SingleCopyQueue::Lend(Request* r) {
  Peer& p = st_.peers_[r->peer_rank];
  // Worth it when the sender's memory is in more pieces than ours: the writer's pieces are
  // the cheap, local ones (grants.hpp); or when the receive asks for it (Schedule::RecvPushed:
  // the sender's memory should not end up cached here, coll/allreduce.cpp). The read path
  // reports an inconsistent descriptor.
  if (r->desc.magic != kWritableMagic || !grants_.open() || p.ep == nullptr || p.failed ||
      st_.failures_.aborted() || r->desc.layout.Bytes() != r->desc.length ||
      (r->desc.layout.Runs() <= r->layout.Runs() && !r->lend))
    return false;
  const uint64_t token = grants_.Lend();
  if (token == 0) return false;  // every slot is out: read this one
  auto d = std::make_unique<Descriptor>();
  d->magic = kPushMagic;
  d->address = reinterpret_cast<uint64_t>(r->user_buf);
  d->length = r->bytes;
  d->pid = st_.pid();
  d->sender_rank = st_.rank();
  d->layout = r->layout;
  d->grant = token;
  r->loan = token;
  loans_.push_back(r);
  if (!p.lent)
    st_.LogOnce(&p.lent, "ucx: rank " + std::to_string(st_.rank()) +
                             " lends receive buffers to rank " + std::to_string(r->peer_rank) +
                             " to write into (single copy, pushed)");
  const ucs_status_t sent = SendOwned(p.ep, std::move(d), r->ack_tag);
  if (sent != UCS_OK) {
    std::string msg;
    const weft_status_t s = MapFailure(*r, sent, &msg);
    r->Finish(s, msg);  // takes the loan back
  }
  return true;
}

void SingleCopyQueue::EndLoan(Request* r) {
  const uint64_t token = r->loan;
  r->loan = 0;
  for (size_t i = 0; i < loans_.size(); ++i) {
    if (loans_[i] != r) continue;
    loans_.erase(loans_.begin() + static_cast<std::ptrdiff_t>(i));
    break;
  }
  // Afterwards the sender cannot write into the buffer any more (it may be reused now), unless
  // it was stopped mid-write (grants.hpp): say so, since nothing else will.
  if (!grants_.Reclaim(token, static_cast<pid_t>(st_.peers_[r->peer_rank].pid), r->status)) {
    const weft_bk_host_api_t* h = st_.host();
    h->log(h->host_data, WEFT_LOG_WARN,
           ("ucx: " + r->Name() + ": rank " + std::to_string(r->peer_rank) +
            " was stopped (or slow) while writing into the receive buffer when the receive "
            "ended; it writes nothing more once it resumes, but a copy the kernel had begun "
            "still lands")
               .c_str());
  }
}

void SingleCopyQueue::CheckLoans() {
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

void SingleCopyQueue::Write(Request* r) {
  r->in_transfer_queue = false;
  Peer& p = st_.peers_[r->peer_rank];
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
      if (s == WEFT_OK) st_.RecordWay(*r, PathChoice::kSingleCopy, NanosecondsSince(start));
      NoteCopyFailure(s, r->peer_rank, &why);
    }
    p.grants->Complete(token, s);
    if (s == WEFT_OK && !p.pushed)
      st_.LogOnce(&p.pushed, "ucx: rank " + std::to_string(st_.rank()) +
                                 " writes messages into buffers rank " +
                                 std::to_string(r->peer_rank) + " lends it (single copy, pushed)");
    r->Finish(s, s == WEFT_OK ? std::string() : r->Name() + ": " + why);
  }
  if (r->freed) delete static_cast<weft_bk_request*>(r);
}

void SingleCopyQueue::SendAck(int32_t rank, uint64_t ack_tag, weft_status_t status,
                              uint64_t receive_bytes, uint64_t copy_ns) {
  const Peer& p = st_.peers_[rank];
  if (p.ep == nullptr || p.failed || st_.failures_.aborted()) return;  // nobody left to tell
  auto ack = std::make_unique<Ack>();
  ack->status = status;
  ack->copy_ns = static_cast<uint32_t>(std::min<uint64_t>(copy_ns, UINT32_MAX));
  ack->receive_bytes = receive_bytes;
  (void)SendOwned(p.ep, std::move(ack), ack_tag);  // a peer that cannot take it is failing
}

bool SingleCopyQueue::FailWith(int32_t rank, weft_status_t status, const std::string& text) {
  bool any = false;
  for (Request* r : transfers_) {
    if ((rank >= 0 && r->peer_rank != rank) || r->done) continue;
    any = true;
    r->Finish(status, r->Name() + ": " + text);
  }
  for (Request* r : std::vector<Request*>(loans_)) {  // Finish removes r from loans_
    if (rank >= 0 && r->peer_rank != rank) continue;
    any = true;
    r->Finish(status, r->Name() + ": " + text);
  }
  return any;
}

void SingleCopyQueue::Close() {
  // The host freed every request before finalize, which took their loans back; this is for a
  // request leaked by a misbehaving host, whose buffer must not be written after we are gone.
  for (Request* r : std::vector<Request*>(loans_)) r->Finish(WEFT_ERR_ABORTED, "finalized");
  for (Request* r : transfers_) {  // the host freed every request before finalize
    r->in_transfer_queue = false;
    if (r->freed) delete static_cast<weft_bk_request*>(r);
  }
  transfers_.clear();
}

}  // namespace weft::backends::ucx_plugin
