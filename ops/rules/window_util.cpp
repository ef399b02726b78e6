#include "ops/rules/window_util.hpp"

#include <algorithm>
#include <utility>

#include "ops/rules/rule_util.hpp"

namespace weft::ops {

SpatialDims SpatialDims::Of(int32_t ndim, bool channels_last) {
  SpatialDims s;
  s.channel = channels_last ? ndim - 1 : 1;
  for (int32_t d = channels_last ? 1 : 2; d < (channels_last ? ndim - 1 : ndim); ++d)
    s.spatial.push_back(d);
  return s;
}

Result<std::vector<int64_t>> PerDim(const std::string& op, const Attributes& a, const char* name,
                                    size_t n, int64_t fallback, int64_t min) {
  WEFT_ASSIGN_OR_RETURN(std::vector<int64_t> v,
                        ForOp(op, a.Ints(name, std::vector<int64_t>(n, fallback))));
  if (v.size() == 1) v.assign(n, v[0]);
  if (v.size() != n)
    return OpError(op, std::string("attribute '") + name + "' has " + std::to_string(v.size()) +
                           " values for " + std::to_string(n) + " spatial dims");
  for (int64_t x : v)
    if (x < min)
      return OpError(op, std::string("attribute '") + name + "' holds " + std::to_string(x) +
                             ", below " + std::to_string(min));
  return v;
}

Result<std::pair<std::vector<int64_t>, std::vector<int64_t>>> Padding(const std::string& op,
                                                                      const Attributes& a,
                                                                      const char* name, size_t n) {
  WEFT_ASSIGN_OR_RETURN(std::vector<int64_t> v, ForOp(op, a.Ints(name, std::vector<int64_t>{0})));
  std::vector<int64_t> lo(n), hi(n);
  for (size_t i = 0; i < n; ++i) {
    if (v.size() == 1) {
      lo[i] = hi[i] = v[0];
    } else if (v.size() == n) {
      lo[i] = hi[i] = v[i];
    } else if (v.size() == 2 * n) {
      lo[i] = v[2 * i];
      hi[i] = v[2 * i + 1];
    } else {
      return OpError(op, std::string("attribute '") + name + "' has " + std::to_string(v.size()) +
                             " values; give 1, " + std::to_string(n) + " or " +
                             std::to_string(2 * n) + " (low, high per spatial dim)");
    }
    if (lo[i] < 0 || hi[i] < 0)
      return OpError(op, std::string("attribute '") + name + "' holds a negative padding");
  }
  return std::make_pair(std::move(lo), std::move(hi));
}

Result<int64_t> WindowExtent(const std::string& op, int64_t extent,
                             const placement::halo::WindowOp& w) {
  const placement::halo::RowRange whole{0, extent};
  auto d = placement::halo::DeriveWindows(extent, {&whole, 1}, w, "");
  if (!d.ok()) return OpError(op, d.status().message());
  return d->out_extent;
}

Result<ConvAttrs> ReadConvAttrs(const std::string& op, const Attributes& a, size_t n) {
  ConvAttrs c;
  WEFT_ASSIGN_OR_RETURN(c.stride, PerDim(op, a, "stride", n, 1, 1));
  WEFT_ASSIGN_OR_RETURN(c.dilation, PerDim(op, a, "dilation", n, 1, 1));
  WEFT_ASSIGN_OR_RETURN(auto pads, Padding(op, a, "padding", n));
  c.pad_lo = std::move(pads.first);
  c.pad_hi = std::move(pads.second);
  WEFT_ASSIGN_OR_RETURN(c.groups, ForOp(op, a.Int("groups", 1)));
  WEFT_ASSIGN_OR_RETURN(c.channels_last, ForOp(op, a.Bool("channels_last", false)));
  if (c.groups < 1) return OpError(op, "attribute 'groups' must be >= 1");
  return c;
}

placement::halo::WindowOp ConvWindow(const ConvAttrs& c, size_t i, int64_t kernel) {
  placement::halo::WindowOp w;
  w.kind = placement::halo::WindowKind::kConv;
  w.kernel = kernel;
  w.stride = c.stride[i];
  w.dilation = c.dilation[i];
  w.pad_lo = c.pad_lo[i];
  w.pad_hi = c.pad_hi[i];
  return w;
}

namespace {

// The rows ceil_mode adds above the input: PyTorch's output count rounds up, but the last
// window must start inside the input or its low padding.
int64_t CeilExtra(int64_t n, const placement::halo::WindowOp& w) {
  const int64_t span = n + w.pad_lo + w.pad_hi - w.dilation * (w.kernel - 1) - 1;
  if (span < 0) return 0;
  int64_t out = (span + w.stride - 1) / w.stride + 1;
  if ((out - 1) * w.stride >= n + w.pad_lo) --out;
  return std::max<int64_t>(
      0, (out - 1) * w.stride + w.dilation * (w.kernel - 1) + 1 - (n + w.pad_lo + w.pad_hi));
}

}  // namespace

Result<PoolAttrs> ReadPoolAttrs(const std::string& op, bool max, const std::vector<int64_t>& x,
                                const Attributes& a) {
  if (x.size() < 3 || x.size() > 5)
    return OpError(op, "expects x of 3 to 5 dims, got " + ShapeText(x));
  const size_t n = x.size() - 2;
  PoolAttrs p;
  WEFT_ASSIGN_OR_RETURN(std::vector<int64_t> kernel, PerDim(op, a, "kernel_size", n, 0, 1));
  WEFT_ASSIGN_OR_RETURN(std::vector<int64_t> stride, PerDim(op, a, "stride", n, 1, 1));
  if (a.Find("stride") == nullptr) stride = kernel;
  std::vector<int64_t> dilation(n, 1);
  if (max) {
    WEFT_ASSIGN_OR_RETURN(dilation, PerDim(op, a, "dilation", n, 1, 1));
  }
  WEFT_ASSIGN_OR_RETURN(auto pads, Padding(op, a, "padding", n));
  WEFT_ASSIGN_OR_RETURN(const bool ceil_mode, ForOp(op, a.Bool("ceil_mode", false)));
  WEFT_ASSIGN_OR_RETURN(p.count_include_pad, ForOp(op, a.Bool("count_include_pad", true)));
  WEFT_ASSIGN_OR_RETURN(p.channels_last, ForOp(op, a.Bool("channels_last", false)));
  const SpatialDims sd = SpatialDims::Of(static_cast<int32_t>(x.size()), p.channels_last);
  for (size_t i = 0; i < n; ++i) {
    placement::halo::WindowOp w{placement::halo::WindowKind::kPool,
                                kernel[i],
                                stride[i],
                                dilation[i],
                                pads.first[i],
                                pads.second[i],
                                0};
    const int64_t extra = ceil_mode ? CeilExtra(x[static_cast<size_t>(sd.spatial[i])], w) : 0;
    w.pad_hi += extra;
    p.windows.push_back(w);
    p.extra.push_back(extra);
  }
  return p;
}

std::vector<int64_t> OutputOffset(const KernelCall& call, size_t o) {
  std::vector<int64_t> offset(call.output_shapes[o].size(), 0);
  if (o < call.output_layouts.size()) {
    std::vector<int64_t> shape(offset.size());
    call.output_layouts[o]->LocalBlock(call.rank, shape.data(), offset.data());
  }
  return offset;
}

bool HasHalo(const KernelCall& call, size_t input, int32_t dim) {
  if (input >= call.halos.size()) return false;
  for (const auto& d : call.halos[input].dims)
    if (d.dim == dim) return true;
  return false;
}

Result<size_t> ConvOperands(const std::string& op, const std::vector<int64_t>& x,
                            const std::vector<int64_t>& w) {
  if (x.size() < 3 || x.size() > 5 || w.size() != x.size())
    return OpError(
        op, "expects x and w of 3 to 5 dims alike, got " + ShapeText(x) + " and " + ShapeText(w));
  return x.size() - 2;
}

void AddConvStrategies(RuleResult* r, bool bias, const SpatialDims& sd, int64_t groups,
                       int32_t w_out, int32_t w_in,
                       const std::vector<placement::halo::WindowOp>& windows) {
  using C = PlacementCode;
  const auto o = static_cast<int32_t>(bias ? 3 : 2);  // the output's tensor index
  auto codes = [&](C cx, C cw, C cb, C co) {
    std::vector<C> v{cx, cw};
    if (bias) v.push_back(cb);
    v.push_back(co);
    return v;
  };
  const C R = C::R(), P = C::P(ReduceOp::kSum);
  r->strategies.push_back(Replicated(static_cast<size_t>(o) + 1));
  r->strategies.push_back({codes(C::S(sd.batch), R, R, C::S(sd.batch))});
  r->aligned.push_back({{0, sd.batch}, {o, sd.batch}});
  if (groups == 1) {
    r->strategies.push_back({codes(R, C::S(w_out), C::S(0), C::S(sd.channel))});
    r->strategies.push_back({codes(C::S(sd.channel), C::S(w_in), P, P)});
    std::vector<DimRef> outc{{1, w_out}, {o, sd.channel}};
    if (bias) outc.push_back({2, 0});
    r->aligned.push_back(outc);
    r->aligned.push_back({{0, sd.channel}, {1, w_in}});
  }
  for (size_t i = 0; i < windows.size(); ++i)
    AddWindowStrategy(r, codes(R, R, R, R), {{0, sd.spatial[i]}, {o, sd.spatial[i]}, windows[i]});
  r->strategies.push_back({codes(P, R, P, P)});
  r->strategies.push_back({codes(R, P, P, P)});
}

void AddWindowStrategy(RuleResult* r, std::vector<PlacementCode> codes, const WindowDim& w) {
  codes[static_cast<size_t>(w.in.tensor)] = PlacementCode::S(w.in.dim);
  codes[static_cast<size_t>(w.out.tensor)] = PlacementCode::S(w.out.dim);
  r->strategies.push_back({std::move(codes)});
  r->windows.push_back(w);
}

}  // namespace weft::ops
