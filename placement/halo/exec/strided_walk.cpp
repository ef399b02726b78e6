#include "placement/halo/exec/strided_walk.hpp"

#include <array>

namespace weft::placement::halo {

device::Region Mapped(const TensorView& v, const Region& r, device::Dims& stride) {
  if (r.dst.Empty()) return device::Region{nullptr, stride.data()};
  std::array<int64_t, kMaxTensorDims> first;
  for (int32_t d = 0; d < r.src.ndim; ++d) {
    const int8_t s = r.step[static_cast<size_t>(d)];
    // Mirrored: the first destination row reads the last source row.
    first[d] = s < 0 ? r.src.offset[d] + r.src.shape[d] - 1 : r.src.offset[d];
    stride[static_cast<size_t>(d)] = s * v.strides[d];
  }
  return device::Region{v.At(first.data()), stride.data()};
}

device::Region MappedPacked(char* packed, const Region& r, int64_t item, device::Dims& stride) {
  return Mapped(executor::CompactView(packed, r.src, item), r, stride);
}

}  // namespace weft::placement::halo
