#include "placement/planner/cost_model.hpp"

#include <algorithm>

namespace weft::placement::planner {
namespace {

// The per-rank estimate at mesh coordinate `c`.
double CostAt(const CostModel& model, const Step& step, const int64_t* c) {
  const double item = static_cast<double>(ItemSize(step.from->dtype()));
  const Box from = BlockBox(*step.from, c), to = BlockBox(*step.to, c);
  const double from_b = static_cast<double>(from.Volume()) * item;
  const double to_b = static_cast<double>(to.Volume()) * item;
  double n = 1, alpha = 0, beta = 0;
  for (int32_t m : step.mesh_dims) {
    n *= static_cast<double>(step.from->mesh().shape()[m]);
    alpha = std::max(alpha, model.Link(m).alpha);
    beta = std::max(beta, model.Link(m).beta);
  }
  switch (step.kind) {
    case StepKind::kLocal:
      return model.copy_beta * to_b;
    case StepKind::kAllGather:
      return (n - 1) * alpha + beta * (to_b - from_b);
    case StepKind::kAllToAll:
    case StepKind::kExchange: {
      const double kept = static_cast<double>(Intersect(from, to).Volume()) * item;
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

double StepCost(const CostModel& model, const Step& step) {
  // Coordinate 0 holds the largest chunk pieces but often moves nothing (its old and new
  // blocks tend to coincide), so also sample one step along each mesh dim and the last
  // coordinate. A fixed sample keeps the cost independent of the rank and of the world size.
  const Mesh& mesh = step.from->mesh();
  Coord c{};
  double cost = CostAt(model, step, c.data());
  for (int32_t m = 0; m < mesh.ndim(); ++m) {
    if (mesh.shape()[m] == 1) continue;
    c[m] = 1;
    cost = std::max(cost, CostAt(model, step, c.data()));
    c[m] = 0;
  }
  for (int32_t m = 0; m < mesh.ndim(); ++m) c[m] = mesh.shape()[m] - 1;
  return std::max(cost, CostAt(model, step, c.data()));
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
