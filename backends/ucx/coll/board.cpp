#include "backends/ucx/coll/board.hpp"

#include <atomic>
#include <mutex>
#include <string>

#include "backends/ucx/transport/transport.hpp"
#include "backends/ucx/tuning_table.hpp"
#include "common/clock.hpp"
#include "common/copy.hpp"

namespace weft::backends::ucx_plugin {
namespace {

// kLivenessCheck and kBoardOnlyPolls: tuning_table.hpp.

// The failure of a member whose slot holds a later call than one this member still reads.
// Consuming in order (board.hpp) rules it out; it is checked all the same, since a mixed
// result would be silent.
[[gnu::cold, gnu::noinline]] weft_status_t MovedOn(int32_t rank, std::string* why) {
  *why = "rank " + std::to_string(rank) + " overwrote its part of this collective";
  return WEFT_ERR_INTERNAL;
}

// The sequence word of a call (board.hpp): its number, its size, whether it reduces, its op.
uint64_t WordOf(const BoardEntry& e) {
  return e.seq | e.bytes << 48 | (e.reduce ? uint64_t{1} << 57 : 0) |
         (e.reduce ? static_cast<uint64_t>(e.red.op & 7) << 58 : 0);
}

std::string Describe(uint64_t word) {
  if ((word >> 57 & 1) == 0) return "a barrier";
  return "an all-reduce of " + std::to_string(word >> 48 & 0x1FF) + " bytes (op " +
         std::to_string(word >> 58 & 7) + ")";
}

}  // namespace

BoardQueue::BoardQueue(State& st, const Comm& c, std::vector<const BoardArea*> areas,
                       BoardArea* mine)
    : st_(st), me_(c.index), ranks_(c.ranks), areas_(std::move(areas)), mine_(mine) {}

BoardQueue::~BoardQueue() {
  if (watched_) st_.Unwatch(this);
}

BoardEntry* BoardQueue::NewEntry(const Reduction* red, const void* send, void* out,
                                 uint64_t bytes) {
  BoardEntry* e = nullptr;
  if (!spare_.empty()) {
    e = spare_.back();
    spare_.pop_back();
    e->published = e->done = e->abandoned = false;
    e->status = WEFT_OK;
    e->why.clear();
  } else {
    entries_.push_back(std::make_unique<BoardEntry>());
    e = entries_.back().get();
  }
  e->reduce = red != nullptr;
  if (red != nullptr) e->red = *red;
  e->send = send;
  e->out = out;
  e->bytes = bytes;
  return e;
}

void BoardQueue::StartQueue() {
  queue_.clear();
  head_ = 0;
  if (!watched_) {
    st_.Watch(this);
    watched_ = true;
  }
}

BoardEntry* BoardQueue::Add(const Reduction* red, const void* send, void* out, uint64_t bytes) {
  BoardEntry* e = NewEntry(red, send, out, bytes);
  e->seq = ++calls_;
  if (broken_ != WEFT_OK) {
    e->done = true;
    e->status = broken_;
    e->why = broken_why_;
    return e;
  }
  const bool first = head_ == queue_.size();
  if (first) {
    StartQueue();
  } else if (bytes != 0) {  // waits for its turn: the caller's memory may be gone by then
    CopyBytes(e->staged, send, bytes);
    e->send = e->staged;
  }
  queue_.push_back(e);
  if (first) Publish(*e);  // first in line: published from the caller's memory now
  return e;
}

bool BoardQueue::RunIdle(const Reduction* red, const void* send, void* out, uint64_t bytes,
                         BoardEntry** queued, weft_status_t* status, std::string* why) {
  if (broken_ != WEFT_OK || head_ != queue_.size()) {
    *queued = Add(red, send, out, bytes);
    return false;
  }
  // First in line: published from the caller's memory now, as Add would.
  BoardEntry& x = idle_;
  x.seq = ++calls_;
  x.reduce = red != nullptr;
  if (red != nullptr) x.red = *red;
  x.send = send;
  x.out = out;
  x.bytes = bytes;
  x.published = true;
  x.done = x.abandoned = false;
  x.status = WEFT_OK;
  Board::Publish(mine_, WordOf(x), send, bytes);
  wake_pending_ = true;
  next_ = 0;
  for (uint32_t i = 0; i < kBoardOnlyPolls; ++i) {
    if (!AllArrived(x.seq)) continue;
    Consume(x);
    WakeSleepers();  // before this member may return
    *status = x.status;
    if (x.status != WEFT_OK) [[unlikely]]
      *why = std::move(x.why);
    return true;
  }
  // It has to wait: from here on it is the published first entry of the queue.
  BoardEntry* e = NewEntry(red, send, out, bytes);
  e->seq = x.seq;
  e->published = true;
  StartQueue();
  queue_.push_back(e);
  *queued = e;
  return false;
}

void BoardQueue::Publish(BoardEntry& e) {
  Board::Publish(mine_, WordOf(e), e.send, e.bytes);
  e.published = true;
  wake_pending_ = true;
  next_ = 0;
}

void BoardQueue::WakeSleepers() {
  if (!wake_pending_) return;
  wake_pending_ = false;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  for (size_t i = 0; i < ranks_.size(); ++i)
    if (static_cast<int32_t>(i) != me_) st_.peer(ranks_[i]).board->WakeIfSleeping();
}

bool BoardQueue::AllArrived(uint64_t seq) const {
  const int32_t n = static_cast<int32_t>(areas_.size());
  while (next_ < n && ucx_plugin::Arrived(areas_[next_], seq)) ++next_;
  return next_ == n;
}

bool BoardQueue::Arrived() const {
  if (head_ == queue_.size()) return false;
  const BoardEntry& e = *queue_[head_];
  return e.published && AllArrived(e.seq);
}

void BoardQueue::Mismatch(BoardEntry& e, int32_t i, uint64_t theirs) const {
  e.status = WEFT_ERR_INVALID_USAGE;
  e.why = "rank " + std::to_string(ranks_[i]) + " called " + Describe(theirs) +
          " where this rank called " + Describe(WordOf(e)) + " (collective number " +
          std::to_string(e.seq) + " on the communicator's board)";
}

void BoardQueue::Consume(BoardEntry& e) {
  const int32_t n = static_cast<int32_t>(areas_.size());
  const uint64_t word = WordOf(e);
  // Members that called something else here (a different collective, size or op): an
  // error on each side, and the queue goes on (every member consumed this call).
  for (int32_t i = 0; i < n; ++i) {
    const uint64_t theirs = SlotWord(areas_[i], e.seq);
    if (i != me_ && theirs != word) [[unlikely]] {
      Mismatch(e, i, theirs);
      e.done = true;
      return;
    }
  }
  if (e.reduce && !e.abandoned && e.bytes != 0) {
    CopyBytes(e.out, DataOf(areas_[0], e.seq), e.bytes);
    for (int32_t i = 1; i < n && e.status == WEFT_OK; ++i)
      e.status = e.red.Into(e.out, DataOf(areas_[i], e.seq), e.bytes, &e.why);
  }
  // Seqlock-style (Board::Publish marks a slot being written): every part read is still
  // the one of this call.
  std::atomic_thread_fence(std::memory_order_acquire);
  for (int32_t i = 0; i < n && e.status == WEFT_OK; ++i)
    if (i != me_ && SlotWord(areas_[i], e.seq) != word) [[unlikely]]
      e.status = MovedOn(ranks_[i], &e.why);
  e.done = true;
}

void BoardQueue::PopFront() {
  BoardEntry* e = queue_[head_];
  if (e->abandoned) Free(e);
  // With requests always in flight the queue never empties: drop the consumed front now and
  // then, so that it does not grow with every call.
  if (++head_ >= 64 && head_ * 2 >= queue_.size() && head_ != queue_.size()) {
    queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(head_));
    head_ = 0;
  }
  if (head_ == queue_.size()) {
    queue_.clear();
    head_ = 0;
    if (watched_) {
      st_.Unwatch(this);
      watched_ = false;
    }
  }
}

