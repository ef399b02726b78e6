// Single copy the other way round: a receiver lends its buffer to the sender, which writes the
// message into it (process_vm_writev) instead of the receiver reading it.
//
// Why: the kernel pins pages and takes the mm lock once per *remote* piece of a cross-memory
// copy, while local pieces are cheap. A strided sender (S0 -> S1: short rows) read by a
// contiguous receiver pays that per row; the same copy done by the sender has one remote piece
// and as many local ones as it likes (measured, 256 KiB in 1 KiB rows: 31 us written vs 60 us
// read, 39 us packed then read). And where a read would leave the sender's memory cached on the
// reader's core just before the sender writes it again (the all-gather half of a ring
// all-reduce, coll/allreduce.cpp), whatever the layouts.
//
// The danger is a write that lands after the receiver stopped waiting (its deadline passed, it
// was cancelled or freed, the context aborted): the buffer may be reused or freed by then. So
// the right to write is a slot in a table of 64-bit words in shared memory (a memfd that each
// writer maps once), taken and given back with atomic compare-and-swap:
//   receiver: Lend()                      FREE            -> LENT(gen)
//   writer:   Claim(token)                LENT(gen)       -> WRITING(gen)   (else: do not write;
//                                         a FREE(gen, status) left by Reclaim says why)
//   writer:   before each system call     still WRITING(gen), else stops (revoked)
//   writer:   Complete(token, status)     -> DONE(gen, status), wakes the receiver
//   receiver: Reclaim(token) on any end   LENT(gen)       -> FREE(gen, status): revoked,
//                                                            nothing is written;
//                                         WRITING(gen)    waits for DONE while the writer
//                                                            runs, up to kWriterGrace;
//                                         DONE(gen)       the outcome; the slot is FREE again.
// `gen` is a per-table counter that no two loans share, so a writer holding a stale token (the
// slot since reused) fails its Claim. The writer wakes a sleeping receiver through an eventfd
// of the receiver's that it holds a duplicate of (pidfd_getfd).
//
// A writer that is stopped (SIGSTOP, a debugger) holds WRITING for as long as it is stopped,
// and a stopped process is alive: waiting for it would ignore the call's deadline (SPEC §10;
// a survivor spun here for ever). So Reclaim waits only for a writer that runs (its copy ends
// within milliseconds), and only for kWriterGrace; a stopped one, or one still writing after
// that, is *revoked*: WRITING(gen) -> REVOKED(gen, status), and the writer, which looks at its
// slot before each system call, writes nothing more once it resumes. The slot stays out of use
// until the writer stored DONE or is gone. What user space cannot revoke is a copy the kernel
// has already begun (a writer stopped after its last look and before its system call, or still
// inside a copy after kWriterGrace): that copy lands when the writer resumes. The window is a
// few instructions for a stopped writer; SIGSTOP itself lands on the return from a system call,
// after the copy.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <vector>

#include <weft/status.h>

#include "backends/ucx/transport/shared_file.hpp"
#include "backends/ucx/tuning_table.hpp"

namespace weft::backends::ucx_plugin {

// What a receiver publishes (inside its CmaIdentity) so that writers can find its table.
struct GrantIdentity {
  int32_t table_fd = -1;  // the memfd holding the slots, in the receiver's fd table
  int32_t wake_fd = -1;   // the eventfd it sleeps on
  uint32_t slots = 0;     // 0: this rank lends nothing
  uint32_t reserved = 0;
};

// The receiver's table.
class GrantTable {
 public:
  // Creates the table of `slots` words; false (lending off) when the system refuses.
  bool Open(uint32_t slots);
  bool open() const { return words_ != nullptr; }
  GrantIdentity Identity() const;
  // The eventfd writers signal; -1 when closed.
  int wake_fd() const { return file_.wake_fd(); }
  // Empties the eventfd's counter (after a wake-up).
  void DrainWake() const { file_.DrainWake(); }

  // Lends a slot: its token (slot index << 48 | gen), or 0 when every slot is out.
  uint64_t Lend();
  // True when the writer finished with `token` (*status: its outcome).
  bool Finished(uint64_t token, weft_status_t* status) const;
  // Takes the slot back, whatever happened to it, for a receive that ended with `why` (the
  // writer's Claim reports it). While the writer writes this waits (yielding, then sleeping
  // briefly) for its end or until process `writer_pid` is gone, as long as the writer runs and
  // for kWriterGrace at most; then it revokes the slot (see above). Returns whether the buffer
  // is this process's again; false: revoked from a writer stopped or slow mid-write.
  bool Reclaim(uint64_t token, pid_t writer_pid, weft_status_t why);

 private:
  // A slot revoked from its writer: out of use until the writer is done with it or gone.
  struct Revoked {
    uint32_t slot;
    uint64_t gen;
    pid_t writer;
  };
  // Returns to free_ the revoked slots whose writer finished (or, when `look` and none is free,
  // whose writer is gone).
  void ReturnRevoked();
  // WRITING(gen) -> REVOKED(gen, why); false when the writer finished first (*w reloaded).
  bool Revoke(uint32_t slot, uint64_t gen, pid_t writer, weft_status_t why, uint64_t* w);

  OwnFile file_;
  uint64_t* words_ = nullptr;  // file_'s memory
  uint32_t slots_ = 0;
  uint64_t next_gen_ = 1;
  std::vector<uint32_t> free_;
  std::vector<Revoked> revoked_;
};

// A writer's view of one receiver's table.
class PeerGrants {
 public:
  // Maps the table of process `pid`; false (never writes to it) when that is not possible.
  bool Open(pid_t pid, const GrantIdentity& id);
  bool open() const { return words_ != nullptr; }
  // Takes the right to write for `token`: WEFT_OK, else why not: how the receive ended when it
  // took the slot back (TIMEOUT, PEER_FAILURE) or ABORTED (any other end, a slot reused since,
  // a token not of this table's).
  weft_status_t Claim(uint64_t token) const;
  // Whether the right to write for `token` still holds (the receiver did not revoke it): looked
  // at before each system call of the write. *why: the receive's status once revoked.
  bool Claimed(uint64_t token, weft_status_t* why) const;
  // Publishes the outcome of a claimed write and wakes the receiver.
  void Complete(uint64_t token, weft_status_t status);

 private:
  PeerFile file_;
  uint64_t* words_ = nullptr;  // file_'s memory
  uint32_t slots_ = 0;
};

}  // namespace weft::backends::ucx_plugin
