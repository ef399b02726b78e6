#include "placement/planner/byte_bound.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

namespace weft::placement::planner {
namespace {

using DimMask = uint32_t;  // a set of mesh dims

bool Has(DimMask mask, int32_t m) { return (mask >> m) & 1u; }

int64_t Extent(const Mesh& mesh, DimMask mask) {
  int64_t n = 1;
  for (int32_t m = 0; m < mesh.ndim(); ++m)
    if (Has(mask, m)) n *= mesh.shape()[m];
  return n;
}

// Calls fn() at every coordinate of the mesh dims in `mask` (row-major; the rest of `c` kept),
// leaving those coordinates 0 afterwards.
template <class Fn>
void ForEachCoord(const Mesh& mesh, DimMask mask, Coord& c, Fn&& fn) {
  while (true) {
    fn();
    int32_t m = mesh.ndim() - 1;
    for (; m >= 0; --m) {
      if (!Has(mask, m)) continue;
      if (++c[m] < mesh.shape()[m]) break;
      c[m] = 0;
    }
    if (m < 0) return;
  }
}

// One tensor dim of one layout: its pieces by row-major piece number, and the mesh dims that
// move that number (with their strides).
struct DimPieces {
  std::vector<int64_t> offset, size;
  std::vector<std::pair<int32_t, int64_t>> strides;
  DimMask varies = 0;
};

DimPieces PiecesOf(const Layout& l, int32_t d) {
  DimPieces p;
  p.size = l.ResolvedSizes(d);
  p.offset.resize(p.size.size());
  int64_t at = 0;
  for (size_t i = 0; i < p.size.size(); ++i) {
    p.offset[i] = at;  // nested pieces lie in piece order; an empty one's offset is unused
    at += p.size[i];
  }
  int64_t stride = 1;
  const std::vector<int32_t>& dims = l.split(d).mesh_dims;
  for (size_t k = dims.size(); k-- > 0;) {
    const int64_t e = l.mesh().shape()[dims[k]];
    if (e > 1) {
      p.strides.emplace_back(dims[k], stride);
      p.varies |= 1u << dims[k];
    }
    stride *= e;
  }
  return p;
}

// Tensor dims whose blocks vary together over the `free` mesh dims, once the `fixed` ones are
// set: the per-rank sums factor over such components.
struct Component {
  uint32_t dims = 0;  // bit d: tensor dim d (at most kMaxTensorDims = 32 of them)
  DimMask free = 0;
};
static_assert(kMaxTensorDims <= 32);

struct Split {
  DimMask fixed = 0;
  std::vector<Component> parts;
  int64_t work = 0;  // coordinates visited: Extent(fixed) * sum of Extent(part.free)
};

Split SplitFor(const Mesh& mesh, const std::vector<DimMask>& varies, DimMask fixed) {
  const int32_t nd = static_cast<int32_t>(varies.size());
  std::array<int32_t, kMaxTensorDims> root;
  std::iota(root.begin(), root.begin() + nd, 0);
  auto find = [&](int32_t d) {
    while (root[d] != d) d = root[d] = root[root[d]];
    return d;
  };
  for (int32_t a = 0; a < nd; ++a)
    for (int32_t b = 0; b < a; ++b)
      if ((varies[a] & varies[b] & ~fixed) != 0) root[find(a)] = find(b);
  Split s{fixed, {}, 0};
  std::array<int32_t, kMaxTensorDims> part_of;
  std::fill(part_of.begin(), part_of.begin() + nd, -1);
  for (int32_t d = 0; d < nd; ++d) {
    int32_t& p = part_of[find(d)];
    if (p < 0) {
      p = static_cast<int32_t>(s.parts.size());
      s.parts.emplace_back();
    }
    s.parts[p].dims |= 1u << d;
    s.parts[p].free |= varies[d] & ~fixed;
  }
  int64_t per = 0;
  for (const Component& c : s.parts) per += Extent(mesh, c.free);
  s.work = Extent(mesh, fixed) * per;
  return s;
}

// The set of fixed mesh dims that visits the fewest coordinates (the smallest mask on ties).
// With several components each one's list is held at once, so it must stay under kMaxList
// entries; a single component is evaluated as it goes. Work is INT64_MAX when none fits.
Split ChooseSplit(const Mesh& mesh, const std::vector<DimMask>& varies) {
  constexpr int64_t kMaxList = int64_t{1} << 16;
  DimMask all = 0;
  for (DimMask v : varies) all |= v;
  auto fits = [&](const Split& s) {
    if (s.parts.size() == 1) return true;
    for (const Component& c : s.parts)
      if (Extent(mesh, c.free) > kMaxList) return false;
    return true;
  };
  Split best = SplitFor(mesh, varies, 0);
  if (!fits(best)) best.work = INT64_MAX;
  if (std::popcount(all) > 8) return best;                           // 256 candidates at most
  for (DimMask k = (0u - all) & all; k != 0; k = (k - all) & all) {  // submasks, ascending
    Split s = SplitFor(mesh, varies, k);
    if (fits(s) && s.work < best.work) best = std::move(s);
  }
  return best;
}

// The per-rank quantities as products over tensor dims (terms): V_j, the size of block j for
// j = 1..k; C_j, what blocks j-1 and j share; and C_0k, what the src and dst blocks share.
// A rank receives sum(V_j - C_j) and lacks V_k - C_0k; each term factors over components.
class Evaluator {
 public:
  explicit Evaluator(const Plan& plan) : mesh_(plan.src->mesh()) {
    std::vector<const Layout*> layouts = {plan.src.get()};
    for (const Step& s : plan.steps) layouts.push_back(s.to.get());
    k_ = static_cast<int32_t>(plan.steps.size());
    nd_ = plan.src->ndim();
    std::vector<DimMask> varies(static_cast<size_t>(nd_), 0);
    pieces_.reserve(layouts.size() * static_cast<size_t>(nd_));
    for (const Layout* l : layouts)
      for (int32_t d = 0; d < nd_; ++d) {
        pieces_.push_back(PiecesOf(*l, d));
        varies[d] |= pieces_.back().varies;
      }
    split_ = ChooseSplit(mesh_, varies);
    item_ = ItemSize(plan.src->dtype());
    span_.resize(static_cast<size_t>(k_ + 1));
    scratch_.resize(static_cast<size_t>(terms()));
  }

