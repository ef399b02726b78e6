// Random operands for the host operations' tests: a shape, and for each operand a buffer with
// the shape's cells laid out in it by random strides (dims in any order, padded, mirrored, and
// where allowed repeated), plus the independent formula of where cell i lives.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "device/region.hpp"

namespace weft::device::host::test {

inline int64_t Pick(std::mt19937_64& g, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(g);
}

// A shape that holds its extents (a device::Shape only points at them).
struct TestShape {
  int32_t ndim = 0;
  Dims extent{};

  Shape view() const { return Shape{ndim, extent.data()}; }
  int64_t Volume() const { return view().Volume(); }
};

inline TestShape RandomShape(std::mt19937_64& g, int32_t max_ndim, int64_t max_extent) {
  TestShape s;
  s.ndim = static_cast<int32_t>(Pick(g, 0, max_ndim));
  for (int32_t d = 0; d < s.ndim; ++d) s.extent[d] = Pick(g, 1, max_extent);
  return s;
}

// One operand: `mem` holds `cells` items; cell i is item origin + sum(i[d] * stride[d]).
struct Operand {
  std::vector<char> mem;
  int64_t item = 1;
  int64_t origin = 0;  // items, from mem.data() + skew
  int64_t skew = 0;    // bytes: the region's cells are not item-aligned when non-zero
  Dims stride{};

  char* Base() { return mem.data() + skew + origin * item; }
};

// Lays `shape` out at random. `repeat`: some dims may get stride 0. `compact`: row-major with no
// padding, no mirroring (the contiguous fast paths).
inline Operand Place(const TestShape& s, int64_t item, bool repeat, bool compact,
                     std::mt19937_64& g) {
  Operand o;
  o.item = item;
  std::vector<int32_t> order(static_cast<size_t>(s.ndim));
  std::iota(order.begin(), order.end(), 0);
  if (!compact) std::shuffle(order.begin(), order.end(), g);
  int64_t span = 1;  // items spanned by the dims placed so far (innermost first)
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const int32_t d = *it;
    const int64_t pad = compact ? 0 : Pick(g, 0, 2) * Pick(g, 0, 1);
    o.stride[d] = span;
    span *= s.extent[d] + pad;
    if (repeat && Pick(g, 0, 3) == 0) o.stride[d] = 0;
  }
  for (int32_t d = 0; d < s.ndim; ++d) {
    if (compact || Pick(g, 0, 2) != 0) continue;
    o.origin += o.stride[d] * (s.extent[d] - 1);  // mirrored: cell 0 at the far end
    o.stride[d] = -o.stride[d];
  }
  const int64_t lead = compact ? 0 : Pick(g, 0, 3);
  o.origin += lead;
  o.skew = compact ? 0 : Pick(g, 0, item - 1);
  o.mem.resize(static_cast<size_t>((span + lead + 3) * item + o.skew));
  for (char& c : o.mem) c = static_cast<char>(Pick(g, 0, 255));
  return o;
}

inline Region RegionOf(Operand& o) { return Region{o.Base(), o.stride.data()}; }

// Byte offset from mem.data() of cell `index` (row-major linear index over shape): computed from
// the index's digits, not by walking.
inline int64_t CellByte(const Operand& o, const TestShape& s, int64_t index) {
  int64_t at = o.origin;
  for (int32_t d = s.ndim - 1; d >= 0; --d) {
    at += (index % s.extent[d]) * o.stride[d];
    index /= s.extent[d];
  }
  return o.skew + at * o.item;
}

}  // namespace weft::device::host::test