void BoardQueue::Advance() {
  while (head_ != queue_.size()) {
    BoardEntry& e = *queue_[head_];
    if (!e.published) Publish(e);
    if (!AllArrived(e.seq)) break;
    Consume(e);
    PopFront();
  }
  WakeSleepers();
}

void BoardQueue::Break(weft_status_t s, const std::string& why) {
  broken_ = s;
  broken_why_ = why;
  for (size_t i = head_; i < queue_.size(); ++i) {
    BoardEntry& e = *queue_[i];
    e.done = true;
    e.status = s;
    e.why = why;
    if (e.abandoned) Free(&e);
  }
  queue_.clear();
  head_ = 0;
  if (watched_) {
    st_.Unwatch(this);
    watched_ = false;
  }
}

weft_status_t BoardQueue::Check(std::string* why) {
  if (broken_ != WEFT_OK) {
    *why = broken_why_;
    return broken_;
  }
  std::string reason;
  if (weft_status_t s = st_.Aborted(&reason)) {
    Break(s, reason);
    *why = reason;
    return s;
  }
  if (head_ == queue_.size()) return WEFT_OK;
  const BoardEntry& e = *queue_[head_];
  if (!e.published) return WEFT_OK;
  // The coarse clock (common/clock.hpp) is cheap and only ever late, which here only delays
  // a look; the first call sets the first time to look.
  const auto now = CoarseNow();
  if (next_check_ == Clock::time_point()) next_check_ = now + kLivenessCheck;
  const bool look = now >= next_check_;
  if (look) next_check_ = now + kLivenessCheck;
  for (size_t i = 0; i < areas_.size(); ++i) {
    if (static_cast<int32_t>(i) == me_) continue;
    const uint64_t there = SlotWord(areas_[i], e.seq) & kSeqMask;
    if (there == e.seq) continue;
    const int32_t rank = ranks_[i];
    weft_status_t s = WEFT_OK;
    ucp_ep_h ep = nullptr;
    if (there > e.seq && there != (kSlotBeingWritten & kSeqMask)) {
      s = MovedOn(rank, &reason);
    } else if ((s = st_.EndpointOrWhy(rank, &ep, &reason)) != WEFT_OK) {
    } else if (look && !ProcessAlive(static_cast<pid_t>(st_.peer(rank).pid))) {
      st_.RecordFailure(WEFT_ERR_PEER_FAILURE, rank);
      reason = "rank " + std::to_string(rank) + " failed (its process is gone)";
      s = WEFT_ERR_PEER_FAILURE;
    }
    if (s != WEFT_OK) {
      Break(s, reason);
      *why = reason;
      return s;
    }
  }
  return WEFT_OK;
}

