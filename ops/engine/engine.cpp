#include "ops/engine/engine.hpp"

#include <algorithm>
#include <exception>
#include <functional>
#include <utility>

#include "common/fnv1a.hpp"
#include "ops/engine/candidate.hpp"
#include "ops/engine/estimate.hpp"
#include "ops/engine/halo_need.hpp"
#include "ops/engine/op_comm.hpp"
#include "placement/planner/search.hpp"
#include "placement/planner/tuned_model.hpp"

namespace weft::ops {
namespace {

using placement::Layout;
using placement::LayoutPtr;

std::string Str(int64_t v) { return std::to_string(v); }

Status CheckInputs(const OpDef& op, std::span<const LayoutPtr> inputs) {
  const auto n = static_cast<int32_t>(inputs.size());
  if (n < op.min_inputs || n > op.max_inputs)
    return InvalidArgument("operator '" + op.name + "' takes " +
                           (op.min_inputs == op.max_inputs
                                ? Str(op.min_inputs)
                                : Str(op.min_inputs) + " to " + Str(op.max_inputs)) +
                           " inputs, got " + Str(n));
  for (int32_t i = 0; i < n; ++i)
    if (!inputs[static_cast<size_t>(i)])
      return InvalidArgument("operator '" + op.name + "': input " + Str(i) + " is NULL");
  for (int32_t i = 1; i < n; ++i)
    if (!inputs[static_cast<size_t>(i)]->mesh().SameAs(inputs[0]->mesh()))
      return InvalidArgument("operator '" + op.name + "': input " + Str(i) +
                             " is on another mesh than input 0");
  return Status::Ok();
}

// The rule's answer, its exceptions turned into a status naming the operator (plugin rules
// arrive through callbacks that may throw).
Result<RuleResult> RunRule(const OpDef& op, std::span<const LayoutPtr> inputs,
                           const Attributes& attrs, std::vector<TensorInfo>* infos) {
  for (const LayoutPtr& l : inputs) infos->push_back({l->shape(), l->dtype()});
  RuleResult r;
  try {
    WEFT_RETURN_IF_ERROR(op.rule(*infos, attrs, &r));
  } catch (const std::exception& e) {
    return Internal("operator '" + op.name + "' (" + op.source + "): its rule threw: " + e.what());
  } catch (...) {
    return Internal("operator '" + op.name + "' (" + op.source + "): its rule threw");
  }
  Status checked = CheckRuleResult(op.name.c_str(), *infos, r);
  if (!checked.ok() && op.source != "built-in")  // say whose rule lied
    return Status(checked.code(), checked.message() + " (" + op.source + ")");
  WEFT_RETURN_IF_ERROR(checked);
  return r;
}

}  // namespace

uint64_t LayoutFingerprint(const Layout& l) {
  Fnv1a h;
  h.Int(static_cast<int64_t>(reinterpret_cast<uintptr_t>(&l.mesh())));
  h.Ints(l.shape()).Int(l.dtype().code).Int(l.dtype().bits).Int(l.dtype().lanes);
  for (const placement::Placement& p : l.placements()) {
    h.Int(static_cast<int64_t>(p.index()));
    if (const auto* s = std::get_if<placement::Shard>(&p)) h.Int(s->dim);
    if (const auto* q = std::get_if<placement::Partial>(&p)) h.Int(static_cast<int64_t>(q->op));
  }
  for (int32_t d = 0; d < l.ndim(); ++d)
    if (l.split(d).is_explicit()) h.Int(d).Ints(l.split(d).sizes);
  return h.value();
}

std::string Strategy::Describe() const {
  std::string out = op + ": cost " + std::to_string(cost * 1e6) + " us";
  if (op_cost > 0) out += " (its own communication " + std::to_string(op_cost * 1e6) + " us)";
  if (halo_cost > 0) out += " (halo exchanges " + std::to_string(halo_cost * 1e6) + " us)";
  for (size_t i = 0; i < inputs.size(); ++i) {
    out += "\n  input " + Str(int64_t(i)) + " -> " + inputs[i]->Describe() + " (" +
           std::to_string(input_costs[i] * 1e6) + " us)";
    if (i < halos.size())
      for (const placement::halo::DimSpec& d : halos[i].dims)
        out += "\n    halo on dim " + Str(d.dim) + ": padding " + Str(d.pad_lo) + "/" +
               Str(d.pad_hi) + " (" + placement::halo::BoundaryName(d.lo_rule) + "/" +
               placement::halo::BoundaryName(d.hi_rule) + "), explicit windows";
  }
  for (size_t i = 0; i < outputs.size(); ++i)
    out += "\n  output " + Str(int64_t(i)) + ": " + outputs[i]->Describe();
  return out;
}

Engine::Engine(const Registry& registry, placement::planner::CostModel model)
    : registry_(registry), model_(std::move(model)) {}

Engine::Engine(const Registry& registry, FromTuningFile) : registry_(registry), tuned_(true) {}

const placement::planner::CostModel& Engine::Model(const placement::Layout& layout) {
  if (!tuned_) return model_;
  for (const auto& [mesh, model] : models_)
    if (mesh == layout.mesh_ptr() || mesh->SameAs(layout.mesh())) return model;
  if (models_.size() >= 64) models_.clear();  // a program uses a few meshes
  auto model = placement::planner::ModelFor(layout.mesh());
  models_.emplace_back(layout.mesh_ptr(), model.ok() ? std::move(*model) : model_);
  return models_.back().second;
}

Result<double> Engine::MoveCost(const LayoutPtr& from, const LayoutPtr& to) {
  if (from->SameAs(*to)) return 0.0;
  const uint64_t key = Fnv1a().Int(LayoutFingerprint(*from)).Int(LayoutFingerprint(*to)).value();
  auto& bucket = moves_[key];
  for (const Move& m : bucket)
    if (m.from->SameAs(*from) && m.to->SameAs(*to)) return m.cost;
  WEFT_ASSIGN_OR_RETURN(double cost,
                        placement::planner::RedistributeCost(from, to, Model(*from), &states_));
  bucket.push_back({from, to, cost});
  return cost;
}

namespace {

// Whether the combination `choice` makes a Partial of a shard of some input on some mesh dim.
// The planner can (the shard in place, zeros elsewhere) and prices it as a local copy, but the
// op then runs on tensors inflated to full size, and its Partial output still owes the
// all-reduce the cost model does not see: an FFT of an S(0) input would pick "S(0) -> P(sum),
// FFT, P(sum)" over the transpose. DTensor never moves a shard to a Partial either. From R it
// stays allowed: a bias made P(sum) for a row-parallel product costs nothing and inflates
// nothing. (Mesh dims of extent 1 are R in every candidate.)
bool MovesShardToPartial(std::span<const LayoutPtr> inputs, const RuleResult& r,
                         const std::vector<int32_t>& choice) {
  for (size_t m = 0; m < choice.size(); ++m) {
    if (choice[m] < 0) continue;
    const auto& codes = r.strategies[static_cast<size_t>(choice[m])].codes;
    for (size_t i = 0; i < inputs.size(); ++i)
      if (placement::IsShard(inputs[i]->placements()[m]) &&
          codes[i].kind == PlacementCode::Kind::kPartial)
        return true;
  }
  return false;
}

}  // namespace

StrategyPtr Engine::Evaluate(const OpDef& op, std::span<const LayoutPtr> inputs,
                             const RuleResult& r, std::vector<int32_t> choice) {
  // Checked on the codes first: most of a candidate's cost is making its layouts.
  if (MovesShardToPartial(inputs, r, choice)) return nullptr;
  auto c = BuildCandidate(inputs, r, std::move(choice));
  if (!c.ok()) return nullptr;  // no layout for this combination
  auto s = std::make_shared<Strategy>();
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto cost = MoveCost(inputs[i], c->inputs[i]);
    if (!cost.ok()) return nullptr;  // e.g. P(max) -> P(sum): no redistribute does it
    s->input_costs.push_back(*cost);
    s->cost += *cost;
  }
  for (size_t m = 0; m < c->choice.size(); ++m) {
    if (c->choice[m] < 0) continue;
    for (const OpComm& comm : r.strategies[static_cast<size_t>(c->choice[m])].comm) {
      const auto t = static_cast<size_t>(comm.tensor);
      const LayoutPtr& l = t < c->inputs.size() ? c->inputs[t] : c->outputs[t - c->inputs.size()];
      auto cost = OpCommCost(Model(*l), *l, static_cast<int32_t>(m), comm);
      if (!cost.ok()) return nullptr;
      s->op_cost += *cost;
    }
  }
  s->cost += s->op_cost;
  if (!r.windows.empty()) {
    auto halos = InputHalos(c->inputs, r);
    if (!halos.ok()) return nullptr;
    for (size_t i = 0; i < halos->size(); ++i)
      if (!(*halos)[i].dims.empty())
        s->halo_cost += HaloCost(Model(*c->inputs[i]), *c->inputs[i], (*halos)[i]);
    s->halos = std::move(*halos);
    s->cost += s->halo_cost;
  }
  s->op = op.name;
  s->inputs = std::move(c->inputs);
  s->outputs = std::move(c->outputs);
  s->choice = std::move(c->choice);
  return s;
}

