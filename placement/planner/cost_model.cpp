#include "placement/planner/cost_model.hpp"

#include <algorithm>

namespace weft::placement::planner {
namespace {

// The group's size and its slowest link (SPEC §3.2: the largest alpha and beta of G's dims).
struct Group {
  double n = 1, alpha = 0, beta = 0;
};

Group GroupOf(const CostModel& model, uint32_t mesh_dims, const Mesh& mesh) {
  Group g;
  for (int32_t m = 0; m < mesh.ndim(); ++m) {
    if (((mesh_dims >> m) & 1u) == 0) continue;
    g.n *= static_cast<double>(mesh.shape()[m]);
    g.alpha = std::max(g.alpha, model.Link(m).alpha);
    g.beta = std::max(g.beta, model.Link(m).beta);
  }
  return g;
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

double StepCostAt(const CostModel& model, const StepShape& shape, const Mesh& mesh, double item,
                  const SampleBlocks& from, const SampleBlocks& to) {
  const Group g = GroupOf(model, shape.mesh_dims, mesh);
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
  return StepCostAt(model, shape, mesh, static_cast<double>(ItemSize(step.from->dtype())),
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
