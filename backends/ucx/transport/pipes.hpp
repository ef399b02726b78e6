// Two-copy pipes between ranks of one host: the sender copies a message into a ring of shared
// memory while the receiver copies it out, both at memcpy speed, in chunks that overlap.
//
// Why, next to single copy (cma.hpp): the kernel's cross-memory copy pins every page it touches
// and looks up the other process's mapping for each remote piece. On the AMD VMs of the CI
// machine class a 256 KiB process_vm_readv takes 24 us where memcpy takes 6 (35 vs 8.6 us from
// 1 KiB rows), so a message copied twice through memory both processes map, with the two
// copies overlapping, arrives sooner (measured, two threads on two cores: 256 KiB in 12-16 us,
// 1 MiB in 42-57). On Intel VMs of the same class the kernel's copy is fast and pipes lose, so
// each sender measures both ways and takes the cheaper one (path_choice.hpp).
// The catch is that both sides must run at once for a message larger than the ring; a sender
// fills the ring at once when the message fits (pipes.cpp's callers use larger ones only with
// a CPU per rank).
//
// Every rank owns one pipe file (a memfd the ranks of its host map read-write through
// pidfd_getfd): a header with its `sleeping` word, then kPipeChannels channels in which it is
// the sender. A channel is a control block and a ring of kPipeRingBytes:
//   state:     FREE, OPEN(gen) (posted by the sender), ATTACHED(gen) (taken by the receiver)
//   produced:  bytes the sender has put into the ring (only the sender writes it)
//   consumed:  bytes the receiver has taken out (only the receiver writes it)
//   withdrawn: gen << 8 | status of a message whose sender stopped before the receiver finished
//   result:    the receiver's outcome (gen, status, and its receive's size) and the time its
//              copies took (copy_ns), stored before FREE
// The message itself is announced by a descriptor over UCX under its tag (kPipeMagic, with
// the channel's token), so ordering and matching stay UCX's; the receiver attaches to the
// channel named by the descriptor it matched, and its `result` is what completes the send.
// (Not an acknowledgement over UCX as single copy has: those match in posting order per tag,
// while pipe receives on one tag may finish out of order, a short message overtaking a long
// one.) So a receiver must be able to attach to every pipe a sender uses with it: a rank that
// mapped a peer's file sets its own bit in that file's `mapped_by` bitmap, and a sender uses a
// pipe only with receivers whose bit is set.
//
// Ownership: the sender takes a FREE channel it does not hold; OPEN(gen) -> ATTACHED(gen) is
// the receiver's compare-and-swap (a stale descriptor, whose sender withdrew, finds another
// gen and fails); the receiver stores FREE when it is done with the channel, whatever the
// outcome, and never touches it again; a sender that stops first takes an OPEN channel back
// with a compare-and-swap or, when the receiver is attached, stores `withdrawn` (with how its
// op ended), wakes it, and leaves the FREE to the receiver. `gen` is never reused in a file.
//
// Sleeping: a waiter about to sleep counts itself in its own file's `sleeping` word (a locked
// add) and looks at its pipes once more; the other side, after moving `produced` or
// `consumed` and a full fence, wakes it through its eventfd when the word is non-zero (as the
// boards do, board.hpp).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <vector>

#include <weft/status.h>

#include "backends/ucx/transport/layout.hpp"
#include "backends/ucx/transport/shared_file.hpp"
#include "backends/ucx/tuning_table.hpp"

