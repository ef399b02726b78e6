// A windowed operator along one tensor dim of a layout (SPEC §4.5): DeriveWindows over the
// dim's pieces, spread over every mesh position. One computation behind the C ABI's
// weft_halo_derive_windows and the op-sharding rules' halo strategies, so both hand out the
// same windows and output splits.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "placement/halo/derive/derive.hpp"
#include "placement/layout.hpp"

namespace weft::placement::halo {

struct LayoutWindows {
  int64_t out_extent = 0;          // N_out
  std::vector<int64_t> out_sizes;  // output rows per piece of the dim, in piece order
  // begin, end of the input window of the rank at each row-major mesh position.
  std::vector<int64_t> table;
};

// The owned rows of every piece of tensor dim `dim`, in piece order (an empty piece sits at
// the extent, SPEC §2.2).
std::vector<RowRange> OwnedRanges(const Layout& layout, int32_t dim);

// `dim` must be a dim of `layout` with extent >= 1; errors of DeriveWindows name the fields as
// `op_name` + field.
Result<LayoutWindows> DeriveLayoutWindows(const Layout& layout, int32_t dim, const WindowOp& op,
                                          std::string_view op_name = "op.");

}  // namespace weft::placement::halo
