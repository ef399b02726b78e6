#include "backends/ucx/coll/board.hpp"

#include <atomic>
#include <mutex>
#include <string>

#include "backends/ucx/wait.hpp"
#include "common/clock.hpp"
#include "common/copy.hpp"

namespace weft::backends::ucx_plugin {
namespace {

// How often a waiter looks whether the processes it waits for still exist: a dead one is
// noticed this late at most, sooner when UCX's keepalive fails its endpoint.
constexpr auto kLivenessCheck = std::chrono::milliseconds(20);

// A reply is usually a cache-line transfer away: waiting polls the board alone this many
// times before it lets UCX progress in between and looks for failures.
constexpr uint32_t kBoardOnlyPolls = 64;

// The failure of a member that went on past a call this member still waits for or reads.
weft_status_t MovedOn(int32_t rank, std::string* why) {
  *why = "rank " + std::to_string(rank) +
         " went on past this collective (its own call ended early, by its deadline)";
  return WEFT_ERR_ABORTED;
}

}  // namespace

BoardCall::BoardCall(Comm& c) : c_(c), st_(*c.state), seq_(++c.board_calls) {}

BoardCall::~BoardCall() { End(); }

void BoardCall::Publish(const void* data, uint64_t bytes) {
  bytes_ = bytes;
  Board::Publish(c_.board_mine, seq_, data, bytes);
  woken_ = false;
}

void BoardCall::WakeSleepers() {
  if (woken_) return;
  woken_ = true;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  for (int32_t i = 0; i < c_.size(); ++i)
    if (i != c_.index) st_.peer(c_.ranks[i]).board->WakeIfSleeping();
}

bool BoardCall::Arrived() const {
  const int32_t n = c_.size();
  while (next_ < n && ucx_plugin::Arrived(c_.board[next_], seq_)) ++next_;
  return next_ == n;
}

weft_status_t BoardCall::Check(std::string* why) {
  if (weft_status_t s = st_.Aborted(why)) return s;
  // The coarse clock (common/clock.hpp) is cheap and only ever late, which here only delays
  // a look; the first call sets the first time to look (none on the fast path, which never
  // gets here).
  const auto now = CoarseNow();
  if (next_check_ == Clock::time_point()) next_check_ = now + kLivenessCheck;
  const bool look = now >= next_check_;
  if (look) next_check_ = now + kLivenessCheck;
  for (int32_t i = next_; i < c_.size(); ++i) {
    if (i == c_.index) continue;
    const uint64_t there = SlotSeq(c_.board[i], seq_);
    if (there == seq_) continue;
    const int32_t rank = c_.ranks[i];
    if (there > seq_) return MovedOn(rank, why);
    ucp_ep_h ep = nullptr;
    if (weft_status_t s = st_.EndpointOrWhy(rank, &ep, why)) return s;
    if (look && !ProcessAlive(static_cast<pid_t>(st_.peer(rank).pid))) {
      st_.RecordFailure(WEFT_ERR_PEER_FAILURE, rank);
      *why = "rank " + std::to_string(rank) + " failed (its process is gone)";
      return WEFT_ERR_PEER_FAILURE;
    }
  }
  return WEFT_OK;
}

weft_status_t BoardCall::Reduce(const Reduction& red, void* out, std::string* why) const {
  if (bytes_ == 0) return WEFT_OK;
  CopyBytes(out, DataOf(c_.board[0], seq_), bytes_);
  for (int32_t i = 1; i < c_.size(); ++i)
    if (weft_status_t s = red.Into(out, DataOf(c_.board[i], seq_), bytes_, why)) return s;
  // Seqlock-style: every part read is still the one of this call.
  for (int32_t i = 0; i < c_.size(); ++i)
    if (i != c_.index && SlotSeq(c_.board[i], seq_) != seq_) return MovedOn(c_.ranks[i], why);
  return WEFT_OK;
}

weft_status_t BoardCall::Wait(std::unique_lock<std::mutex>& lock, Clock::time_point deadline,
                              std::string* why) {
  // The board alone first, without reading the clock (it costs as much as a poll on a VM).
  for (uint32_t i = 0; i < kBoardOnlyPolls; ++i)
    if (Arrived()) {
      WakeSleepers();
      return WEFT_OK;
    }
  WakeSleepers();  // before this member may sleep itself
  weft_status_t result = WEFT_OK;
  st_.Watch(this);
  watched_ = true;
  PollUntil(st_, lock, Clock::time_point::max(), deadline, [&](Clock::time_point now) {
    if (Arrived()) return true;
    // Messages in flight may need this process: UCX progresses while we wait.
    st_.Progress();
    if (Arrived()) return true;
    if ((result = Check(why))) return true;
    if (now < deadline) return false;
    result = WEFT_ERR_TIMEOUT;
    *why = "passed its deadline";
    return true;
  });
  End();
  return result;
}

void BoardCall::Stage(const void* data, uint64_t bytes) {
  staged_ = data;
  bytes_ = bytes;
}

void BoardCall::Begin() {
  Publish(staged_, bytes_);
  WakeSleepers();
  st_.Watch(this);
  watched_ = true;
}

weft_status_t BoardCall::Poll(bool* ready, std::string* why) {
  *ready = Arrived();
  return *ready ? WEFT_OK : Check(why);
}

void BoardCall::End() {
  if (!watched_) return;
  watched_ = false;
  st_.Unwatch(this);
}

// A blocking board collective still takes its collective number, as a Schedule does for the
// members that asked for a request: the tags of later collectives over UCX must agree.
weft_status_t BoardAllreduce(Comm& c, const Reduction& red, const void* send, void* recv,
                             uint64_t bytes, Clock::time_point deadline) {
  State& st = *c.state;
  std::unique_lock<std::mutex> lock(st.mu());
  ++c.collectives;
  std::string why;
  if (weft_status_t s = st.Aborted(&why)) return st.Fail(s, "allreduce: " + why);
  BoardCall call(c);
  call.Publish(send, bytes);
  weft_status_t s = call.Wait(lock, deadline, &why);
  if (s == WEFT_OK) s = call.Reduce(red, recv, &why);
  return s == WEFT_OK ? s : st.Fail(s, "allreduce: " + why);
}

weft_status_t BoardBarrier(Comm& c, Clock::time_point deadline) {
  State& st = *c.state;
  std::unique_lock<std::mutex> lock(st.mu());
  ++c.collectives;
  std::string why;
  if (weft_status_t s = st.Aborted(&why)) return st.Fail(s, "barrier: " + why);
  BoardCall call(c);
  call.Publish(nullptr, 0);
  const weft_status_t s = call.Wait(lock, deadline, &why);
  return s == WEFT_OK ? s : st.Fail(s, "barrier: " + why);
}

void BuildBoardAllreduce(Schedule& s, Comm& c, const Reduction& red, const void* send, void* recv,
                         uint64_t bytes) {
  auto call = std::make_shared<BoardCall>(c);
  call->Stage(send, bytes);
  s.NewRound();
  s.Await(call);
  s.Then([call, red, recv](std::string* why) { return call->Reduce(red, recv, why); });
}

void BuildBoardBarrier(Schedule& s, Comm& c) {
  auto call = std::make_shared<BoardCall>(c);
  call->Stage(nullptr, 0);
  s.NewRound();
  s.Await(call);
}

}  // namespace weft::backends::ucx_plugin
