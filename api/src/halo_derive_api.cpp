// extern "C" layer for weft_halo_derive_windows: argument checks, then DeriveLayoutWindows.
#include <algorithm>
#include <string>
#include <vector>

#include "api/src/guard.hpp"
#include "api/src/handles.hpp"
#include "placement/halo/derive/layout_windows.hpp"
#include "weft/halo_windows.h"

using weft::InvalidArgument;
using weft::Status;
using weft::placement::Layout;
using weft::placement::halo::LayoutWindows;
using weft::placement::halo::WindowKind;
using weft::placement::halo::WindowOp;

static_assert(WEFT_WINDOW_CONV == static_cast<int>(WindowKind::kConv));
static_assert(WEFT_WINDOW_POOL == static_cast<int>(WindowKind::kPool));
static_assert(WEFT_WINDOW_CONV_TRANSPOSE == static_cast<int>(WindowKind::kConvTranspose));
static_assert(WEFT_WINDOW_INTERP_NEAREST == static_cast<int>(WindowKind::kInterpNearest));
static_assert(WEFT_WINDOW_INTERP_LINEAR == static_cast<int>(WindowKind::kInterpLinear));
static_assert(WEFT_WINDOW_NEIGHBORHOOD_ATTENTION ==
              static_cast<int>(WindowKind::kNeighborhoodAttention));
static_assert(WEFT_WINDOW_INTERP_LINEAR_ALIGNED ==
              static_cast<int>(WindowKind::kInterpLinearAligned));
static_assert(WEFT_WINDOW_INTERP_LINEAR_ALIGNED + 1 == weft::placement::halo::kNumWindowKinds);

namespace {

std::string Str(int64_t v) { return std::to_string(v); }

weft::Result<WindowOp> ToWindowOp(const weft_window_op_t* op) {
  WEFT_RETURN_IF_ERROR(weft::api::CheckStructSize(op, sizeof(*op), sizeof(*op), "op"));
  if (op->kind < 0 || op->kind >= weft::placement::halo::kNumWindowKinds)
    return InvalidArgument("op->kind is " + Str(op->kind) +
                           " but must be WEFT_WINDOW_CONV (0) .. "
                           "WEFT_WINDOW_INTERP_LINEAR_ALIGNED (6)");
  return WindowOp{static_cast<WindowKind>(op->kind),
                  op->kernel,
                  op->stride,
                  op->dilation,
                  op->pad_lo,
                  op->pad_hi,
                  op->out_extent};
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
  WEFT_ASSIGN_OR_RETURN(const LayoutWindows derived,
                        weft::placement::halo::DeriveLayoutWindows(l, dim, window_op, "op->"));
  // Outputs are written only on success, all together.
  if (windows != nullptr) std::copy(derived.table.begin(), derived.table.end(), windows);
  if (out_sizes != nullptr)
    std::copy(derived.out_sizes.begin(), derived.out_sizes.end(), out_sizes);
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
