#include "placement/planner/localize.hpp"

#include <algorithm>

namespace weft::placement::planner {
namespace {

// Coordinates of the members of `c`'s group over mesh dims `g`, row-major over g.
class GroupWalk {
 public:
  GroupWalk(const Mesh& mesh, const std::vector<int32_t>& g, const int64_t* c)
      : mesh_(mesh), g_(g) {
    std::copy(c, c + mesh.ndim(), coord_.begin());
    size_ = 1;
    for (int32_t m : g) size_ *= mesh.shape()[m];
    self_ = 0;
    for (int32_t m : g) self_ = self_ * mesh.shape()[m] + c[m];
  }
  int64_t size() const { return size_; }
  int64_t self() const { return self_; }
  // The coordinate of member k (valid until the next call).
  const int64_t* At(int64_t k) {
    for (int32_t j = static_cast<int32_t>(g_.size()) - 1; j >= 0; --j) {
      const int64_t e = mesh_.shape()[g_[j]];
      coord_[g_[j]] = k % e;
      k /= e;
    }
    return coord_.data();
  }

 private:
  const Mesh& mesh_;
  const std::vector<int32_t>& g_;
  Coord coord_{};
  int64_t size_ = 1, self_ = 0;
};

void AddIfAny(std::vector<Transfer>& list, int64_t member, const Box& box, int64_t* bytes,
              int64_t item) {
  if (box.Empty()) return;
  list.push_back({member, box});
  *bytes += box.Volume() * item;
}

void Movement(const Step& step, const int64_t* c, RankStep& r) {
  const Mesh& mesh = step.from->mesh();
  const int64_t item = ItemSize(step.from->dtype());
  GroupWalk walk(mesh, step.mesh_dims, c);
  // Where A replicates, several members hold the same elements: a member takes them only
  // from those that agree with it on A's Replicate dims, so each element comes exactly once
  // and the copy a rank already holds is the one it uses.
  std::vector<int32_t> rep;
  for (int32_t m : step.mesh_dims)
    if (std::holds_alternative<Replicate>(step.from->placements()[m])) rep.push_back(m);
  for (int64_t k = 0; k < walk.size(); ++k) {
    const int64_t* q = walk.At(k);
    r.group.push_back(mesh.RankAt(q));
    if (k == walk.self()) continue;
    if (std::any_of(rep.begin(), rep.end(), [&](int32_t m) { return q[m] != c[m]; })) continue;
    AddIfAny(r.recvs, k, Intersect(BlockBox(*step.from, q), r.to_block), &r.recv_bytes, item);
    AddIfAny(r.sends, k, Intersect(r.from_block, BlockBox(*step.to, q)), &r.send_bytes, item);
  }
  if (const Box keep = Intersect(r.from_block, r.to_block); !keep.Empty()) r.keep = keep;
}

void Reduction(const Step& step, const int64_t* c, RankStep& r) {
  const Mesh& mesh = step.from->mesh();
  const int64_t item = ItemSize(step.from->dtype());
  GroupWalk walk(mesh, step.mesh_dims, c);
  for (int64_t k = 0; k < walk.size(); ++k) {
    const int64_t* q = walk.At(k);
    r.group.push_back(mesh.RankAt(q));
    if (k == walk.self()) continue;
    int64_t unused = 0;
    AddIfAny(r.recvs, k, r.to_block, &unused, item);
    AddIfAny(r.sends, k, Intersect(r.from_block, BlockBox(*step.to, q)), &unused, item);
  }
  if (!r.to_block.Empty()) r.keep = r.to_block;
  const int64_t n = walk.size(), from = r.from_block.Volume(), to = r.to_block.Volume();
  if (step.kind == StepKind::kAllReduce) {
    // Ring all-reduce (reduce-scatter then all-gather): 2(n-1)/n of the block each way.
    r.send_bytes = r.recv_bytes = 2 * (from - from / n) * item;
  } else {
    // Direct reduce-scatter: each member's piece goes to its owner.
    r.send_bytes = (from - to) * item;
    r.recv_bytes = (n - 1) * to * item;
  }
}

void Conjugate(const Step& step, const int64_t* c, RankStep& r) {
  const int32_t i = step.mesh_dims[0];
  // Sum and prod keep the value on coordinate 0 only (the others hold the identity, so the
  // reduction gives it back exactly); a shard is kept in place whatever the op (SPEC §2.4).
  const bool keeps = step.tensor_dim >= 0 || c[i] == 0 ||
                     (step.op != ReduceOp::kSum && step.op != ReduceOp::kProd);
  if (const Box keep = Intersect(r.from_block, r.to_block); keeps && !keep.Empty()) r.keep = keep;
}

RankStep LocalizeStep(const Step& step, const int64_t* c) {
  RankStep r;
  r.from_block = BlockBox(*step.from, c);
  r.to_block = BlockBox(*step.to, c);
  switch (step.kind) {
    case StepKind::kLocal:
      if (step.conjugate) {
        Conjugate(step, c, r);
      } else if (!r.to_block.Empty()) {
        r.keep = r.to_block;  // a slice: the new block lies inside the old one
      }
      break;
    case StepKind::kAllReduce:
    case StepKind::kReduceScatter:
      Reduction(step, c, r);
      break;
    default:
      Movement(step, c, r);
  }
  if (!r.group.empty()) {
    int64_t self = 0;
    for (int32_t m : step.mesh_dims) self = self * step.from->mesh().shape()[m] + c[m];
    r.self_index = self;
  }
  return r;
}

}  // namespace

Result<std::vector<RankStep>> Localize(const Plan& plan, int32_t rank) {
  std::vector<RankStep> out;
  out.reserve(plan.steps.size());
  Coord c{};
  const bool inside = rank >= 0 && plan.src->mesh().Coordinate(rank, c.data());
  for (const Step& step : plan.steps) {
    if (inside) {
      out.push_back(LocalizeStep(step, c.data()));
      continue;
    }
    RankStep r;
    r.from_block.ndim = r.to_block.ndim = step.from->ndim();
    step.from->LocalBlock(rank, r.from_block.shape.data(), r.from_block.offset.data());
    step.to->LocalBlock(rank, r.to_block.shape.data(), r.to_block.offset.data());
    out.push_back(r);
  }
  return out;
}

Result<RankStats> Stats(const Plan& plan, int32_t rank) {
  WEFT_ASSIGN_OR_RETURN(std::vector<RankStep> steps, Localize(plan, rank));
  RankStats s;
  s.steps = static_cast<int64_t>(steps.size());
  const int64_t item = ItemSize(plan.src->dtype());
  for (size_t k = 0; k < steps.size(); ++k) {
    s.send_bytes += steps[k].send_bytes;
    s.recv_bytes += steps[k].recv_bytes;
    // Every `to` block but the last is an intermediate the executor holds besides the user's.
    if (k + 1 < steps.size())
      s.extra_bytes = std::max(s.extra_bytes, steps[k].to_block.Volume() * item);
  }
  return s;
}

}  // namespace weft::placement::planner