namespace weft::backends::ucx_plugin {

// kPipeChannels, kPipeRingBytes, kPipeChunkBytes (the sender publishes at most this much at a
// time, so the receiver starts early), kPipeMaxRanks: tuning_table.hpp.

// What a rank publishes (inside its CmaIdentity) so that the ranks of its host map its file.
struct PipeIdentity {
  int32_t fd = -1;
  int32_t wake_fd = -1;
  uint32_t channels = 0;  // 0: this rank has no pipes
  uint32_t ring_bytes = 0;
};

struct alignas(64) PipeControl {
  uint64_t state;
  uint64_t withdrawn;
  uint64_t result;  // gen << 8 | the status as int8
  uint64_t result_bytes;
  uint64_t copy_ns;  // how long the receiver's copies out of the ring took (PathChoice)
  alignas(64) uint64_t produced;
  alignas(64) uint64_t consumed;
};

// A channel of a mapped file, either side's view.
struct PipeChannel {
  PipeControl* ctl = nullptr;
  char* ring = nullptr;
};

// Tokens name a channel and the message's gen: channel << 48 | gen.
inline uint32_t PipeChannelOf(uint64_t token) { return static_cast<uint32_t>(token >> 48); }
inline uint64_t PipeGenOf(uint64_t token) { return token & ((uint64_t{1} << 48) - 1); }

// This rank's own file: the channels in which it sends.
class PipeFile {
 public:
  bool Open();
  bool open() const { return file_.base() != nullptr; }
  PipeIdentity Identity() const;
  int wake_fd() const { return file_.wake_fd(); }
  void DrainWake() const { file_.DrainWake(); }
  // Counts a thread of this rank about to sleep (true) or awake again (false).
  void SetSleeping(bool sleeping) const;

  // Takes a channel for a message: its token, or 0 when every channel is busy.
  uint64_t Acquire();
  // The sender is done with the message of `token`, completed or ended with `status`: the
  // channel returns to the pool once its receiver, if attached, let go of it too (a receiver
  // attaching later finds another state and fails, reading `status` in `withdrawn`). Returns
  // whether an attached receiver was told (`withdrawn`): the caller wakes it.
  bool Release(uint64_t token, weft_status_t status);
  PipeChannel channel(uint64_t token) const;
  // Whether the message of `token` is still OPEN or ATTACHED (the receiver did not end it).
  bool Live(uint64_t token) const;
  // Once not Live: the receiver's outcome (false when it left none for `token`).
  // *copy_ns: how long the receiver spent copying the message out of the ring.
  bool Result(uint64_t token, weft_status_t* status, uint64_t* receive_bytes,
              uint64_t* copy_ns) const;
  // Whether world rank `rank` mapped this file (it can attach to our pipes).
  bool MappedBy(int32_t rank) const;

 private:
  OwnFile file_;
  uint64_t next_gen_ = 1;
  std::vector<bool> held_;
};

// Another rank's file, mapped read-write: the channels in which it sends to us, and its
// `sleeping` word and eventfd for waking it.
class PeerPipes {
 public:
  // Maps it and tells its owner so (world rank `me` in its `mapped_by`).
  bool Open(pid_t pid, const PipeIdentity& id, int32_t me);
  // OPEN(gen) -> ATTACHED(gen); false when the sender withdrew the message.
  bool Attach(uint64_t token) const;
  // The receiver's end: its outcome, then the channel is FREE again (the sender may reuse it).
  // Also for a message it refused without attaching (after an Attach).
  void Detach(uint64_t token, weft_status_t status, uint64_t receive_bytes,
              uint64_t copy_ns = 0) const;
  // Whether the sender withdrew the message (*status: how its op ended).
  bool Withdrawn(uint64_t token, weft_status_t* status) const;
  PipeChannel channel(uint64_t token) const;
  // Wakes the owner when it sleeps (after the caller's full fence).
  void WakeIfSleeping() const;

 private:
  PeerFile file_;
};

// Sender: copies what fits of bytes [*produced, length) of the region at `base` into the ring
// and publishes it; returns whether anything moved. Adds the copies' time to *copy_ns.
bool FillPipe(PipeChannel c, const char* base, const Layout& layout, uint64_t length,
              uint64_t* produced, uint64_t* copy_ns);
// Receiver: copies what arrived of bytes [*consumed, length) into the region at `base` and
// publishes the space; returns whether anything moved. Adds the copies' time to *copy_ns.
bool DrainPipe(PipeChannel c, char* base, const Layout& layout, uint64_t length, uint64_t* consumed,
               uint64_t* copy_ns);
// Whether FillPipe (space) or DrainPipe (data) would move anything now.
bool PipeHasSpace(PipeChannel c, uint64_t produced, uint64_t length);
bool PipeHasData(PipeChannel c, uint64_t consumed);

}  // namespace weft::backends::ucx_plugin
