// Algorithm thresholds of the plugin's collectives, from WEFT_UCX_* environment variables whose
// declarations (backends/ucx/params.hpp) hold the defaults, measured on the CI machine class
// (2 ranks on shared memory); read once when the context starts (ReadTuning; the zeros below
// are only placeholders). A later tuning file (collbench --tune) will write the same knobs.
#pragma once

#include <cstdint>
#include <string>

#include <weft/backend_plugin.h>

namespace weft::backends::ucx_plugin {

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
  // on (SpinMicroseconds).
  int64_t spin_us = -1;  // WEFT_UCX_SPIN_US
  // Small collectives of communicators whose members share a host run on shared-memory
  // boards (board.hpp); 0 turns that off (for that rank's communicators, all members agree).
  uint64_t board = 0;  // WEFT_UCX_BOARD
  // 1: with a CPU per rank, the all-gather half of a ring all-reduce moves by single copy only,
  // written by the senders (coll/allreduce.cpp says why); 2: whatever the CPUs (tests);
  // 0: as the other collectives.
  uint64_t allreduce_push = 0;  // WEFT_UCX_ALLREDUCE_PUSH
};

// The polling budget: with a CPU per rank, 200 us, so that a reply a large copy away is caught
// without the wake-up cost of sleeping (tens of us on a VM); with more ranks than CPUs, none:
// the waiter goes straight to polling with sched_yield() in between (wait.cpp), since the
// rank it waits for may need this very CPU (measured, 4 ranks on 2 cores, 8-byte all-reduce:
// 72 us with a 20 us spin, 12 us without).
int64_t SpinMicroseconds(const Tuning& t, bool cpu_per_rank);
// Whether this host has a CPU (of those this process may run on) for each of its ranks.
bool CpuPerRank(int32_t ranks_on_host);

// Reads every WEFT_UCX_* threshold into *t (defaults where unset). False with *error naming
// the variable, its text and what it must be when one is malformed (the host checks the same
// before init, so this fails only where the plugin runs without that host).
bool ReadTuning(Tuning* t, std::string* error);

}  // namespace weft::backends::ucx_plugin