void BoardQueue::Release(BoardEntry* e) {
  if (e->done) {
    Free(e);
    return;
  }
  e->abandoned = true;
  e->out = nullptr;
}

void BoardQueue::Free(BoardEntry* e) { spare_.push_back(e); }

weft_status_t BoardQueue::Wait(std::unique_lock<std::mutex>& lock, BoardEntry* e,
                               int64_t timeout_ms, std::string* why) {
  // The board alone first, without reading the clock (it costs as much as a poll on a VM).
  for (uint32_t i = 0; i < kBoardOnlyPolls && !e->done; ++i)
    if (Arrived()) Advance();
  WakeSleepers();  // before this member may return or sleep
  if (!e->done) {
    // The deadline counts from here, a few microseconds after the call began: a clock read
    // costs a tenth of a call that ends within the polls above (common/clock.hpp).
    const Clock::time_point deadline = DeadlineIn(timeout_ms);
    weft_status_t result = WEFT_OK;
    PollUntil(st_, lock, kNoDeadline, deadline, [&](Clock::time_point now) {
      Advance();
      if (e->done) return true;
      // Messages in flight may need this process: UCX progresses while we wait (which
      // advances this queue too).
      st_.Progress();
      if (e->done) return true;
      if ((result = Check(why))) return true;
      if (now < deadline) return false;
      result = WEFT_ERR_TIMEOUT;
      // Not a retryable failure: the others still meet this call at its place.
      *why =
          "passed its deadline (the call keeps its place: the other members' same call "
          "still pairs with it, so it must not be repeated)";
      return true;
    });
    if (!e->done) return result;
  }
  if (e->status != WEFT_OK) *why = e->why;
  return e->status;
}

