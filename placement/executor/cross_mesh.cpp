#include "placement/executor/cross_mesh.hpp"

#include <algorithm>
#include <string>

#include "common/fnv1a.hpp"
#include "placement/planner/localize.hpp"
#include "placement/planner/search.hpp"
#include "placement/planner/tuned_model.hpp"

namespace weft::placement::executor {
namespace {

using planner::Box;

bool HasPartial(const Layout& l) {
  return std::any_of(l.placements().begin(), l.placements().end(),
                     [](const Placement& p) { return IsPartial(p); });
}

// `l` with every Partial mesh dim made Replicate (same mesh, shape, dtype and splits).
Result<LayoutPtr> WithoutPartial(const LayoutPtr& l) {
  Layout::Spec spec{l->mesh_ptr(), l->shape(), l->dtype(), l->placements(), {}};
  for (Placement& p : spec.placements)
    if (IsPartial(p)) p = Replicate{};
  for (int32_t d = 0; d < l->ndim(); ++d) {
    const DimSplit& s = l->split(d);
    spec.splits.push_back(s.is_explicit() ? std::optional(s.sizes) : std::nullopt);
  }
  return Layout::Create(std::move(spec));
}

// Row-major coordinate of position `index` of `mesh`.
Coord CoordAt(const Mesh& mesh, int64_t index) {
  Coord c{};
  for (int32_t m = mesh.ndim() - 1; m >= 0; --m) {
    c[m] = index % mesh.shape()[m];
    index /= mesh.shape()[m];
  }
  return c;
}

int64_t MemberOf(const std::vector<int32_t>& group, int32_t rank) {
  return std::lower_bound(group.begin(), group.end(), rank) - group.begin();
}

// Which replica of the source each destination rank reads: its own where it holds one, else
// the one whose coordinates on the replicated mesh dims are (its index in the destination
// mesh) mod (their extent), which spreads the load over the replicas.
class ReplicaChoice {
 public:
  ReplicaChoice(const Mesh& a, const Layout& sr) : a_(a) {
    for (int32_t m = 0; m < a.ndim(); ++m)
      if (a.shape()[m] > 1 && std::holds_alternative<Replicate>(sr.placements()[m]))
        rep_.push_back(m);
  }
  // Whether source coordinate `p` is the replica destination rank q (at index qi) reads.
  bool operator()(const int64_t* p, int32_t q, int64_t qi) const {
    Coord own{};
    if (a_.Coordinate(q, own.data()))  // q holds a replica itself: it reads its own
      return std::all_of(rep_.begin(), rep_.end(), [&](int32_t m) { return p[m] == own[m]; });
    int64_t k = qi;
    for (auto it = rep_.rbegin(); it != rep_.rend(); ++it) {
      const int64_t ext = a_.shape()[*it];
      if (p[*it] != (k % ext)) return false;
      k /= ext;
    }
    return true;
  }

