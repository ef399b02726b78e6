#include "placement/planner/search.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <queue>
#include <string>
#include <tuple>

#include "placement/planner/byte_bound.hpp"
#include "placement/planner/edges.hpp"
#include "placement/planner/state.hpp"

namespace weft::placement::planner {
namespace {

Status CheckPair(const Layout& src, const Layout& dst) {
  if (!src.mesh().SameAs(dst.mesh()))
    return InvalidArgument("src and dst layouts are on different meshes");
  if (src.shape() != dst.shape())
    return InvalidArgument("src and dst layouts have different global shapes");
  if (!(src.dtype() == dst.dtype()))
    return InvalidArgument("src dtype " + DTypeName(src.dtype()) + " differs from dst dtype " +
                           DTypeName(dst.dtype()));
  for (int32_t m = 0; m < src.mesh().ndim(); ++m) {
    const Placement &a = src.placements()[m], &b = dst.placements()[m];
    const std::string at = "mesh dim " + std::to_string(m) + ": ";
    // An error on every extent (SPEC §3.1), so that a pair's validity does not depend on the
    // mesh it is planned on.
    if (IsShard(a) && b == Placement{Partial{ReduceOp::kAvg}})
      return InvalidArgument(at + PlacementName(a) +
                             " -> P(avg) has no exact local form (SPEC §3.1)");
    // Also on a mesh dim of one member, where the data would not change: the pair says the
    // caller mixed up two reductions, and must fail the same on every mesh (SPEC §3.1).
    if (IsPartial(a) && IsPartial(b) && a != b)
      return InvalidArgument(at + PlacementName(a) + " -> " + PlacementName(b) +
                             " changes the reduction op (SPEC §2.4)");
  }
  return Status::Ok();
}

struct Label {
  double cost = std::numeric_limits<double>::infinity();
  int64_t steps = 0;
  int32_t prev = -1;  // state
  Edge edge;          // from prev
  double edge_cost = 0;
};

// Ties break on (cost, steps, state key): a fixed total order, so every rank agrees. The key
// enters the queue as its rank among the states' keys (distinct), which orders the same.
using QueueItem = std::tuple<double, int64_t, int32_t, int32_t>;

std::vector<int32_t> KeyRanks(const std::vector<State>& states) {
  std::vector<int32_t> order(states.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int32_t>(i);
  std::sort(order.begin(), order.end(),
            [&](int32_t a, int32_t b) { return KeyLess(states[a], states[b]); });
  std::vector<int32_t> rank(states.size());
  for (size_t r = 0; r < order.size(); ++r) rank[order[r]] = static_cast<int32_t>(r);
  return rank;
}

double EdgeCost(const CostModel& model, const std::vector<State>& states, int32_t a,
                const Edge& e) {
  const Layout& from = *states[a].info->layout;
  return StepCostAt(model, e.shape, from, static_cast<double>(ItemSize(from.dtype())),
                    states[a].info->samples, states[e.to].info->samples);
}

Result<std::vector<Step>> ShortestPath(const std::vector<State>& states, int32_t target,
                                       const CostModel& model) {
  std::vector<Label> label(states.size());
  const std::vector<int32_t> key = KeyRanks(states);
  std::vector<QueueItem> storage;
  storage.reserve(4 * states.size());
  std::priority_queue<QueueItem, std::vector<QueueItem>, std::greater<>> queue({},
                                                                               std::move(storage));
  std::vector<Edge> edges;
  edges.reserve(2 * states.size());
  std::vector<char> done(states.size(), 0);
  label[0].cost = 0;
  queue.emplace(0.0, 0, key[0], 0);
  while (!queue.empty()) {
    const int32_t a = std::get<3>(queue.top());
    queue.pop();
    if (done[a]) continue;
    done[a] = 1;
    if (a == target) break;
    EdgesFrom(states, a, states[target], edges, done);
    for (const Edge& e : edges) {
      Label& l = label[e.to];
      const double edge_cost = EdgeCost(model, states, a, e);
      const double cost = label[a].cost + edge_cost;
      const int64_t steps = label[a].steps + 1;
      if (std::tie(cost, steps) >= std::tie(l.cost, l.steps)) continue;
      l = {cost, steps, a, e, edge_cost};
      queue.emplace(cost, steps, key[e.to], e.to);
    }
  }
  if (!done[target]) return Internal("planner: no sequence of steps reaches dst");
  std::vector<Step> path;
  for (int32_t s = target; s != 0; s = label[s].prev) {
    path.push_back(MakeStep(states, label[s].prev, label[s].edge));
    path.back().cost = label[s].edge_cost;
  }
  std::reverse(path.begin(), path.end());
  return path;
}

// The cheapest single step from src (state 0) to dst: for a pair without Partial there is
// always one (an exchange over every mesh dim of extent > 1 is closed), and it receives
// exactly what each rank lacks.
Result<Step> OneStep(const std::vector<State>& states, int32_t target, const CostModel& model) {
  std::vector<Edge> edges;
  EdgesFrom(states, 0, states[target], edges);
  const Edge* best = nullptr;
  double best_cost = 0;
  for (const Edge& e : edges) {
    if (e.to != target) continue;
    const double cost = EdgeCost(model, states, 0, e);
    if (!best || cost < best_cost) {
      best = &e;
      best_cost = cost;
    }
  }
  if (!best) return Internal("planner: no single step reaches dst");
  Step step = MakeStep(states, 0, *best);
  step.cost = best_cost;
  return step;
}

int64_t Messages(const std::vector<Step>& steps) {
  int64_t n = 0;
  for (const Step& s : steps) n += StepMessages(s);
  return n;
}

// SPEC §3.2: a multi-step plan of a pair without Partial is kept past the byte bound only when
// the model rates it cheaper than the one-step plan, no rank that lacks nothing receives, and
// the excess is at most the cap on every rank; otherwise the one-step plan replaces it.
Status HonourByteBound(const std::vector<State>& states, int32_t target, const CostModel& model,
                       Plan& plan) {
  if (plan.steps.size() <= 1 || !ByteBoundApplies(*plan.src, *plan.dst)) return Status::Ok();
  const ByteBound bound = CheckByteBound(plan);
  if (bound.within()) return Status::Ok();
  WEFT_ASSIGN_OR_RETURN(Step direct, OneStep(states, target, model));
  direct.from = plan.src;
  direct.to = plan.dst;
  BoundNote& note = plan.bound_note;
  note.bound = bound;
  const bool keep = bound.checked && bound.idle_rank < 0 && bound.excess <= plan.extra_bytes_cap &&
                    plan.cost < direct.cost;
  if (keep) {
    note.kind = BoundNote::Kind::kExceeds;
    note.other = Summary({direct});
    note.other_cost = direct.cost;
    note.messages = Messages(plan.steps);
    note.other_messages = StepMessages(direct);
    return Status::Ok();
  }
  note.kind = bound.checked ? BoundNote::Kind::kDeclined : BoundNote::Kind::kUnchecked;
  note.other = Summary(plan.steps);
  note.other_cost = plan.cost;
  note.other_messages = Messages(plan.steps);
  note.messages = StepMessages(direct);
  plan.steps = {std::move(direct)};
  plan.cost = plan.steps[0].cost;
  return Status::Ok();
}

// PlanRedistribute less the hash.
Result<Plan> Search(const LayoutPtr& src, const LayoutPtr& dst, const CostModel& model,
                    int64_t extra_bytes_cap, StateCache* cache) {
  if (!src || !dst) return InvalidArgument("src or dst layout is NULL");
  if (extra_bytes_cap < 0)
    return InvalidArgument("extra_bytes_cap is " + std::to_string(extra_bytes_cap) +
                           " but must be >= 0");
  WEFT_RETURN_IF_ERROR(CheckPair(*src, *dst));
  int32_t target = 0;
  WEFT_ASSIGN_OR_RETURN(std::vector<State> states, EnumerateStates(*src, *dst, &target, cache));
  // Member by member: GCC 12 at -O3 takes the aggregate form for a read of uninitialised
  // memory (-Wmaybe-uninitialized).
  Plan plan;
  plan.src = src;
  plan.dst = dst;
  plan.extra_bytes_cap = extra_bytes_cap;
  plan.model_source = model.source;
  if (target != 0) {
    WEFT_ASSIGN_OR_RETURN(plan.steps, ShortestPath(states, target, model));
    // The search runs on layouts with R on size-1 mesh dims; show the caller's own at the ends.
    plan.steps.front().from = src;
    plan.steps.back().to = dst;
    for (const Step& s : plan.steps) plan.cost += s.cost;
    WEFT_RETURN_IF_ERROR(HonourByteBound(states, target, model, plan));
  }
  return plan;
}

}  // namespace

Result<Plan> PlanRedistribute(const LayoutPtr& src, const LayoutPtr& dst, const CostModel& model,
                              int64_t extra_bytes_cap, StateCache* cache) {
  WEFT_ASSIGN_OR_RETURN(Plan plan, Search(src, dst, model, extra_bytes_cap, cache));
  plan.hash = HashPlan(plan);
  return plan;
}

Result<double> RedistributeCost(const LayoutPtr& src, const LayoutPtr& dst, const CostModel& model,
                                StateCache* cache) {
  WEFT_ASSIGN_OR_RETURN(Plan plan, Search(src, dst, model, kDefaultExtraBytesCap, cache));
  return plan.cost;
}

}  // namespace weft::placement::planner
