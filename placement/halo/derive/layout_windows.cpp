#include "placement/halo/derive/layout_windows.hpp"

namespace weft::placement::halo {
namespace {

// table[2·pos], table[2·pos + 1] = the window of the piece that mesh position pos holds: the
// row-major combination of its coordinates on the mesh dims that shard `dim`.
void SpreadOverMesh(const Layout& layout, int32_t dim, const std::vector<RowRange>& per_piece,
                    int64_t* table) {
  const std::vector<int64_t>& shape = layout.mesh().shape();
  const int32_t ndim = layout.mesh().ndim();
  std::vector<int64_t> piece_stride(static_cast<size_t>(ndim), 0);
  int64_t stride = 1;
  const std::vector<int32_t>& sharding = layout.split(dim).mesh_dims;
  for (auto m = sharding.rbegin(); m != sharding.rend(); ++m) {
    piece_stride[static_cast<size_t>(*m)] = stride;
    stride *= shape[static_cast<size_t>(*m)];
  }
  std::vector<int64_t> coord(static_cast<size_t>(ndim), 0);
  int64_t piece = 0;
  for (int64_t pos = 0; pos < layout.mesh().size(); ++pos) {
    table[2 * pos] = per_piece[static_cast<size_t>(piece)].begin;
    table[2 * pos + 1] = per_piece[static_cast<size_t>(piece)].end;
    // Row-major odometer: the last mesh dim turns fastest.
    for (int32_t m = ndim - 1; m >= 0; --m) {
      const auto i = static_cast<size_t>(m);
      piece += piece_stride[i];
      if (++coord[i] < shape[i]) break;
      piece -= piece_stride[i] * coord[i];
      coord[i] = 0;
    }
  }
}

}  // namespace

std::vector<RowRange> OwnedRanges(const Layout& layout, int32_t dim) {
  const int64_t n = layout.shape()[dim];
  std::vector<RowRange> owned;
  int64_t next = 0;
  for (const int64_t size : layout.ResolvedSizes(dim)) {
    owned.push_back(size == 0 ? RowRange{n, n} : RowRange{next, next + size});
    next += size;
  }
  return owned;
}

Result<LayoutWindows> DeriveLayoutWindows(const Layout& layout, int32_t dim, const WindowOp& op,
                                          std::string_view op_name) {
  WEFT_ASSIGN_OR_RETURN(DerivedWindows derived,
                        DeriveWindows(layout.shape()[dim], OwnedRanges(layout, dim), op, op_name));
  LayoutWindows out;
  out.out_extent = derived.out_extent;
  out.out_sizes = std::move(derived.out_sizes);
  out.table.resize(2 * static_cast<size_t>(layout.mesh().size()));
  SpreadOverMesh(layout, dim, derived.windows, out.table.data());
  return out;
}

}  // namespace weft::placement::halo
