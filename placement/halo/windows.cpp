#include "placement/halo/windows.hpp"

#include <algorithm>
#include <cstdint>

namespace weft::placement::halo {
namespace {

std::string Str(int64_t v) { return std::to_string(v); }

}  // namespace

const char* BoundaryName(Boundary b) {
  switch (b) {
    case Boundary::kNone:
      return "NONE";
    case Boundary::kConstant:
      return "CONSTANT";
    case Boundary::kReflect:
      return "REFLECT";
    case Boundary::kSymmetric:
      return "SYMMETRIC";
    case Boundary::kReplicate:
      return "REPLICATE";
    case Boundary::kPeriodic:
      return "PERIODIC";
  }
  return "?";
}

int64_t PieceTable::Find(int64_t row) const {
  // The last nonempty piece starting at or before row.
  const auto it = std::upper_bound(begin.begin(), begin.end(), row);
  return index[static_cast<size_t>(it - begin.begin()) - 1];
}

Result<Geometry> Geometry::Create(LayoutPtr layout, HaloSpec spec) {
  Geometry g;
  g.layout_ = std::move(layout);
  g.spec_ = std::move(spec);
  const Layout& l = *g.layout_;
  const Mesh& mesh = l.mesh();
  g.windowed_.assign(static_cast<size_t>(l.ndim()), -1);
  g.pieces_.resize(static_cast<size_t>(l.ndim()));
  for (int32_t d = 0; d < l.ndim(); ++d) {
    PieceTable& t = g.pieces_[static_cast<size_t>(d)];
    int64_t at = 0, p = 0;
    for (int64_t size : l.ResolvedSizes(d)) {
      if (size > 0) {
        t.begin.push_back(at);
        t.end.push_back(at + size);
        t.index.push_back(p);
      }
      at += size;
      ++p;
    }
  }
  for (size_t i = 0; i < g.spec_.dims.size(); ++i) {
    const DimSpec& s = g.spec_.dims[i];
    const std::string at = "desc->dims[" + Str(int64_t(i)) + "]";
    if (s.dim < 0 || s.dim >= l.ndim())
      return InvalidArgument(at + ".dim is " + Str(s.dim) + " but the layout has " + Str(l.ndim()) +
                             " dims");
    if (g.windowed_[static_cast<size_t>(s.dim)] >= 0)
      return InvalidArgument(at + ".dim is " + Str(s.dim) + ", which desc->dims[" +
                             Str(g.windowed_[static_cast<size_t>(s.dim)]) + "] already names");
    g.windowed_[static_cast<size_t>(s.dim)] = static_cast<int32_t>(i);
    if (s.is_explicit() && static_cast<int64_t>(s.windows.size()) != 2 * mesh.size())
      return Internal("explicit window table of the wrong size");
    for (int64_t pos = 0; s.is_explicit() && pos < mesh.size(); ++pos) {
      const int64_t b = s.windows[static_cast<size_t>(2 * pos)],
                    e = s.windows[static_cast<size_t>(2 * pos + 1)];
      if (e < b)
        return InvalidArgument(at + ".windows: the window [" + Str(b) + ", " + Str(e) +
                               ") of mesh position " + Str(pos) + " ends before it begins");
      // Before Window() computes with it: a window far outside would overflow there.
      if (Status st = g.CheckWindow(s.dim, pos, b, e); !st.ok())
        return InvalidArgument(at + ".windows: " + st.message());
    }
  }
  // Every position's window, in mesh order: the first bad one is the same on every rank.
  Coord coord{};
  for (int64_t pos = 0; pos < mesh.size(); ++pos) {
    int64_t rest = pos;
    for (int32_t m = mesh.ndim() - 1; m >= 0; --m) {
      coord[m] = rest % mesh.shape()[m];
      rest /= mesh.shape()[m];
    }
    const Box w = g.Window(coord.data());
    for (const DimSpec& s : g.spec_.dims)
      WEFT_RETURN_IF_ERROR(
          g.CheckWindow(s.dim, pos, w.offset[s.dim], w.offset[s.dim] + w.shape[s.dim]));
  }
  return g;
}

Box Geometry::Window(const int64_t* coord) const {
  Box b = Owned(coord);
  for (int32_t d = 0; d < b.ndim; ++d) {
    const int32_t i = windowed(d);
    if (i < 0) continue;
    const DimSpec& s = spec_.dims[static_cast<size_t>(i)];
    const int64_t n = layout_->shape()[d];
    int64_t begin, end;
    if (s.is_explicit()) {
      const Mesh& mesh = layout_->mesh();
      int64_t pos = 0;
      for (int32_t m = 0; m < mesh.ndim(); ++m) pos = pos * mesh.shape()[m] + coord[m];
      begin = s.windows[static_cast<size_t>(2 * pos)];
      end = s.windows[static_cast<size_t>(2 * pos + 1)];
    } else if (b.shape[d] == 0) {
      begin = end = b.offset[d];  // an empty shard has an empty window
    } else {
      const int64_t a = b.offset[d], e = a + b.shape[d];
      begin = a == 0 ? -s.pad_lo : std::max(a - s.lo, -s.pad_lo);
      end = e == n ? n + s.pad_hi : std::min(e + s.hi, n + s.pad_hi);
    }
    b.offset[d] = begin;
    b.shape[d] = std::max<int64_t>(end - begin, 0);
  }
  return b;
}

void Geometry::SetPiece(int32_t d, int64_t p, int64_t* coord) const {
  const DimSplit& split = layout_->split(d);
  const auto& shape = layout_->mesh().shape();
  for (auto it = split.mesh_dims.rbegin(); it != split.mesh_dims.rend(); ++it) {
    coord[*it] = p % shape[*it];
    p /= shape[*it];
  }
}

Status Geometry::CheckWindow(int32_t d, int64_t position, int64_t begin, int64_t end) const {
  const DimSpec& s = spec_.dims[static_cast<size_t>(windowed(d))];
  const int64_t n = layout_->shape()[d];
  const std::string who = "tensor dim " + Str(d) + ": the window [" + Str(begin) + ", " + Str(end) +
                          ") of mesh position " + Str(position);
  if (end < begin) return InvalidArgument(who + " ends before it begins");
  if (begin == end) return Status::Ok();
  if (begin < -s.pad_lo || end > n + s.pad_hi)
    return InvalidArgument(who + " lies outside [-pad_lo, N + pad_hi) = [" + Str(-s.pad_lo) + ", " +
                           Str(n + s.pad_hi) + ")");
  // Rows beyond each edge, against that side's rule.
  const struct {
    int64_t over;
    Boundary rule;
    const char* side;
  } sides[2] = {{-begin, s.lo_rule, "below row 0"}, {end - n, s.hi_rule, "above row N-1"}};
  for (const auto& e : sides) {
    if (e.over <= 0) continue;
    const std::string what = who + " reaches " + Str(e.over) + " rows " + e.side +
                             " (N = " + Str(n) + ") but that side's boundary is " +
                             BoundaryName(e.rule);
    // Rows the rule can produce beyond the edge (an empty dim has no row to mirror or repeat).
    int64_t limit = INT64_MAX;
    switch (e.rule) {
      case Boundary::kNone:
        return InvalidArgument(what + ", which allows no rows outside");
      case Boundary::kConstant:
        break;
      case Boundary::kReflect:
        limit = std::max<int64_t>(n - 1, 0);
        break;
      case Boundary::kSymmetric:
      case Boundary::kPeriodic:
        limit = n;
        break;
      case Boundary::kReplicate:
        limit = n > 0 ? INT64_MAX : 0;
        break;
    }
    if (e.over > limit) return InvalidArgument(what + ", which allows at most " + Str(limit));
  }
  return Status::Ok();
}

}  // namespace weft::placement::halo
