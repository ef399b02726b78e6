// Boxes in row-major float buffers of up to 3 dims (fewer dims are padded in front with
// extent 1), and the plain copy loops the raw halo reference packs and unpacks faces with.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

namespace weft::collbench {

using Dims3 = std::array<int64_t, 3>;

struct Box3 {
  Dims3 lo{0, 0, 0}, n{1, 1, 1};
  int64_t numel() const { return n[0] * n[1] * n[2]; }
};

// v (at most 3 values) right-aligned in 3 dims, the leading ones set to `fill`.
inline Dims3 To3(const std::vector<int64_t>& v, int64_t fill) {
  Dims3 d{fill, fill, fill};
  const size_t off = 3 - v.size();
  for (size_t i = 0; i < v.size(); ++i) d[off + i] = v[i];
  return d;
}

inline int64_t Offset(const Dims3& shape, const Dims3& at) {
  return (at[0] * shape[1] + at[1]) * shape[2] + at[2];
}

// One run of memory in a row-major buffer of `shape`: every dim inside the outermost one the
// box spans more than one row of is full.
inline bool IsContiguous(const Box3& b, const Dims3& shape) {
  int d = 2;
  while (d > 0 && b.n[d] == shape[d]) --d;
  for (int e = 0; e < d; ++e) {
    if (b.n[e] != 1) return false;
  }
  return true;
}

// dst[dst_lo + i] = src[src_lo + i] for i in the box extent n, one memcpy per innermost run.
inline void CopyBox(const float* src, const Dims3& src_shape, const Dims3& src_lo, float* dst,
                    const Dims3& dst_shape, const Dims3& dst_lo, const Dims3& n) {
  const auto run = static_cast<size_t>(n[2]) * sizeof(float);
  for (int64_t i = 0; i < n[0]; ++i) {
    for (int64_t j = 0; j < n[1]; ++j) {
      std::memcpy(dst + Offset(dst_shape, {dst_lo[0] + i, dst_lo[1] + j, dst_lo[2]}),
                  src + Offset(src_shape, {src_lo[0] + i, src_lo[1] + j, src_lo[2]}), run);
    }
  }
}

// dst[lo + i] = 0 for i in the box extent n.
inline void ZeroBox(float* dst, const Dims3& shape, const Box3& b) {
  const auto run = static_cast<size_t>(b.n[2]) * sizeof(float);
  for (int64_t i = 0; i < b.n[0]; ++i) {
    for (int64_t j = 0; j < b.n[1]; ++j) {
      std::memset(dst + Offset(shape, {b.lo[0] + i, b.lo[1] + j, b.lo[2]}), 0, run);
    }
  }
}

}  // namespace weft::collbench