namespace {

// The combinations as mixed-radix numbers, mesh dim 0 most significant: index order is the
// fixed order ties break on.
struct Space {
  std::vector<int32_t> free;  // mesh dims of extent > 1
  int32_t ndim = 0;
  int64_t radix = 0, count = 1;
  std::vector<int32_t> Choice(int64_t index) const {
    std::vector<int32_t> c(static_cast<size_t>(ndim), -1);
    for (size_t j = free.size(); j-- > 0;) {
      c[static_cast<size_t>(free[j])] = static_cast<int32_t>(index % radix);
      index /= radix;
    }
    return c;
  }
};

}  // namespace

Result<std::vector<StrategyPtr>> Engine::Candidates(const OpDef& op,
                                                    std::span<const LayoutPtr> inputs,
                                                    const Attributes& attrs, bool all) {
  std::vector<TensorInfo> infos;
  WEFT_ASSIGN_OR_RETURN(RuleResult r, RunRule(op, inputs, attrs, &infos));
  const placement::Mesh& mesh = inputs[0]->mesh();
  Space space;
  space.ndim = mesh.ndim();
  space.radix = static_cast<int64_t>(r.strategies.size());
  for (int32_t m = 0; m < mesh.ndim(); ++m) {
    if (mesh.shape()[m] == 1) continue;
    space.free.push_back(m);
    space.count *= space.radix;
    if (space.count > kMaxCandidates)
      return Unsupported("operator '" + op.name + "': more than " + Str(kMaxCandidates) +
                         " candidate strategies on this mesh");
  }
  std::vector<StrategyPtr> out;
  if (all || space.count <= kExhaustiveUpTo) {
    for (int64_t i = 0; i < space.count; ++i)
      if (StrategyPtr s = Evaluate(op, inputs, r, space.Choice(i))) out.push_back(std::move(s));
    std::stable_sort(out.begin(), out.end(),
                     [](const StrategyPtr& a, const StrategyPtr& b) { return a->cost < b->cost; });
    if (!all && !out.empty()) out.resize(1);
  } else if (StrategyPtr best = Search(op, inputs, r, space.free, space.count)) {
    out.push_back(std::move(best));
  }
  if (out.empty())
    return InvalidArgument("operator '" + op.name + "' has no strategy for these inputs");
  return out;
}

