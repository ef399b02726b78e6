// Runs a redistribute plan on one rank (SPEC §3.2): each step's collective on the communicator
// of its group, reading from and writing into the user's buffers where the pieces are
// contiguous, packing only the pieces that are not. Intermediate layouts live in plan-owned
// buffers that, with the staging buffers, are reused across executions.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "backends/host/communicator.hpp"
#include "common/result.hpp"
#include "device/buffer.hpp"
#include "device/queue.hpp"
#include "placement/executor/tensor_view.hpp"
#include "placement/planner/plan.hpp"

namespace weft::placement::executor {

// The communicator of an ordered list of world ranks (every member asks for it in the same
// order); the caller owns it.
using GroupFn = std::function<Result<backends::Communicator*>(const std::vector<int32_t>& ranks)>;

// Memory an execution needs besides the user's buffers, on the buffers' device. One per
// execution in flight; reused (grown, never shrunk) across executions.
struct Workspace {
  device::Workspace inter[2];    // the blocks of intermediate layouts (ping-pong)
  device::Workspace send, recv;  // packed pieces
};

class Executor {
 public:
  // Localizes `plan` for `rank` (a rank outside the mesh gets nothing to do).
  static Result<std::shared_ptr<const Executor>> Create(planner::Plan plan, int32_t rank);

  const planner::Plan& plan() const { return plan_; }
  int32_t rank() const { return rank_; }
  bool in_mesh() const { return in_mesh_; }
  const std::vector<planner::RankStep>& steps() const { return steps_; }
  // The plan hash mixed with the two layouts: what every rank must agree on.
  uint64_t fingerprint() const { return fingerprint_; }
  // Peak bytes of plan-owned memory an execution uses with compact user buffers.
  int64_t extra_bytes() const { return extra_bytes_; }

  // SPEC §6.4: one all-reduce over the mesh's ranks; kInvalidUsage on every rank when any
  // rank built a different plan.
  Status CheckSamePlan(const GroupFn& groups, const backends::OpArgs& args) const;

  // Runs the steps. `in` holds this rank's src block and `out` its dst block (both ignored,
  // and may be null, on a rank outside the mesh).
  Status Run(const TensorView* in, const TensorView* out, Workspace& ws, const GroupFn& groups,
             const backends::OpArgs& args) const;

 private:
  Executor() = default;

  planner::Plan plan_;
  int32_t rank_ = -1;
  bool in_mesh_ = false;
  std::vector<planner::RankStep> steps_;
  uint64_t fingerprint_ = 0;
  int64_t extra_bytes_ = 0;
};

// One step on `comm` (null for local steps), from one view into another; `q` does the
// memory's copies, fills and staging.
Status RunStep(const planner::Step& step, const planner::RankStep& rs, const TensorView& from,
               const TensorView& to, Workspace& ws, const device::Queue& q,
               backends::Communicator* comm, const backends::OpArgs& args);
// The workspace bytes RunStep packs into for these views (0 when every piece is direct).
int64_t StagedBytes(const planner::Step& step, const planner::RankStep& rs, const TensorView& from,
                    const TensorView& to);

}  // namespace weft::placement::executor
