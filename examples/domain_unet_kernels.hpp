// The local pieces of examples/domain_unet.cpp, with no communication: [rows, cols, C] float
// blocks with their global offsets, and each layer's kernel and its adjoint. A windowed layer's
// kernel reads a padded block — the window the rules engine's halo gives it on a mesh, or the
// whole image padded by Pad on one rank — so the distributed run and the one-rank reference
// share these loops and differ only in where the rows come from.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace domain_unet {

struct Block {
  std::array<int64_t, 3> shape{}, offset{};  // rows, cols, channels; global index of [0, 0, 0]
  std::vector<float> v;
  Block() = default;
  Block(std::array<int64_t, 3> s, std::array<int64_t, 3> o, float fill = 0.0f)
      : shape(s),
        offset(o),
        v(static_cast<size_t>(std::max<int64_t>(1, s[0] * s[1] * s[2])), fill) {}
  float& at(int64_t i, int64_t j, int64_t c) {
    return v[static_cast<size_t>((i * shape[1] + j) * shape[2] + c)];
  }
  float at(int64_t i, int64_t j, int64_t c) const {
    return v[static_cast<size_t>((i * shape[1] + j) * shape[2] + c)];
  }
};

// A hash of (index, salt) as a small float: data the same on every rank without messages.
inline float Noise(uint64_t i, uint64_t salt) {
  uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull + salt * 0xD1B54A32D192ED03ull;
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  return static_cast<float>(x >> 41) / static_cast<float>(1 << 22) - 1.0f;
}

// `b` filled from its global index (image extents h, w).
inline void FillNoise(Block& b, int64_t w, uint64_t salt) {
  for (int64_t i = 0; i < b.shape[0]; ++i)
    for (int64_t j = 0; j < b.shape[1]; ++j)
      for (int64_t c = 0; c < b.shape[2]; ++c)
        b.at(i, j, c) =
            Noise(static_cast<uint64_t>(((b.offset[0] + i) * w + b.offset[1] + j) * b.shape[2] + c),
                  salt);
}

// A 3x3 convolution's weights [Co, Ci, 3, 3].
struct Weights {
  int64_t co = 0, ci = 0;
  std::vector<float> v;
  float& at(int64_t o, int64_t c, int64_t ti, int64_t tj) {
    return v[static_cast<size_t>(((o * ci + c) * 3 + ti) * 3 + tj)];
  }
  float at(int64_t o, int64_t c, int64_t ti, int64_t tj) const {
    return v[static_cast<size_t>(((o * ci + c) * 3 + ti) * 3 + tj)];
  }
};

// The whole image `x` with `p` rows and columns of `fill` around it (the one-rank reference's
// stand-in for the halo).
inline Block Pad(const Block& x, int64_t p, float fill) {
  Block out({x.shape[0] + 2 * p, x.shape[1] + 2 * p, x.shape[2]}, {-p, -p, 0}, fill);
  for (int64_t i = 0; i < x.shape[0]; ++i)
    for (int64_t j = 0; j < x.shape[1]; ++j)
      for (int64_t c = 0; c < x.shape[2]; ++c) out.at(i + p, j + p, c) = x.at(i, j, c);
  return out;
}
// Pad's adjoint: the interior of a padded gradient.
inline Block Crop(const Block& g, int64_t p) {
  Block out({g.shape[0] - 2 * p, g.shape[1] - 2 * p, g.shape[2]}, {0, 0, 0});
  for (int64_t i = 0; i < out.shape[0]; ++i)
    for (int64_t j = 0; j < out.shape[1]; ++j)
      for (int64_t c = 0; c < out.shape[2]; ++c) out.at(i, j, c) = g.at(i + p, j + p, c);
  return out;
}

