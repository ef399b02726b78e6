// tp_mlp's local kernels and its one-process reference: what a framework's own kernels would
// be. Plain loops; float storage, double accumulation.
#pragma once

#include <dlpack/dlpack.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace tp_mlp {

struct Dense {
  std::vector<int64_t> shape;
  std::vector<float> values;
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t e : shape) n *= e;
    return n;
  }
  float& at(int64_t i, int64_t j) {
    return values[static_cast<size_t>(shape.size() > 1 ? i * shape[1] + j : i)];
  }
  DLTensor Tensor() const {
    return DLTensor{const_cast<float*>(values.data()),
                    {kDLCPU, 0},
                    static_cast<int32_t>(shape.size()),
                    {kDLFloat, 32, 1},
                    const_cast<int64_t*>(shape.data()),
                    nullptr,
                    0};
  }
};

// out[...] = sum over the other letters of the product of the inputs (2-D at most here).
inline Dense Einsum(const std::string& eq, const std::vector<const Dense*>& in,
                    const std::vector<int64_t>& out_shape) {
  std::vector<std::string> subs(1);
  std::string out;
  const size_t arrow = eq.find("->");
  for (char c : eq.substr(0, arrow)) {
    if (c == ',') {
      subs.emplace_back();
    } else {
      subs.back().push_back(c);
    }
  }
  out = eq.substr(arrow + 2);
  std::map<char, int64_t> extent;
  for (size_t t = 0; t < in.size(); ++t)
    for (size_t d = 0; d < subs[t].size(); ++d) extent[subs[t][d]] = in[t]->shape[d];
  Dense r{out_shape, std::vector<float>(1, 0)};
  r.values.assign(static_cast<size_t>(r.numel()), 0);
  std::vector<double> acc(r.values.size(), 0);
  std::map<char, int64_t> at;
  for (auto& [c, e] : extent) {
    if (e == 0) return r;
    at[c] = 0;
  }
  auto offset = [&](const std::string& s, const std::vector<int64_t>& shape) {
    int64_t o = 0;
    for (size_t d = 0; d < s.size(); ++d) o = o * shape[d] + at[s[d]];
    return static_cast<size_t>(o);
  };
  while (true) {
    double p = 1;
    for (size_t t = 0; t < in.size(); ++t) p *= in[t]->values[offset(subs[t], in[t]->shape)];
    acc[offset(out, out_shape)] += p;
    auto it = at.begin();
    for (; it != at.end(); ++it) {
      if (++it->second < extent[it->first]) break;
      it->second = 0;
    }
    if (it == at.end()) break;
  }
  for (size_t i = 0; i < acc.size(); ++i) r.values[i] = static_cast<float>(acc[i]);
  return r;
}

inline double Gelu(double v) {
  const double k = std::sqrt(2 / M_PI);
  return 0.5 * v * (1 + std::tanh(k * (v + 0.044715 * v * v * v)));
}
inline double GeluGrad(double v) {
  const double k = std::sqrt(2 / M_PI), u = k * (v + 0.044715 * v * v * v), t = std::tanh(u);
  return 0.5 * (1 + t) + 0.5 * v * (1 - t * t) * k * (1 + 3 * 0.044715 * v * v);
}

inline std::function<Dense(std::vector<const Dense*>, std::vector<int64_t>)> Map(
    double (*f)(double)) {
  return [f](std::vector<const Dense*> in, std::vector<int64_t> shape) {
    Dense r{shape, in[0]->values};
    for (float& v : r.values) v = static_cast<float>(f(v));
    return r;
  };
}

inline Dense Product(std::vector<const Dense*> in, std::vector<int64_t> shape) {
  Dense r{shape, in[0]->values};
  for (size_t i = 0; i < r.values.size(); ++i) r.values[i] *= in[1]->values[i];
  return r;
}

// max |a - b| / max |b|.
inline double RelError(const Dense& a, const Dense& b) {
  double err = 0, scale = 1e-30;
  if (a.values.size() != b.values.size()) return 1e30;
  for (size_t i = 0; i < a.values.size(); ++i) {
    err = std::max(err, std::abs(double(a.values[i]) - b.values[i]));
    scale = std::max(scale, std::abs(double(b.values[i])));
  }
  return err / scale;
}

// The same network on one process, straight from the formulas.
struct Reference {
  Dense loss, dw1, dw2, dx;
  static Reference Compute(int64_t B, int64_t D, int64_t H, int64_t O,
                           double (*x)(int64_t, int64_t), double (*w1)(int64_t, int64_t),
                           double (*w2)(int64_t, int64_t)) {
    std::vector<double> h(B * H), da(B * H, 0);
    Reference r{{{}, {0}},
                {{H, D}, std::vector<float>(H * D)},
                {{O, H}, std::vector<float>(O * H)},
                {{B, D}, std::vector<float>(B * D)}};
    double loss = 0;
    for (int64_t b = 0; b < B; ++b)
      for (int64_t j = 0; j < H; ++j) {
        for (int64_t d = 0; d < D; ++d) h[b * H + j] += x(b, d) * w1(j, d);
        for (int64_t o = 0; o < O; ++o) {
          loss += Gelu(h[b * H + j]) * w2(o, j);
          da[b * H + j] += w2(o, j);  // dy = 1
        }
      }
    r.loss.values[0] = static_cast<float>(loss);
    for (int64_t o = 0; o < O; ++o)
      for (int64_t j = 0; j < H; ++j) {
        double s = 0;
        for (int64_t b = 0; b < B; ++b) s += Gelu(h[b * H + j]);
        r.dw2.values[o * H + j] = static_cast<float>(s);
      }
    for (int64_t j = 0; j < H; ++j)
      for (int64_t d = 0; d < D; ++d) {
        double s = 0;
        for (int64_t b = 0; b < B; ++b) s += da[b * H + j] * GeluGrad(h[b * H + j]) * x(b, d);
        r.dw1.values[j * D + d] = static_cast<float>(s);
      }
    for (int64_t b = 0; b < B; ++b)
      for (int64_t d = 0; d < D; ++d) {
        double s = 0;
        for (int64_t j = 0; j < H; ++j) s += da[b * H + j] * GeluGrad(h[b * H + j]) * w1(j, d);
        r.dx.values[b * D + d] = static_cast<float>(s);
      }
    return r;
  }
};

}  // namespace tp_mlp
