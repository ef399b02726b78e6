#include "placement/planner/edges.hpp"

#include <algorithm>

namespace weft::placement::planner {
namespace {

bool SameSplit(const Layout& a, const Layout& b, int32_t d) {
  return a.split(d).mesh_dims == b.split(d).mesh_dims && a.split(d).sizes == b.split(d).sizes;
}

bool InMask(uint32_t mask, int32_t m) { return (mask >> m) & 1u; }

// Whether the pieces of tensor dim `d` at the level of the first `outer` sharding dims agree
// in A and B (their outer sharding dims being the same list).
bool SameOuterPieces(const Layout& a, const Layout& b, int32_t d, size_t outer) {
  if (!a.split(d).is_explicit() && !b.split(d).is_explicit()) return true;  // chunk: by nesting
  return OuterPieces(a, d, outer) == OuterPieces(b, d, outer);
}

// Tensor dim `d` is re-cut only inside mesh dims G: outside G the cut is the same list of dims,
// all of them outermost, giving the same pieces. Then each G-group's new blocks lie inside
// the union of its old blocks, so the exchange is closed within the group.
bool ClosedWithin(const Layout& a, const Layout& b, int32_t d, uint32_t g) {
  const std::vector<int32_t> sa = ShardingDims(a, d), sb = ShardingDims(b, d);
  std::vector<int32_t> oa, ob;
  for (const auto* list : {&sa, &sb}) {
    auto& outer = list == &sa ? oa : ob;
    bool seen_g = false;
    for (int32_t m : *list) {
      if (InMask(g, m)) {
        seen_g = true;
      } else {
        if (seen_g) return false;  // a dim outside G nested inside one in G
        outer.push_back(m);
      }
    }
  }
  return oa == ob && SameOuterPieces(a, b, d, oa.size());
}

// B's dim i replaces A's, a reduction or conjugate: the other tensor dims keep their splits
// and, when tensor dim `d` gains (or loses) the innermost mesh dim i, its outer pieces stay.
bool OnlyDimChanges(const Layout& a, const Layout& b, int32_t i, int32_t d) {
  for (int32_t e = 0; e < a.ndim(); ++e)
    if (e != d && !SameSplit(a, b, e)) return false;
  if (d < 0) return true;
  const Layout& wide = ShardingDims(a, d).size() > ShardingDims(b, d).size() ? a : b;
  const Layout& narrow = &wide == &a ? b : a;
  const std::vector<int32_t> sw = ShardingDims(wide, d), sn = ShardingDims(narrow, d);
  if (sw.empty() || sw.back() != i) return false;
  if (!std::equal(sn.begin(), sn.end(), sw.begin(), sw.end() - 1)) return false;
  return SameOuterPieces(wide, narrow, d, sn.size());
}

int32_t ShardDim(const Placement& p) {
  const auto* s = std::get_if<Shard>(&p);
  return s ? s->dim : -1;
}

void Reductions(const std::vector<State>& states, int32_t a, int32_t i, std::vector<Edge>& out) {
  const State& A = states[a];
  for (size_t b = 0; b < states.size(); ++b) {
    const State& B = states[b];
    if (IsPartial(B.placements[i])) continue;
    bool same = true;
    for (size_t m = 0; m < A.placements.size() && same; ++m)
      same = static_cast<int32_t>(m) == i || A.placements[m] == B.placements[m];
    const int32_t d = ShardDim(B.placements[i]);
    if (!same || !OnlyDimChanges(*A.layout, *B.layout, i, d)) continue;
    Step s;
    s.kind = d < 0 ? StepKind::kAllReduce : StepKind::kReduceScatter;
    s.mesh_dims = {i};
    s.from = A.layout;
    s.to = B.layout;
    s.op = std::get<Partial>(A.placements[i]).op;
    s.tensor_dim = d;
    out.push_back({static_cast<int32_t>(b), std::move(s)});
  }
}

void Conjugates(const std::vector<State>& states, int32_t a, const State& dst,
                std::vector<Edge>& out) {
  const State& A = states[a];
  const int32_t nm = static_cast<int32_t>(A.placements.size());
  auto pending = [&](int32_t m) {
    return !IsPartial(A.placements[m]) && IsPartial(dst.placements[m]);
  };
  for (int32_t m = 0; m < nm; ++m)
    if (!pending(m) && A.placements[m] != dst.placements[m]) return;  // data still to move
  for (int32_t i = 0; i < nm; ++i) {
    if (!pending(i)) continue;
    const ReduceOp op = std::get<Partial>(dst.placements[i]).op;
    const int32_t d = ShardDim(A.placements[i]);
    if (d >= 0 && op == ReduceOp::kAvg) continue;  // S->P(avg) has no exact conjugate
    for (size_t b = 0; b < states.size(); ++b) {
      const State& B = states[b];
      bool same = B.placements[i] == dst.placements[i];
      for (int32_t m = 0; m < nm && same; ++m) same = m == i || A.placements[m] == B.placements[m];
      if (!same || !OnlyDimChanges(*A.layout, *B.layout, i, d)) continue;
      Step s;
      s.kind = StepKind::kLocal;
      s.conjugate = true;
      s.mesh_dims = {i};
      s.from = A.layout;
      s.to = B.layout;
      s.op = op;
      s.tensor_dim = d;
      out.push_back({static_cast<int32_t>(b), std::move(s)});
    }
  }
}

StepKind MovementKind(const State& A, const State& B, const std::vector<int32_t>& g,
                      int32_t* tensor_dim) {
  *tensor_dim = -1;
  bool all_r = true;
  for (int32_t m : g) all_r = all_r && std::holds_alternative<Replicate>(A.placements[m]);
  if (all_r) return StepKind::kLocal;
  if (g.size() == 1) {
    const int32_t da = ShardDim(A.placements[g[0]]), db = ShardDim(B.placements[g[0]]);
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
void Movements(const State& A, const State& B, int32_t b, std::vector<Edge>& out) {
  const int32_t nm = static_cast<int32_t>(A.placements.size());
  uint32_t changed = 0, allowed = 0;
  for (int32_t m = 0; m < nm; ++m) {
    const bool pa = IsPartial(A.placements[m]), pb = IsPartial(B.placements[m]);
    if ((pa || pb) && A.placements[m] != B.placements[m]) return;  // not a data movement
    if (A.placements[m] != B.placements[m]) changed |= 1u << m;
    if (!pa && A.layout->mesh().shape()[m] > 1) allowed |= 1u << m;
  }
  if ((changed & ~allowed) != 0) return;
  std::vector<uint32_t> groups;  // the subsets of `allowed` holding every changed dim
  for (uint32_t g = allowed; g != 0; g = (g - 1) & allowed)
    if ((g & changed) == changed) groups.push_back(g);
  std::sort(groups.begin(), groups.end());  // ascending: subsets before their supersets
  std::vector<uint32_t> found;
  for (uint32_t g : groups) {
    if (std::any_of(found.begin(), found.end(), [&](uint32_t f) { return (f & g) == f; }))
      continue;  // a smaller group already does it
    bool ok = true;
    for (int32_t d = 0; d < A.layout->ndim() && ok; ++d)
      ok = ClosedWithin(*A.layout, *B.layout, d, g);
    if (!ok) continue;
    found.push_back(g);
    Step s;
    for (int32_t m = 0; m < nm; ++m)
      if (InMask(g, m)) s.mesh_dims.push_back(m);
    s.kind = MovementKind(A, B, s.mesh_dims, &s.tensor_dim);
    s.from = A.layout;
    s.to = B.layout;
    out.push_back({b, std::move(s)});
  }
}

}  // namespace

std::vector<Edge> EdgesFrom(const std::vector<State>& states, int32_t a, const State& dst) {
  const State& A = states[a];
  std::vector<Edge> out;
  for (int32_t i = static_cast<int32_t>(A.placements.size()) - 1; i >= 0; --i) {
    if (IsPartial(A.placements[i]) && A.placements[i] != dst.placements[i]) {
      Reductions(states, a, i, out);  // reduce first, the last Partial dim first (SPEC §3.1)
      return out;
    }
  }
  for (size_t b = 0; b < states.size(); ++b)
    if (static_cast<int32_t>(b) != a) Movements(A, states[b], static_cast<int32_t>(b), out);
  Conjugates(states, a, dst, out);
  return out;
}

}  // namespace weft::placement::planner
