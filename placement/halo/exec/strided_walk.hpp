// The strided regions of a halo plan's copies and adds, as device regions (device/region.hpp):
// a region may read its source in order, mirrored (negative stride) or from one row (stride 0),
// and the device layer walks it whole.
#pragma once

#include <cstdint>

#include "device/region.hpp"
#include "placement/executor/tensor_view.hpp"
#include "placement/halo/halo_plan.hpp"

namespace weft::placement::halo {

using executor::TensorView;

// The cells of `box` in `v`, walked in order.
inline device::Region Plain(const TensorView& v, const Box& box) {
  return executor::RegionOf(v, box);
}
// The source cells a region reads, walked in the order of its destination cells: `src` inside
// `v` mapped by the region's steps. The strides go to `stride`, which the region points at.
device::Region Mapped(const TensorView& v, const Region& r, device::Dims& stride);
// The same over a row-major buffer holding exactly r.src (a packed message).
device::Region MappedPacked(char* packed, const Region& r, int64_t item, device::Dims& stride);

}  // namespace weft::placement::halo
