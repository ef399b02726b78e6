#include "ops/engine/halo_need.hpp"

#include <algorithm>
#include <string>

#include "placement/halo/derive/layout_windows.hpp"

namespace weft::ops {

using placement::Layout;
using placement::LayoutPtr;
using placement::halo::DimSpec;
using placement::halo::HaloSpec;
using placement::halo::WindowKind;

namespace {

// The rows of boundary a window may reach: the operator's zero (or fill) padding. The other
// kinds read inside [0, N) only (transposed convolution's padding crops its output).
std::pair<int64_t, int64_t> Padding(const placement::halo::WindowOp& op) {
  if (op.kind == WindowKind::kConv || op.kind == WindowKind::kPool) return {op.pad_lo, op.pad_hi};
  return {0, 0};
}

}  // namespace

Result<std::vector<HaloSpec>> InputHalos(std::span<const LayoutPtr> inputs, const RuleResult& r) {
  std::vector<HaloSpec> out(inputs.size());
  for (size_t t = 0; t < inputs.size(); ++t) {
    const Layout& l = *inputs[t];
    bool sharded = false;
    for (const WindowDim& w : r.windows)
      sharded |= w.in.tensor == static_cast<int32_t>(t) && l.split(w.in.dim).pieces > 1;
    if (!sharded) continue;
    HaloSpec& spec = out[t];
    for (const WindowDim& w : r.windows) {
      if (w.in.tensor != static_cast<int32_t>(t)) continue;
      for (const DimSpec& d : spec.dims)
        if (d.dim == w.in.dim)
          return Internal("two windows read dim " + std::to_string(d.dim) + " of input " +
                          std::to_string(t));
      WEFT_ASSIGN_OR_RETURN(placement::halo::LayoutWindows lw,
                            placement::halo::DeriveLayoutWindows(l, w.in.dim, w.op));
      DimSpec d;
      d.dim = w.in.dim;
      d.lo_rule = w.lo;
      d.hi_rule = w.hi;
      std::tie(d.pad_lo, d.pad_hi) = Padding(w.op);
      d.windows = std::move(lw.table);
      spec.dims.push_back(std::move(d));
      spec.constant = w.fill;
    }
    std::sort(spec.dims.begin(), spec.dims.end(),
              [](const DimSpec& a, const DimSpec& b) { return a.dim < b.dim; });
  }
  return out;
}

namespace {

// The largest piece of every dim: the block a rank holds at most.
std::vector<int64_t> LargestBlock(const Layout& l) {
  std::vector<int64_t> block(static_cast<size_t>(l.ndim()), 0);
  for (int32_t d = 0; d < l.ndim(); ++d) {
    const std::vector<int64_t> sizes = l.ResolvedSizes(d);
    block[static_cast<size_t>(d)] = *std::max_element(sizes.begin(), sizes.end());
  }
  return block;
}

}  // namespace

double HaloCost(const placement::planner::CostModel& model, const Layout& layout,
                const HaloSpec& spec) {
  const std::vector<int64_t> block = LargestBlock(layout);
  const auto item = static_cast<double>(ItemSize(layout.dtype()));
  double total = 0;
  for (const DimSpec& d : spec.dims) {
    const placement::DimSplit& split = layout.split(d.dim);
    if (split.pieces <= 1) continue;  // padding only: a local copy, no message
    placement::planner::LinkCost link{0, 0};
    for (int32_t m : split.mesh_dims) {
      link.alpha = std::max(link.alpha, model.Link(m).alpha);
      link.beta = std::max(link.beta, model.Link(m).beta);
    }
    double others = 1;  // elements per row of the dim in a rank's block
    for (int32_t e = 0; e < layout.ndim(); ++e)
      if (e != d.dim) others *= static_cast<double>(block[static_cast<size_t>(e)]);
    const std::vector<placement::halo::RowRange> pieces =
        placement::halo::OwnedRanges(layout, d.dim);
    const int64_t n = layout.shape()[d.dim];
    // One rank per piece suffices (the ranks holding a piece share its window): walk the
    // coordinates of the cutting mesh dims, the others at 0.
    const placement::Mesh& mesh = layout.mesh();
    placement::Coord coord{};
    std::vector<int64_t> shape(static_cast<size_t>(layout.ndim())), offset(shape.size());
    double worst = 0;
    for (int64_t piece = 0; piece < split.pieces; ++piece) {
      int64_t pos = 0;
      for (int32_t m = 0; m < mesh.ndim(); ++m)
        pos = pos * mesh.shape()[m] + coord[static_cast<size_t>(m)];
      layout.BlockAt(coord.data(), shape.data(), offset.data());
      const int64_t own_lo = offset[static_cast<size_t>(d.dim)];
      const int64_t own_hi = own_lo + shape[static_cast<size_t>(d.dim)];
      const int64_t b = std::max<int64_t>(d.windows[2 * pos], 0);
      const int64_t e = std::min<int64_t>(d.windows[2 * pos + 1], n);
      int64_t messages = 0, rows = 0;  // from the other pieces (the own rows are read in place)
      for (const auto& o : pieces) {
        if (o.begin == own_lo && o.end == own_hi) continue;
        const int64_t lo = std::max(b, o.begin), hi = std::min(e, o.end);
        if (hi > lo) {
          ++messages;
          rows += hi - lo;
        }
      }
      worst = std::max(worst, link.alpha * static_cast<double>(messages) +
                                  link.beta * item * others * static_cast<double>(rows));
      for (auto m = split.mesh_dims.rbegin(); m != split.mesh_dims.rend(); ++m) {  // odometer
        if (++coord[static_cast<size_t>(*m)] < mesh.shape()[*m]) break;
        coord[static_cast<size_t>(*m)] = 0;
      }
    }
    total += worst;
  }
  return total;
}

}  // namespace weft::ops
