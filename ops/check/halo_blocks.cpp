#include "ops/check/halo_blocks.hpp"

#include "ops/rules/shape_util.hpp"
#include "placement/halo/derive/layout_windows.hpp"

namespace weft::ops::check {
namespace {

using placement::halo::Boundary;
using placement::halo::DimSpec;

// Row i of a dim of extent n, outside [0, n), mapped by `rule` to the row it copies; -1 for the
// constant.
int64_t MapRow(int64_t i, int64_t n, Boundary lo, Boundary hi) {
  if (i >= 0 && i < n) return i;
  const Boundary rule = i < 0 ? lo : hi;
  switch (rule) {
    case Boundary::kReflect:
      return i < 0 ? -i : 2 * (n - 1) - i;
    case Boundary::kSymmetric:
      return i < 0 ? -i - 1 : 2 * n - 1 - i;
    case Boundary::kReplicate:
      return i < 0 ? 0 : n - 1;
    case Boundary::kPeriodic:
      return i < 0 ? i + n : i - n;
    default:
      return -1;
  }
}

// Sets the coordinates of the mesh dims that cut `dim` to those of the piece holding `row`.
void OwnerOf(const placement::Layout& layout, int32_t dim, int64_t row,
             const std::vector<placement::halo::RowRange>& pieces, int64_t* coord) {
  int64_t p = 0;
  while (!(pieces[static_cast<size_t>(p)].begin <= row && row < pieces[static_cast<size_t>(p)].end))
    ++p;
  const std::vector<int32_t>& cut = layout.split(dim).mesh_dims;
  for (auto m = cut.rbegin(); m != cut.rend(); ++m) {
    const int64_t extent = layout.mesh().shape()[*m];
    coord[*m] = p % extent;
    p /= extent;
  }
}

}  // namespace

std::vector<RankBlock> PadBlocks(const std::vector<RankBlock>& blocks,
                                 const placement::Layout& layout,
                                 const placement::halo::HaloSpec& spec) {
  const placement::Mesh& mesh = layout.mesh();
  const auto nd = static_cast<size_t>(layout.ndim());
  std::vector<const DimSpec*> windowed(nd, nullptr);
  std::vector<std::vector<placement::halo::RowRange>> pieces(nd);
  for (const DimSpec& d : spec.dims) {
    windowed[static_cast<size_t>(d.dim)] = &d;
    pieces[static_cast<size_t>(d.dim)] = placement::halo::OwnedRanges(layout, d.dim);
  }
  std::vector<RankBlock> out;
  std::vector<int64_t> coord(static_cast<size_t>(mesh.ndim())), src(coord.size());
  std::vector<int64_t> g(nd), local(nd);
  for (int32_t r = 0; r < static_cast<int32_t>(mesh.size()); ++r) {
    // Member by member: GCC 12 at -O3 takes the aggregate form for a read of uninitialised
    // memory (-Wmaybe-uninitialized).
    RankBlock padded;
    padded.block.shape = blocks[static_cast<size_t>(r)].block.shape;
    padded.offset = blocks[static_cast<size_t>(r)].offset;
    mesh.Coordinate(r, coord.data());
    size_t pos = 0;  // the window tables are by row-major mesh position
    for (int32_t m = 0; m < mesh.ndim(); ++m)
      pos = pos * static_cast<size_t>(mesh.shape()[m]) +
            static_cast<size_t>(coord[static_cast<size_t>(m)]);
    for (size_t d = 0; d < nd; ++d)
      if (windowed[d]) {
        padded.offset[d] = windowed[d]->windows[2 * pos];
        padded.block.shape[d] = windowed[d]->windows[2 * pos + 1] - padded.offset[d];
      }
    shape::ForEach(padded.block.shape, [&](const int64_t* i) {
      src = coord;
      bool constant = false;
      for (size_t d = 0; d < nd; ++d) {
        g[d] = padded.offset[d] + i[d];
        if (!windowed[d]) continue;
        const int64_t n = layout.shape()[d];
        g[d] = MapRow(g[d], n, windowed[d]->lo_rule, windowed[d]->hi_rule);
        if (g[d] < 0) {
          constant = true;
          break;
        }
        OwnerOf(layout, static_cast<int32_t>(d), g[d], pieces[d], src.data());
      }
      if (constant) {
        padded.block.values.push_back(spec.constant);
        return;
      }
      const RankBlock& from = blocks[static_cast<size_t>(mesh.RankAt(src.data()))];
      for (size_t d = 0; d < nd; ++d) local[d] = g[d] - from.offset[d];
      padded.block.values.push_back(
          from.block.values[static_cast<size_t>(shape::Offset(from.block.shape, local.data()))]);
    });
    out.push_back(std::move(padded));
  }
  return out;
}

}  // namespace weft::ops::check
