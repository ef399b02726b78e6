#include "placement/executor/cross_mesh.hpp"

#include <algorithm>
#include <string>

#include "common/fnv1a.hpp"
#include "placement/planner/localize.hpp"
#include "placement/planner/search.hpp"

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
  if (HasPartial(*src)) {
    WEFT_ASSIGN_OR_RETURN(planner::Plan p, planner::PlanRedistribute(src, e->src_r_));
    h.Int(static_cast<int64_t>(p.hash));
    WEFT_ASSIGN_OR_RETURN(e->pre_, Executor::Create(std::move(p), rank));
  }
  if (HasPartial(*dst)) {
    WEFT_ASSIGN_OR_RETURN(planner::Plan p, planner::PlanRedistribute(e->dst_r_, dst));
    for (const planner::Step& s : p.steps)
      if (s.kind != planner::StepKind::kLocal)
        return Internal("planner: making a Partial destination needed communication");
    h.Int(static_cast<int64_t>(p.hash));
    WEFT_ASSIGN_OR_RETURN(e->post_, Executor::Create(std::move(p), rank));
  }
  const std::string layouts = src->Describe() + "\n=>\n" + dst->Describe();
  e->fingerprint_ = h.Text(layouts).value();

  // The union of the two meshes' ranks, ascending.
  for (int64_t i = 0; i < a.size(); ++i) e->group_.push_back(a.RankAtIndex(i));
  for (int64_t i = 0; i < b.size(); ++i) e->group_.push_back(b.RankAtIndex(i));
  std::sort(e->group_.begin(), e->group_.end());
  e->group_.erase(std::unique(e->group_.begin(), e->group_.end()), e->group_.end());

  Coord ca{}, cb{};
  e->in_src_ = rank >= 0 && a.Coordinate(rank, ca.data());
  e->in_dst_ = rank >= 0 && b.Coordinate(rank, cb.data());
  if (!e->in_src_ && !e->in_dst_) return std::shared_ptr<const CrossExecutor>(std::move(e));
  const Layout &sr = *e->src_r_, &dr = *e->dst_r_;
  const int64_t item = ItemSize(src->dtype());
  // The source's replicated mesh dims: each destination rank reads one replica of them.
  std::vector<int32_t> rep;
  for (int32_t m = 0; m < a.ndim(); ++m)
    if (a.shape()[m] > 1 && std::holds_alternative<Replicate>(sr.placements()[m])) rep.push_back(m);
  // Whether source coordinate `p` is the replica destination rank q (at index qi of b) reads.
  auto chosen = [&](const int64_t* p, int32_t q, int64_t qi) {
    Coord own{};
    if (a.Coordinate(q, own.data()))  // q holds a replica itself: it reads its own
      return std::all_of(rep.begin(), rep.end(), [&](int32_t m) { return p[m] == own[m]; });
    int64_t k = qi;
    for (auto it = rep.rbegin(); it != rep.rend(); ++it) {
      const int64_t ext = a.shape()[*it];
      if (p[*it] != (k % ext)) return false;
      k /= ext;
    }
    return true;
  };
  const size_t n = e->group_.size();
  e->sends_.assign(n, Box{});
  e->recvs_.assign(n, Box{});
  for (Box& x : e->sends_) x.ndim = src->ndim();
  for (Box& x : e->recvs_) x.ndim = src->ndim();
  if (e->in_src_) {
    e->from_block_ = planner::BlockBox(sr, ca.data());
    for (int64_t qi = 0; qi < b.size(); ++qi) {
      const int32_t q = b.RankAtIndex(qi);
      if (q == rank || !chosen(ca.data(), q, qi)) continue;
      const Coord cq = CoordAt(b, qi);
      const Box box = planner::Intersect(e->from_block_, planner::BlockBox(dr, cq.data()));
      if (box.Empty()) continue;
      e->sends_[static_cast<size_t>(MemberOf(e->group_, q))] = box;
      e->send_bytes_ += box.Volume() * item;
    }
  }
  if (e->in_dst_) {
    e->to_block_ = planner::BlockBox(dr, cb.data());
    int64_t self_index = 0;
    for (int64_t i = 0; i < b.size(); ++i)
      if (b.RankAtIndex(i) == rank) self_index = i;
    for (int64_t pi = 0; pi < a.size(); ++pi) {
      const Coord cp = CoordAt(a, pi);
      if (!chosen(cp.data(), rank, self_index)) continue;
      const int32_t p = a.RankAtIndex(pi);
      const Box box = planner::Intersect(planner::BlockBox(sr, cp.data()), e->to_block_);
      if (box.Empty()) continue;
      if (p == rank) {
        e->keep_ = box;
        continue;
      }
      e->recvs_[static_cast<size_t>(MemberOf(e->group_, p))] = box;
      e->recv_bytes_ += box.Volume() * item;
    }
  }
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
  WEFT_RETURN_IF_ERROR(comm->Allreduce(v, v, 2, DType{kCodeUInt, 64, 1}, ReduceOp::kMax, args));
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
