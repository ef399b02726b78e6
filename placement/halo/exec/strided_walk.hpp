// Element walks over boxes with signed strides: the copies and adds of a halo plan, where a
// region may read its source in order, mirrored (negative stride) or from one row (stride 0).
#pragma once

#include <array>
#include <cstdint>

#include "common/dtype.hpp"
#include "common/status.hpp"
#include "placement/executor/tensor_view.hpp"
#include "placement/halo/halo_plan.hpp"

namespace weft::placement::halo {

using executor::TensorView;

// data + Σ i[d]·stride[d] elements, for i inside `shape`.
struct Walk {
  char* data = nullptr;
  std::array<int64_t, kMaxTensorDims> stride{};
};

// The cells of `box` in `v`, walked in order.
Walk Plain(const TensorView& v, const Box& box);
// The source cells a region reads, walked in the order of its destination cells: `src` inside
// `v` mapped by the region's steps.
Walk Mapped(const TensorView& v, const Region& r);
// The same over a row-major buffer holding exactly r.src (a packed message).
Walk MappedPacked(char* packed, const Region& r, int64_t item);

// to[i] = from[i] over shape (ndim dims).
void WalkCopy(const Walk& to, const Walk& from, const Box& shape, int64_t item);
// to[i] += from[i], in row-major order of i (to may repeat cells: stride 0).
Status WalkAdd(const Walk& to, const Walk& from, const Box& shape, DType t);

// The dtype's bytes of `value` (floats rounded, integers truncated toward zero and wrapped,
// bool = value != 0, complex = value + 0i).
std::array<char, 16> ElementOf(DType t, double value);

}  // namespace weft::placement::halo
