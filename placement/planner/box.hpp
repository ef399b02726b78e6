// An axis-aligned box of a tensor in global coordinates: a rank's block, or the part of it
// that moves between two ranks. Fixed-size so that per-rank queries never allocate.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

#include "placement/layout.hpp"
#include "placement/limits.hpp"

namespace weft::placement::planner {

struct Box {
  int32_t ndim = 0;
  std::array<int64_t, kMaxTensorDims> offset{};
  std::array<int64_t, kMaxTensorDims> shape{};

  int64_t Volume() const {
    int64_t v = 1;
    for (int32_t d = 0; d < ndim; ++d) v *= shape[d];
    return v;
  }
  bool Empty() const { return Volume() == 0; }
  friend bool operator==(const Box& a, const Box& b) {
    if (a.ndim != b.ndim) return false;
    for (int32_t d = 0; d < a.ndim; ++d)
      if (a.offset[d] != b.offset[d] || a.shape[d] != b.shape[d]) return false;
    return true;
  }
};

// The block of mesh coordinate `coord` under `layout`.
inline Box BlockBox(const Layout& layout, const int64_t* coord) {
  Box b;
  b.ndim = layout.ndim();
  layout.BlockAt(coord, b.shape.data(), b.offset.data());
  return b;
}

// The common part of two boxes; an empty overlap has size 0 on some dim (its offset is then
// meaningless, and only Volume() should be asked of it).
inline Box Intersect(const Box& a, const Box& b) {
  Box r;
  r.ndim = a.ndim;
  for (int32_t d = 0; d < a.ndim; ++d) {
    const int64_t lo = std::max(a.offset[d], b.offset[d]);
    const int64_t hi = std::min(a.offset[d] + a.shape[d], b.offset[d] + b.shape[d]);
    r.offset[d] = lo;
    r.shape[d] = hi > lo ? hi - lo : 0;
  }
  return r;
}

// Whether `inner` lies inside `outer` (an empty box lies inside anything).
inline bool Contains(const Box& outer, const Box& inner) {
  return inner.Empty() || Intersect(outer, inner).Volume() == inner.Volume();
}

}  // namespace weft::placement::planner
