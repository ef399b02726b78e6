// How the host walks a region operation: its operands' cells row by row. The shape is first
// normalized — dims of extent 1 dropped, and a dim merged into the one outside it wherever
// every operand steps over the inner dim's whole extent — so that rows are as long as the
// memory allows (a box that is contiguous in both operands is one row: one memcpy). Merging
// keeps the row-major order of the cells, which Reduce's repeated cells rely on.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

#include "device/region.hpp"

namespace weft::device::host::detail {

template <int N>
struct Rows {
  int32_t ndim = 0;            // after normalizing; 0: a single cell
  Dims extent;                 // [0, ndim) set, as every array here
  std::array<Dims, N> stride;  // bytes, per operand

  int64_t length() const { return ndim == 0 ? 1 : extent[ndim - 1]; }
  // The byte step between a row's cells in operand k (a single cell: one item, contiguous).
  int64_t step(int k, int64_t item) const { return ndim == 0 ? item : stride[k][ndim - 1]; }
};

// `strides[k]` are operand k's strides in items. The shape must not be empty.
template <int N>
Rows<N> Normalize(const Shape& shape, const std::array<const int64_t*, N>& strides, int64_t item) {
  Rows<N> r;
  for (int32_t d = 0; d < shape.ndim; ++d) {
    const int64_t e = shape.extent[d];
    if (e == 1) continue;
    bool merge = r.ndim > 0;
    for (int k = 0; k < N && merge; ++k)
      merge = r.stride[k][r.ndim - 1] == strides[k][d] * item * e;
    const int32_t at = merge ? r.ndim - 1 : r.ndim++;
    r.extent[at] = merge ? r.extent[at] * e : e;
    for (int k = 0; k < N; ++k) r.stride[k][at] = strides[k][d] * item;
  }
  return r;
}

// Calls fn(offsets, length) for every row in row-major order, offsets[k] being the byte offset
// of the row's first cell in operand k.
template <int N, class Fn>
void ForEachRow(const Rows<N>& r, Fn&& fn) {
  std::array<int64_t, N> off{};
  const int64_t len = r.length();
  if (r.ndim <= 1) {
    fn(off, len);
    return;
  }
  const int32_t outer = r.ndim - 1;  // dims [0, outer) step from row to row
  Dims i;
  std::fill_n(i.begin(), outer, int64_t{0});
  while (true) {
    fn(off, len);
    int32_t d = outer - 1;
    for (; d >= 0; --d) {
      for (int k = 0; k < N; ++k) off[k] += r.stride[k][d];
      if (++i[d] < r.extent[d]) break;
      for (int k = 0; k < N; ++k) off[k] -= r.stride[k][d] * r.extent[d];
      i[d] = 0;
    }
    if (d < 0) return;
  }
}

}  // namespace weft::device::host::detail