// y[i, j, o] = Σ padded[i + ti, j + tj, c] · w[o, c, ti, tj]: unpadded over the padded block.
inline void Conv(const Block& padded, const Weights& w, Block& y) {
  for (int64_t i = 0; i < y.shape[0]; ++i)
    for (int64_t j = 0; j < y.shape[1]; ++j)
      for (int64_t o = 0; o < w.co; ++o) {
        float s = 0;
        for (int64_t ti = 0; ti < 3; ++ti)
          for (int64_t tj = 0; tj < 3; ++tj)
            for (int64_t c = 0; c < w.ci; ++c)
              s += padded.at(i + ti, j + tj, c) * w.at(o, c, ti, tj);
        y.at(i, j, o) = s;
      }
}
// Conv's adjoint in its input: the gradient of the padded block (zeroed first).
inline void ConvInputGrad(const Block& gy, const Weights& w, Block& gpadded) {
  std::fill(gpadded.v.begin(), gpadded.v.end(), 0.0f);
  for (int64_t i = 0; i < gy.shape[0]; ++i)
    for (int64_t j = 0; j < gy.shape[1]; ++j)
      for (int64_t o = 0; o < w.co; ++o)
        for (int64_t ti = 0; ti < 3; ++ti)
          for (int64_t tj = 0; tj < 3; ++tj)
            for (int64_t c = 0; c < w.ci; ++c)
              gpadded.at(i + ti, j + tj, c) += gy.at(i, j, o) * w.at(o, c, ti, tj);
}
// Conv's adjoint in its weights, over this block's outputs (a share of the sum).
inline void ConvWeightGrad(const Block& padded, const Block& gy, Weights& gw) {
  std::fill(gw.v.begin(), gw.v.end(), 0.0f);
  for (int64_t i = 0; i < gy.shape[0]; ++i)
    for (int64_t j = 0; j < gy.shape[1]; ++j)
      for (int64_t o = 0; o < gw.co; ++o)
        for (int64_t ti = 0; ti < 3; ++ti)
          for (int64_t tj = 0; tj < 3; ++tj)
            for (int64_t c = 0; c < gw.ci; ++c)
              gw.at(o, c, ti, tj) += gy.at(i, j, o) * padded.at(i + ti, j + tj, c);
}

// 2x2 max pooling, stride 2, over the window block; its adjoint routes each gradient to the
// first maximum of its window.
inline void MaxPool(const Block& window, Block& y) {
  for (int64_t i = 0; i < y.shape[0]; ++i)
    for (int64_t j = 0; j < y.shape[1]; ++j)
      for (int64_t c = 0; c < y.shape[2]; ++c) {
        float m = -std::numeric_limits<float>::infinity();
        for (int64_t a = 0; a < 2; ++a)
          for (int64_t b = 0; b < 2; ++b) m = std::max(m, window.at(2 * i + a, 2 * j + b, c));
        y.at(i, j, c) = m;
      }
}
inline void MaxPoolGrad(const Block& window, const Block& gy, Block& gwindow) {
  std::fill(gwindow.v.begin(), gwindow.v.end(), 0.0f);
  for (int64_t i = 0; i < gy.shape[0]; ++i)
    for (int64_t j = 0; j < gy.shape[1]; ++j)
      for (int64_t c = 0; c < gy.shape[2]; ++c) {
        int64_t bi = 2 * i, bj = 2 * j;
        for (int64_t a = 0; a < 2; ++a)
          for (int64_t b = 0; b < 2; ++b)
            if (window.at(2 * i + a, 2 * j + b, c) > window.at(bi, bj, c))
              bi = 2 * i + a, bj = 2 * j + b;
        gwindow.at(bi, bj, c) += gy.at(i, j, c);
      }
}

