// The local pieces of examples/domain_conv.cpp, with no communication: the convolution's
// geometry, row-major [rows, cols, C] blocks, the local convolution and its adjoint over a
// padded block, the closed-form data, and the single-rank reference the distributed result is
// checked against.
#pragma once

#include <weft/weft.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace domain_conv {

constexpr DLDataType kF32 = {kDLFloat, 32, 1};

// A hash of (index, salt) as a float in [-1, 1): data with no structure a misplaced row could
// hide in, the same on every rank without communication.
inline float Noise(uint64_t i, uint64_t salt) {
  uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull + salt * 0xD1B54A32D192ED03ull;
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  return static_cast<float>(x >> 40) / static_cast<float>(1 << 23) - 1.0f;
}

// The convolution's geometry: "same" padding at stride 1 (pad_lo + pad_hi = k - 1).
struct Conv {
  int64_t k, s, c, pad_lo, pad_hi;  // kernel, stride, channels (in = out), zero padding
};

// A row-major [rows, cols, C] buffer with its global offset; never empty, so that a rank with
// no rows still passes a valid pointer.
struct Block {
  std::array<int64_t, 3> shape{}, offset{};
  std::vector<float> data;
  void Allocate() { data.assign(std::max<int64_t>(1, shape[0] * shape[1] * shape[2]), 0.0f); }
  DLTensor Tensor() {
    return DLTensor{data.data(), {kDLCPU, 0}, 3, kF32, shape.data(), nullptr, 0};
  }
  float* At(int64_t i, int64_t j) { return data.data() + (i * shape[1] + j) * shape[2]; }
};

// The first padded row (column) the output's first row reads, checked to keep every read of
// the local convolution inside the padded block.
inline int64_t ReadBase(const Conv& cv, int64_t out_off, int64_t out_n, int64_t origin,
                        int64_t pad_n) {
  const int64_t base = cv.s * out_off - cv.pad_lo - origin;
  if (out_n > 0 && (base < 0 || base + cv.s * (out_n - 1) + cv.k > pad_n)) {
    throw std::runtime_error("the halo window does not cover the convolution's receptive field");
  }
  return base;
}

// out[i, j, :] = sum over taps and input channels of padded[...] * w (w is [k, k, Cin, Cout]).
inline void ConvForward(const Conv& cv, Block& pad, const std::vector<float>& w, Block& out) {
  const int64_t by = ReadBase(cv, out.offset[0], out.shape[0], pad.offset[0], pad.shape[0]);
  const int64_t bx = ReadBase(cv, out.offset[1], out.shape[1], pad.offset[1], pad.shape[1]);
  std::fill(out.data.begin(), out.data.end(), 0.0f);
  for (int64_t i = 0; i < out.shape[0]; ++i) {
    for (int64_t j = 0; j < out.shape[1]; ++j) {
      float* o = out.At(i, j);
      for (int64_t ky = 0; ky < cv.k; ++ky) {
        for (int64_t kx = 0; kx < cv.k; ++kx) {
          const float* in = pad.At(by + cv.s * i + ky, bx + cv.s * j + kx);
          const float* wk = w.data() + (ky * cv.k + kx) * cv.c * cv.c;
          for (int64_t ci = 0; ci < cv.c; ++ci) {
            const float v = in[ci];
            for (int64_t co = 0; co < cv.c; ++co) o[co] += v * wk[ci * cv.c + co];
          }
        }
      }
    }
  }
}

// The local adjoint: every output gradient scattered into the padded-size buffer it was read
// from (wt is w transposed to [k, k, Cout, Cin], so the inner loop runs over contiguous Cin).
inline void ConvTranspose(const Conv& cv, Block& gout, const std::vector<float>& wt, Block& gpad) {
  const int64_t by = ReadBase(cv, gout.offset[0], gout.shape[0], gpad.offset[0], gpad.shape[0]);
  const int64_t bx = ReadBase(cv, gout.offset[1], gout.shape[1], gpad.offset[1], gpad.shape[1]);
  std::fill(gpad.data.begin(), gpad.data.end(), 0.0f);
  for (int64_t i = 0; i < gout.shape[0]; ++i) {
    for (int64_t j = 0; j < gout.shape[1]; ++j) {
      const float* g = gout.At(i, j);
      for (int64_t ky = 0; ky < cv.k; ++ky) {
        for (int64_t kx = 0; kx < cv.k; ++kx) {
          float* gp = gpad.At(by + cv.s * i + ky, bx + cv.s * j + kx);
          const float* wk = wt.data() + (ky * cv.k + kx) * cv.c * cv.c;
          for (int64_t co = 0; co < cv.c; ++co) {
            const float v = g[co];
            for (int64_t ci = 0; ci < cv.c; ++ci) gp[ci] += v * wk[co * cv.c + ci];
          }
        }
      }
    }
  }
}

