#include "placement/planner/state.hpp"

#include <algorithm>
#include <map>

#include "placement/planner/placement_code.hpp"

namespace weft::placement::planner {
namespace {

// Candidate placements of each mesh dim, in the fixed order src, dst, R.
std::vector<std::vector<Placement>> Candidates(const Layout& src, const Layout& dst) {
  const Mesh& mesh = src.mesh();
  std::vector<std::vector<Placement>> out(static_cast<size_t>(mesh.ndim()));
  for (int32_t m = 0; m < mesh.ndim(); ++m) {
    auto& c = out[m];
    if (mesh.shape()[m] == 1) {
      c = {Replicate{}};
      continue;
    }
    for (const Placement& p : {src.placements()[m], dst.placements()[m], Placement{Replicate{}}})
      if (std::find(c.begin(), c.end(), p) == c.end()) c.push_back(p);
  }
  return out;
}

std::vector<int32_t> DimsSharding(const std::vector<Placement>& ps, const Mesh& mesh, int32_t d) {
  std::vector<int32_t> dims;
  for (int32_t m = 0; m < mesh.ndim(); ++m)
    if (const auto* s = std::get_if<Shard>(&ps[m]); s && s->dim == d && mesh.shape()[m] > 1)
      dims.push_back(m);
  return dims;
}

using SplitChoice = std::optional<std::vector<int64_t>>;

// The splits a state with placements `ps` may have on tensor dim `d`.
std::vector<SplitChoice> SplitChoices(const std::vector<Placement>& ps, const Layout& src,
                                      const Layout& dst, int32_t d) {
  const std::vector<int32_t> dims = DimsSharding(ps, src.mesh(), d);
  std::vector<SplitChoice> out;
  for (const Layout* l : {&src, &dst}) {
    if (ShardingDims(*l, d) != dims) continue;
    SplitChoice c;
    if (l->split(d).is_explicit()) c = l->split(d).sizes;
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(std::move(c));
  }
  if (out.empty()) out.push_back(std::nullopt);
  return out;
}

void AddStates(const std::vector<Placement>& ps, const Layout& src, const Layout& dst,
               std::vector<State>& out) {
  const int32_t nd = src.ndim();
  std::vector<std::vector<SplitChoice>> choices(static_cast<size_t>(nd));
  for (int32_t d = 0; d < nd; ++d) choices[d] = SplitChoices(ps, src, dst, d);
  std::vector<size_t> pick(static_cast<size_t>(nd), 0);
  while (true) {
    Layout::Spec spec{src.mesh_ptr(), src.shape(), src.dtype(), ps, {}};
    spec.splits.resize(static_cast<size_t>(nd));
    State s{ps, nullptr, EncodePlacements(ps)};
    for (int32_t d = 0; d < nd; ++d) {
      spec.splits[d] = choices[d][pick[d]];
      s.key.push_back(static_cast<int32_t>(pick[d]));
    }
    if (auto layout = Layout::Create(std::move(spec)); layout.ok()) {
      s.layout = *layout;
      out.push_back(std::move(s));
    }
    int32_t d = 0;
    while (d < nd && ++pick[d] == choices[d].size()) pick[d++] = 0;
    if (d == nd) break;
  }
}

int32_t FindSame(const std::vector<State>& states, const Layout& l) {
  for (size_t i = 0; i < states.size(); ++i)
    if (states[i].layout->SameAs(l)) return static_cast<int32_t>(i);
  return -1;
}

// `l` with R on its size-1 mesh dims (the same blocks, fewer distinct states).
Result<LayoutPtr> Normalised(const Layout& l) {
  Layout::Spec spec{l.mesh_ptr(), l.shape(), l.dtype(), l.placements(), {}};
  for (int32_t m = 0; m < l.mesh().ndim(); ++m)
    if (l.mesh().shape()[m] == 1) spec.placements[m] = Replicate{};
  for (int32_t d = 0; d < l.ndim(); ++d) {
    if (l.split(d).is_explicit())
      spec.splits.emplace_back(l.split(d).sizes);
    else
      spec.splits.emplace_back(std::nullopt);
  }
  return Layout::Create(std::move(spec));
}

}  // namespace

std::vector<int32_t> ShardingDims(const Layout& layout, int32_t d) {
  return DimsSharding(layout.placements(), layout.mesh(), d);
}

Result<std::vector<State>> EnumerateStates(const Layout& src, const Layout& dst,
                                           int32_t* dst_index) {
  const auto cands = Candidates(src, dst);
  const int32_t nm = src.mesh().ndim();
  std::vector<State> states;
  std::vector<size_t> pick(static_cast<size_t>(nm), 0);
  while (true) {
    std::vector<Placement> ps(static_cast<size_t>(nm));
    for (int32_t m = 0; m < nm; ++m) ps[m] = cands[m][pick[m]];
    AddStates(ps, src, dst, states);
    int32_t m = nm - 1;
    while (m >= 0 && ++pick[m] == cands[m].size()) pick[m--] = 0;
    if (m < 0) break;
  }
  WEFT_ASSIGN_OR_RETURN(LayoutPtr nsrc, Normalised(src));
  WEFT_ASSIGN_OR_RETURN(LayoutPtr ndst, Normalised(dst));
  const int32_t s = FindSame(states, *nsrc);
  const int32_t t = FindSame(states, *ndst);
  if (s < 0 || t < 0) return Internal("planner: src or dst is not among the search states");
  std::swap(states[0], states[s]);
  *dst_index = t == s ? 0 : (t == 0 ? s : t);
  return states;
}

std::vector<int64_t> OuterPieces(const Layout& layout, int32_t d, size_t outer) {
  const std::vector<int32_t> dims = ShardingDims(layout, d);
  const std::vector<int64_t> sizes = layout.ResolvedSizes(d);
  int64_t inner = 1;
  for (size_t k = outer; k < dims.size(); ++k) inner *= layout.mesh().shape()[dims[k]];
  // Resolved sizes are row-major over every sharding dim, size-1 ones included; those add
  // no pieces, so consecutive runs of `inner` pieces form one outer piece.
  std::vector<int64_t> out(sizes.size() / static_cast<size_t>(inner), 0);
  for (size_t p = 0; p < sizes.size(); ++p) out[p / static_cast<size_t>(inner)] += sizes[p];
  return out;
}

}  // namespace weft::placement::planner
