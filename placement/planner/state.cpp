#include "placement/planner/state.hpp"

#include <algorithm>
#include <array>

#include "placement/planner/placement_code.hpp"

namespace weft::placement::planner {
namespace {

// Candidate placements of each mesh dim, in the fixed order src, dst, R.
struct Candidates {
  std::array<std::array<Placement, 3>, kMaxMeshDims> of;
  std::array<size_t, kMaxMeshDims> count{};
  size_t states = 1;  // their product

  Candidates(const Layout& src, const Layout& dst) {
    const Mesh& mesh = src.mesh();
    for (int32_t m = 0; m < mesh.ndim(); ++m) {
      auto& c = of[m];
      size_t& n = count[m];
      if (mesh.shape()[m] == 1) {
        c[n++] = Replicate{};
      } else {
        for (const Placement& p :
             {src.placements()[m], dst.placements()[m], Placement{Replicate{}}})
          if (std::find(c.begin(), c.begin() + n, p) == c.begin() + n) c[n++] = p;
      }
      states *= n;
    }
  }
};

std::vector<int32_t> DimsSharding(const std::vector<Placement>& ps, const Mesh& mesh, int32_t d) {
  std::vector<int32_t> dims;
  for (int32_t m = 0; m < mesh.ndim(); ++m)
    if (const auto* s = std::get_if<Shard>(&ps[m]); s && s->dim == d && mesh.shape()[m] > 1)
      dims.push_back(m);
  return dims;
}

// The splits a state with placements `ps` may have on tensor dim `d`.
std::vector<SplitChoice> SplitChoices(const std::vector<Placement>& ps, const Layout& src,
                                      const Layout& dst, int32_t d) {
  uint32_t dims = 0;
  for (int32_t m = 0; m < src.mesh().ndim(); ++m)
    if (const auto* s = std::get_if<Shard>(&ps[m]); s && s->dim == d && src.mesh().shape()[m] > 1)
      dims |= 1u << m;
  std::vector<SplitChoice> out;
  for (const Layout* l : {&src, &dst}) {
    if (ShardingMask(*l, d) != dims) continue;
    SplitChoice c;
    if (l->split(d).is_explicit()) c = l->split(d).sizes;
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(std::move(c));
  }
  if (out.empty()) out.push_back(std::nullopt);
  return out;
}

// Whether src or dst cuts some tensor dim by explicit sizes (else every state is chunk-split).
bool AnyExplicit(const Layout& src, const Layout& dst) {
  for (int32_t d = 0; d < src.ndim(); ++d)
    if (src.split(d).is_explicit() || dst.split(d).is_explicit()) return true;
  return false;
}

struct Builder {
  const Layout& src;
  const Layout& dst;
  StateCache* cache;           // null: none
  StateCache::Tensor* tensor;  // with cache
  std::vector<Coord> samples;  // without
  bool any_explicit;

  std::shared_ptr<const StateInfo> Build(const std::vector<Placement>& ps,
                                         const std::vector<SplitChoice>& splits) const {
    if (cache) return cache->Get(*tensor, ps, splits, tensor->samples);
    auto layout = Layout::Create({src.mesh_ptr(), src.shape(), src.dtype(), ps, splits});
    return layout.ok() ? MakeStateInfo(*layout, samples) : nullptr;
  }