namespace {

// A board call as a request's round.
class BoardRound final : public Awaited {
 public:
  BoardRound(std::shared_ptr<BoardQueue> q, const Reduction* red, const void* send, void* out,
             uint64_t bytes)
      : q_(std::move(q)), has_red_(red != nullptr), send_(send), out_(out), bytes_(bytes) {
    if (red != nullptr) red_ = *red;
  }
  ~BoardRound() override { End(); }

  void Begin() override {
    e_ = q_->Add(has_red_ ? &red_ : nullptr, send_, out_, bytes_);
    q_->Advance();
  }
  weft_status_t Poll(bool* ready, std::string* why) override {
    q_->Advance();
    if (e_ == nullptr) return WEFT_ERR_INTERNAL;  // polled after End (cannot happen)
    *ready = e_->done;
    if (e_->done) {
      if (e_->status != WEFT_OK) *why = e_->why;
      return e_->status;
    }
    return q_->Check(why);
  }
  void End() override {
    if (e_ != nullptr) q_->Release(e_);
    e_ = nullptr;
  }

 private:
  std::shared_ptr<BoardQueue> q_;
  bool has_red_;
  Reduction red_;
  const void* send_;
  void* out_;
  uint64_t bytes_;
  BoardEntry* e_ = nullptr;
};

[[gnu::cold, gnu::noinline]] weft_status_t Failed(State& st, weft_status_t s, const char* name,
                                                  const std::string& why) {
  return st.Fail(s, std::string(name) + ": " + why);
}

weft_status_t RunBlocking(Comm& c, const char* name, const Reduction* red, const void* send,
                          void* recv, uint64_t bytes, int64_t timeout_ms) {
  State& st = *c.state;
  std::unique_lock<std::mutex> lock(st.mu());
  std::string why;
  if (weft_status_t s = st.Aborted(&why)) [[unlikely]]
    return Failed(st, s, name, why);
  // A blocking board collective still takes its collective number, as a Schedule does for
  // the members that asked for a request: the tags of later collectives over UCX must agree.
  ++c.collectives;
  BoardQueue& q = *c.board;
  BoardEntry* e = nullptr;
  weft_status_t s = WEFT_OK;
  if (!q.RunIdle(red, send, recv, bytes, &e, &s, &why)) {
    s = q.Wait(lock, e, timeout_ms, &why);
    q.Release(e);
  }
  if (s != WEFT_OK) [[unlikely]]
    return Failed(st, s, name, why);
  return WEFT_OK;
}

}  // namespace

weft_status_t BoardAllreduce(Comm& c, const Reduction& red, const void* send, void* recv,
                             uint64_t bytes, int64_t timeout_ms) {
  return RunBlocking(c, "allreduce", &red, send, recv, bytes, timeout_ms);
}

weft_status_t BoardBarrier(Comm& c, int64_t timeout_ms) {
  return RunBlocking(c, "barrier", nullptr, nullptr, nullptr, 0, timeout_ms);
}

void BuildBoardAllreduce(Schedule& s, Comm& c, const Reduction& red, const void* send, void* recv,
                         uint64_t bytes) {
  s.NewRound();
  s.Await(std::make_shared<BoardRound>(c.board, &red, send, recv, bytes));
}

void BuildBoardBarrier(Schedule& s, Comm& c) {
  s.NewRound();
  s.Await(std::make_shared<BoardRound>(c.board, nullptr, nullptr, nullptr, 0));
}

}  // namespace weft::backends::ucx_plugin
