// extern "C" layer for weft_halo_derive_windows: argument checks, the dim's pieces from the
// layout, and the per-piece windows spread over every mesh position.
#include <string>
#include <vector>

#include "api/src/guard.hpp"
#include "api/src/handles.hpp"
#include "placement/halo/derive/derive.hpp"
#include "weft/halo_windows.h"

using weft::InvalidArgument;
using weft::Status;
using weft::placement::Layout;
using weft::placement::halo::DerivedWindows;
using weft::placement::halo::RowRange;
using weft::placement::halo::WindowKind;
using weft::placement::halo::WindowOp;

static_assert(WEFT_WINDOW_CONV == static_cast<int>(WindowKind::kConv));
static_assert(WEFT_WINDOW_POOL == static_cast<int>(WindowKind::kPool));
static_assert(WEFT_WINDOW_CONV_TRANSPOSE == static_cast<int>(WindowKind::kConvTranspose));
static_assert(WEFT_WINDOW_INTERP_NEAREST == static_cast<int>(WindowKind::kInterpNearest));
static_assert(WEFT_WINDOW_INTERP_LINEAR == static_cast<int>(WindowKind::kInterpLinear));
static_assert(WEFT_WINDOW_NEIGHBORHOOD_ATTENTION ==
              static_cast<int>(WindowKind::kNeighborhoodAttention));
static_assert(WEFT_WINDOW_NEIGHBORHOOD_ATTENTION + 1 == weft::placement::halo::kNumWindowKinds);

namespace {

std::string Str(int64_t v) { return std::to_string(v); }

weft::Result<WindowOp> ToWindowOp(const weft_window_op_t* op) {
  WEFT_RETURN_IF_ERROR(weft::api::CheckStructSize(op, sizeof(*op), sizeof(*op), "op"));
  if (op->kind < 0 || op->kind >= weft::placement::halo::kNumWindowKinds)
    return InvalidArgument("op->kind is " + Str(op->kind) +
                           " but must be WEFT_WINDOW_CONV (0) .. "
                           "WEFT_WINDOW_NEIGHBORHOOD_ATTENTION (5)");
  return WindowOp{static_cast<WindowKind>(op->kind),
                  op->kernel,
                  op->stride,
                  op->dilation,
                  op->pad_lo,
                  op->pad_hi,
                  op->out_extent};
}

// The owned rows of every piece of tensor dim `dim`, in piece order. Pieces are in ascending
// row order (nesting re-splits left to right), so a nonempty piece starts where the ones
// before it end; an empty one sits at the extent (SPEC §2.2).
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

// windows[2·pos], windows[2·pos + 1] = the window of the piece that mesh position pos holds:
// the row-major combination of its coordinates on the mesh dims that shard `dim`.
void SpreadOverMesh(const Layout& layout, int32_t dim, const std::vector<RowRange>& per_piece,
                    int64_t* windows) {
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
    windows[2 * pos] = per_piece[static_cast<size_t>(piece)].begin;
    windows[2 * pos + 1] = per_piece[static_cast<size_t>(piece)].end;
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

Status DeriveWindows(const weft_layout_t* layout, int32_t dim, const weft_window_op_t* op,
                     int64_t* windows, int32_t npieces, int64_t* out_sizes, int64_t* out_extent) {
  WEFT_USE(obj, layout);
  const Layout& l = *obj->layout;
  if (dim < 0 || dim >= l.ndim())
    return InvalidArgument("dim is " + Str(dim) + " but the tensor has " + Str(l.ndim()) + " dims");
  WEFT_REQUIRE(op);
  WEFT_ASSIGN_OR_RETURN(const WindowOp window_op, ToWindowOp(op));
  const int64_t pieces = l.split(dim).pieces;
  if (out_sizes != nullptr && npieces != pieces)
    return InvalidArgument("npieces is " + Str(npieces) + " but the layout cuts tensor dim " +
                           Str(dim) + " into " + Str(pieces) + " pieces");
  if (l.shape()[dim] < 1)
    return InvalidArgument("dim is " + Str(dim) + " whose extent is " + Str(l.shape()[dim]) +
                           " but a windowed operator needs at least one input row");
  const std::vector<RowRange> owned = OwnedRanges(l, dim);
  WEFT_ASSIGN_OR_RETURN(
      const DerivedWindows derived,
      weft::placement::halo::DeriveWindows(l.shape()[dim], owned, window_op, "op->"));
  // Outputs are written only on success, all together.
  if (windows != nullptr) SpreadOverMesh(l, dim, derived.windows, windows);
  if (out_sizes != nullptr)
    for (size_t p = 0; p < derived.out_sizes.size(); ++p) out_sizes[p] = derived.out_sizes[p];
  if (out_extent != nullptr) *out_extent = derived.out_extent;
  return Status::Ok();
}

}  // namespace

extern "C" {

weft_status_t weft_halo_derive_windows(const weft_layout_t* layout, int32_t dim,
                                       const weft_window_op_t* op, int64_t* windows,
                                       int32_t npieces, int64_t* out_sizes, int64_t* out_extent) {
  return weft::api::Guard(__func__, [&] {
    return DeriveWindows(layout, dim, op, windows, npieces, out_sizes, out_extent);
  });
}

}  // extern "C"
