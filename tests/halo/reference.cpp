#include "reference.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

namespace halo {

std::string HaloSpec::Describe() const {
  std::ostringstream os;
  os << (stencil == WEFT_STENCIL_STAR ? "star" : "box") << " transport " << transport
     << (deterministic ? " deterministic" : "") << " constant " << constant;
  for (const DimSpec& d : dims) {
    os << " | dim " << d.dim << " rules " << d.rule_lo << "/" << d.rule_hi << " pad " << d.pad_lo
       << "/" << d.pad_hi;
    if (d.windows.empty()) {
      os << " lo/hi " << d.lo << "/" << d.hi;
    } else {
      os << " windows";
      for (size_t i = 0; i < d.windows.size(); i += 2)
        os << " [" << d.windows[i] << "," << d.windows[i + 1] << ")";
    }
  }
  return os.str();
}

weft_halo_desc_t MakeDesc(const HaloSpec& spec, std::vector<weft_halo_dim_t>* dims) {
  dims->clear();
  for (const DimSpec& d : spec.dims)
    dims->push_back(weft_halo_dim_t{d.dim, d.rule_lo, d.rule_hi, 0, d.lo, d.hi, d.pad_lo, d.pad_hi,
                                    d.windows.empty() ? nullptr : d.windows.data()});
  weft_halo_desc_t desc = WEFT_HALO_DESC_INIT;
  desc.ndims = static_cast<int32_t>(dims->size());
  desc.dims = dims->data();
  desc.stencil = spec.stencil;
  desc.transport = spec.transport;
  desc.deterministic = spec.deterministic;
  desc.constant_value = spec.constant;
  return desc;
}

std::vector<int64_t> Box::Extents() const {
  std::vector<int64_t> e(begin.size());
  for (size_t d = 0; d < e.size(); ++d) e[d] = end[d] - begin[d];
  return e;
}

bool Box::Contains(const std::vector<int64_t>& g) const {
  for (size_t d = 0; d < g.size(); ++d)
    if (g[d] < begin[d] || g[d] >= end[d]) return false;
  return true;
}

int32_t Geometry::PositionOf(int32_t world_rank) const {
  for (size_t p = 0; p < ranks.size(); ++p)
    if (ranks[p] == world_rank) return static_cast<int32_t>(p);
  return -1;
}

bool Geometry::SameGroup(int32_t a, int32_t b) const {
  for (size_t m = 0; m < placements.size(); ++m) {
    const weft_placement_t& p = placements[m];
    const bool exchanges = p.kind == WEFT_SHARD && windowed[static_cast<size_t>(p.dim)];
    if (!exchanges && coord[static_cast<size_t>(a)][m] != coord[static_cast<size_t>(b)][m])
      return false;
  }
  return true;
}

int64_t Geometry::PartialIndex(int32_t r) const {
  int64_t p = 0;
  for (size_t m = 0; m < placements.size(); ++m)
    if (placements[m].kind == WEFT_PARTIAL)
      p = p * mesh_shape[m] + coord[static_cast<size_t>(r)][m];
  return p;
}

void UniformWindow(int64_t a, int64_t b, int64_t n, const DimSpec& d, int64_t* begin,
                   int64_t* end) {
  if (a == b) {
    *begin = *end = a;
    return;
  }
  *begin = a == 0 ? -d.pad_lo : std::max(a - d.lo, -d.pad_lo);
  *end = b == n ? n + d.pad_hi : std::min(b + d.hi, n + d.pad_hi);
}

Geometry MakeGeometry(const weft_mesh_t* mesh, const weft_layout_t* layout, const HaloSpec& spec) {
  Geometry g;
  int32_t nd = 0, mnd = 0;
  int64_t msize = 0;
  weft_layout_ndim(layout, &nd);
  weft_mesh_ndim(mesh, &mnd);
  weft_mesh_size(mesh, &msize);
  g.global.resize(static_cast<size_t>(nd));
  g.mesh_shape.resize(static_cast<size_t>(mnd));
  g.placements.resize(static_cast<size_t>(mnd));
  weft_layout_global_shape(layout, g.global.data());
  weft_mesh_shape(mesh, g.mesh_shape.data());
  weft_layout_placements(layout, g.placements.data());
  g.rule_lo.assign(static_cast<size_t>(nd), WEFT_BOUNDARY_NONE);
  g.rule_hi = g.rule_lo;
  g.windowed.assign(static_cast<size_t>(nd), false);
  g.stencil = spec.stencil;
  g.constant = spec.constant;
  for (const DimSpec& d : spec.dims) {
    g.windowed[static_cast<size_t>(d.dim)] = true;
    g.rule_lo[static_cast<size_t>(d.dim)] = d.rule_lo;
    g.rule_hi[static_cast<size_t>(d.dim)] = d.rule_hi;
  }
  for (int32_t r = 0; r < msize; ++r) {
    std::vector<int64_t> c(static_cast<size_t>(mnd)), shape(static_cast<size_t>(nd)),
        off(static_cast<size_t>(nd));
    for (int64_t m = mnd - 1, rest = r; m >= 0; --m) {
      c[static_cast<size_t>(m)] = rest % g.mesh_shape[static_cast<size_t>(m)];
      rest /= g.mesh_shape[static_cast<size_t>(m)];
    }
    int32_t world = -1;
    weft_mesh_rank_at(mesh, c.data(), &world);
    g.ranks.push_back(world);
    weft_layout_local_shape(layout, world, shape.data(), off.data());
    Box own{off, off};
    for (size_t d = 0; d < shape.size(); ++d) own.end[d] += shape[d];
    Box win = own;
    for (const DimSpec& d : spec.dims) {
      const size_t t = static_cast<size_t>(d.dim);
      if (d.windows.empty()) {
        UniformWindow(own.begin[t], own.end[t], g.global[t], d, &win.begin[t], &win.end[t]);
      } else {
        win.begin[t] = d.windows[2 * static_cast<size_t>(r)];
        win.end[t] = d.windows[2 * static_cast<size_t>(r) + 1];
      }
    }
    g.coord.push_back(c);
    g.owned.push_back(own);
    g.window.push_back(win);
  }
  return g;
}

int64_t SourceRow(int64_t g, int64_t n, int32_t rule_lo, int32_t rule_hi) {
  if (g >= 0 && g < n) return g;
  const bool low = g < 0;
  const int64_t h = low ? -g : g - (n - 1);  // rows beyond the edge, >= 1
  switch (low ? rule_lo : rule_hi) {
    case WEFT_BOUNDARY_REFLECT:
      return low ? h : n - 1 - h;
    case WEFT_BOUNDARY_SYMMETRIC:
      return low ? h - 1 : n - h;
    case WEFT_BOUNDARY_REPLICATE:
      return low ? 0 : n - 1;
    case WEFT_BOUNDARY_PERIODIC:
      return low ? n - h : h - 1;
    case WEFT_BOUNDARY_CONSTANT:
      return kConstantRow;
    default:
      ADD_FAILURE() << "row " << g << " outside [0, " << n << ") under rule NONE";
      return kConstantRow;
  }
}

Cell ExpectedCell(const Geometry& geo, int32_t r, const std::vector<int64_t>& g) {
  const Box& own = geo.owned[static_cast<size_t>(r)];
  int outside = 0;
  for (size_t d = 0; d < g.size(); ++d)
    outside += geo.windowed[d] && (g[d] < own.begin[d] || g[d] >= own.end[d]);
  Cell c;
  if (geo.stencil == WEFT_STENCIL_STAR && outside >= 2) {
    c.kind = CellKind::kSkipped;
    return c;
  }
  c.src = g;
  for (size_t d = 0; d < g.size(); ++d) {
    if (!geo.windowed[d]) continue;
    c.src[d] = SourceRow(g[d], geo.global[d], geo.rule_lo[d], geo.rule_hi[d]);
    if (c.src[d] == kConstantRow) c.kind = CellKind::kConstant;
  }
  return c;
}

int64_t LinearIndex(const std::vector<int64_t>& global, const std::vector<int64_t>& g) {
  int64_t l = 0;
  for (size_t d = 0; d < g.size(); ++d) l = l * global[d] + g[d];
  return l;
}

int64_t ConvOutExtent(int64_t n, const ConvOp& op) {
  const int64_t span = n + op.pad_lo + op.pad_hi - op.d * (op.k - 1) - 1;
  return span < 0 ? 0 : span / op.s + 1;
}

ConvPieces ConvWindows(int64_t n, const ConvOp& op, const std::vector<int64_t>& offsets,
                       const std::vector<int64_t>& sizes) {
  const int64_t nout = ConvOutExtent(n, op);
  ConvPieces p;
  for (size_t i = 0; i < sizes.size(); ++i) {
    int64_t j0 = -1, j1 = -1;
    for (int64_t j = 0; j < nout; ++j) {
      const int64_t anchor =
          std::clamp(op.s * j - op.pad_lo + op.d * (op.k - 1) / 2, int64_t{0}, n - 1);
      if (anchor < offsets[i] || anchor >= offsets[i] + sizes[i]) continue;
      if (j0 < 0) j0 = j;
      j1 = j;
    }
    p.out_sizes.push_back(j0 < 0 ? 0 : j1 - j0 + 1);
    p.begin.push_back(j0 < 0 ? offsets[i] : op.s * j0 - op.pad_lo);
    p.end.push_back(j0 < 0 ? offsets[i] : op.s * j1 - op.pad_lo + op.d * (op.k - 1) + 1);
  }
  return p;
}

}  // namespace halo
