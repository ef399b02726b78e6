// The operands of every memory operation of the device layer: an N-D strided region of cells of
// one item size, walked over one index space. One descriptor for the whole region, so that an
// implementation sees all of it at once: the host walks rows with memcpy fast paths, a CUDA
// implementation maps it onto cudaMemcpy2D/3DAsync or one kernel launch.
//
// Like a DLTensor's shape and strides, the descriptors point at per-dim arrays that the caller
// owns (a view's strides, a box's shape, a Dims on the stack): building one copies nothing, and
// the arrays must stay valid for the duration of the call they are passed to.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace weft::device {

// The most dims a region has: WEFT_MAX_TENSOR_NDIM (placement's kMaxTensorDims is checked
// against it where the two meet).
inline constexpr int32_t kMaxDims = 32;
// The largest item a fill writes (a DLPack dtype of 255 bits is 31 bytes): a fill element is
// passed by value, so a CUDA kernel can take it as a launch argument.
inline constexpr int64_t kMaxItemBytes = 32;

// Storage for per-dim values that a caller computes (compact strides, mapped strides).
using Dims = std::array<int64_t, kMaxDims>;

// The index space of an operation: i ranges over [0, extent[0]) x ... x [0, extent[ndim-1]).
// ndim 0 is one cell (extent may then be null); any extent 0 makes it empty.
struct Shape {
  int32_t ndim = 0;
  const int64_t* extent = nullptr;

  int64_t Volume() const {
    int64_t v = 1;
    for (int32_t d = 0; d < ndim; ++d) v *= extent[d];
    return v;
  }
  bool Empty() const { return Volume() == 0; }
};

// Where cell i of an operand lives: data + (i[0]*stride[0] + ... ) items, stride holding the
// operation's ndim entries. Strides are in items and signed: a negative one walks mirrored, a
// zero one repeats a cell.
struct Region {
  char* data = nullptr;
  const int64_t* stride = nullptr;
};

// A region that is only read.
struct ConstRegion {
  const char* data = nullptr;
  const int64_t* stride = nullptr;

  ConstRegion() = default;
  ConstRegion(const char* d, const int64_t* s) : data(d), stride(s) {}
  ConstRegion(const Region& r) : data(r.data), stride(r.stride) {}  // NOLINT: read-only view
};

// Row-major (compact) strides of `shape`, written into `storage`: what a packed buffer holds.
inline const int64_t* CompactStrides(const Shape& shape, Dims& storage) {
  int64_t s = 1;
  for (int32_t d = shape.ndim - 1; d >= 0; --d) {
    storage[static_cast<std::size_t>(d)] = s;
    s *= shape.extent[d];
  }
  return storage.data();
}
inline Region Compact(char* data, const Shape& shape, Dims& storage) {
  return Region{data, CompactStrides(shape, storage)};
}
inline ConstRegion Compact(const char* data, const Shape& shape, Dims& storage) {
  return ConstRegion(data, CompactStrides(shape, storage));
}

}  // namespace weft::device
