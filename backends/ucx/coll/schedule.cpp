#include "backends/ucx/coll/schedule.hpp"

#include <algorithm>
#include <new>
#include <utility>

#include "backends/ucx/transport/transport.hpp"
#include "backends/ucx/tuning_table.hpp"
#include "common/copy.hpp"

namespace weft::backends::ucx_plugin {

Schedule::Schedule(Comm& c, const char* name, Clock::time_point deadline)
    : comm_(c), name_(name), deadline_(deadline), seq_(c.collectives++) {}

Schedule::~Schedule() {
  EndAwait();
  ReleaseSteps();
}

void Schedule::NewRound() { rounds_.emplace_back(); }

void Schedule::Send(int32_t peer, const void* buf, uint64_t bytes) {
  rounds_.back().transfers.push_back(Transfer{false, peer, const_cast<void*>(buf), bytes, {}});
}

void Schedule::Recv(int32_t peer, void* buf, uint64_t bytes, Action on_arrival) {
  rounds_.back().transfers.push_back(Transfer{true, peer, buf, bytes, std::move(on_arrival)});
}

void Schedule::RecvPushed(int32_t peer, void* buf, uint64_t bytes) {
  rounds_.back().transfers.push_back(Transfer{true, peer, buf, bytes, {}, true});
}

void Schedule::CopyDuring(void* dst, const void* src, uint64_t bytes) {
  if (bytes == 0 || dst == src) return;
  rounds_.back().during = [this, dst, src, bytes](std::string*) {
    CopyWhileProgressing(static_cast<char*>(dst), static_cast<const char*>(src), bytes);
    return WEFT_OK;
  };
}

void Schedule::CopyWhileProgressing(char* dst, const char* src, uint64_t bytes) {
  // Slices long enough that a progress between two (a few hundred ns) stays a small part of
  // the copy; the descriptor of a peer that posted when we did is here after the first.
  // Once they are all done, the rest goes in one piece (one memcpy moves a large block faster
  // than many slices of it).
  constexpr uint64_t kSlice = kOwnBlockSlice;
  bool pending = true;
  for (uint64_t at = 0; at < bytes;) {
    const uint64_t n = pending ? std::min(kSlice, bytes - at) : bytes - at;
    CopyBytes(dst + at, src + at, n);
    at += n;
    if (at == bytes) break;
    pending = false;
    for (const Live& l : live_) pending |= l.req->is_recv && !l.req->done;
    if (pending) comm_.state->Progress();
  }
}

void Schedule::Then(Action after) { rounds_.back().after = std::move(after); }

void Schedule::Await(std::shared_ptr<Awaited> what) { rounds_.back().awaited = std::move(what); }

char* Schedule::Scratch(uint64_t bytes) {
  std::shared_ptr<ScratchBuffer> b = AcquireScratch(comm_, bytes);
  char* p = b->data.get();
  scratch_.push_back(std::move(b));
  return p;
}

void Schedule::Start(Request* parent) {
  parent_ = parent;
  if (!scratch_.empty())
    keep_ = std::make_shared<std::vector<std::shared_ptr<void>>>(std::move(scratch_));
  if (rounds_.empty()) {
    parent_->Finish(WEFT_OK, {});
    return;
  }
  // A collective that moves more than a pipe's worth from this rank is bandwidth-bound: one
  // copy per byte (single copy) beats two (pipes.hpp), whatever its steps' sizes (measured, 2
  // ranks, 16 MiB: reduce-scatter in 256 KiB segments 4.1 vs 4.8 ms, all-reduce 7.0 vs 8.4).
  uint64_t sent = 0;
  for (const Round& round : rounds_)
    for (const Transfer& t : round.transfers)
      if (!t.recv) sent += t.bytes;
  bulk_ = no_pipes_ || sent > comm_.state->tuning().pipe_bytes;
  Post();
  Advance();
}

void Schedule::Post() {
  State& st = *comm_.state;
  const Round& round = rounds_[current_];
  live_.clear();
  live_.reserve(round.transfers.size());
  const uint32_t tag = CollectiveTag(seq_);
  for (const Transfer& t : round.transfers) {
    auto r = std::unique_ptr<weft_bk_request>(new weft_bk_request());
    r->state = &st;
    r->is_recv = t.recv;
    r->peer_rank = comm_.ranks[t.peer];
    r->bytes = t.bytes;
    r->deadline = deadline_;
    r->coll = name_;
    r->keep_alive = keep_;
    r->bulk = bulk_;
    r->lend = t.lend;
    Request* raw = r.release();
    live_.push_back(Live{raw, false});
    ucp_ep_h ep = nullptr;
    std::string why;
    if (weft_status_t s = st.EndpointOrWhy(raw->peer_rank, &ep, &why)) {
      raw->Finish(s, raw->Name() + ": " + why);
      return;  // Advance fails the collective with it
    }
    if (t.recv)
      PostRecvLocked(raw, t.buf, WireTag(comm_.id, t.peer, tag),
                     AckTag(comm_.id, comm_.index, tag));
    else
      PostSendLocked(raw, ep, t.buf, WireTag(comm_.id, comm_.index, tag),
                     AckTag(comm_.id, t.peer, tag));
  }
  if (round.during) {
    std::string why;
    if (weft_status_t s = round.during(&why)) return Fail(s, why);
  }
  if (round.awaited) round.awaited->Begin();
}

void Schedule::Advance() {
  while (parent_ != nullptr && !parent_->done) {
    Round& round = rounds_[current_];
    bool all_done = true;
    for (size_t i = 0; i < live_.size(); ++i) {
      Live& l = live_[i];
      if (!l.req->done) {
        all_done = false;
        continue;
      }
      if (l.req->status != WEFT_OK) return Fail(l.req->status, l.req->message);
      if (l.handled) continue;
      l.handled = true;
      // live_ is shorter than the round only when posting stopped at a failed step, which
      // the status check above has already reported.
      if (const Action& a = round.transfers[i].on_arrival) {
        std::string why;
        if (weft_status_t s = a(&why)) return Fail(s, why);
      }
    }
    if (!all_done) return;
    if (round.awaited) {
      bool ready = false;
      std::string why;
      if (weft_status_t s = round.awaited->Poll(&ready, &why)) return Fail(s, why);
      if (!ready) return;
      round.awaited->End();
    }
    if (round.after) {
      std::string why;
      if (weft_status_t s = round.after(&why)) return Fail(s, why);
    }
    ReleaseSteps();
    if (++current_ == rounds_.size()) {
      parent_->Finish(WEFT_OK, {});
      return;
    }
    Post();
  }
}

void Schedule::Fail(weft_status_t status, const std::string& message) {
  parent_->Finish(status, message);
  CancelSteps(status, message);
}

void Schedule::CancelSteps(weft_status_t status, const std::string& message) {
  EndAwait();
  for (Live& l : live_)
    if (!l.req->done) l.req->Cancel(status, message);
}

void Schedule::EndAwait() {
  if (current_ < rounds_.size() && rounds_[current_].awaited) rounds_[current_].awaited->End();
}

void Schedule::ReleaseSteps() {
  for (Live& l : live_) l.req->Release();
  live_.clear();
}

}  // namespace weft::backends::ucx_plugin
