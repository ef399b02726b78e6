// Several redistributes run as one plan (SPEC §3.2, batched plans). When every tensor's plan
// has the same step structure (kinds, mesh dims, reduction op) the steps are fused: each
// communicating step runs one collective for all tensors over a combined byte layout (per
// peer: tensor 0's piece, then tensor 1's, ...), so N tensors cost one all-to-all, not N.
// Reductions need one dtype per call: tensors of equal dtype share one, different dtypes run
// one after another within the step. Otherwise the plans run one after another.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "placement/executor/runnable.hpp"

namespace weft::placement::executor {

class BatchExecutor : public Redistribution {
 public:
  // All parts must be for the same rank and have their layouts on one mesh.
  static Result<std::shared_ptr<const BatchExecutor>> Create(
      std::vector<std::shared_ptr<const Executor>> parts);

  size_t size() const override { return parts_.size(); }
  const Executor& part(size_t i) const { return *parts_[i]; }
  bool fused() const { return fused_; }
  int32_t rank() const override { return parts_[0]->rank(); }
  bool in_mesh() const { return parts_[0]->in_mesh(); }
  bool takes_in() const override { return in_mesh(); }
  bool takes_out() const override { return in_mesh(); }
  ContextId context() const override { return parts_[0]->plan().src->mesh().context(); }
  const Layout& src(size_t i) const override { return *parts_[i]->plan().src; }
  const Layout& dst(size_t i) const override { return *parts_[i]->plan().dst; }
  int64_t extra_bytes() const { return extra_bytes_; }

  // Steps (one per fused step, or the sum over the parts), bytes summed over the parts.
  Result<planner::RankStats> Stats() const override;
  std::string Describe() const override;

  // One all-reduce over the mesh's ranks of a fingerprint covering every part.
  Status CheckSamePlan(const GroupFn& groups, const backends::OpArgs& args) const override;

  // in[i] / out[i]: tensor i's src and dst blocks (unused on a rank outside the mesh).
  Status Run(const Call& call, const std::vector<TensorView>& in,
             const std::vector<TensorView>& out, BatchWorkspace& ws, const GroupFn& groups,
             const backends::OpArgs& args) const override;

 private:
  BatchExecutor() = default;
  Status RunFused(const std::vector<TensorView>& in, const std::vector<TensorView>& out,
                  BatchWorkspace& ws, const device::Queue& q, const GroupFn& groups,
                  const backends::OpArgs& args) const;

  std::vector<std::shared_ptr<const Executor>> parts_;
  bool fused_ = false;
  uint64_t fingerprint_ = 0;
  int64_t extra_bytes_ = 0;
};

// One fused communicating step of every part (k: the step index) on `comm`.
Status RunFusedStep(const std::vector<std::shared_ptr<const Executor>>& parts, size_t k,
                    const std::vector<TensorView>& from, const std::vector<TensorView>& to,
                    BatchWorkspace& ws, const device::Queue& q, backends::Communicator& comm,
                    const backends::OpArgs& args);
// Bytes of combined pieces a fused step k stages on this rank.
int64_t FusedStagedBytes(const std::vector<std::shared_ptr<const Executor>>& parts, size_t k);

}  // namespace weft::placement::executor
