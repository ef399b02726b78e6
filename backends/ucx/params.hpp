// The WEFT_UCX_* variables the plugin reads, declared once (plugin ABI 1.3): the table goes to
// the host in the plugin's table (listing, checks, the must-match comparison) and ReadTuning
// parses it with the same parser (common/param_parse.hpp). Header-only and free of UCX, so
// that the docs test (tests/common/params_doc_test) can include it. tuning.hpp says what
// each threshold does; the must-match ones pick algorithms or segment sizes, which every
// member of a communicator must choose alike.
#pragma once

#include <cstddef>

#include "common/param_parse.hpp"

namespace weft::backends::ucx_plugin {
namespace params_table {
using namespace weft::param;  // Declare*, audiences, flags: the table reads as a table

inline constexpr weft_bk_param_t kParams[] = {
    DeclareBytes("WEFT_UCX_ALLREDUCE_RING_BYTES", "64K", 0, kTiB, kTuning, kMustMatch,
                 "all-reduce of at least this many bytes runs ring reduce-scatter + "
                 "all-gather; smaller ones recursive doubling"),
    DeclareBytes("WEFT_UCX_ALLGATHER_BRUCK_BYTES", "32K", 0, kTiB, kTuning, kMustMatch,
                 "all-gather(v) whose result is below this many bytes runs Bruck; larger ones "
                 "the ring"),
    DeclareBool("WEFT_UCX_ALLGATHER_DIRECT", "1", kTuning, kMustMatch,
                "larger all-gathers over 3+ members of one host read every block in one "
                "round (0: the ring)"),
    DeclareBytes("WEFT_UCX_REDUCE_SCATTER_DIRECT_BYTES", "1M", 0, kTiB, kTuning, kMustMatch,
                 "reduce-scatter over 3+ members of one host whose contributions to a block "
                 "fit this many bytes runs in one round (0: always the ring)"),
    DeclareBytes("WEFT_UCX_BROADCAST_CHAIN_BYTES", "256K", 0, kTiB, kTuning, kMustMatch,
                 "broadcast of at least this many bytes over 3+ members runs a pipelined "
                 "chain; smaller ones a binomial tree"),
    DeclareBytes("WEFT_UCX_SEGMENT_BYTES", "256K", 64, kTiB, kTuning, kMustMatch,
                 "segment of pipelined transfers (chain broadcast, reduce-scatter pieces)"),
    DeclareInt("WEFT_UCX_ALLREDUCE_PUSH", "1", 0, 2, kTuning, kMustMatch,
               "1: with a CPU per rank, the all-gather half of a ring all-reduce is written by "
               "the senders; 2: whatever the CPUs (tests); 0: read like the other collectives"),
    DeclareInt("WEFT_UCX_ALLTOALL_INFLIGHT", "4", 1, 65536, kTuning, kLocal,
               "pairwise all-to-all steps in flight at once"),
    DeclareBytes("WEFT_UCX_CMA_BYTES", "8K", 0, kTiB, kTuning, kLocal,
                 "messages of at least this many bytes between ranks of one host move by "
                 "single copy (0: off; two ranks use the larger of their values)"),
    DeclareInt("WEFT_UCX_PUSH_SLOTS", "4096", 0, 65536, kTuning, kLocal,
               "receive buffers lent to single-copy senders at once (0: never lend)"),
    DeclareBool("WEFT_UCX_BOARD", "1", kTuning, kLocal,
                "small collectives of one host's ranks run on shared-memory boards (0 on any "
                "member turns them off for its communicators)"),
    DeclareBytes("WEFT_UCX_PIPE_BYTES", "4M", 0, kTiB, kTuning, kLocal,
                 "largest message that may go through a pipe between ranks of one host "
                 "(0: no pipes)"),
    DeclareBool("WEFT_UCX_PIPE_ADAPT", "1", kTuning, kLocal,
                "pipes or single copy by their measured cost (0: a pipe whenever one can "
                "take the message)"),
    DeclareInt("WEFT_UCX_SPIN_US", nullptr, 0, 1000000, kTuning, kLocal,
               "microseconds a waiter polls before it sleeps; unset: 200 with a CPU per "
               "rank, else 0"),
};

}  // namespace params_table

using params_table::kParams;
inline constexpr size_t kNumParams = std::size(kParams);

}  // namespace weft::backends::ucx_plugin