// Bilinear resize (align_corners false) from an image of n rows to n_out: output row j (global)
// mixes rows r0 and r1 (global) with weights 1 − f and f.
struct Mix {
  int64_t r0, r1;
  float f;
};
inline Mix Source(int64_t j, int64_t n, int64_t n_out) {
  const int64_t num = std::max<int64_t>((2 * j + 1) * n - n_out, 0), den = 2 * n_out;
  const int64_t r0 = std::min(num / den, n - 1);
  return {r0, std::min(r0 + 1, n - 1),
          static_cast<float>(num - (num / den) * den) / static_cast<float>(den)};
}
// y (its offset global) from the window (its offset global) of an image [n0, n1].
template <class Visit>
void ForMix(const Block& window, const Block& y, int64_t n0, int64_t n1, Visit&& visit) {
  for (int64_t i = 0; i < y.shape[0]; ++i) {
    const Mix a = Source(y.offset[0] + i, n0, n0 * 2);
    for (int64_t j = 0; j < y.shape[1]; ++j) {
      const Mix b = Source(y.offset[1] + j, n1, n1 * 2);
      const int64_t ri[2] = {a.r0 - window.offset[0], a.r1 - window.offset[0]};
      const int64_t cj[2] = {b.r0 - window.offset[1], b.r1 - window.offset[1]};
      const float wi[2] = {1 - a.f, a.f}, wj[2] = {1 - b.f, b.f};
      for (int p = 0; p < 2; ++p)
        for (int q = 0; q < 2; ++q) visit(i, j, ri[p], cj[q], wi[p] * wj[q]);
    }
  }
}
inline void Upsample(const Block& window, Block& y, int64_t n0, int64_t n1) {
  std::fill(y.v.begin(), y.v.end(), 0.0f);
  ForMix(window, y, n0, n1, [&](int64_t i, int64_t j, int64_t r, int64_t c, float wt) {
    for (int64_t k = 0; k < y.shape[2]; ++k) y.at(i, j, k) += wt * window.at(r, c, k);
  });
}
inline void UpsampleGrad(const Block& gy, Block& gwindow, int64_t n0, int64_t n1) {
  std::fill(gwindow.v.begin(), gwindow.v.end(), 0.0f);
  ForMix(gwindow, gy, n0, n1, [&](int64_t i, int64_t j, int64_t r, int64_t c, float wt) {
    for (int64_t k = 0; k < gy.shape[2]; ++k) gwindow.at(r, c, k) += wt * gy.at(i, j, k);
  });
}

// Channels of a then b; its adjoint splits them back.
inline Block Cat(const Block& a, const Block& b) {
  Block out({a.shape[0], a.shape[1], a.shape[2] + b.shape[2]}, a.offset);
  for (int64_t i = 0; i < a.shape[0]; ++i)
    for (int64_t j = 0; j < a.shape[1]; ++j) {
      for (int64_t c = 0; c < a.shape[2]; ++c) out.at(i, j, c) = a.at(i, j, c);
      for (int64_t c = 0; c < b.shape[2]; ++c) out.at(i, j, a.shape[2] + c) = b.at(i, j, c);
    }
  return out;
}
inline void Split(const Block& g, Block& ga, Block& gb) {
  for (int64_t i = 0; i < g.shape[0]; ++i)
    for (int64_t j = 0; j < g.shape[1]; ++j) {
      for (int64_t c = 0; c < ga.shape[2]; ++c) ga.at(i, j, c) = g.at(i, j, c);
      for (int64_t c = 0; c < gb.shape[2]; ++c) gb.at(i, j, c) = g.at(i, j, ga.shape[2] + c);
    }
}

// max |got − want| / max |want| over two equally long arrays.
inline double RelativeError(const std::vector<float>& got, const std::vector<float>& want) {
  double err = 0, scale = 0;
  for (size_t k = 0; k < want.size() && k < got.size(); ++k) {
    err = std::max(err, std::abs(static_cast<double>(got[k]) - want[k]));
    scale = std::max(scale, std::abs(static_cast<double>(want[k])));
  }
  return got.size() == want.size() ? err / std::max(scale, 1e-30) : INFINITY;
}

}  // namespace domain_unet