  ByteBound Run(int64_t limit) {
    ByteBound out;
    out.ranks = Extent(mesh_, AllVaried());
    if (split_.work > limit) return out;
    Coord c{};
    int64_t work = split_.work;
    bool over = false;
    ForEachCoord(mesh_, split_.fixed, c, [&] {
      if (!over) over = !FixedAt(c, limit, &work);
    });
    if (over) return out;
    out.checked = true;
    out.work = work;
    if (best_excess_ > 0) {
      out.excess = best_excess_ * item_;
      out.recv = best_recv_ * item_;
      out.lack = best_lack_ * item_;
      out.rank = mesh_.RankAt(best_.data());
    }
    if (idle_found_) {
      out.idle_rank = mesh_.RankAt(idle_.data());
      out.idle_recv = idle_recv_ * item_;
    }
    return out;
  }

 private:
  // One component's term factors at the coordinates it was visited at, flat: entry i's terms
  // are terms[i * n, (i + 1) * n).
  struct List {
    std::vector<int64_t> terms;
    std::vector<Coord> at;
    void clear() {
      terms.clear();
      at.clear();
    }
  };

  DimMask AllVaried() const {
    DimMask all = 0;
    for (const DimPieces& p : pieces_) all |= p.varies;
    return all;
  }
  int32_t terms() const { return 2 * k_ + 1; }

  // Multiplies `part`'s factor of every term at `c` into t.
  void Terms(const Component& part, const Coord& c, int64_t* t) {
    std::vector<std::pair<int64_t, int64_t>>& span = span_;  // (offset, size) of each layout
    for (uint32_t rest = part.dims; rest != 0; rest &= rest - 1) {
      const int32_t d = std::countr_zero(rest);
      for (int32_t j = 0; j <= k_; ++j) {
        const DimPieces& p = pieces_[static_cast<size_t>(j * nd_ + d)];
        int64_t at = 0;
        for (const auto& [m, stride] : p.strides) at += c[m] * stride;
        span[j] = {p.offset[static_cast<size_t>(at)], p.size[static_cast<size_t>(at)]};
      }
      auto common = [&](int32_t a, int32_t b) {
        const int64_t lo = std::max(span[a].first, span[b].first);
        const int64_t hi = std::min(span[a].first + span[a].second, span[b].first + span[b].second);
        return hi > lo ? hi - lo : 0;
      };
      for (int32_t j = 1; j <= k_; ++j) {
        t[j - 1] *= span[j].second;
        t[k_ + j - 1] *= common(j - 1, j);
      }
      t[2 * k_] *= common(0, k_);
    }
  }

  // Every rank with the fixed coordinates of `c`: each component's distinct terms, then their
  // combinations. False when the work passes `limit`.
  bool FixedAt(Coord& c, int64_t limit, int64_t* work) {
    const size_t n = static_cast<size_t>(terms());
    if (split_.parts.size() == 1) {  // nothing to combine: every coordinate once
      ForEachCoord(mesh_, split_.parts[0].free, c, [&] {
        std::fill(scratch_.begin(), scratch_.end(), 1);
        Terms(split_.parts[0], c, scratch_.data());
        Consider(scratch_.data(), [&] { return c; });
      });
      return true;
    }
    lists_.resize(split_.parts.size());
    int64_t combos = 1;
    for (size_t q = 0; q < split_.parts.size(); ++q) {
      List& list = lists_[q];
      list.clear();
      ForEachCoord(mesh_, split_.parts[q].free, c, [&] {
        std::fill(scratch_.begin(), scratch_.end(), 1);
        Terms(split_.parts[q], c, scratch_.data());
        // Runs of equal pieces give runs of equal terms: keep the first of each run here.
        if (!list.at.empty() && std::equal(scratch_.begin(), scratch_.end(),
                                           list.terms.end() - static_cast<ptrdiff_t>(n)))
          return;
        list.terms.insert(list.terms.end(), scratch_.begin(), scratch_.end());
        list.at.push_back(c);
      });
      Distinct(list);
      combos *= static_cast<int64_t>(list.at.size());
    }
    *work += combos;
    if (*work > limit) return false;
    Combine(c);
    return true;
  }