StrategyPtr Engine::Search(const OpDef& op, std::span<const LayoutPtr> inputs, const RuleResult& r,
                           const std::vector<int32_t>& free, int64_t count) {
  Space space{free, inputs[0]->mesh().ndim(), static_cast<int64_t>(r.strategies.size()), count};
  // The inputs share a mesh (CheckInputs), so one model prices them all.
  const std::vector<double> est = CombinationEstimates(inputs, Model(*inputs[0]), r, free);
  std::vector<std::pair<double, int64_t>> order;
  order.reserve(est.size());
  for (size_t i = 0; i < est.size(); ++i)
    if (est[i] != kNoMove) order.emplace_back(est[i], static_cast<int64_t>(i));
  // A heap, not a sort: the search takes the first few of hundreds.
  std::make_heap(order.begin(), order.end(), std::greater<>());
  StrategyPtr best;
  int64_t best_index = 0, planned = 0;
  while (!order.empty()) {
    std::pop_heap(order.begin(), order.end(), std::greater<>());
    const auto [estimate, index] = order.back();
    order.pop_back();
    if (planned >= kExactCandidates && best && estimate > best->cost) break;
    StrategyPtr s = Evaluate(op, inputs, r, space.Choice(index));
    if (!s) continue;
    ++planned;
    if (!best || s->cost < best->cost || (s->cost == best->cost && index < best_index)) {
      best = std::move(s);
      best_index = index;
    }
  }
  return best;
}

Result<StrategyPtr> Engine::Propagate(std::string_view name, std::span<const LayoutPtr> inputs,
                                      const Attributes& attrs) {
  const OpDef* op = registry_.Find(name);
  if (!op) return InvalidArgument("no operator '" + std::string(name) + "' is registered");
  WEFT_RETURN_IF_ERROR(CheckInputs(*op, inputs));
  const uint64_t attr_key = attrs.Key(op->key_attrs);
  Fnv1a h;
  h.Int(static_cast<int64_t>(registry_.generation())).Text(op->name).Int(attr_key);
  for (const LayoutPtr& l : inputs) h.Int(static_cast<int64_t>(LayoutFingerprint(*l)));
  std::lock_guard<std::mutex> lock(mu_);
  // Bounded by clearing when full: the simplest policy that bounds memory (a framework keeps
  // asking about the same few hundred layouts; an LRU when a measurement says it matters).
  if (cache_.size() >= kMaxCached) cache_.clear();
  if (moves_.size() >= kMaxCached) moves_.clear();
  auto& bucket = cache_[h.value()];
  for (const Entry& e : bucket) {
    if (e.op != op->name || e.attr_key != attr_key || e.inputs.size() != inputs.size()) continue;
    bool same = true;
    for (size_t i = 0; i < inputs.size() && same; ++i) same = e.inputs[i]->SameAs(*inputs[i]);
    if (same) return e.best;
  }
  WEFT_ASSIGN_OR_RETURN(auto best, Candidates(*op, inputs, attrs, false));
  bucket.push_back({{inputs.begin(), inputs.end()}, op->name, attr_key, best[0]});
  return best[0];
}

Result<std::vector<StrategyPtr>> Engine::Enumerate(std::string_view name,
                                                   std::span<const LayoutPtr> inputs,
                                                   const Attributes& attrs) {
  const OpDef* op = registry_.Find(name);
  if (!op) return InvalidArgument("no operator '" + std::string(name) + "' is registered");
  WEFT_RETURN_IF_ERROR(CheckInputs(*op, inputs));
  std::lock_guard<std::mutex> lock(mu_);
  if (moves_.size() >= kMaxCached) moves_.clear();
  return Candidates(*op, inputs, attrs, true);
}

}  // namespace weft::ops
