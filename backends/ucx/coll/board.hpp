// Small all-reduces and barriers on the shared-memory boards of one host (board.hpp).
//
// Each member publishes its vector in its own board and reads every other member's; all of
// them reduce the vectors in member order (0, 1, ..., n-1), so every member ends with the same
// bits. A barrier publishes nothing but its call number. Whether a collective runs here
// depends only on the communicator (all members agreed on boards when it was created) and
// the size, both the same on every member, and blocking callers and callers that asked for a
// request run the same protocol, so members may mix the two.
//
// The calls of a communicator form a queue per member (BoardQueue), taken in call order: a
// member publishes call k only once it has read every part of call k-1 ("consumed" it). That
// is what makes two slots per area enough (board.hpp) even with several requests in flight,
// calls that timed out, or were cancelled: such a call stays in the queue, abandoned (its
// result is dropped, its parts still read when they come), and the calls behind it keep its
// place. Its data was published already or is kept in the queue's entry, never read from the
// caller's memory after the call returned; a call that timed out must therefore not be
// repeated (the repetition would be the next call). The queue moves on whenever this process
// progresses (State::Progress: any test or wait on the context), as the rounds of any
// scheduled collective do, also after its communicator was destroyed (State::AdoptBoard).
// Every slot says what its call is (kind, op, size), and members that called different
// collectives at one place get INVALID_USAGE naming each other instead of a mixed result.
//
// While it waits a member keeps UCX progressing (other messages in flight may need this
// process), and fails every call in the queue when a member it still waits for can publish no
// more: its endpoint failed, its process is gone (looked at every kLivenessCheck), or the
// context aborted; the board of that communicator stays failed.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backends/ucx/coll/algorithms.hpp"

namespace weft::backends::ucx_plugin {

// One call in a member's queue.
struct BoardEntry {
  uint64_t seq = 0;
  bool published = false;
  bool done = false;       // consumed (or failed: status)
  bool abandoned = false;  // its caller is gone: the result is dropped
  bool reduce = false;     // an all-reduce (else a barrier)
  Reduction red;
  const void* send = nullptr;  // the data to publish: the caller's, or `staged`
  void* out = nullptr;
  uint64_t bytes = 0;
  weft_status_t status = WEFT_OK;
  std::string why;
  alignas(64) char staged[kBoardBytes];  // the data of a call that waits for its turn
};

class BoardQueue final : public BoardWaiter {
 public:
  // The board of communicator `c`: every member's area, this member's own writable.
  BoardQueue(State& st, const Comm& c, std::vector<const BoardArea*> areas, BoardArea* mine);
  ~BoardQueue();
  BoardQueue(const BoardQueue&) = delete;
  BoardQueue& operator=(const BoardQueue&) = delete;

  // A new call at the back of the queue, published at once when it is first in line. An
  // all-reduce when `red` is given (out = the reduction of `bytes` from every member), else a
  // barrier. When the board failed, the entry comes back done with that failure.
  BoardEntry* Add(const Reduction* red, const void* send, void* out, uint64_t bytes);
  // A blocking call's fast path: with nothing in line (and the board not failed) the call is
  // published at once and, when every member's part arrives within the first polls, consumed
  // without an entry or any bookkeeping (true: *status, and *why on failure). Otherwise
  // (false) it is in the queue as *queued, to Wait for and Release, like Add's.
  bool RunIdle(const Reduction* red, const void* send, void* out, uint64_t bytes,
               BoardEntry** queued, weft_status_t* status, std::string* why);
  // Publishes and consumes calls in order as far as their parts have arrived, then wakes the
  // members sleeping on a board if this published anything.
  void Advance();
  // WEFT_OK, or the failure that ended every call in the queue (see above; *why set).
  weft_status_t Check(std::string* why);
  // The caller of `e` is done with it: an entry whose call ended goes back to the pool; one
  // still in line stays there, abandoned (its result is dropped), and goes back once consumed.
  // Entries are the queue's (no reference counts on the fast path: a locked instruction right
  // after a publication waits for the slot's cache line, board.hpp).
  void Release(BoardEntry* e);
  // Runs `e` (just added) to its end or until timeout_ms (< 0: none) after its first polls
  // (TIMEOUT). Requires `lock` on State::mu().
  weft_status_t Wait(std::unique_lock<std::mutex>& lock, BoardEntry* e, int64_t timeout_ms,
                     std::string* why);

  // BoardWaiter (State::Sleep): the first call in line can be consumed.
  bool Arrived() const override;
  bool Idle() const override { return head_ == queue_.size(); }

 private:
  // An entry for a new call, from the pool (seq and state left to the caller).
  BoardEntry* NewEntry(const Reduction* red, const void* send, void* out, uint64_t bytes);
  // The queue was empty and gets its first call: watched by the State from now on.
  void StartQueue();
  void Publish(BoardEntry& e);
  // The fence and look at the other members' `sleeping` words after a publication (board.hpp);
  // runs once per publication, before this thread may sleep or return.
  void WakeSleepers();
  bool AllArrived(uint64_t seq) const;
  // Records that member i called something else at this place (its word `theirs`).
  [[gnu::cold, gnu::noinline]] void Mismatch(BoardEntry& e, int32_t i, uint64_t theirs) const;
  void Consume(BoardEntry& e);
  void PopFront();
  void Break(weft_status_t s, const std::string& why);
  // An entry nobody holds any more.
  void Free(BoardEntry* e);

  State& st_;
  int32_t me_;
  std::vector<int32_t> ranks_;
  std::vector<const BoardArea*> areas_;
  BoardArea* mine_;
  uint64_t calls_ = 0;
  // Every entry made (owned here), the calls not yet consumed in call order from `head_`, and
  // the entries free for reuse (vectors keep their memory: the fast path allocates nothing).
  std::vector<std::unique_ptr<BoardEntry>> entries_;
  std::vector<BoardEntry*> queue_;
  size_t head_ = 0;
  std::vector<BoardEntry*> spare_;
  mutable int32_t next_ = 0;  // members before this one published the first call in line
  bool wake_pending_ = false;
  bool watched_ = false;  // registered with State::Watch (while the queue is not empty)
  weft_status_t broken_ = WEFT_OK;
  std::string broken_why_;
  Clock::time_point next_check_;
  BoardEntry idle_;  // the call RunIdle runs without queueing it
};

// Whether a collective with a payload of `bytes` on `c` runs on the boards.
inline bool OnBoard(const Comm& c, uint64_t bytes) {
  return c.board != nullptr && bytes <= kBoardBytes;
}

// Blocking forms: WEFT_OK, or the failure after State::Fail. They take State::mu() themselves.
// timeout_ms is the op's (weft_bk_op_t): the clock is read only if the call has to wait.
weft_status_t BoardAllreduce(Comm& c, const Reduction& red, const void* send, void* recv,
                             uint64_t bytes, int64_t timeout_ms);
weft_status_t BoardBarrier(Comm& c, int64_t timeout_ms);

// Request forms: one round that joins the queue when posted and ends when its call did.
void BuildBoardAllreduce(Schedule& s, Comm& c, const Reduction& red, const void* send, void* recv,
                         uint64_t bytes);
void BuildBoardBarrier(Schedule& s, Comm& c);

}  // namespace weft::backends::ucx_plugin
