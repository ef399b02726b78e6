#include "placement/planner/edges.hpp"

#include <algorithm>
#include <bit>

namespace weft::placement::planner {
namespace {

bool SameSplit(const StateInfo& a, const StateInfo& b, int32_t d) {
  const DimSplit &x = a.layout->split(d), &y = b.layout->split(d);
  return a.sharding[d] == b.sharding[d] && x.mesh_dims == y.mesh_dims && x.sizes == y.sizes;
}

int32_t Lowest(uint32_t mask) { return std::countr_zero(mask); }
int32_t Highest(uint32_t mask) { return 31 - std::countl_zero(mask); }

// Whether the pieces of tensor dim `d` at the level of the outer sharding dims `outer` agree
// in A and B (their outer sharding dims being the same list).
bool SameOuterPieces(const StateInfo& a, const StateInfo& b, int32_t d, uint32_t outer) {
  if ((((a.explicit_dims | b.explicit_dims) >> d) & 1u) == 0) return true;  // chunk: by nesting
  const auto n = static_cast<size_t>(std::popcount(outer));
  return OuterPieces(*a.layout, d, n) == OuterPieces(*b.layout, d, n);
}

// Tensor dim `d` is re-cut only inside mesh dims G: outside G the cut is the same list of dims,
// all of them outermost, giving the same pieces. Then each G-group's new blocks lie inside
// the union of its old blocks, so the exchange is closed within the group. (Sharding dims are
// ascending, so their masks say everything the lists do.)
bool ClosedWithin(const StateInfo& a, const StateInfo& b, int32_t d, uint32_t g) {
  const uint32_t sa = a.sharding[d], sb = b.sharding[d];
  for (uint32_t s : {sa, sb}) {
    const uint32_t in = s & g, out = s & ~g;
    if (in != 0 && out != 0 && Highest(out) > Lowest(in))
      return false;  // a dim outside G nested inside one in G
  }
  if ((sa & ~g) != (sb & ~g)) return false;
  return SameOuterPieces(a, b, d, sa & ~g);
}

// B's dim i replaces A's, a reduction or conjugate: the other tensor dims keep their splits
// and, when tensor dim `d` gains (or loses) the innermost mesh dim i, its outer pieces stay.
bool OnlyDimChanges(const StateInfo& a, const StateInfo& b, int32_t i, int32_t d) {
  for (int32_t e = 0; e < a.layout->ndim(); ++e)
    if (e != d && !SameSplit(a, b, e)) return false;
  if (d < 0) return true;
  const bool a_wide = std::popcount(a.sharding[d]) > std::popcount(b.sharding[d]);
  const StateInfo& wide = a_wide ? a : b;
  const StateInfo& narrow = a_wide ? b : a;
  const uint32_t sw = wide.sharding[d], sn = narrow.sharding[d];
  if (sw == 0 || Highest(sw) != i) return false;
  if (sn != (sw & ~(1u << i))) return false;
  return SameOuterPieces(wide, narrow, d, sn);
}

int32_t ShardDim(const Placement& p) {
  const auto* s = std::get_if<Shard>(&p);
  return s ? s->dim : -1;
}

bool Skipped(std::span<const char> skip, size_t b) { return !skip.empty() && skip[b]; }

void Reductions(const std::vector<State>& states, int32_t a, int32_t i, std::span<const char> skip,
                std::vector<Edge>& out) {
  const StateInfo& A = *states[a].info;
  for (size_t b = 0; b < states.size(); ++b) {
    if (Skipped(skip, b)) continue;
    const StateInfo& B = *states[b].info;
    if (IsPartial(B.placements()[i])) continue;
    bool same = true;
    for (size_t m = 0; m < A.placements().size() && same; ++m)
      same = static_cast<int32_t>(m) == i || A.codes[m] == B.codes[m];
    const int32_t d = ShardDim(B.placements()[i]);
    if (!same || !OnlyDimChanges(A, B, i, d)) continue;
    Edge e;
    e.to = static_cast<int32_t>(b);
    e.shape = {d < 0 ? StepKind::kAllReduce : StepKind::kReduceScatter, 1u << i};
    e.op = std::get<Partial>(A.placements()[i]).op;
    e.tensor_dim = d;
    out.push_back(e);
  }
}

void Conjugates(const std::vector<State>& states, int32_t a, const StateInfo& dst,
                std::span<const char> skip, std::vector<Edge>& out) {
  const StateInfo& A = *states[a].info;
  const int32_t nm = static_cast<int32_t>(A.placements().size());
  auto pending = [&](int32_t m) {
    return !IsPartial(A.placements()[m]) && IsPartial(dst.placements()[m]);
  };
  for (int32_t m = 0; m < nm; ++m)
    if (!pending(m) && A.codes[m] != dst.codes[m]) return;  // data still to move
  for (int32_t i = 0; i < nm; ++i) {
    if (!pending(i)) continue;
    const ReduceOp op = std::get<Partial>(dst.placements()[i]).op;
    const int32_t d = ShardDim(A.placements()[i]);
    if (d >= 0 && op == ReduceOp::kAvg) continue;  // S->P(avg) has no exact conjugate
    for (size_t b = 0; b < states.size(); ++b) {
      if (Skipped(skip, b)) continue;
      const StateInfo& B = *states[b].info;
      bool same = B.codes[i] == dst.codes[i];
      for (int32_t m = 0; m < nm && same; ++m) same = m == i || A.codes[m] == B.codes[m];
      if (!same || !OnlyDimChanges(A, B, i, d)) continue;
      Edge e;
      e.to = static_cast<int32_t>(b);
      e.shape = {StepKind::kLocal, 1u << i};
      e.conjugate = true;
      e.op = op;
      e.tensor_dim = d;
      out.push_back(e);
    }
  }
}

StepKind MovementKind(const StateInfo& A, const StateInfo& B, uint32_t g, int32_t* tensor_dim) {
  *tensor_dim = -1;
  bool all_r = true;
  for (uint32_t rest = g; rest != 0; rest &= rest - 1)
    all_r = all_r && std::holds_alternative<Replicate>(A.placements()[Lowest(rest)]);
  if (all_r) return StepKind::kLocal;
  if (std::has_single_bit(g)) {
    const int32_t m = Lowest(g);
    const int32_t da = ShardDim(A.placements()[m]), db = ShardDim(B.placements()[m]);
    if (da >= 0 && db < 0) {
      *tensor_dim = da;
      return StepKind::kAllGather;
    }
    if (da >= 0 && db >= 0) {
      *tensor_dim = db;
      return StepKind::kAllToAll;
    }
  }
  return StepKind::kExchange;
}

// Data movement A -> B over every minimal valid set G of mesh dims (ascending bitmask order).
void Movements(const StateInfo& A, const StateInfo& B, int32_t b, std::vector<Edge>& out) {
  const auto nm = static_cast<int32_t>(A.placements().size());
  uint32_t changed = 0;
  for (int32_t m = 0; m < nm; ++m)
    if (A.codes[m] != B.codes[m]) changed |= 1u << m;
  if ((changed & (A.partial | B.partial)) != 0) return;  // not a data movement
  const uint32_t allowed = A.wide & ~A.partial;
  if ((changed & ~allowed) != 0) return;
  // The sets G = changed | s over the subsets s of the other allowed dims, ascending (so
  // subsets before their supersets); the found ones are the edges just pushed.
  const uint32_t rest = allowed & ~changed;
  const size_t first = out.size();
  uint32_t s = 0;
  do {
    const uint32_t g = changed | s;
    s = ((s | ~rest) + 1) & rest;  // the next subset of `rest`, ascending
    if (g == 0) continue;
    bool covered = false;  // a smaller group already does it
    for (size_t k = first; k < out.size() && !covered; ++k)
      covered = (out[k].shape.mesh_dims & g) == out[k].shape.mesh_dims;
    if (covered) continue;
    bool ok = true;
    for (int32_t d = 0; d < A.layout->ndim() && ok; ++d) ok = ClosedWithin(A, B, d, g);
    if (!ok) continue;
    Edge e;
    e.to = b;
    e.shape.mesh_dims = g;
    e.shape.kind = MovementKind(A, B, g, &e.tensor_dim);
    out.push_back(e);
  } while (s != 0);
}

}  // namespace

void EdgesFrom(const std::vector<State>& states, int32_t a, const State& dst,
               std::vector<Edge>& out, std::span<const char> skip) {
  const StateInfo& A = *states[a].info;
  out.clear();
  for (int32_t i = static_cast<int32_t>(A.placements().size()) - 1; i >= 0; --i) {
    if (IsPartial(A.placements()[i]) && A.codes[i] != dst.info->codes[i]) {
      Reductions(states, a, i, skip, out);  // reduce first, the last Partial dim first (SPEC §3.1)
      return;
    }
  }
  for (size_t b = 0; b < states.size(); ++b)
    if (static_cast<int32_t>(b) != a && !Skipped(skip, b))
      Movements(A, *states[b].info, static_cast<int32_t>(b), out);
  Conjugates(states, a, *dst.info, skip, out);
}

Step MakeStep(const std::vector<State>& states, int32_t a, const Edge& e) {
  Step s;
  s.kind = e.shape.kind;
  for (uint32_t rest = e.shape.mesh_dims; rest != 0; rest &= rest - 1)
    s.mesh_dims.push_back(Lowest(rest));
  s.from = states[a].info->layout;
  s.to = states[e.to].info->layout;
  s.op = e.op;
  s.conjugate = e.conjugate;
  s.tensor_dim = e.tensor_dim;
  return s;
}

}  // namespace weft::placement::planner