 private:
  const Mesh& a_;
  std::vector<int32_t> rep_;  // the source's replicated mesh dims
};

// What planning the intersection exchange reads: the meshes (a: source, b: destination), the
// layouts without Partial, the union of ranks and the rank planned for.
struct Sides {
  const Mesh &a, &b;
  const Layout &sr, &dr;
  const std::vector<int32_t>& group;
  int32_t rank;
  ReplicaChoice chosen;
};

// One side's pieces, by union member, and their bytes; `keep`: the piece to copy locally.
struct Pieces {
  std::vector<Box> boxes;
  int64_t bytes = 0;
  std::optional<Box> keep;
};

Pieces EmptyPieces(const Sides& s) {
  Pieces p;
  p.boxes.assign(s.group.size(), Box{});
  for (Box& x : p.boxes) x.ndim = s.sr.ndim();
  return p;
}

// What this rank (source coordinate ca, block `from`) sends to each destination rank.
Pieces PlanSends(const Sides& s, const Box& from, const Coord& ca) {
  Pieces out = EmptyPieces(s);
  const int64_t item = ItemSize(s.sr.dtype());
  for (int64_t qi = 0; qi < s.b.size(); ++qi) {
    const int32_t q = s.b.RankAtIndex(qi);
    if (q == s.rank || !s.chosen(ca.data(), q, qi)) continue;
    const Coord cq = CoordAt(s.b, qi);
    const Box box = planner::Intersect(from, planner::BlockBox(s.dr, cq.data()));
    if (box.Empty()) continue;
    out.boxes[static_cast<size_t>(MemberOf(s.group, q))] = box;
    out.bytes += box.Volume() * item;
  }
  return out;
}

// What this rank (destination block `to`) receives from each source rank, and keeps itself.
Pieces PlanRecvs(const Sides& s, const Box& to) {
  Pieces in = EmptyPieces(s);
  const int64_t item = ItemSize(s.sr.dtype());
  int64_t self_index = 0;
  for (int64_t i = 0; i < s.b.size(); ++i)
    if (s.b.RankAtIndex(i) == s.rank) self_index = i;
  for (int64_t pi = 0; pi < s.a.size(); ++pi) {
    const Coord cp = CoordAt(s.a, pi);
    if (!s.chosen(cp.data(), s.rank, self_index)) continue;
    const int32_t p = s.a.RankAtIndex(pi);
    const Box box = planner::Intersect(planner::BlockBox(s.sr, cp.data()), to);
    if (box.Empty()) continue;
    if (p == s.rank) {
      in.keep = box;
      continue;
    }
    in.boxes[static_cast<size_t>(MemberOf(s.group, p))] = box;
    in.bytes += box.Volume() * item;
  }
  return in;
}

// The union of the two meshes' ranks, ascending.
std::vector<int32_t> Union(const Mesh& a, const Mesh& b) {
  std::vector<int32_t> group;
  for (int64_t i = 0; i < a.size(); ++i) group.push_back(a.RankAtIndex(i));
  for (int64_t i = 0; i < b.size(); ++i) group.push_back(b.RankAtIndex(i));
  std::sort(group.begin(), group.end());
  group.erase(std::unique(group.begin(), group.end()), group.end());
  return group;
}

// The same-mesh plans around the exchange: reducing a source Partial, making a destination
// one (local steps only). Their hashes go into *h.
Result<std::shared_ptr<const Executor>> PlanPre(const LayoutPtr& src, const LayoutPtr& src_r,
                                                int32_t rank, Fnv1a* h) {
  if (!HasPartial(*src)) return std::shared_ptr<const Executor>();
  WEFT_ASSIGN_OR_RETURN(planner::CostModel model, planner::ModelFor(src->mesh()));
  WEFT_ASSIGN_OR_RETURN(planner::Plan p, planner::PlanRedistribute(src, src_r, model));
  h->Int(static_cast<int64_t>(p.hash));
  return Executor::Create(std::move(p), rank);
}
Result<std::shared_ptr<const Executor>> PlanPost(const LayoutPtr& dst_r, const LayoutPtr& dst,
                                                 int32_t rank, Fnv1a* h) {
  if (!HasPartial(*dst)) return std::shared_ptr<const Executor>();
  WEFT_ASSIGN_OR_RETURN(planner::Plan p, planner::PlanRedistribute(dst_r, dst));
  for (const planner::Step& s : p.steps)
    if (s.kind != planner::StepKind::kLocal)
      return Internal("planner: making a Partial destination needed communication");
  h->Int(static_cast<int64_t>(p.hash));
  return Executor::Create(std::move(p), rank);
}

}  // namespace

Result<std::shared_ptr<const CrossExecutor>> CrossExecutor::Create(const LayoutPtr& src,
                                                                   const LayoutPtr& dst,
                                                                   int32_t rank) {
  if (src->shape() != dst->shape())
    return InvalidArgument("src and dst layouts have different global shapes");
  if (!(src->dtype() == dst->dtype()))
    return InvalidArgument("src dtype " + DTypeName(src->dtype()) + " differs from dst dtype " +
                           DTypeName(dst->dtype()));
  std::shared_ptr<CrossExecutor> e(new CrossExecutor());
  e->src_ = src;
  e->dst_ = dst;
  e->rank_ = rank;
  const Mesh &a = src->mesh(), &b = dst->mesh();
  WEFT_ASSIGN_OR_RETURN(e->src_r_, WithoutPartial(src));
  WEFT_ASSIGN_OR_RETURN(e->dst_r_, WithoutPartial(dst));
  Fnv1a h;
  WEFT_ASSIGN_OR_RETURN(e->pre_, PlanPre(src, e->src_r_, rank, &h));
  WEFT_ASSIGN_OR_RETURN(e->post_, PlanPost(e->dst_r_, dst, rank, &h));
  const std::string layouts = src->Describe() + "\n=>\n" + dst->Describe();
  e->fingerprint_ = h.Text(layouts).value();
  e->group_ = Union(a, b);

  Coord ca{}, cb{};
  e->in_src_ = rank >= 0 && a.Coordinate(rank, ca.data());
  e->in_dst_ = rank >= 0 && b.Coordinate(rank, cb.data());
  if (!e->in_src_ && !e->in_dst_) return std::shared_ptr<const CrossExecutor>(std::move(e));
  const Sides sides{a, b, *e->src_r_, *e->dst_r_, e->group_, rank, ReplicaChoice(a, *e->src_r_)};
  Pieces out = EmptyPieces(sides), in = EmptyPieces(sides);
  if (e->in_src_) {
    e->from_block_ = planner::BlockBox(*e->src_r_, ca.data());
    out = PlanSends(sides, e->from_block_, ca);
  }
  if (e->in_dst_) {
    e->to_block_ = planner::BlockBox(*e->dst_r_, cb.data());
    in = PlanRecvs(sides, e->to_block_);
  }
  e->sends_ = std::move(out.boxes);
  e->send_bytes_ = out.bytes;
  e->recvs_ = std::move(in.boxes);
  e->recv_bytes_ = in.bytes;
  e->keep_ = in.keep;
  return std::shared_ptr<const CrossExecutor>(std::move(e));
}

Result<planner::RankStats> CrossExecutor::Stats() const {
  planner::RankStats s;
  s.steps = 1;
  s.send_bytes = send_bytes_;
  s.recv_bytes = recv_bytes_;
  const int64_t item = ItemSize(src_->dtype());
  for (const auto& part : {pre_, post_}) {
    if (!part) continue;
    WEFT_ASSIGN_OR_RETURN(planner::RankStats p, planner::Stats(part->plan(), rank_));
    s.steps += p.steps;
    s.send_bytes += p.send_bytes;
    s.recv_bytes += p.recv_bytes;
    s.extra_bytes += part->extra_bytes();
  }
  // The reduced source and the destination before its conjugates, and the packed pieces.
  if (pre_ && in_src_) s.extra_bytes += from_block_.Volume() * item;
  if (post_ && in_dst_) s.extra_bytes += to_block_.Volume() * item;
  s.extra_bytes += send_bytes_ + recv_bytes_;
  return s;
}

std::string CrossExecutor::Describe() const {
  std::string s =
      "cross-mesh: " + DescribeMesh(src_->mesh()) + " => " + DescribeMesh(dst_->mesh()) + "\n";
  if (pre_) s += "before, on the source mesh:\n" + planner::Describe(pre_->plan(), rank_);
  s += "exchange (all-to-all-v) over the union of " + std::to_string(group_.size()) +
       " ranks: " + src_r_->Describe() + " => " + dst_r_->Describe() + "; rank " +
       std::to_string(rank_) + " sends " + std::to_string(send_bytes_) + " B, receives " +
       std::to_string(recv_bytes_) + " B\n";
  if (post_) s += "after, on the destination mesh:\n" + planner::Describe(post_->plan(), rank_);
  return s;
}

Status CrossExecutor::CheckSamePlan(const GroupFn& groups, const backends::OpArgs& args) const {
  if ((!in_src_ && !in_dst_) || group_.size() == 1) return Status::Ok();
  WEFT_ASSIGN_OR_RETURN(backends::Communicator * comm, groups(group_));
  uint64_t v[2] = {fingerprint_, ~fingerprint_};  // max(h) and ~min(h), as Executor does
  WEFT_RETURN_IF_ERROR(
      comm->Allreduce(v, v, 2, DType{kCodeUInt, 64, 1}, ReduceOp::kMax, args.ForHostMemory()));
  if (v[0] != fingerprint_ || v[1] != ~fingerprint_)
    return InvalidUsage(
        "the ranks of the two meshes built different cross-mesh redistribute plans; every rank "
        "of both meshes must plan the same redistribute");
  return Status::Ok();
}

// One form: `call` asks nothing more.
Status CrossExecutor::Run(const Call&, const std::vector<TensorView>& in,
                          const std::vector<TensorView>& out, BatchWorkspace& ws,
                          const GroupFn& groups, const backends::OpArgs& args) const {
  if (!in_src_ && !in_dst_) return Status::Ok();
  if (ws.parts.size() < 3) ws.parts.resize(3);
  WEFT_ASSIGN_OR_RETURN(const device::Queue q, device::Queue::For(args.device, args.stream));
  const int64_t item = ItemSize(src_->dtype());
  auto buffer = [&](device::Workspace& buf, const Box& block) -> Result<TensorView> {
    const auto bytes = static_cast<size_t>(block.Volume() * item);
    WEFT_ASSIGN_OR_RETURN(char* p, q.Reserve(buf, bytes));
    return CompactView(p, block, item);
  };
  TensorView from, to;
  if (in_src_) {
    from = in[0];
    if (pre_) {  // reduce the source's Partial dims on the source mesh
      WEFT_ASSIGN_OR_RETURN(from, buffer(ws.parts[2].inter[0], from_block_));
      WEFT_RETURN_IF_ERROR(pre_->Run(&in[0], &from, ws.parts[0], groups, args));
    }
  }
  if (in_dst_) {
    to = out[0];
    if (post_) {
      WEFT_ASSIGN_OR_RETURN(to, buffer(ws.parts[2].inter[1], to_block_));
    }
  }
  if (keep_) WEFT_RETURN_IF_ERROR(CopyBox(q, from, to, *keep_));
  if (group_.size() > 1) {
    const size_t n = group_.size();
    std::vector<uint64_t> sc(n, 0), sd(n, 0), rc(n, 0), rd(n, 0);
    uint64_t st = 0, rt = 0;
    for (size_t k = 0; k < n; ++k) {
      sd[k] = st;
      sc[k] = static_cast<uint64_t>(sends_[k].Volume());
      st += sc[k];
      rd[k] = rt;
      rc[k] = static_cast<uint64_t>(recvs_[k].Volume());
      rt += rc[k];
    }
    static char dummy[16];
    WEFT_ASSIGN_OR_RETURN(char* sbuf, q.Reserve(ws.send, st * item));
    WEFT_ASSIGN_OR_RETURN(char* rbuf, q.Reserve(ws.recv, rt * item));
    if (st == 0) sbuf = dummy;
    if (rt == 0) rbuf = dummy;
    for (size_t k = 0; k < n; ++k)
      if (sc[k]) WEFT_RETURN_IF_ERROR(Pack(q, from, sends_[k], sbuf + sd[k] * item));
    WEFT_ASSIGN_OR_RETURN(backends::Communicator * comm, groups(group_));
    WEFT_RETURN_IF_ERROR(comm->Alltoallv(sbuf, sc, sd, rbuf, rc, rd, src_->dtype(), args));
    for (size_t k = 0; k < n; ++k)
      if (rc[k]) WEFT_RETURN_IF_ERROR(Unpack(q, rbuf + rd[k] * item, to, recvs_[k]));
  }
  if (in_dst_ && post_) WEFT_RETURN_IF_ERROR(post_->Run(&to, &out[0], ws.parts[1], groups, args));
  return Status::Ok();
}

}  // namespace weft::placement::executor
