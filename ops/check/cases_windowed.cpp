// Cases of the windowed family (conv, conv_backward_weight, conv_transpose, max_pool, avg_pool,
// pad, interpolate, neighborhood_attention, offset_stencil): random
// 1-D to 3-D images, channels first or last, kernels 1..3, strides and dilations 1..3,
// asymmetric padding, groups, ceil_mode; small enough that every candidate runs in
// microseconds, big enough that windows reach past neighbouring shards.
#include <algorithm>
#include <random>

#include "ops/check/cases.hpp"
#include "ops/rules/window_util.hpp"

namespace weft::ops::check {
namespace {

const DType kF64{kCodeFloat, 64, 1};

int64_t U(Rng& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

void AddValues(Case& c, std::vector<int64_t> shape, Rng& rng) {
  DenseTensor t{shape, {}};
  int64_t n = 1;
  for (int64_t e : shape) n *= e;
  for (int64_t k = 0; k < n; ++k) t.values.push_back(static_cast<double>(U(rng, -4, 4)));
  c.values.push_back(std::move(t));
  c.inputs.push_back({std::move(shape), kF64});
  c.no_partial.push_back(false);
}

// An image [N, C, S...] or [N, S..., C] with `spatial` dims of extent 1..7.
std::vector<int64_t> Image(Rng& rng, size_t spatial, int64_t channels, bool last) {
  std::vector<int64_t> s{U(rng, 1, 2)};
  if (!last) s.push_back(channels);
  for (size_t i = 0; i < spatial; ++i) s.push_back(U(rng, 1, 7));
  if (last) s.push_back(channels);
  return s;
}

// Per spatial dim: kernel, stride, dilation and padding that give at least one output row of
// `extent` rows; pooling keeps the padding within half the window (as PyTorch does), so every
// window reads some data.
struct DimParams {
  int64_t k, s, d, lo, hi;
};
DimParams RandomDim(Rng& rng, int64_t extent, bool pool) {
  for (;;) {
    DimParams p{U(rng, 1, 3), U(rng, 1, 3), U(rng, 1, 3), U(rng, 0, 2), U(rng, 0, 2)};
    const int64_t span = p.d * (p.k - 1) + 1;
    if (pool) p.lo = std::min(p.lo, span / 2), p.hi = std::min(p.hi, span / 2);
    if (extent + p.lo + p.hi >= span) return p;
  }
}

// A pool's window attributes.
void SetPoolDims(Case& c, const std::vector<DimParams>& dims, bool max) {
  std::vector<int64_t> k, s, d, pad;
  for (const DimParams& p : dims) {
    k.push_back(p.k);
    s.push_back(p.s);
    d.push_back(p.d);
    pad.push_back(p.lo);
    pad.push_back(p.hi);
  }
  (void)c.attrs.Set("kernel_size", k);
  (void)c.attrs.Set("stride", s);
  if (max) (void)c.attrs.Set("dilation", d);
  (void)c.attrs.Set("padding", pad);
}

Case Conv(const std::string& op, Rng& rng) {
  Case c{op, {}, {}, {}, 0, {}};
  const size_t n = static_cast<size_t>(U(rng, 1, 3));
  const bool last = U(rng, 0, 1) == 1;
  const int64_t groups = U(rng, 1, 2), cin = groups * U(rng, 1, 2), cout = groups * U(rng, 1, 2);
  std::vector<int64_t> x = Image(rng, n, cin, last);
  const SpatialDims sd = SpatialDims::Of(static_cast<int32_t>(x.size()), last);
  std::vector<DimParams> dims;
  for (size_t i = 0; i < n; ++i)
    dims.push_back(RandomDim(rng, x[static_cast<size_t>(sd.spatial[i])], false));
  std::vector<int64_t> s, d, pad, k;
  for (const DimParams& p : dims) {
    s.push_back(p.s);
    d.push_back(p.d);
    pad.push_back(p.lo);
    pad.push_back(p.hi);
    k.push_back(p.k);
  }
  (void)c.attrs.Set("stride", s);
  (void)c.attrs.Set("dilation", d);
  (void)c.attrs.Set("padding", pad);
  if (groups > 1) (void)c.attrs.Set("groups", groups);
  if (last) (void)c.attrs.Set("channels_last", true);
  AddValues(c, x, rng);
  if (op == "conv_backward_weight") {
    (void)c.attrs.Set("kernel_size", k);
    std::vector<int64_t> g = x;
    g[static_cast<size_t>(sd.channel)] = cout;
    for (size_t i = 0; i < n; ++i) {
      const int64_t e = x[static_cast<size_t>(sd.spatial[i])];
      g[static_cast<size_t>(sd.spatial[i])] =
          (e + dims[i].lo + dims[i].hi - dims[i].d * (dims[i].k - 1) - 1) / dims[i].s + 1;
    }
    AddValues(c, g, rng);
    return c;
  }
  std::vector<int64_t> w{cout, cin / groups};
  w.insert(w.end(), k.begin(), k.end());
  AddValues(c, w, rng);
  if (U(rng, 0, 1) == 1) AddValues(c, {cout}, rng);
  return c;
}

Case Pool(const std::string& op, Rng& rng) {
  Case c{op, {}, {}, {}, op == "avg_pool" ? 1e-12 : 0, {}};
  const size_t n = static_cast<size_t>(U(rng, 1, 3));
  const bool last = U(rng, 0, 1) == 1, max = op == "max_pool";
  std::vector<int64_t> x = Image(rng, n, U(rng, 1, 3), last);
  const SpatialDims sd = SpatialDims::Of(static_cast<int32_t>(x.size()), last);
  std::vector<DimParams> dims;
  for (size_t i = 0; i < n; ++i)
    dims.push_back(RandomDim(rng, x[static_cast<size_t>(sd.spatial[i])], true));
  SetPoolDims(c, dims, max);
  if (U(rng, 0, 1) == 1) (void)c.attrs.Set("ceil_mode", true);
  if (!max && U(rng, 0, 1) == 1) (void)c.attrs.Set("count_include_pad", false);
  if (last) (void)c.attrs.Set("channels_last", true);
  AddValues(c, x, rng);
  return c;
}

Case Pad(const std::string& op, Rng& rng) {
  Case c{op, {}, {}, {}, 0, {}};
  std::vector<int64_t> x;
  for (int64_t d = U(rng, 1, 3); d > 0; --d) x.push_back(U(rng, 1, 6));
  const char* modes[] = {"constant", "reflect", "replicate", "circular"};
  const std::string mode = modes[U(rng, 0, 3)];
  std::vector<int64_t> pad;
  for (size_t k = 0; k < static_cast<size_t>(U(rng, 1, static_cast<int64_t>(x.size()))); ++k) {
    const int64_t n = x[x.size() - 1 - k];
    const int64_t limit = mode == "reflect" ? n - 1 : mode == "constant" ? 3 : n;
    pad.push_back(U(rng, 0, std::min<int64_t>(limit, 3)));
    pad.push_back(U(rng, 0, std::min<int64_t>(limit, 3)));
  }
  (void)c.attrs.Set("pad", pad);
  (void)c.attrs.Set("mode", mode);
  if (mode == "constant" && U(rng, 0, 1) == 1) (void)c.attrs.Set("value", 2.0);
  AddValues(c, x, rng);
  return c;
}

Case ConvTranspose(const std::string& op, Rng& rng) {
  Case c{op, {}, {}, {}, 0, {}};
  const size_t n = static_cast<size_t>(U(rng, 1, 3));
  const bool last = U(rng, 0, 1) == 1;
  const int64_t groups = U(rng, 1, 2), cin = groups * U(rng, 1, 2), cout_group = U(rng, 1, 2);
  std::vector<int64_t> x = Image(rng, n, cin, last);
  const SpatialDims sd = SpatialDims::Of(static_cast<int32_t>(x.size()), last);
  std::vector<int64_t> s, dil, p, op_pad, w{cin, cout_group};
  for (size_t i = 0; i < n; ++i) {
    const int64_t e = x[static_cast<size_t>(sd.spatial[i])];
    for (;;) {
      const int64_t k = U(rng, 1, 3), st = U(rng, 1, 3), dl = U(rng, 1, 3), pd = U(rng, 0, 2);
      const int64_t extra = U(rng, 0, std::max(st, dl) - 1);
      if ((e - 1) * st - 2 * pd + dl * (k - 1) + 1 + extra < 1) continue;
      s.push_back(st);
      dil.push_back(dl);
      p.push_back(pd);
      op_pad.push_back(extra);
      w.push_back(k);
      break;
    }
  }
  (void)c.attrs.Set("stride", s);
  (void)c.attrs.Set("dilation", dil);
  (void)c.attrs.Set("padding", p);
  (void)c.attrs.Set("output_padding", op_pad);
  if (groups > 1) (void)c.attrs.Set("groups", groups);
  if (last) (void)c.attrs.Set("channels_last", true);
  AddValues(c, x, rng);
  if (op == "conv_transpose_backward_weight") {
    (void)c.attrs.Set("kernel_size", std::vector<int64_t>(w.begin() + 2, w.end()));
    std::vector<int64_t> g = x;
    g[static_cast<size_t>(sd.channel)] = cout_group * groups;
    for (size_t i = 0; i < n; ++i) {
      const auto d = static_cast<size_t>(sd.spatial[i]);
      g[d] = (x[d] - 1) * s[i] - 2 * p[i] + dil[i] * (w[2 + i] - 1) + 1 + op_pad[i];
    }
    AddValues(c, g, rng);
    return c;
  }
  AddValues(c, w, rng);
  if (U(rng, 0, 1) == 1) AddValues(c, {cout_group * groups}, rng);
  return c;
}

Case Interpolate(const std::string& op, Rng& rng) {
  Case c{op, {}, {}, {}, 1e-10, {}};
  const size_t n = static_cast<size_t>(U(rng, 1, 3));
  const bool last = U(rng, 0, 1) == 1, linear = U(rng, 0, 1) == 1;
  std::vector<int64_t> size;
  for (size_t i = 0; i < n; ++i) size.push_back(U(rng, 1, 9));
  (void)c.attrs.Set("size", size);
  (void)c.attrs.Set("mode", std::string(linear ? (n == 2 ? "bilinear" : "linear") : "nearest"));
  if (linear && U(rng, 0, 1) == 1) (void)c.attrs.Set("align_corners", true);
  if (last) (void)c.attrs.Set("channels_last", true);
  AddValues(c, Image(rng, n, U(rng, 1, 2), last), rng);
  return c;
}

Case Neighborhood(const std::string& op, Rng& rng) {
  Case c{op, {}, {}, {}, 1e-10, {}};
  std::vector<int64_t> q{U(rng, 1, 2), U(rng, 1, 2)}, kernel;
  for (int64_t i = U(rng, 1, 2); i > 0; --i) {
    const int64_t e = U(rng, 1, 7);
    q.push_back(e);
    kernel.push_back(2 * U(rng, 0, (e - 1) / 2) + 1);
  }
  q.push_back(U(rng, 1, 3));
  std::vector<int64_t> v = q;
  v.back() = U(rng, 1, 3);
  (void)c.attrs.Set("kernel_size", kernel);
  AddValues(c, q, rng);
  AddValues(c, q, rng);
  AddValues(c, v, rng);
  return c;
}

Case OffsetStencil(const std::string& op, Rng& rng) {
  Case c{op, {}, {}, {}, 0, {}};
  std::vector<int64_t> x, dims;
  for (int64_t d = U(rng, 1, 3); d > 0; --d) x.push_back(U(rng, 1, 7));
  for (size_t d = 0; d < x.size(); ++d)
    if (dims.empty() || U(rng, 0, 1) == 1) dims.push_back(static_cast<int64_t>(d));
  const char* rules[] = {"zero", "periodic", "reflect", "symmetric", "replicate"};
  const std::string rule = rules[U(rng, 0, 4)];
  const int64_t m = U(rng, 1, 5);
  std::vector<int64_t> offsets;
  for (int64_t k = 0; k < m; ++k)
    for (int64_t d : dims) {
      const int64_t n = x[static_cast<size_t>(d)];
      const int64_t reach =
          rule == "zero" ? 3 : std::min<int64_t>(3, rule == "reflect" ? n - 1 : n);
      offsets.push_back(U(rng, -reach, reach));
    }
  (void)c.attrs.Set("dims", dims);
  (void)c.attrs.Set("offsets", offsets);
  (void)c.attrs.Set("boundary", rule);
  AddValues(c, x, rng);
  AddValues(c, {m}, rng);
  return c;
}

}  // namespace

Result<Case> WindowedCase(const std::string& op, Rng& rng) {
  if (op == "conv" || op == "conv_backward_weight") return Conv(op, rng);
  if (op == "max_pool" || op == "avg_pool") return Pool(op, rng);
  if (op == "pad") return Pad(op, rng);
  if (op == "conv_transpose" || op == "conv_transpose_backward_weight")
    return ConvTranspose(op, rng);
  if (op == "interpolate") return Interpolate(op, rng);
  if (op == "neighborhood_attention") return Neighborhood(op, rng);
  if (op == "offset_stencil") return OffsetStencil(op, rng);
  return InvalidArgument("no windowed case for '" + op + "'");
}

}  // namespace weft::ops::check
