#include "placement/executor/tensor_view.hpp"

#include <cstring>
#include "common/copy.hpp"

namespace weft::placement::executor {
namespace {

// Calls fn(index of the row's first element, row length) for every innermost row of `box`,
// in row-major order. A 0-d box is one row of one element.
template <class Fn>
void ForEachRow(const Box& box, Fn&& fn) {
  if (box.Empty()) return;
  std::array<int64_t, kMaxTensorDims> g{};
  const int32_t nd = box.ndim;
  if (nd == 0) {
    fn(g.data(), int64_t{1});
    return;
  }
  for (int32_t d = 0; d < nd; ++d) g[d] = box.offset[d];
  const int64_t len = box.shape[nd - 1];
  while (true) {
    fn(g.data(), len);
    int32_t d = nd - 2;
    for (; d >= 0; --d) {
      if (++g[d] < box.offset[d] + box.shape[d]) break;
      g[d] = box.offset[d];
    }
    if (d < 0) return;
  }
}

int64_t InnerStride(const TensorView& v) {
  return v.block.ndim == 0 ? 1 : v.strides[v.block.ndim - 1];
}

}  // namespace

TensorView CompactView(char* data, const Box& block, int64_t item) {
  TensorView v;
  v.data = data;
  v.item = item;
  v.block = block;
  int64_t s = 1;
  for (int32_t d = block.ndim - 1; d >= 0; --d) {
    v.strides[d] = s;
    s *= block.shape[d];
  }
  return v;
}

bool IsContiguous(const TensorView& v, const Box& box) {
  if (box.Empty()) return true;
  // Each dim that the box spans more than once must step over exactly the inner dims' extent.
  int64_t inner = 1;
  for (int32_t d = box.ndim - 1; d >= 0; --d) {
    if (box.shape[d] > 1 && v.strides[d] != inner) return false;
    inner *= box.shape[d];
  }
  return true;
}

void CopyBox(const TensorView& from, const TensorView& to, const Box& box) {
  const int64_t item = from.item, fs = InnerStride(from), ts = InnerStride(to);
  ForEachRow(box, [&](const int64_t* g, int64_t len) {
    const char* s = from.At(g);
    char* d = to.At(g);
    if (fs == 1 && ts == 1) {
      CopyBytes(d, s, static_cast<size_t>(len * item));
      return;
    }
    for (int64_t i = 0; i < len; ++i) std::memcpy(d + i * ts * item, s + i * fs * item, item);
  });
}

void Pack(const TensorView& v, const Box& box, char* dst) {
  const int64_t item = v.item, vs = InnerStride(v);
  ForEachRow(box, [&](const int64_t* g, int64_t len) {
    const char* s = v.At(g);
    if (vs == 1) {
      CopyBytes(dst, s, static_cast<size_t>(len * item));
    } else {
      for (int64_t i = 0; i < len; ++i) std::memcpy(dst + i * item, s + i * vs * item, item);
    }
    dst += len * item;
  });
}

void Unpack(const char* src, const TensorView& v, const Box& box) {
  const int64_t item = v.item, vs = InnerStride(v);
  ForEachRow(box, [&](const int64_t* g, int64_t len) {
    char* d = v.At(g);
    if (vs == 1) {
      CopyBytes(d, src, static_cast<size_t>(len * item));
    } else {
      for (int64_t i = 0; i < len; ++i) std::memcpy(d + i * vs * item, src + i * item, item);
    }
    src += len * item;
  });
}

void FillBox(const TensorView& v, const Box& box, const char* element) {
  const int64_t item = v.item, vs = InnerStride(v);
  // All-zero elements (zeros, +0.0) on contiguous rows: one memset a row.
  bool zero = true;
  for (int64_t b = 0; b < item; ++b) zero = zero && element[b] == 0;
  ForEachRow(box, [&](const int64_t* g, int64_t len) {
    char* d = v.At(g);
    if (zero && vs == 1) {
      std::memset(d, 0, static_cast<size_t>(len * item));
      return;
    }
    for (int64_t i = 0; i < len; ++i) std::memcpy(d + i * vs * item, element, item);
  });
}

}  // namespace weft::placement::executor
