// Collectives composed from a communicator's point-to-point ops, for backends that lack them
// natively (SPEC §6.6), and the reductions of WEFT_DETERMINISTIC_REDUCTIONS. No padding: ring
// all-gather-v, reduce-scatter-v as an all-to-all-v and a fold in member order, all-reduce as
// their composition, pairwise all-to-all-v, binomial-tree broadcast and a dissemination
// barrier. Byte counts; reductions through the shared kernels.
#pragma once

#include <span>

#include "backends/host/communicator.hpp"

namespace weft::backends::composed {

Status Allgatherv(Communicator& c, const void* send, uint64_t send_bytes, void* recv,
                  std::span<const uint64_t> bytes, std::span<const uint64_t> displs,
                  const OpArgs& a);
// counts/elements in units of t; recv gets block `index`, reduced with op (not avg) in member
// order: ((block of member 0 op block of member 1) op ...), the same bits on every backend.
Status ReduceScatterv(Communicator& c, const void* send, void* recv,
                      std::span<const uint64_t> counts, DType t, ReduceOp op, const OpArgs& a);
Status Allreduce(Communicator& c, const void* send, void* recv, uint64_t count, DType t,
                 ReduceOp op, const OpArgs& a);
Status Alltoallv(Communicator& c, const void* send, std::span<const uint64_t> send_bytes,
                 std::span<const uint64_t> send_displs, void* recv,
                 std::span<const uint64_t> recv_bytes, std::span<const uint64_t> recv_displs,
                 const OpArgs& a);
Status Broadcast(Communicator& c, void* buf, uint64_t bytes, int32_t root, const OpArgs& a);
Status Barrier(Communicator& c, const OpArgs& a);

}  // namespace weft::backends::composed
