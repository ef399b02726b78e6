// Cross-mesh redistribute (SPEC §3.2): a tensor moves between two meshes of one context,
// disjoint (pipeline stages) or overlapping. Three parts:
//   1. a source Partial is reduced first on the source mesh (same-mesh plan src -> src with
//      every Partial replaced by R);
//   2. one intersection exchange: an all-to-all-v over the union of the two meshes' ranks
//      (ascending world ranks) whose pieces are (my source block) ∩ (each destination rank's
//      block). Where the source replicates, each destination rank takes every element from one
//      holder: itself when it holds the data, else the replica whose coordinates on the
//      replicated mesh dims are (its index in the destination mesh) mod (their extent), which
//      spreads the load over the replicas;
//   3. a destination Partial is made locally (same-mesh plan dst with R -> dst: conjugates).
// Per-rank memory and planning work: O(size of the union).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "placement/executor/runnable.hpp"

namespace weft::placement::executor {

class CrossExecutor : public Redistribution {
 public:
  // src and dst: same global shape and dtype, meshes of one context that are not equal.
  static Result<std::shared_ptr<const CrossExecutor>> Create(const LayoutPtr& src,
                                                             const LayoutPtr& dst, int32_t rank);

  size_t size() const override { return 1; }
  int32_t rank() const override { return rank_; }
  ContextId context() const override { return src_->mesh().context(); }
  bool takes_in() const override { return in_src_; }
  bool takes_out() const override { return in_dst_; }
  const Layout& src(size_t) const override { return *src_; }
  const Layout& dst(size_t) const override { return *dst_; }
  Result<planner::RankStats> Stats() const override;
  std::string Describe() const override;
  Status CheckSamePlan(const GroupFn& groups, const backends::OpArgs& args) const override;
  Status Run(const Call& call, const std::vector<TensorView>& in,
             const std::vector<TensorView>& out, BatchWorkspace& ws, const GroupFn& groups,
             const backends::OpArgs& args) const override;

 private:
  CrossExecutor() = default;

  LayoutPtr src_, dst_;
  LayoutPtr src_r_, dst_r_;                     // src and dst with Partial replaced by Replicate
  std::shared_ptr<const Executor> pre_, post_;  // null when src (dst) has no Partial
  int32_t rank_ = -1;
  bool in_src_ = false, in_dst_ = false;
  std::vector<int32_t> group_;               // the union, ascending world ranks
  planner::Box from_block_, to_block_;       // blocks of src_r_ and dst_r_ (when in_src_/in_dst_)
  std::vector<planner::Box> sends_, recvs_;  // by union member; never to self
  std::optional<planner::Box> keep_;         // copied locally
  int64_t send_bytes_ = 0, recv_bytes_ = 0;
  uint64_t fingerprint_ = 0;
};

}  // namespace weft::placement::executor
