#include "ops/engine/estimate.hpp"

#include <algorithm>
#include <variant>

namespace weft::ops {
namespace {

using Kind = PlacementCode::Kind;
using placement::planner::CostModel;

// The phases of a move, in the order the estimate prices them.
enum class Phase : uint8_t { kSlice, kAllToAll, kReduceScatter, kAllReduce, kAllGather, kNone };
constexpr Phase kPriced[] = {Phase::kSlice, Phase::kAllToAll, Phase::kReduceScatter,
                             Phase::kAllReduce, Phase::kAllGather};

// One mesh dim's part of a move: its phase (nullopt-like kNone with `invalid` where no
// redistribute does it), and whether a slice cuts the block.
struct DimMove {
  Phase phase = Phase::kNone;
  bool invalid = false, cuts = false;
};

DimMove MoveOf(const placement::Placement& from, const PlacementCode& to) {
  if (const auto* p = std::get_if<placement::Partial>(&from)) {
    if (to.kind == Kind::kPartial) return {Phase::kNone, to.op != p->op};
    return {to.kind == Kind::kShard ? Phase::kReduceScatter : Phase::kAllReduce};
  }
  if (const auto* s = std::get_if<placement::Shard>(&from)) {
    if (to.kind == Kind::kShard) return {to.dim == s->dim ? Phase::kNone : Phase::kAllToAll};
    if (to.kind == Kind::kReplicate) return {Phase::kAllGather};
    return {Phase::kNone, true};  // S -> P: never (engine.cpp, MovesShardToPartial)
  }
  if (to.kind == Kind::kReplicate) return {};
  return {Phase::kSlice, false, to.kind == Kind::kShard};  // R -> S slices, R -> P zeros
}

// The per-rank bytes of `in`'s block: its shards divide it, replicas and partials do not.
double BlockBytes(const placement::Layout& in) {
  double bytes = static_cast<double>(in.num_elements()) * static_cast<double>(ItemSize(in.dtype()));
  for (int32_t m = 0; m < in.mesh().ndim(); ++m)
    if (placement::IsShard(in.placements()[static_cast<size_t>(m)]))
      bytes /= static_cast<double>(in.mesh().shape()[m]);
  return bytes;
}

// Seconds for the move whose part on free mesh dim j is moves[j].
double Price(const CostModel& model, const placement::Mesh& mesh, std::span<const int32_t> free,
             std::span<const DimMove* const> moves, double bytes) {
  for (const DimMove* d : moves)
    if (d->invalid) return kNoMove;
  double cost = 0;
  bool sliced = false;
  for (Phase phase : kPriced)
    for (size_t j = 0; j < moves.size(); ++j) {
      if (moves[j]->phase != phase) continue;
      const double n = static_cast<double>(mesh.shape()[free[j]]);
      const placement::planner::LinkCost link = model.Link(free[j]);
      switch (phase) {
        case Phase::kSlice:
          sliced = true;
          if (moves[j]->cuts) bytes /= n;
          break;
        case Phase::kAllToAll:
          cost += (n - 1) * link.alpha + (n - 1) / n * link.beta * bytes;
          break;
        case Phase::kReduceScatter:
          cost += (n - 1) * link.alpha + (n - 1) / n * (link.beta + model.reduce_beta) * bytes;
          bytes /= n;
          break;
        case Phase::kAllReduce:
          cost += 2 * (n - 1) * link.alpha + 2 * (n - 1) / n * link.beta * bytes +
                  model.reduce_beta * bytes;
          break;
        default:  // kAllGather
          cost += (n - 1) * link.alpha + (n - 1) * link.beta * bytes;
          bytes *= n;
          break;
      }
    }
  return sliced ? cost + model.copy_beta * bytes : cost;
}

// Adds input `i`'s estimate to every combination in `out`.
void AddInput(const CostModel& model, const placement::Layout& in, size_t i, const RuleResult& r,
              std::span<const int32_t> free, std::vector<double>& out) {
  const size_t radix = r.strategies.size(), nfree = free.size();
  // Strategy k's class: the first strategy with the same code for this input.
  std::vector<const PlacementCode*> distinct;
  std::vector<size_t> cls(radix);
  for (size_t k = 0; k < radix; ++k) {
    const PlacementCode* c = &r.strategies[k].codes[i];
    auto at = std::find_if(distinct.begin(), distinct.end(),
                           [&](const PlacementCode* d) { return *d == *c; });
    cls[k] = static_cast<size_t>(at - distinct.begin());
    if (at == distinct.end()) distinct.push_back(c);
  }
  const size_t nd = distinct.size();
  std::vector<DimMove> dim_moves(nfree * nd);  // [j * nd + class]
  for (size_t j = 0; j < nfree; ++j)
    for (size_t c = 0; c < nd; ++c)
      dim_moves[j * nd + c] = MoveOf(in.placements()[static_cast<size_t>(free[j])], *distinct[c]);
  const double bytes = BlockBytes(in);
  size_t tuples = 1;
  for (size_t j = 0; j < nfree; ++j) tuples *= nd;
  std::vector<double> table(tuples);
  std::vector<const DimMove*> moves(nfree);
  for (size_t t = 0; t < tuples; ++t) {
    size_t rest = t;
    for (size_t j = nfree; j-- > 0;) {
      moves[j] = &dim_moves[j * nd + rest % nd];
      rest /= nd;
    }
    table[t] = Price(model, in.mesh(), free, moves, bytes);
  }
  // Every combination: its tuple index is the sum of its digits' weighted classes, kept per
  // digit position while the odometer turns (only the digits that changed are redone).
  std::vector<size_t> weight(nfree * radix), partial(nfree + 1, 0), digit(nfree, 0);
  for (size_t j = 0, w = tuples; j < nfree; ++j) {
    w /= nd;
    for (size_t k = 0; k < radix; ++k) weight[j * radix + k] = cls[k] * w;
  }
  size_t first = 0;  // the most significant digit that changed
  for (double& est : out) {
    for (size_t j = first; j < nfree; ++j)
      partial[j + 1] = partial[j] + weight[j * radix + digit[j]];
    est += table[partial[nfree]];
    size_t j = nfree;
    while (j-- > 0 && ++digit[j] == radix) digit[j] = 0;
    first = j < nfree ? j : 0;
  }
}

}  // namespace

std::vector<double> CombinationEstimates(std::span<const placement::LayoutPtr> inputs,
                                         const CostModel& model, const RuleResult& r,
                                         std::span<const int32_t> free) {
  size_t count = 1;
  for (size_t j = 0; j < free.size(); ++j) count *= r.strategies.size();
  std::vector<double> out(count, 0);
  for (size_t i = 0; i < inputs.size(); ++i) AddInput(model, *inputs[i], i, r, free, out);
  return out;
}

}  // namespace weft::ops
