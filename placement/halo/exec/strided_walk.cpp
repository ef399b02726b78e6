#include "placement/halo/exec/strided_walk.hpp"

#include <cmath>
#include <complex>
#include <cstring>

#include "backends/reduce/half_float.hpp"
#include "backends/reduce/reduce.hpp"
#include "common/copy.hpp"

namespace weft::placement::halo {
namespace {

// Calls fn(to row, from row, row length) for every innermost row of `shape`.
template <class Fn>
void ForEachRow(const Walk& to, const Walk& from, const Box& shape, int64_t item, Fn&& fn) {
  if (shape.Empty()) return;
  const int32_t nd = shape.ndim;
  if (nd == 0) {
    fn(to.data, from.data, int64_t{1});
    return;
  }
  std::array<int64_t, kMaxTensorDims> i{};
  const int64_t len = shape.shape[nd - 1];
  while (true) {
    int64_t t = 0, f = 0;
    for (int32_t d = 0; d < nd - 1; ++d) {
      t += i[d] * to.stride[d];
      f += i[d] * from.stride[d];
    }
    fn(to.data + t * item, from.data + f * item, len);
    int32_t d = nd - 2;
    for (; d >= 0; --d) {
      if (++i[d] < shape.shape[d]) break;
      i[d] = 0;
    }
    if (d < 0) return;
  }
}

}  // namespace

Walk Plain(const TensorView& v, const Box& box) {
  Walk w;
  w.data = box.Empty() ? nullptr : v.At(box.offset.data());
  for (int32_t d = 0; d < box.ndim; ++d) w.stride[d] = v.strides[d];
  return w;
}

Walk Mapped(const TensorView& v, const Region& r) {
  Walk w;
  if (r.dst.Empty()) return w;
  std::array<int64_t, kMaxTensorDims> first{};
  for (int32_t d = 0; d < r.src.ndim; ++d) {
    const int8_t s = r.step[static_cast<size_t>(d)];
    // Mirrored: the first destination row reads the last source row.
    first[d] = s < 0 ? r.src.offset[d] + r.src.shape[d] - 1 : r.src.offset[d];
    w.stride[d] = s * v.strides[d];
  }
  w.data = v.At(first.data());
  return w;
}

Walk MappedPacked(char* packed, const Region& r, int64_t item) {
  return Mapped(executor::CompactView(packed, r.src, item), r);
}

void WalkCopy(const Walk& to, const Walk& from, const Box& shape, int64_t item) {
  const int32_t nd = shape.ndim;
  const int64_t ts = nd ? to.stride[nd - 1] : 1, fs = nd ? from.stride[nd - 1] : 1;
  ForEachRow(to, from, shape, item, [&](char* t, const char* f, int64_t len) {
    if (ts == 1 && fs == 1) {
      CopyBytes(t, f, static_cast<size_t>(len * item));
      return;
    }
    for (int64_t i = 0; i < len; ++i) std::memcpy(t + i * ts * item, f + i * fs * item, item);
  });
}

Status WalkAdd(const Walk& to, const Walk& from, const Box& shape, DType t) {
  const int32_t nd = shape.ndim;
  const int64_t item = ItemSize(t);
  const int64_t ts = nd ? to.stride[nd - 1] : 1, fs = nd ? from.stride[nd - 1] : 1;
  Status st;
  ForEachRow(to, from, shape, item, [&](char* o, const char* f, int64_t len) {
    if (!st.ok()) return;
    if (ts == 1 && fs == 1) {
      st = backends::ReduceInto(t, ReduceOp::kSum, o, f, static_cast<uint64_t>(len));
      return;
    }
    for (int64_t i = 0; i < len && st.ok(); ++i)
      st = backends::ReduceInto(t, ReduceOp::kSum, o + i * ts * item, f + i * fs * item, 1);
  });
  return st;
}

std::array<char, 16> ElementOf(DType t, double v) {
  std::array<char, 16> e{};
  auto put = [&e](auto x) { std::memcpy(e.data(), &x, sizeof(x)); };
  switch (t.code) {
    case kCodeFloat:
      if (t.bits == 16)
        put(backends::detail::FloatToHalf(static_cast<float>(v)));
      else if (t.bits == 32)
        put(static_cast<float>(v));
      else
        put(v);
      break;
    case kCodeBfloat:
      put(backends::detail::FloatToBfloat16(static_cast<float>(v)));
      break;
    case kCodeComplex:
      if (t.bits == 64)
        put(std::complex<float>(static_cast<float>(v), 0.f));
      else
        put(std::complex<double>(v, 0.0));
      break;
    case kCodeBool:
      e[0] = v != 0 ? 1 : 0;
      break;
    case kCodeInt:
    case kCodeUInt: {
      // Truncate toward zero, then wrap to the width (two's complement), as a C cast through
      // int64 would for values in range; out-of-range doubles saturate to int64 first.
      const double c = std::trunc(v);
      const int64_t i = c >= 9.2e18    ? INT64_MAX
                        : c <= -9.2e18 ? INT64_MIN
                                       : static_cast<int64_t>(c);
      std::memcpy(e.data(), &i, static_cast<size_t>(t.bits / 8));  // little-endian low bytes
      break;
    }
    default:
      break;
  }
  return e;
}

}  // namespace weft::placement::halo
