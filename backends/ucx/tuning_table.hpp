// The UCX plugin's tuning table: every fixed threshold of the transport and the algorithms, one
// constexpr entry each, and next to them the knobs read from the WEFT_UCX_* variables (Tuning,
// declared with their defaults in params.hpp, read in tuning.cpp). Each entry says its value and
// unit, why that value, and whether a later tuning file (the topology issue's, which will fill
// this table per machine) may override it:
//   tunable: a speed trade-off measured on one machine class; another value changes timings
//            only, never what is sent, so a rank may use its own.
//   agreed:  picks messages or algorithms, so every rank of a communicator must use the same
//            value (a tuning file must hand it to all ranks alike, like the must-match knobs).
//   fixed:   a limit of the kernel or of a shared-memory layout other ranks map; not for
//            tuning files.
// The site that uses an entry says more about it where the code needs it.
#pragma once

#include <chrono>
#include <cstdint>

namespace weft::backends::ucx_plugin {

// ---- Waiting and progress (transport/wait.*, transport/state.cpp) ----

// Longest sleep on the worker's event fd between progress calls. ms; tunable. UCX's keepalive
// (dead-peer detection) and the op deadlines only advance when someone progresses the worker,
// and a waiter that missed an event another thread consumed sleeps at most this long.
inline constexpr auto kMaxSleep = std::chrono::milliseconds(100);
// Polling with sched_yield() between polls before sleeping. us; tunable. Long enough for a
// peer that shares this CPU to run a small collective's round, short enough that 8 ranks on
// 2 cores sleep after 0.5 ms.
inline constexpr auto kYieldBudget = std::chrono::microseconds(500);
// The burst of polls reads the clock once every this many polls. Polls; tunable. A clock read
// costs about as much as an idle progress.
inline constexpr uint32_t kPollsPerClockRead = 8;
// The burst of back-to-back polls before yielding, with a CPU per rank, when WEFT_UCX_SPIN_US
// is unset. us; tunable (the knob overrides it). A reply a large copy away is caught without
// the wake-up cost of sleeping (tens of us on a VM); with more ranks than CPUs it is 0 (4 ranks
// on 2 cores, 8-byte all-reduce: 72 us with a 20 us spin, 12 us without).
inline constexpr int64_t kSpinUsWithCpuPerRank = 200;
// A waiter that holds the lock while abort() waits for it steps aside this long at a time.
// us; tunable. std::mutex is not fair; the abort needs the lock once.
inline constexpr auto kAbortStepAside = std::chrono::microseconds(100);

// ---- Teardown (transport/peers.cpp) ----

// How long finalize waits for endpoints to healthy peers to flush. s; tunable. Long enough for
// sends in flight on one host or a LAN, bounded so that a peer that hangs cannot hang finalize.
inline constexpr auto kCloseBound = std::chrono::seconds(2);
// While flushing, the nap when progress found nothing. us; tunable (teardown only).
inline constexpr unsigned kCloseNapUs = 200;

// ---- Single copy (transport/cma.*, transport/p2p.cpp, transport/single_copy.cpp) ----

// Pieces per process_vm_readv/_writev call on either side. Pieces; fixed (IOV_MAX).
inline constexpr int kIovecsPerCall = 1024;
// A reader reads remote runs separated by at most this gap as one span, the gap into a scratch
// page. Bytes; tunable. The kernel pays per remote piece (pinning, the mm lock): 1 KiB rows with
// 1 KiB gaps read 2.5x faster as spans. Writers never span (the gaps are the peer's data).
inline constexpr uint64_t kReadSpanGap = 4096;
// The scratch a slow kernel read goes through, placed at the source's offset in its page.
// Bytes; tunable. 128 KiB: 12 + 4 us instead of 55 us.
inline constexpr uint64_t kBounceBytes = 128 << 10;
// Reads of at least this many bytes whose source and destination sit at offsets the kernel
// copies slowly go through the scratch. Bytes; tunable (one page: shorter copies are quick).
inline constexpr uint64_t kBounceAtLeast = 4096;
// Most bytes one direct read asks the kernel for (it moves at most MAX_RW_COUNT, about 2 GiB,
// per call). Bytes; fixed.
inline constexpr uint64_t kReadPerCall = uint64_t{1} << 30;
// A contiguous message bound for local runs shorter than this is read into the scratch and
// unpacked in user space. Bytes; tunable. The kernel's per-local-piece setup costs more than
// the extra copy at these lengths (64 KiB into 512 B runs: 8.0 us as pieces, 6.5 through the
// scratch).
inline constexpr uint64_t kUnpackRunsBelow = 1024;
// A strided single-copy sender packs runs shorter than this before it is read. Bytes; tunable
// (the bytes on the wire are the same packed or not, so the ends meet either way).
inline constexpr uint64_t kPackRunsBelow = 2048;
// The same where the receiver can have the sender write (grants). Bytes; tunable. The writer's
// per-piece cost is lower: 512 B rows 43 us written, 35 us packed and read.
inline constexpr uint64_t kPackRunsBelowWritable = 1024;

// ---- Lent buffers (transport/grants.*) ----

// How long a receiver waits for a writer that runs and is still copying into its buffer before
// it revokes the loan. ms; tunable. A 4 MiB copy takes about a millisecond; a stopped writer is
// revoked at once.
inline constexpr auto kWriterGrace = std::chrono::milliseconds(100);
// While waiting for a writer: its process state is read this often. ms; tunable.
inline constexpr auto kWriterCheckEvery = std::chrono::milliseconds(1);
// ... and the wait yields for this long, then naps kWriterNap at a time. ms, us; tunable.
inline constexpr auto kWriterYieldFor = std::chrono::milliseconds(2);
inline constexpr auto kWriterNap = std::chrono::microseconds(200);

// ---- Pipes (transport/pipes.*) ----

// Channels per rank's pipe file: more than this many messages in flight from one rank go by
// single copy. Channels; fixed (the shared file's layout, mapped by the host's ranks).
inline constexpr uint32_t kPipeChannels = 16;
// Each channel's ring. Bytes; fixed (the shared layout). 1 MiB keeps a 4 MiB message moving
// in four turns with both sides copying at once.
inline constexpr uint64_t kPipeRingBytes = 1 << 20;
// The sender publishes at most this much at a time, so the receiver starts early. Bytes;
// tunable.
inline constexpr uint64_t kPipeChunkBytes = 128 << 10;
// Ranks past this one never use pipes (the file's bitmap of mappers). Ranks; fixed.
inline constexpr int32_t kPipeMaxRanks = 1 << 16;

// ---- Pipes or single copy, measured (transport/path_choice.*; the README says why) ----

// Samples per way; a way's figure is the second lowest. Samples; tunable.
inline constexpr uint32_t kPathSamples = 4;
// The way not preferred gets one message in this many until it has its samples. Messages;
// tunable.
inline constexpr uint32_t kPathEvery = 4;
// ... and later at most one in this many, once its last sample is older than kPathStale.
// Messages; tunable.
inline constexpr uint32_t kPathRefreshEvery = 16;
inline constexpr auto kPathStale = std::chrono::milliseconds(200);
// While pipes are preferred and single copy is within this factor, single copy is refreshed
// whatever the age. Ratio; tunable.
inline constexpr double kPathClose = 1.5;
// Pipes are taken once their figure is below this share of single copy's. Ratio; tunable.
inline constexpr double kPathToPipes = 0.75;
// The preferred way's figure moving by this factor re-measures the other. Ratio; tunable.
inline constexpr double kPathShift = 2.0;
// Upper bounds of the message size classes (the last one open). Bytes; tunable: below 64 KiB,
// below 256 KiB, up to 1 MiB, larger (the costs per byte differ between them).
inline constexpr uint64_t kPathClass0Below = 64 << 10;
inline constexpr uint64_t kPathClass1Below = 256 << 10;
inline constexpr uint64_t kPathClass2UpTo = 1 << 20;

// ---- Boards (transport/board.*, coll/board.*) ----

// Largest payload of one board collective (an all-reduce vector). Bytes; fixed (the slot size
// of the shared board). 256 B is 4 cache lines, where a board round still beats messages.
inline constexpr uint64_t kBoardBytes = 256;
// Communicators of one context that can use the board, over its lifetime. Areas; fixed (the
// shared layout).
inline constexpr uint32_t kBoardAreas = 1024;
// Largest communicator that uses the board: every member reads every other one's slot, which
// beyond this costs more than log2(n) rounds of messages. Members; agreed.
inline constexpr int32_t kBoardMaxMembers = 32;
// A board waiter looks whether the processes it waits for still exist this often. ms; tunable.
// A dead one is noticed this late at most, sooner when UCX's keepalive fails its endpoint.
inline constexpr auto kLivenessCheck = std::chrono::milliseconds(20);
// A board waiter polls the board alone this many times before it lets UCX progress and looks
// for failures. Polls; tunable. A reply is usually a cache-line transfer away.
inline constexpr uint32_t kBoardOnlyPolls = 64;

// ---- Collectives (coll/) ----

// Largest all-reduce the calling thread runs inline, without a schedule (coll/small.*). Bytes;
// tunable (it runs the same messages as the schedule, so mixed members still match); well
// inside UCX's short messages, where the schedule's own costs outweigh the transfer.
inline constexpr uint64_t kSmallAllreduceBytes = 256;
// The own block of an all-gather or all-to-all is copied in slices this long while the round's
// receives are pending, progressing between them. Bytes; tunable. A progress (a few hundred
// ns) stays a small part of a slice, and a peer's descriptor is answered after one slice.
inline constexpr uint64_t kOwnBlockSlice = 32 << 10;
// Scratch buffers a communicator keeps across calls: a collective needs at most two at once,
// and a third covers one whose requests UCX still holds while the next one starts. Buffers;
// tunable.
inline constexpr size_t kScratchCached = 3;

// ---- Knobs: the WEFT_UCX_* variables (params.hpp declares them, tuning.cpp reads them) ----

// Read once when the context starts (ReadTuning; the zeros below are only placeholders, the
// defaults are in params.hpp, measured on the CI machine class: 2 ranks on shared memory). A
// later tuning file (collbench --tune) will write the same knobs.
struct Tuning {
  // All-reduce of at least this many bytes (and at least one element per member) runs ring
  // reduce-scatter + all-gather; smaller ones recursive doubling (latency: log2 n rounds).
  uint64_t allreduce_ring_bytes = 0;  // WEFT_UCX_ALLREDUCE_RING_BYTES
  // All-gather(v) whose gathered result is below this many bytes runs Bruck (log2 n rounds
  // through a scratch buffer); larger ones the ring (n-1 rounds, straight into recv).
  uint64_t allgather_bruck_bytes = 0;  // WEFT_UCX_ALLGATHER_BRUCK_BYTES
  // Larger ones over 3+ members that all share this host: 1 reads every block where it lies in
  // one round (coll/allgather.cpp), 0 takes the ring there too.
  uint64_t allgather_direct = 0;  // WEFT_UCX_ALLGATHER_DIRECT
  // Reduce-scatter(v) over 3+ members that all share this host, whose other members'
  // contributions to one block take at most this many bytes: one round, no forwarding
  // (coll/reduce_scatter.cpp); larger ones, and 0, the ring.
  uint64_t reduce_scatter_direct_bytes = 0;  // WEFT_UCX_REDUCE_SCATTER_DIRECT_BYTES
  // Broadcast of at least this many bytes over 3+ members runs a pipelined chain; smaller
  // ones a binomial tree.
  uint64_t broadcast_chain_bytes = 0;  // WEFT_UCX_BROADCAST_CHAIN_BYTES
  // Segment of pipelined transfers: chain broadcast chunks, and reduce-scatter pieces that
  // are reduced as each lands (while it is still in cache).
  uint64_t segment_bytes = 0;  // WEFT_UCX_SEGMENT_BYTES
  // All-to-all(v): pairwise steps (one send and one receive each) in flight at once.
  int32_t alltoall_inflight = 0;  // WEFT_UCX_ALLTOALL_INFLIGHT
  // Messages of at least this many bytes between ranks of one host move by single copy
  // (process_vm_readv, cma.hpp); 0 turns that off. Two ranks use the larger of their values.
  uint64_t cma_bytes = 0;  // WEFT_UCX_CMA_BYTES
  // Receive buffers a rank may have lent to single-copy senders at once, so that a strided
  // sender writes into them instead of being read (grants.hpp); 0 turns lending off.
  uint64_t push_slots = 0;  // WEFT_UCX_PUSH_SLOTS (at most 65536)
  // Single-copy-sized messages up to this many bytes between ranks of one host go through a
  // pipe instead (pipes.hpp: two memcpys that overlap); 0 turns pipes off. Larger than the
  // pipe's ring only with a CPU per rank.
  uint64_t pipe_bytes = 0;  // WEFT_UCX_PIPE_BYTES
  // 1: a message a pipe can take goes through one only while pipes to that peer have cost
  // less than single copy lately (path_choice.hpp); 0: whenever a pipe can take it.
  uint64_t pipe_adapt = 0;  // WEFT_UCX_PIPE_ADAPT
  // How long a waiter polls before it sleeps on the worker's event fd, in microseconds; < 0
  // (WEFT_UCX_SPIN_US unset): chosen from the ranks per host and the CPUs this process may run
  // on (SpinMicroseconds, kSpinUsWithCpuPerRank).
  int64_t spin_us = -1;  // WEFT_UCX_SPIN_US
  // Small collectives of communicators whose members share a host run on shared-memory
  // boards (board.hpp); 0 turns that off (for that rank's communicators, all members agree).
  uint64_t board = 0;  // WEFT_UCX_BOARD
  // 1: with a CPU per rank, the all-gather half of a ring all-reduce moves by single copy only,
  // written by the senders (coll/allreduce.cpp says why); 2: whatever the CPUs (tests);
  // 0: as the other collectives.
  uint64_t allreduce_push = 0;  // WEFT_UCX_ALLREDUCE_PUSH
};

}  // namespace weft::backends::ucx_plugin
