#include "placement/halo/halo_plan.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include "common/fnv1a.hpp"
#include "placement/halo/dim_segments.hpp"

namespace weft::placement::halo {
namespace {

enum class Kind { kInterior, kSkipped, kConstant, kTransfer };

int64_t PositionOf(const Mesh& mesh, const int64_t* coord) {
  int64_t pos = 0;
  for (int32_t m = 0; m < mesh.ndim(); ++m) pos = pos * mesh.shape()[m] + coord[m];
  return pos;
}

void CoordOf(const Mesh& mesh, int64_t pos, int64_t* coord) {
  for (int32_t m = mesh.ndim() - 1; m >= 0; --m) {
    coord[m] = pos % mesh.shape()[m];
    pos /= mesh.shape()[m];
  }
}

// The windowed tensor dims in ascending order: the order of PHASES' phases.
std::vector<int32_t> WindowedDims(const Geometry& g) {
  std::vector<int32_t> w;
  for (int32_t d = 0; d < g.ndim(); ++d)
    if (g.windowed(d) >= 0) w.push_back(d);
  return w;
}

// Calls fn(kind, phase, region, owner position) for every box of the product of per-dim
// segment lists, last dim fastest; `only` (>= 0) is the one dim whose piece decides the owner
// (a phase's), -1: every dim outside the owned block does.
template <class Fn>
void ForEachBox(const Geometry& g, const int64_t* coord,
                const std::vector<std::vector<DimSeg>>& segs, int32_t phase, int32_t only,
                Fn&& fn) {
  const Mesh& mesh = g.layout().mesh();
  const int32_t nd = g.layout().ndim();
  const bool star = g.spec().stencil == Stencil::kStar;
  for (const auto& s : segs)
    if (s.empty()) return;
  std::vector<size_t> at(static_cast<size_t>(nd), 0);
  while (true) {
    Region r;
    r.dst.ndim = r.src.ndim = nd;
    int32_t outside = 0;
    bool constant = false;
    Coord oc{};
    std::copy(coord, coord + mesh.ndim(), oc.begin());
    for (int32_t d = 0; d < nd; ++d) {
      const DimSeg& s = segs[static_cast<size_t>(d)][at[static_cast<size_t>(d)]];
      r.dst.offset[d] = s.dst;
      r.dst.shape[d] = s.len;
      r.src.offset[d] = s.src;
      r.src.shape[d] = s.src_len();
      r.step[static_cast<size_t>(d)] = s.step;
      outside += s.owned ? 0 : 1;
      constant = constant || s.constant;
      if (!s.owned && !s.constant && (only < 0 || only == d)) g.SetPiece(d, s.piece, oc.data());
    }
    Kind k = Kind::kTransfer;
    if (only < 0 && outside == 0)
      k = Kind::kInterior;
    else if (only < 0 && star && outside >= 2)
      k = Kind::kSkipped;
    else if (constant)
      k = Kind::kConstant;
    fn(k, phase, r, PositionOf(mesh, oc.data()));
    int32_t d = nd - 1;
    for (; d >= 0; --d) {
      auto& i = at[static_cast<size_t>(d)];
      if (++i < segs[static_cast<size_t>(d)].size()) break;
      i = 0;
    }
    if (d < 0) return;
  }
}

// Calls fn(kind, phase, region, owner position) for every box of the window of the rank at
// `coord`, in a fixed order that every rank reproduces. NEIGHBOR (phases = false) reports the
// interior, star-skipped, constant and transfer boxes of its one phase; PHASES reports, per
// phase, its constant and transfer boxes.
template <class Fn>
void ForEachRecv(const Geometry& g, const int64_t* coord, bool phases, Fn&& fn) {
  const Layout& l = g.layout();
  const int32_t nd = l.ndim();
  const Box owned = g.Owned(coord), win = g.Window(coord);
  if (win.Empty()) return;
  std::vector<std::vector<DimSeg>> full(static_cast<size_t>(nd));
  for (int32_t d = 0; d < nd; ++d) {
    const int64_t a = owned.offset[d], b = a + owned.shape[d];
    const int32_t i = g.windowed(d);
    if (i < 0) {
      full[static_cast<size_t>(d)] = {DimSeg{a, b - a, false, a, 1, 0, true}};
      continue;
    }
    const DimSpec& s = g.spec().dims[static_cast<size_t>(i)];
    full[static_cast<size_t>(d)] = Segments(win.offset[d], win.offset[d] + win.shape[d], a, b,
                                            l.shape()[d], s.lo_rule, s.hi_rule, g.pieces(d));
  }
  const bool star = g.spec().stencil == Stencil::kStar;
  if (!phases) {
    ForEachBox(g, coord, full, 0, -1, fn);
    return;
  }
  const std::vector<int32_t> wd = WindowedDims(g);
  auto owned_only = [](const std::vector<DimSeg>& v) {
    std::vector<DimSeg> o;
    for (const DimSeg& s : v)
      if (s.owned) o.push_back(s);
    return o;
  };
  for (size_t k = 0; k < wd.size(); ++k) {
    std::vector<std::vector<DimSeg>> segs(static_cast<size_t>(nd));
    for (int32_t e = 0; e < nd; ++e) {
      const auto& f = full[static_cast<size_t>(e)];
      auto& s = segs[static_cast<size_t>(e)];
      const auto pos = std::find(wd.begin(), wd.end(), e);
      const bool earlier = pos != wd.end() && static_cast<size_t>(pos - wd.begin()) < k;
      if (e == wd[k]) {
        for (const DimSeg& x : f)
          if (!x.owned) s.push_back(x);
      } else if (earlier && !star) {
        // Rows the owner's padded block already holds: read in place (forwarding).
        s.push_back(DimSeg{win.offset[e], win.shape[e], false, win.offset[e], 1, 0, true});
      } else {
        s = owned_only(f);
      }
    }
    ForEachBox(g, coord, segs, static_cast<int32_t>(k), wd[k], fn);
  }
}

// The box an owner's source holds by phase k: phase 0 reads its owned block (the local tensor,
// or in place the padded block, whose window then contains it); later phases read its padded
// block: the window in the dims of earlier phases, owned ∩ window in the others.
Box Readable(const Geometry& g, const int64_t* coord, const std::vector<int32_t>& wd, size_t k) {
  const Box owned = g.Owned(coord), win = g.Window(coord);
  if (k == 0) return owned;
  Box r = planner::Intersect(owned, win);
  for (size_t j = 0; j < k; ++j) {
    const int32_t d = wd[j];
    r.offset[d] = win.offset[d];
    r.shape[d] = win.shape[d];
  }
  return r;
}

// What one transport gives this rank, and what it costs all ranks.
struct Candidate {
  std::vector<Phase> phases;
  int64_t messages = 0;  // over every rank (one a box)
  int64_t bytes = 0;     // elements moved between ranks, over every rank
  bool feasible = true;
  std::string why;  // when not feasible
};

void AddTo(std::vector<Message>& list, int64_t peer, const Region& r) {
  if (list.empty() || list.back().peer != peer) {
    // Kept sorted by peer: find or insert.
    auto it = std::lower_bound(list.begin(), list.end(), peer,
                               [](const Message& m, int64_t p) { return m.peer < p; });
    if (it == list.end() || it->peer != peer) it = list.insert(it, Message{peer, {}, 0});
    it->regions.push_back(r);
    it->elements += r.src.Volume();
    return;
  }
  list.back().regions.push_back(r);
  list.back().elements += r.src.Volume();
}

// Transport: PHASES for box stencils over several windowed dims where it sends fewer
// messages than NEIGHBOR (one-hop windows), or as many and fewer bytes; NEIGHBOR otherwise.
// cand: [0] NEIGHBOR, [1] PHASES.
Result<Transport> ChooseTransport(Transport asked, const Candidate (&cand)[2], bool star,
                                  size_t windowed) {
  if (asked == Transport::kPhases) {
    if (!cand[1].feasible) return InvalidArgument("desc->transport is PHASES but " + cand[1].why);
    return Transport::kPhases;
  }
  if (asked == Transport::kAuto) {
    const bool fewer = cand[1].messages < cand[0].messages ||
                       (cand[1].messages == cand[0].messages && cand[1].bytes < cand[0].bytes);
    if (!star && windowed >= 2 && cand[1].feasible && fewer) return Transport::kPhases;
  }
  return Transport::kNeighbor;
}

// What every rank of the mesh must agree on (SPEC §6.4): the layout, the descriptor and the
// transport chosen.
uint64_t Fingerprint(const Geometry& g, Transport t) {
  weft::Fnv1a h;
  h.Text(g.layout().Describe());
  const HaloSpec& s = g.spec();
  for (const DimSpec& d : s.dims) {
    h.Int(d.dim).Int(static_cast<int64_t>(d.lo_rule)).Int(static_cast<int64_t>(d.hi_rule));
    h.Int(d.lo).Int(d.hi).Int(d.pad_lo).Int(d.pad_hi).Ints(d.windows);
  }
  h.Int(static_cast<int64_t>(s.stencil)).Int(static_cast<int64_t>(t)).Int(s.deterministic ? 1 : 0);
  h.Bytes(&s.constant, sizeof(s.constant));
  return h.value();
}

}  // namespace

std::vector<int32_t> HaloPlan::MeshRanks() const {
  const Mesh& mesh = layout().mesh();
  std::vector<int32_t> ranks(static_cast<size_t>(mesh.size()));
  for (int64_t i = 0; i < mesh.size(); ++i) ranks[static_cast<size_t>(i)] = mesh.RankAtIndex(i);
  return ranks;
}

Result<std::shared_ptr<const HaloPlan>> HaloPlan::Create(LayoutPtr layout, HaloSpec spec,
                                                         int32_t rank) {
  const Transport asked = spec.transport;
  WEFT_ASSIGN_OR_RETURN(Geometry geo, Geometry::Create(std::move(layout), std::move(spec)));
  std::shared_ptr<HaloPlan> p(new HaloPlan(std::move(geo)));
  const Geometry& g = p->geo_;
  const Mesh& mesh = g.layout().mesh();
  p->rank_ = rank;
  Coord me{};
  p->in_mesh_ = rank >= 0 && mesh.Coordinate(rank, me.data());
  p->position_ = p->in_mesh_ ? PositionOf(mesh, me.data()) : -1;
  const std::vector<int32_t> wd = WindowedDims(g);
  const bool star = g.spec().stencil == Stencil::kStar;

  Candidate cand[2];  // [0] NEIGHBOR, [1] PHASES
  cand[1].phases.resize(wd.size());
  for (size_t k = 0; k < wd.size(); ++k) cand[1].phases[k].dim = wd[k];
  cand[0].phases.resize(1);
  // Every position's receives, in mesh order: this rank keeps its own receives and the boxes it
  // serves; every rank counts the same messages and finds the same infeasibility first.
  Coord c{};
  for (int64_t pos = 0; pos < mesh.size(); ++pos) {
    CoordOf(mesh, pos, c.data());
    const Box owned = g.Owned(c.data()), win = g.Window(c.data());
    if (p->contain_owned_ && !owned.Empty() && !planner::Contains(win, owned)) {
      p->contain_owned_ = false;
    }
    for (int mode = 0; mode < 2; ++mode) {
      Candidate& cd = cand[mode];
      if (mode == 1 && !cd.feasible) continue;
      ForEachRecv(
          g, c.data(), mode == 1, [&](Kind k, int32_t phase, const Region& r, int64_t owner) {
            if (k != Kind::kTransfer) {
              if (pos == p->position_ && k == Kind::kConstant)
                cd.phases[static_cast<size_t>(phase)].constants.push_back(r.dst);
              if (pos == p->position_ && mode == 0 && k == Kind::kSkipped)
                p->skipped_.push_back(r.dst);
              return;
            }
            if (mode == 1 && cd.feasible) {
              Coord oc{};
              CoordOf(mesh, owner, oc.data());
              if (!planner::Contains(Readable(g, oc.data(), wd, static_cast<size_t>(phase)),
                                     r.src)) {
                cd.feasible = false;
                cd.why =
                    "mesh position " + std::to_string(pos) + " needs, in the phase of tensor dim " +
                    std::to_string(wd[static_cast<size_t>(phase)]) + ", rows that mesh position " +
                    std::to_string(owner) +
                    " does not hold by then (windows that do not contain their owned range, or "
                    "neighbours with different windows)";
              }
            }
            Phase& ph = cd.phases[static_cast<size_t>(phase)];
            if (owner == pos) {
              if (pos == p->position_) ph.self.push_back(r);
              return;
            }
            ++cd.messages;
            cd.bytes += r.src.Volume();
            if (pos == p->position_) AddTo(ph.recvs, owner, r);
            if (owner == p->position_) AddTo(ph.sends, pos, r);
          });
    }
  }
  if (p->in_mesh_) {
    p->owned_ = g.Owned(me.data());
    p->window_ = g.Window(me.data());
    p->interior_ = planner::Intersect(p->owned_, p->window_);
  }
  WEFT_ASSIGN_OR_RETURN(const Transport t, ChooseTransport(asked, cand, star, wd.size()));
  p->transport_ = t;
  p->phases_ = std::move(cand[t == Transport::kPhases ? 1 : 0].phases);
  if (!p->in_mesh_) p->phases_.clear();
  p->fingerprint_ = Fingerprint(g, t);
  return std::shared_ptr<const HaloPlan>(std::move(p));
}

}  // namespace weft::placement::halo