  void AddStates(const std::vector<Placement>& ps, std::vector<State>& out) const {
    const auto nd = static_cast<size_t>(src.ndim());
    std::vector<SplitChoice> splits(nd);
    if (!any_explicit) {  // one state: every split the chunk rule
      if (auto info = Build(ps, splits)) out.push_back({std::move(info), {}});
      return;
    }
    std::vector<std::vector<SplitChoice>> choices(nd);
    for (size_t d = 0; d < nd; ++d)
      choices[d] = SplitChoices(ps, src, dst, static_cast<int32_t>(d));
    std::vector<size_t> pick(nd, 0);
    while (true) {
      State s{nullptr, std::vector<int32_t>(nd)};
      for (size_t d = 0; d < nd; ++d) {
        splits[d] = choices[d][pick[d]];
        s.picks[d] = static_cast<int32_t>(pick[d]);
      }
      s.info = Build(ps, splits);
      if (s.info) out.push_back(std::move(s));
      size_t d = 0;
      while (d < nd && ++pick[d] == choices[d].size()) pick[d++] = 0;
      if (d == nd) break;
    }
  }
};

// The state holding `l`'s blocks: its placements with R on size-1 mesh dims (the same blocks)
// and its piece sizes. Canonical splits (empty for the chunk rule) compare as resolved sizes.
int32_t FindState(const std::vector<State>& states, const Layout& l) {
  std::array<int32_t, kMaxMeshDims> codes{};
  for (int32_t m = 0; m < l.mesh().ndim(); ++m)
    codes[m] = l.mesh().shape()[m] == 1 ? 0 : EncodePlacement(l.placements()[m]);
  for (size_t i = 0; i < states.size(); ++i) {
    const Layout& s = *states[i].info->layout;
    bool same = states[i].info->codes == codes;
    for (int32_t d = 0; d < l.ndim() && same; ++d) same = s.split(d).sizes == l.split(d).sizes;
    if (same) return static_cast<int32_t>(i);
  }
  return -1;
}

}  // namespace

std::shared_ptr<const StateInfo> MakeStateInfo(const LayoutPtr& layout,
                                               std::span<const Coord> samples) {
  auto info = std::make_shared<StateInfo>();
  info->layout = layout;
  for (int32_t m = 0; m < layout->mesh().ndim(); ++m) {
    info->codes[m] = EncodePlacement(layout->placements()[m]);
    if (IsPartial(layout->placements()[m])) info->partial |= 1u << m;
    if (layout->mesh().shape()[m] > 1) info->wide |= 1u << m;
  }
  for (int32_t d = 0; d < layout->ndim(); ++d) {
    info->sharding[d] = ShardingMask(*layout, d);
    if (layout->split(d).is_explicit()) info->explicit_dims |= 1u << d;
  }
  info->samples = SampleBlocks(*layout, samples);
  return info;
}

std::vector<int32_t> ShardingDims(const Layout& layout, int32_t d) {
  return DimsSharding(layout.placements(), layout.mesh(), d);
}

Result<std::vector<State>> EnumerateStates(const Layout& src, const Layout& dst, int32_t* dst_index,
                                           StateCache* cache) {
  const Candidates cands(src, dst);
  const int32_t nm = src.mesh().ndim();
  const Builder builder{src,
                        dst,
                        cache,
                        cache ? &cache->Of(src) : nullptr,
                        cache ? std::vector<Coord>{} : SampleCoords(src.mesh()),
                        AnyExplicit(src, dst)};
  std::vector<State> states;
  states.reserve(cands.states);
  std::vector<size_t> pick(static_cast<size_t>(nm), 0);
  std::vector<Placement> ps(static_cast<size_t>(nm));
  while (true) {
    for (int32_t m = 0; m < nm; ++m) ps[m] = cands.of[m][pick[m]];
    builder.AddStates(ps, states);
    int32_t m = nm - 1;
    while (m >= 0 && ++pick[m] == cands.count[m]) pick[m--] = 0;
    if (m < 0) break;
  }
  const int32_t s = FindState(states, src);
  const int32_t t = FindState(states, dst);
  if (s < 0 || t < 0) return Internal("planner: src or dst is not among the search states");
  std::swap(states[0], states[s]);
  *dst_index = t == s ? 0 : (t == 0 ? s : t);
  return states;
}

uint32_t ShardingMask(const Layout& layout, int32_t d) {
  uint32_t mask = 0;
  for (int32_t m : layout.split(d).mesh_dims)
    if (layout.mesh().shape()[m] > 1) mask |= 1u << m;
  return mask;
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