  // Keeps the first entry (row-major) of each distinct term vector.
  void Distinct(List& list) {
    const size_t n = static_cast<size_t>(terms());
    order_.resize(list.at.size());
    std::iota(order_.begin(), order_.end(), 0);
    auto row = [&](size_t i) { return list.terms.begin() + static_cast<ptrdiff_t>(i * n); };
    std::sort(order_.begin(), order_.end(), [&](size_t a, size_t b) {
      const auto [x, y] = std::mismatch(row(a), row(a) + static_cast<ptrdiff_t>(n), row(b));
      return x == row(a) + static_cast<ptrdiff_t>(n) ? a < b : *x < *y;
    });
    List& out = spare_;
    out.clear();
    for (size_t i : order_) {
      if (!out.at.empty() && std::equal(row(i), row(i) + static_cast<ptrdiff_t>(n),
                                        out.terms.end() - static_cast<ptrdiff_t>(n)))
        continue;
      out.terms.insert(out.terms.end(), row(i), row(i) + static_cast<ptrdiff_t>(n));
      out.at.push_back(list.at[i]);
    }
    std::swap(list, out);
  }

  void Combine(const Coord& fixed) {
    const size_t n = static_cast<size_t>(terms());
    std::vector<size_t> pick(lists_.size(), 0);
    while (true) {
      std::fill(scratch_.begin(), scratch_.end(), 1);
      for (size_t q = 0; q < lists_.size(); ++q) {
        const int64_t* f = lists_[q].terms.data() + pick[q] * n;
        for (size_t i = 0; i < n; ++i) scratch_[i] *= f[i];
      }
      Consider(scratch_.data(), [&] {
        Coord c = fixed;
        for (size_t q = 0; q < lists_.size(); ++q)
          for (int32_t m = 0; m < mesh_.ndim(); ++m)
            if (Has(split_.parts[q].free, m)) c[m] = lists_[q].at[pick[q]][m];
        return c;
      });
      size_t q = lists_.size();
      while (q > 0 && ++pick[q - 1] == lists_[q - 1].at.size()) pick[--q] = 0;
      if (q == 0) return;
    }
  }

  bool Before(const Coord& a, const Coord& b) const {
    return std::lexicographical_compare(a.begin(), a.begin() + mesh_.ndim(), b.begin(),
                                        b.begin() + mesh_.ndim());
  }

  template <class CoordFn>
  void Consider(const int64_t* t, CoordFn coord) {
    int64_t recv = 0;
    for (int32_t j = 0; j < k_; ++j) recv += t[j] - t[k_ + j];
    if (recv == 0) return;
    const int64_t lack = t[k_ - 1] - t[2 * k_];
    const int64_t excess = recv - (k_ > 1 ? 2 : 1) * lack;
    if (lack == 0) {
      const Coord c = coord();
      if (!idle_found_ || Before(c, idle_)) {
        idle_found_ = true;
        idle_ = c;
        idle_recv_ = recv;
      }
    }
    if (excess <= 0 || excess < best_excess_) return;
    const Coord c = coord();
    if (excess == best_excess_ && !Before(c, best_)) return;
    best_excess_ = excess;
    best_recv_ = recv;
    best_lack_ = lack;
    best_ = c;
  }

  const Mesh& mesh_;
  int32_t k_ = 0, nd_ = 0;
  int64_t item_ = 1;
  std::vector<DimPieces> pieces_;  // [layout][tensor dim]
  Split split_;
  std::vector<std::pair<int64_t, int64_t>> span_;
  std::vector<int64_t> scratch_;
  std::vector<List> lists_;
  List spare_;
  std::vector<size_t> order_;
  int64_t best_excess_ = 0, best_recv_ = 0, best_lack_ = 0, idle_recv_ = 0;
  Coord best_{}, idle_{};
  bool idle_found_ = false;
};

}  // namespace

bool ByteBoundApplies(const Layout& src, const Layout& dst) {
  for (int32_t m = 0; m < src.mesh().ndim(); ++m)
    if (src.mesh().shape()[m] > 1 &&
        (IsPartial(src.placements()[m]) || IsPartial(dst.placements()[m])))
      return false;
  return true;
}

ByteBound CheckByteBound(const Plan& plan) {
  if (plan.steps.empty()) {
    ByteBound none;
    none.checked = true;
    return none;
  }
  return Evaluator(plan).Run(kByteBoundMaxWork);
}

}  // namespace weft::placement::planner
