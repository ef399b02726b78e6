// A shared-memory board for the small collectives of ranks on one host.
//
// Why: an 8-byte all-reduce over UCX is log2(n) rounds of tagged messages, each a trip through
// UCX's shared-memory FIFO and its matching (about 0.3 us per round on the CI machine class),
// plus the bookkeeping of requests. On one host the same result needs only each member's
// value where every other member can read it: a member writes its vector into its own board
// and then reads every other member's, a cache-line transfer each.
//
// Layout: every rank owns one board (a memfd that the other ranks of its host map read-only
// through pidfd_getfd, the right process_vm_readv needs too). Only its owner writes it:
//   header (one cache line): `sleeping`, the owner's threads waiting in poll() for a board;
//   areas: one per communicator that uses the board, each two slots (by the parity of the
//   communicator's board sequence) of a sequence word followed by up to kBoardBytes of data.
// A member publishes call number s by marking slot s % 2 as being written, writing its data
// and then s into the slot's sequence word (release); readers wait until the word equals s
// (acquire), read, and check the word again. A member publishes call s only after it has read
// every part of call s - 1 (coll/board.hpp keeps its calls in that order, whether they were
// blocking, requests, timed out or cancelled). So slot s % 2 is written again (call s + 2)
// only after its owner read every part of call s + 1, each published by a member that had read
// every part of call s, slot s % 2 included: two slots are enough, without acknowledgements.
//
// A waiter about to sleep counts itself in its `sleeping` word (a locked add: a full barrier)
// and looks again; a publisher, after its sequence store and a full fence, reads the readers'
// `sleeping` words and writes the eventfd (a duplicate it holds) of any that sleep: one of the
// two sees the other's store. The publisher's sequence store itself is a plain release store
// and its fence comes only once it has polled for the others' parts: a locked store or an
// early fence would wait for the cache line to be taken from the readers polling it (measured:
// a sixth of an 8-byte all-reduce), while later the store buffer has drained on its own.
//
// Areas used by a communicator are never reused (a member slow to read the last call of a
// communicator that another member already destroyed must not see the area written for a new
// one); a context that creates more than kBoardAreas communicators on boards runs the later
// ones' collectives over UCX.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>

#include "backends/ucx/transport/shared_file.hpp"
#include "backends/ucx/tuning_table.hpp"

namespace weft::backends::ucx_plugin {

// kBoardBytes (the largest payload of one board collective), kBoardAreas (communicators of one
// context that can use the board over its lifetime), kBoardMaxMembers: tuning_table.hpp.

// One slot: the sequence word shares its cache line with the first 56 bytes of data, so a
// small vector arrives with its sequence number in one transfer.
struct alignas(64) BoardSlot {
  uint64_t seq;
  char data[kBoardBytes];
};
struct BoardArea {
  BoardSlot slot[2];
};

// What a rank publishes (inside its CmaIdentity) so that the ranks of its host can map its
// board; `areas` 0: it has none.
struct BoardIdentity {
  int32_t fd = -1;       // the memfd, in the owner's fd table
  int32_t wake_fd = -1;  // the eventfd it sleeps on
  uint32_t areas = 0;
  uint32_t reserved = 0;
};

// This rank's own board.
class Board {
 public:
  // Creates it; false (no board: collectives go over UCX) when the system refuses.
  bool Open();
  bool open() const { return file_.base() != nullptr; }
  BoardIdentity Identity() const;
  int wake_fd() const { return file_.wake_fd(); }
  void DrainWake() const { file_.DrainWake(); }

  // The next unused area, or -1 when all were handed out.
  int32_t TakeArea();
  // Gives back the area TakeArea returned last, when nobody will ever use it.
  void ReturnArea(int32_t i);
  BoardArea* area(int32_t i) const;
  // Publishes `bytes` of `data` as the call whose sequence word is `word` in `a`: the slot
  // marked as being written, the data, then the word (a reader re-checks it after reading,
  // like a seqlock).
  static void Publish(BoardArea* a, uint64_t word, const void* data, uint64_t bytes);
  // Counts a thread of this rank about to sleep (true) or awake again (false).
  void SetSleeping(bool sleeping) const;

 private:
  OwnFile file_;
  uint32_t next_area_ = 0;
};

// Another rank's board, mapped read-only.
class PeerBoard {
 public:
  // Maps the board of process `pid`; false when that is not possible.
  bool Open(pid_t pid, const BoardIdentity& id);
  const BoardArea* area(int32_t i) const;
  // Wakes the owner if it sleeps waiting for a board (after a Publish and a full fence).
  void WakeIfSleeping() const;

 private:
  PeerFile file_;
};

// A slot's sequence word: the call number in the low 48 bits, and above it what the call is
// (coll/board.cpp: the kind, op and size), so that members calling different collectives at
// the same place are told so instead of mixing them.
inline constexpr uint64_t kSeqMask = (uint64_t{1} << 48) - 1;
// The sequence word of a slot while its owner writes new data into it.
inline constexpr uint64_t kSlotBeingWritten = ~uint64_t{0};

// The whole sequence word in the slot of call `seq`: seq's, an earlier call's, or
// kSlotBeingWritten.
inline uint64_t SlotWord(const BoardArea* a, uint64_t seq) {
  // atomic_ref needs a non-const object; a load does not write (the mapping may be read-only).
  auto* word = const_cast<uint64_t*>(&a->slot[seq & 1].seq);
  return std::atomic_ref<uint64_t>(*word).load(std::memory_order_acquire);
}
// Whether call `seq`'s data has arrived in `a`; the data may be read after a true.
inline bool Arrived(const BoardArea* a, uint64_t seq) {
  return (SlotWord(a, seq) & kSeqMask) == seq;
}
inline const char* DataOf(const BoardArea* a, uint64_t seq) { return a->slot[seq & 1].data; }

// Calls waiting on boards (a communicator's queue, coll/board.hpp), registered with the State
// while there are any: every progress moves them on, and a waiter about to sleep looks at
// them once more after marking itself as sleeping (State::Sleep).
class BoardWaiter {
 public:
  virtual ~BoardWaiter() = default;
  // Publishes and consumes what it can.
  virtual void Advance() = 0;
  // Something can be consumed now.
  virtual bool Arrived() const = 0;
  // Nothing is left to publish or consume.
  virtual bool Idle() const = 0;
};

}  // namespace weft::backends::ucx_plugin
