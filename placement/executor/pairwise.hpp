// The all-to-all-v of a redistribute step as pipelined point-to-point: each piece travels in
// chunks of whole rows, and a non-contiguous piece is packed chunk by chunk, so packing,
// sending, the local copy of the kept block and unpacking overlap instead of running one after
// another around a collective (SPEC §11: S0→S1 within 1.3× of the raw all-to-all).
#pragma once

#include <vector>

#include "backends/host/communicator.hpp"
#include "device/buffer.hpp"
#include "device/queue.hpp"
#include "placement/executor/tensor_view.hpp"

namespace weft::placement::executor {

// Moves send_boxes[k] (of `from`) to member k and receives recv_boxes[k] (into `to`) from
// member k, for every member but this one (`self`); `keep` (may be null) is copied locally
// while the messages fly. Every member must call it for the same step (one internal tag).
// Packing, unpacking and the copy go through `q`; staging lives in the two workspaces.
Status PairwiseExchange(const std::vector<Box>& send_boxes, const std::vector<Box>& recv_boxes,
                        size_t self, const Box* keep, const TensorView& from, const TensorView& to,
                        device::Workspace& send_stage, device::Workspace& recv_stage,
                        const device::Queue& q, backends::Communicator& comm,
                        const backends::OpArgs& args);

// The size of the chunks pieces travel in (WEFT_ALLTOALL_CHUNK_BYTES, 8 MiB): small enough
// that the first is on the wire while the rest are packed, large enough that per-message costs
// stay negligible. It sets the message count, so it must match on every rank: the context
// checks that at creation, and it is part of the plan fingerprint.
Result<int64_t> AlltoallChunkBytes();

// Bytes of staging PairwiseExchange uses for these boxes and views.
int64_t PairwiseStagedBytes(const std::vector<Box>& send_boxes, const std::vector<Box>& recv_boxes,
                            size_t self, const TensorView& from, const TensorView& to);

}  // namespace weft::placement::executor
