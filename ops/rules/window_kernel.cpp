// Reference kernels of the windowed families (conv.cpp, pool.cpp, pad.cpp) for the validation
// harness (ops/engine/kernel.hpp). Along a dim that has a halo (KernelCall::halos) the block is
// the padded window and the kernel runs unpadded; along the others it applies the operator's
// own padding to its (whole) block. Output shapes come from the call: a rank computes exactly
// its block.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ops/rules/builtin.hpp"
#include "ops/rules/rule_util.hpp"
#include "ops/rules/shape_util.hpp"
#include "ops/rules/window_util.hpp"

namespace weft::ops {
namespace {

using placement::halo::WindowOp;

// One spatial dim as the kernel walks it: output o, tap t read local input row
// o·stride + t·dilation − lo (lo = 0 on a padded block).
struct Walk {
  int32_t in_dim = 0, out_dim = 0;
  bool halo = false;
  int64_t kernel = 1, stride = 1, dilation = 1, lo = 0;
  int64_t Row(int64_t o, int64_t t) const { return o * stride + t * dilation - lo; }
};

std::vector<Walk> Walks(const KernelCall& call, const SpatialDims& sd,
                        const std::vector<WindowOp>& windows) {
  std::vector<Walk> w;
  for (size_t i = 0; i < windows.size(); ++i) {
    const int32_t d = sd.spatial[i];
    const WindowOp& op = windows[i];
    const bool halo = HasHalo(call, 0, d);
    w.push_back({d, d, halo, op.kernel, op.stride, op.dilation, halo ? 0 : op.pad_lo});
  }
  return w;
}

// Calls f(taps, input index) for every tap combination of output cell `out` whose rows lie
// inside `in_shape` (the others read padding: zeros, or the pool's fill).
template <class F>
void ForTaps(const std::vector<Walk>& walks, const int64_t* out, std::vector<int64_t>& in_index,
             const std::vector<int64_t>& in_shape, F&& f) {
  std::vector<int64_t> taps(walks.size(), 0);
  for (;;) {
    bool inside = true;
    for (size_t i = 0; i < walks.size(); ++i) {
      const int64_t row = walks[i].Row(out[walks[i].out_dim], taps[i]);
      inside = inside && row >= 0 && row < in_shape[static_cast<size_t>(walks[i].in_dim)];
      in_index[static_cast<size_t>(walks[i].in_dim)] = row;
    }
    if (inside) f(taps, in_index);
    size_t i = walks.size();
    while (i-- > 0) {
      if (++taps[i] < walks[i].kernel) break;
      taps[i] = 0;
    }
    if (i == static_cast<size_t>(-1)) return;
  }
}

// Calls f(x offset, w offset) for every term x[...]·w[...] of output cell `o` of a convolution:
// the input channels of o's group, times the taps that read inside x. Shared by the forward
// and the weight gradient, which walk the same terms and differ in what they do with them.
template <class F>
void ForConvTerms(const std::vector<Walk>& walks, const SpatialDims& sd,
                  const std::vector<int64_t>& x, const std::vector<int64_t>& w, int64_t groups,
                  const int64_t* o, F&& f) {
  const int64_t cin_group = w[1], cout_group = w[0] / groups, co = o[sd.channel];
  std::vector<int64_t> xi(x.size()), wi(w.size());
  xi[static_cast<size_t>(sd.batch)] = o[sd.batch];
  wi[0] = co;
  for (int64_t j = 0; j < cin_group; ++j) {
    xi[static_cast<size_t>(sd.channel)] = (co / cout_group) * cin_group + j;
    wi[1] = j;
    ForTaps(walks, o, xi, x, [&](const std::vector<int64_t>& t, const std::vector<int64_t>& at) {
      std::copy(t.begin(), t.end(), wi.begin() + 2);
      f(shape::Offset(x, at.data()), shape::Offset(w, wi.data()));
    });
  }
}

Status ConvKernel(const KernelCall& call, std::vector<DenseTensor>* out) {
  const DenseTensor &x = call.inputs[0], &w = call.inputs[1];
  const size_t n = x.shape.size() - 2;
  WEFT_ASSIGN_OR_RETURN(ConvAttrs c, ReadConvAttrs("conv", *call.attrs, n));
  const SpatialDims sd = SpatialDims::Of(static_cast<int32_t>(x.shape.size()), c.channels_last);
  std::vector<WindowOp> windows;
  for (size_t i = 0; i < n; ++i) windows.push_back(ConvWindow(c, i, w.shape[2 + i]));
  const std::vector<Walk> walks = Walks(call, sd, windows);
  out->assign(1, DenseTensor{call.output_shapes[0], {}});
  DenseTensor& y = (*out)[0];
  y.values.assign(static_cast<size_t>(shape::Count(y.shape)), 0.0);
  shape::ForEach(y.shape, [&](const int64_t* o) {
    const auto co = static_cast<size_t>(o[sd.channel]);
    double sum = call.inputs.size() == 3 ? call.inputs[2].values[co] : 0.0;
    ForConvTerms(walks, sd, x.shape, w.shape, c.groups, o, [&](int64_t xk, int64_t wk) {
      sum += x.values[static_cast<size_t>(xk)] * w.values[static_cast<size_t>(wk)];
    });
    y.values[static_cast<size_t>(shape::Offset(y.shape, o))] = sum;
  });
  return Status::Ok();
}

Status ConvWeightKernel(const KernelCall& call, std::vector<DenseTensor>* out) {
  const DenseTensor &x = call.inputs[0], &g = call.inputs[1];
  const size_t n = x.shape.size() - 2;
  WEFT_ASSIGN_OR_RETURN(ConvAttrs c, ReadConvAttrs("conv_backward_weight", *call.attrs, n));
  const SpatialDims sd = SpatialDims::Of(static_cast<int32_t>(x.shape.size()), c.channels_last);
  out->assign(1, DenseTensor{call.output_shapes[0], {}});
  DenseTensor& gw = (*out)[0];
  gw.values.assign(static_cast<size_t>(shape::Count(gw.shape)), 0.0);
  std::vector<WindowOp> windows;
  for (size_t i = 0; i < n; ++i) windows.push_back(ConvWindow(c, i, gw.shape[2 + i]));
  const std::vector<Walk> walks = Walks(call, sd, windows);
  // Every output-gradient cell adds g · x into the taps it came from.
  shape::ForEach(g.shape, [&](const int64_t* o) {
    const double gv = g.values[static_cast<size_t>(shape::Offset(g.shape, o))];
    ForConvTerms(walks, sd, x.shape, gw.shape, c.groups, o, [&](int64_t xk, int64_t wk) {
      gw.values[static_cast<size_t>(wk)] += gv * x.values[static_cast<size_t>(xk)];
    });
  });
  return Status::Ok();
}

// The divisor of an avg_pool window along the dims without a halo: its taps inside
// [-pad_lo, N + pad_hi) (count_include_pad, ceil_mode's extra rows left out) or inside the
// input; along halo dims every tap counts (the rule shards only where that is exact).
int64_t AvgDivisor(const PoolAttrs& p, const std::vector<Walk>& walks, const int64_t* o,
                   const std::vector<int64_t>& x) {
  int64_t count = 1;
  for (size_t i = 0; i < walks.size(); ++i) {
    const Walk& k = walks[i];
    if (k.halo) {
      count *= k.kernel;
      continue;
    }
    const int64_t extent = x[static_cast<size_t>(k.in_dim)];
    const int64_t lo = p.count_include_pad ? -p.windows[i].pad_lo : 0;
    const int64_t hi = p.count_include_pad ? extent + p.windows[i].pad_hi - p.extra[i] : extent;
    int64_t taps = 0;
    for (int64_t t = 0; t < k.kernel; ++t) {
      const int64_t row = k.Row(o[k.out_dim], t);
      taps += row >= lo && row < hi ? 1 : 0;
    }
    count *= taps;
  }
  return count;
}

Status PoolKernel(const std::string& op, bool max, const KernelCall& call,
                  std::vector<DenseTensor>* out) {
  const DenseTensor& x = call.inputs[0];
  const std::vector<int64_t>& global = call.global_inputs[0].shape;
  WEFT_ASSIGN_OR_RETURN(const PoolAttrs p, ReadPoolAttrs(op, max, global, *call.attrs));
  const SpatialDims sd = SpatialDims::Of(static_cast<int32_t>(x.shape.size()), p.channels_last);
  const std::vector<Walk> walks = Walks(call, sd, p.windows);
  out->assign(1, DenseTensor{call.output_shapes[0], {}});
  DenseTensor& y = (*out)[0];
  y.values.assign(static_cast<size_t>(shape::Count(y.shape)), 0.0);
  std::vector<int64_t> xi(x.shape.size());
  shape::ForEach(y.shape, [&](const int64_t* o) {
    xi[static_cast<size_t>(sd.batch)] = o[sd.batch];
    xi[static_cast<size_t>(sd.channel)] = o[sd.channel];
    double acc = max ? -std::numeric_limits<double>::infinity() : 0.0;
    ForTaps(walks, o, xi, x.shape,
            [&](const std::vector<int64_t>&, const std::vector<int64_t>& at) {
              const double v = x.values[static_cast<size_t>(shape::Offset(x.shape, at.data()))];
              acc = max ? std::max(acc, v) : acc + v;
            });
    if (!max) acc /= static_cast<double>(AvgDivisor(p, walks, o, x.shape));
    y.values[static_cast<size_t>(shape::Offset(y.shape, o))] = acc;
  });
  return Status::Ok();
}

// pad's source row for output row o of a dim padded by lo rows over an extent of n, under
// `mode`; -1 for the constant.
int64_t PadSource(const std::string& mode, int64_t o, int64_t lo, int64_t n) {
  int64_t i = o - lo;
  if (i >= 0 && i < n) return i;
  if (mode == "reflect") return i < 0 ? -i : 2 * (n - 1) - i;
  if (mode == "replicate") return i < 0 ? 0 : n - 1;
  if (mode == "circular") return ((i % n) + n) % n;
  return -1;
}

Status PadKernel(const KernelCall& call, std::vector<DenseTensor>* out) {
  const DenseTensor& x = call.inputs[0];
  const Attributes& a = *call.attrs;
  WEFT_ASSIGN_OR_RETURN(std::vector<int64_t> pad, a.Ints("pad"));
  WEFT_ASSIGN_OR_RETURN(std::string mode, a.Text("mode", std::string("constant")));
  WEFT_ASSIGN_OR_RETURN(const double value, a.Float("value", 0.0));
  const size_t nd = x.shape.size();
  std::vector<int64_t> lo(nd, 0);
  for (size_t k = 0; k < pad.size() / 2; ++k)
    if (!HasHalo(call, 0, static_cast<int32_t>(nd - 1 - k))) lo[nd - 1 - k] = pad[2 * k];
  out->assign(1, DenseTensor{call.output_shapes[0], {}});
  DenseTensor& y = (*out)[0];
  y.values.resize(static_cast<size_t>(shape::Count(y.shape)));
  std::vector<int64_t> xi(nd);
  shape::ForEach(y.shape, [&](const int64_t* o) {
    bool constant = false;
    for (size_t d = 0; d < nd; ++d) {
      xi[d] = PadSource(mode, o[d], lo[d], x.shape[d]);
      constant |= xi[d] < 0;
    }
    y.values[static_cast<size_t>(shape::Offset(y.shape, o))] =
        constant ? value : x.values[static_cast<size_t>(shape::Offset(x.shape, xi.data()))];
  });
  return Status::Ok();
}

}  // namespace

KernelFn WindowKernel(const std::string& op) {
  if (op == "conv") return ConvKernel;
  if (op == "conv_backward_weight") return ConvWeightKernel;
  if (op == "max_pool" || op == "avg_pool")
    return [op](const KernelCall& call, std::vector<DenseTensor>* out) {
      return PoolKernel(op, op == "max_pool", call, out);
    };
  if (op == "pad") return PadKernel;
  return nullptr;
}

}  // namespace weft::ops
