// Runs a rank's halo plan (SPEC §4.4) on the communicator of the plan's mesh (peer = mesh
// position): the exchange (out of place or in place) and its adjoint, the accumulate.
//
// Per phase: post every receive, one message per box (straight into the padded block when the
// box is one contiguous run there), send every box (straight from the source when contiguous, else
// packed), do the local copies and fills while the messages fly, then unpack what arrived. Every
// copy, fill and add is a region operation on the buffers' device (device/README.md).
#pragma once

#include <vector>

#include "backends/host/communicator.hpp"
#include "device/buffer.hpp"
#include "placement/executor/runnable.hpp"
#include "placement/halo/halo_plan.hpp"

namespace weft::placement::halo {

// SPEC §6.4: one all-reduce of the plan's fingerprint over the mesh (comm null: one rank).
Status CheckSameHalo(const HaloPlan& p, backends::Communicator* comm, const backends::OpArgs& a);

// `ws`: staging (send, recv) and the adjoint's copy of the padded gradient (copy).
// padded = the rank's window. local == nullptr: in place (padded's owned cells hold the data).
Status RunExchange(const HaloPlan& p, const executor::TensorView* local,
                   const executor::TensorView& padded, executor::BatchWorkspace& ws,
                   backends::Communicator* comm, const backends::OpArgs& a);

// local_grad (+)= the adjoint of the exchange applied to padded_grad.
Status RunAccumulate(const HaloPlan& p, const executor::TensorView& padded_grad,
                     const executor::TensorView& local_grad, bool add, executor::BatchWorkspace& ws,
                     backends::Communicator* comm, const backends::OpArgs& a);

// Shared by both directions.
namespace detail {
using Requests = std::vector<std::unique_ptr<backends::Communicator::Request>>;
// Whether region r moves as one contiguous run of `v` (no packing): read in order, and its box
// (src or dst) one run of v. Each region travels as a message of its own, so each side decides
// this for itself.
bool Direct(const Region& r, const executor::TensorView& v, bool at_src);
// Total staged bytes of the regions that are not direct.
int64_t StagedBytes(const std::vector<Message>& list, const executor::TensorView& v, bool at_src,
                    int64_t item);

// Posts one send per region of `list` (the exchange's sends, or the adjoint's messages back):
// from `v` where the region's box there (src or dst, as `at_src`) is one run, else packed by
// pack(region, out) at `out`, which then moves past it.
template <class Pack>
Status PostRegionSends(const std::vector<Message>& list, const executor::TensorView& v, bool at_src,
                       char* out, int64_t item, int64_t tag, backends::Communicator* comm,
                       const backends::OpArgs& a, Requests& sends, Pack&& pack) {
  for (const Message& m : list) {
    for (const Region& r : m.regions) {
      const auto bytes = static_cast<uint64_t>(r.src.Volume() * item);
      const char* from = nullptr;
      if (Direct(r, v, at_src)) {
        from = v.At((at_src ? r.src : r.dst).offset.data());
      } else {
        WEFT_RETURN_IF_ERROR(pack(r, out));
        from = out;
        out += bytes;
      }
      WEFT_ASSIGN_OR_RETURN(auto req,
                            comm->PostSend(from, bytes, static_cast<int32_t>(m.peer), tag, a));
      sends.push_back(std::move(req));
    }
  }
  return Status::Ok();
}
}  // namespace detail

}  // namespace weft::placement::halo
