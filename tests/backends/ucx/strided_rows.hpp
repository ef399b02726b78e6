// Strided layouts of the tests: rows of elements, a row every so many elements.
#pragma once

#include <cstdint>

#include <weft/backend_plugin.h>

// `rows` rows of `cols` elements of `item` bytes, a row every `stride` elements (stride ==
// cols: one run).
inline weft_bk_strided_t StridedRows(uint64_t rows, uint64_t cols, uint64_t stride, uint64_t item) {
  weft_bk_strided_t l{};
  l.struct_size = sizeof(l);
  l.ndim = 2;
  l.item_bytes = item;
  l.shape[0] = rows;
  l.shape[1] = cols;
  l.strides[0] = static_cast<int64_t>(stride * item);
  l.strides[1] = static_cast<int64_t>(item);
  return l;
}
