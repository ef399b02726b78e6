// A rank's buffer seen through global coordinates: where the element of a global index lives,
// for compact plan-owned buffers and strided user DLTensors alike. Copies, packs and fills of
// boxes are one region operation each on the memory's device (device/README.md).
#pragma once

#include <array>
#include <cstdint>

#include "common/status.hpp"
#include "device/queue.hpp"
#include "device/region.hpp"
#include "placement/limits.hpp"
#include "placement/planner/box.hpp"

namespace weft::placement::executor {

using planner::Box;

static_assert(kMaxTensorDims <= device::kMaxDims, "a box's dims must fit a device region");

struct TensorView {
  char* data = nullptr;                           // the element at block.offset
  int64_t item = 0;                               // bytes per element
  Box block;                                      // the global box the buffer holds
  std::array<int64_t, kMaxTensorDims> strides{};  // in elements, per tensor dim

  // Address of the element at global index `g` (inside block).
  char* At(const int64_t* g) const {
    int64_t e = 0;
    for (int32_t d = 0; d < block.ndim; ++d) e += (g[d] - block.offset[d]) * strides[d];
    return data + e * item;
  }
};

// A row-major (compact) buffer holding `block`.
TensorView CompactView(char* data, const Box& block, int64_t item);

// Whether the elements of `box` (inside v.block) form one run in row-major order, so that a
// collective can read or write them in place.
bool IsContiguous(const TensorView& v, const Box& box);

// The index space of `box` and the region its cells occupy in `v` (v holds the box): views of
// the box's shape and the view's strides, valid while both live.
device::Shape ShapeOf(const Box& box);
device::Region RegionOf(const TensorView& v, const Box& box);

// Copies the elements of `box` from one view to another (both hold it).
Status CopyBox(const device::Queue& q, const TensorView& from, const TensorView& to,
               const Box& box);
// Packs `box` row-major into dst / unpacks it from src.
Status Pack(const device::Queue& q, const TensorView& v, const Box& box, char* dst);
Status Unpack(const device::Queue& q, const char* src, const TensorView& v, const Box& box);
// Writes the `v.item` bytes at `element` (host memory) into every element of `box`.
Status FillBox(const device::Queue& q, const TensorView& v, const Box& box, const void* element);

}  // namespace weft::placement::executor