// Fills a block from a closed form of the global index: salt 1 the input, 3 the gradient.
inline void FillBlock(Block& b, const std::array<int64_t, 3>& global, uint64_t salt) {
  for (int64_t i = 0; i < b.shape[0]; ++i) {
    for (int64_t j = 0; j < b.shape[1]; ++j) {
      const int64_t g = ((b.offset[0] + i) * global[1] + b.offset[1] + j) * global[2];
      for (int64_t c = 0; c < b.shape[2]; ++c) b.At(i, j)[c] = Noise(g + c, salt);
    }
  }
}

struct Error {
  double abs = 0, ref = 0;  // max |distributed - reference|, max |reference|
  void Add(double want, float got) {
    abs = std::max(abs, std::fabs(want - double{got}));
    ref = std::max(ref, std::fabs(want));
  }
  double Relative() const { return ref > 0 ? abs / ref : abs; }
};

// The single-rank reference forward, straight from the definition (zero padding by bounds
// checks, sums in double), against the gathered distributed output y.
inline Error ReferenceForward(const Conv& cv, Block& x, const std::vector<float>& w, Block& y) {
  Error e;
  std::vector<double> acc(static_cast<size_t>(cv.c));
  for (int64_t oy = 0; oy < y.shape[0]; ++oy) {
    for (int64_t ox = 0; ox < y.shape[1]; ++ox) {
      std::fill(acc.begin(), acc.end(), 0.0);
      for (int64_t ky = 0; ky < cv.k; ++ky) {
        for (int64_t kx = 0; kx < cv.k; ++kx) {
          const int64_t iy = cv.s * oy - cv.pad_lo + ky, ix = cv.s * ox - cv.pad_lo + kx;
          if (iy < 0 || iy >= x.shape[0] || ix < 0 || ix >= x.shape[1]) continue;
          const float* in = x.At(iy, ix);
          const float* wk = w.data() + (ky * cv.k + kx) * cv.c * cv.c;
          for (int64_t ci = 0; ci < cv.c; ++ci) {
            for (int64_t co = 0; co < cv.c; ++co) acc[co] += double{in[ci]} * wk[ci * cv.c + co];
          }
        }
      }
      for (int64_t co = 0; co < cv.c; ++co) e.Add(acc[co], y.At(oy, ox)[co]);
    }
  }
  return e;
}

// The reference backward as a gather (grad_input[i] sums the outputs o with s*o - pad_lo + k
// == i over taps k), a different formulation from the distributed scatter, against gx.
inline Error ReferenceBackward(const Conv& cv, Block& g, const std::vector<float>& wt, Block& gx) {
  const auto source = [&](int64_t at, int64_t k, int64_t n) -> int64_t {
    const int64_t t = at + cv.pad_lo - k;
    return (t < 0 || t % cv.s != 0 || t / cv.s >= n) ? -1 : t / cv.s;
  };
  Error e;
  std::vector<double> acc(static_cast<size_t>(cv.c));
  for (int64_t iy = 0; iy < gx.shape[0]; ++iy) {
    for (int64_t ix = 0; ix < gx.shape[1]; ++ix) {
      std::fill(acc.begin(), acc.end(), 0.0);
      for (int64_t ky = 0; ky < cv.k; ++ky) {
        for (int64_t kx = 0; kx < cv.k; ++kx) {
          const int64_t oy = source(iy, ky, g.shape[0]), ox = source(ix, kx, g.shape[1]);
          if (oy < 0 || ox < 0) continue;
          const float* go = g.At(oy, ox);
          const float* wk = wt.data() + (ky * cv.k + kx) * cv.c * cv.c;
          for (int64_t co = 0; co < cv.c; ++co) {
            for (int64_t ci = 0; ci < cv.c; ++ci) acc[ci] += double{go[co]} * wk[co * cv.c + ci];
          }
        }
      }
      for (int64_t ci = 0; ci < cv.c; ++ci) e.Add(acc[ci], gx.At(iy, ix)[ci]);
    }
  }
  return e;
}

}  // namespace domain_conv
