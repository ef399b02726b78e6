#include "placement/planner/cost_model.hpp"

#include <algorithm>

namespace weft::placement::planner {
namespace {

// The group's size and its slowest link (SPEC §3.2: the largest alpha and beta of G's dims);
// `mixed` when its dims' links differ (only a tuning file makes them differ).
struct Group {
  double n = 1, alpha = 0, beta = 0;
  bool mixed = false;
};

Group GroupOf(const CostModel& model, uint32_t mesh_dims, const Mesh& mesh) {
  Group g;
  bool first = true;
  LinkCost seen;
  for (int32_t m = 0; m < mesh.ndim(); ++m) {
    if (((mesh_dims >> m) & 1u) == 0) continue;
    const LinkCost l = model.Link(m);
    g.n *= static_cast<double>(mesh.shape()[m]);
    g.alpha = std::max(g.alpha, l.alpha);
    g.beta = std::max(g.beta, l.beta);
    g.mixed = g.mixed || (!first && (l.alpha != seen.alpha || l.beta != seen.beta));
    seen = l;
    first = false;
  }
  return g;
}

// The link from coordinate c to q within a group over `dims`: the slowest of the dims on which
// they differ; `skip` where q differs on a dim the source replicates (localize.cpp takes those
// elements from the member that agrees with c there).
struct PeerLink {
  bool self = true, skip = false;
  LinkCost link{0, 0};
};

PeerLink LinkTo(const CostModel& model, const std::vector<int32_t>& dims, const Layout& from,
                const Coord& c, const Coord& q) {
  PeerLink p;
  for (int32_t m : dims) {
    if (q[m] == c[m]) continue;
    p.self = false;
    p.skip = p.skip || std::holds_alternative<Replicate>(from.placements()[m]);
    p.link.alpha = std::max(p.link.alpha, model.Link(m).alpha);
    p.link.beta = std::max(p.link.beta, model.Link(m).beta);
  }
  return p;
}

// A pairwise exchange over dims whose links differ, at sample `k` (coordinate `c`): each peer's
// share at its own link, the slowest of the dims on which its coordinate differs, instead of
// every byte at the group's slowest (which would make a step over [hosts, local] look as if
// all it moves crossed hosts, and the planner split it into steps that move more in all and
// no less across hosts). Peers are those localize.cpp takes data from: the ones that agree on
// the source's Replicate dims; a peer's share is its source block within this rank's new one.
double MixedExchangeAt(const CostModel& model, uint32_t mesh_dims, const Layout& from_layout,
                       double item, const SampleBlocks& to, const Coord& c, size_t k) {
  const Mesh& mesh = from_layout.mesh();
  const int32_t nd = from_layout.ndim();
  std::vector<int32_t> dims;
  for (int32_t m = 0; m < mesh.ndim(); ++m)
    if ((mesh_dims >> m) & 1u) dims.push_back(m);
  const int64_t* to_off = to.Block(k);
  const int64_t* to_ext = to_off + nd;
  std::vector<int64_t> ext(static_cast<size_t>(nd)), off(static_cast<size_t>(nd));
  Coord q = c;
  for (int32_t m : dims) q[m] = 0;
  double cost = 0;
  // Every coordinate of the group, odometer-style over `dims`.
  while (true) {
    const PeerLink peer = LinkTo(model, dims, from_layout, c, q);
    if (!peer.self) cost += peer.link.alpha;  // a message to every member, as uniform charges
    if (!peer.self && !peer.skip) {
      from_layout.BlockAt(q.data(), ext.data(), off.data());
      int64_t v = 1;
      for (int32_t d = 0; d < nd; ++d) {
        const int64_t lo = std::max(off[d], to_off[d]);
        const int64_t hi = std::min(off[d] + ext[d], to_off[d] + to_ext[d]);
        v *= hi > lo ? hi - lo : 0;
      }
      cost += peer.link.beta * static_cast<double>(v) * item;
    }
    size_t i = 0;
    for (; i < dims.size(); ++i) {
      const int32_t m = dims[i];
      if (++q[m] < mesh.shape()[m]) break;
      q[m] = 0;
    }
    if (i == dims.size()) break;
  }
  return cost;
}

// Elements two blocks share at sample `k`.
int64_t Kept(const SampleBlocks& a, const SampleBlocks& b, size_t k) {
  const int64_t *ao = a.Block(k), *bo = b.Block(k);
  const int64_t *as = ao + a.ndim, *bs = bo + b.ndim;
  int64_t v = 1;
  for (int32_t d = 0; d < a.ndim; ++d) {
    const int64_t lo = std::max(ao[d], bo[d]);
    const int64_t hi = std::min(ao[d] + as[d], bo[d] + bs[d]);
    v *= hi > lo ? hi - lo : 0;
  }
  return v;
}

// The per-rank estimate at sample `k`.
double CostAt(const CostModel& model, StepKind kind, const Group& g, double item,
              const SampleBlocks& from, const SampleBlocks& to, size_t k) {
  const double from_b = static_cast<double>(from.Volume(k)) * item;
  const double to_b = static_cast<double>(to.Volume(k)) * item;
  const double n = g.n, alpha = g.alpha, beta = g.beta;
  switch (kind) {
    case StepKind::kLocal:
      return model.copy_beta * to_b;
    case StepKind::kAllGather:
      return (n - 1) * alpha + beta * (to_b - from_b);
    case StepKind::kAllToAll:
    case StepKind::kExchange: {
      const double kept = static_cast<double>(Kept(from, to, k)) * item;
      return (n - 1) * alpha + beta * (to_b - kept) + model.copy_beta * kept;
    }
    case StepKind::kAllReduce:
      return 2 * (n - 1) * alpha + 2 * (n - 1) / n * beta * from_b + model.reduce_beta * from_b;
    case StepKind::kReduceScatter:
      return (n - 1) * alpha + (n - 1) / n * (beta + model.reduce_beta) * from_b;
  }
  return 0;
}

}  // namespace

std::vector<Coord> SampleCoords(const Mesh& mesh) {
  // Coordinate 0 holds the largest chunk pieces but often moves nothing (its old and new
  // blocks tend to coincide), so also sample one step along each mesh dim and the last
  // coordinate. A fixed sample keeps the cost independent of the rank and of the world size.
  std::vector<Coord> out(1, Coord{});
  for (int32_t m = 0; m < mesh.ndim(); ++m) {
    if (mesh.shape()[m] == 1) continue;
    out.emplace_back()[m] = 1;
  }
  Coord& last = out.emplace_back();
  for (int32_t m = 0; m < mesh.ndim(); ++m) last[m] = mesh.shape()[m] - 1;
  return out;
}

SampleBlocks::SampleBlocks(const Layout& layout, std::span<const Coord> samples)
    : ndim(layout.ndim()), count(samples.size()) {
  const auto nd = static_cast<size_t>(ndim);
  data.resize(count * (2 * nd + 1));
  for (size_t k = 0; k < count; ++k) {
    int64_t* o = data.data() + 2 * k * nd;
    layout.BlockAt(samples[k].data(), o + nd, o);
    int64_t v = 1;
    for (size_t d = 0; d < nd; ++d) v *= o[nd + d];
    data[2 * count * nd + k] = v;
  }
}

double StepCostAt(const CostModel& model, const StepShape& shape, const Layout& from_layout,
                  double item, const SampleBlocks& from, const SampleBlocks& to) {
  const Mesh& mesh = from_layout.mesh();
  const Group g = GroupOf(model, shape.mesh_dims, mesh);
  if (g.mixed && (shape.kind == StepKind::kAllToAll || shape.kind == StepKind::kExchange)) {
    const std::vector<Coord> samples = SampleCoords(mesh);
    double cost = 0;
    for (size_t k = 0; k < from.size(); ++k) {
      const double kept = static_cast<double>(Kept(from, to, k)) * item;
      cost = std::max(
          cost, MixedExchangeAt(model, shape.mesh_dims, from_layout, item, to, samples[k], k) +
                    model.copy_beta * kept);
    }
    return cost;
  }
  double cost = CostAt(model, shape.kind, g, item, from, to, 0);
  for (size_t k = 1; k < from.size(); ++k)
    cost = std::max(cost, CostAt(model, shape.kind, g, item, from, to, k));
  return cost;
}

double StepCost(const CostModel& model, const Step& step) {
  const Mesh& mesh = step.from->mesh();
  const std::vector<Coord> samples = SampleCoords(mesh);
  StepShape shape{step.kind, 0};
  for (int32_t m : step.mesh_dims) shape.mesh_dims |= 1u << m;
  return StepCostAt(model, shape, *step.from, static_cast<double>(ItemSize(step.from->dtype())),
                    SampleBlocks(*step.from, samples), SampleBlocks(*step.to, samples));
}

int64_t StepMessages(const Step& step) {
  int64_t n = 1;
  for (int32_t m : step.mesh_dims) n *= step.from->mesh().shape()[m];
  switch (step.kind) {
    case StepKind::kLocal:
      return 0;
    case StepKind::kAllReduce:
      return 2 * (n - 1);
    default:
      return n - 1;
  }
}

}  // namespace weft::placement::planner
