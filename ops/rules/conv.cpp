// conv (1-D/2-D/3-D by the input's rank) and conv_backward_weight (SPEC §5, §4.5;
// docs/design/rules.md "Windowed operators").
// conv(x [N, C, S...], w [Cout, C/groups, K...], optional b [Cout]) -> [N, Cout, So...]
// (attr `channels_last`: x and the output are [N, S..., C]; w stays [Cout, C/groups, K...]),
// attrs `stride`, `dilation` (one value or one per spatial dim), `padding` (1, n or 2n values:
// low and high per dim), `groups`. Per mesh dim:
//   the batch on x and the output;
//   output channels on w, b and the output (groups == 1);
//   input channels on x and w -> P(sum), b P(sum) (groups == 1: every output sums over them);
//   a spatial dim on x and the output through its window: x gets a halo, the output the split
//     the window gives (each rank computes the outputs anchored in its rows);
//   linearity: x P(sum) with w R, or w P(sum) with x R (b P(sum) in both).
// The input gradient needs no rule of its own: it is the transposed convolution of the output
// gradient over the padded block, handed to weft_halo_accumulate over the forward's halo plan.
// conv_backward_weight(x, grad_out) -> grad_w [Cout, C/groups, K...] (attr `kernel_size`,
// the others as conv): batch and spatial dims -> P(sum) (grad_out cut like conv's output, x with
// its halo), output channels on grad_out and grad_w, input channels on x and grad_w.
#include <string>
#include <utility>
#include <vector>

#include "ops/rules/builtin.hpp"
#include "ops/rules/rule_util.hpp"
#include "ops/rules/window_util.hpp"

namespace weft::ops {
namespace {

using C = PlacementCode;
using placement::halo::WindowKind;
using placement::halo::WindowOp;

// The output shape of x through the windows, and the windows (one per spatial dim).
Result<std::vector<int64_t>> WindowedShape(const std::string& op, const std::vector<int64_t>& x,
                                           const SpatialDims& sd, const ConvAttrs& c,
                                           const std::vector<int64_t>& kernel, int64_t out_channels,
                                           std::vector<WindowOp>* windows) {
  std::vector<int64_t> out = x;
  out[static_cast<size_t>(sd.channel)] = out_channels;
  for (size_t i = 0; i < sd.spatial.size(); ++i) {
    windows->push_back(ConvWindow(c, i, kernel[i]));
    const auto d = static_cast<size_t>(sd.spatial[i]);
    WEFT_ASSIGN_OR_RETURN(out[d], WindowExtent(op, x[d], windows->back()));
  }
  return out;
}

Status ConvRule(std::span<const TensorInfo> in, const Attributes& a, RuleResult* r) {
  const std::string op = "conv";
  const std::vector<int64_t>&x = in[0].shape, &w = in[1].shape;
  const bool bias = in.size() == 3;
  WEFT_ASSIGN_OR_RETURN(const size_t n, ConvOperands(op, x, w));
  WEFT_ASSIGN_OR_RETURN(ConvAttrs c, ReadConvAttrs(op, a, n));
  const SpatialDims sd = SpatialDims::Of(static_cast<int32_t>(x.size()), c.channels_last);
  const int64_t cin = x[static_cast<size_t>(sd.channel)], cout = w[0];
  if (cin % c.groups != 0 || cout % c.groups != 0 || w[1] * c.groups != cin)
    return OpError(op, "w " + ShapeText(w) + " does not match " + std::to_string(cin) +
                           " input channels in " + std::to_string(c.groups) + " groups");
  if (bias && (in[2].shape.size() != 1 || in[2].shape[0] != cout))
    return OpError(op, "b must be [" + std::to_string(cout) + "], got " + ShapeText(in[2].shape));
  if (in[1].dtype != in[0].dtype || (bias && in[2].dtype != in[0].dtype))
    return OpError(op, "x, w and b have different dtypes");
  std::vector<WindowOp> windows;
  WEFT_ASSIGN_OR_RETURN(
      std::vector<int64_t> out,
      WindowedShape(op, x, sd, c, std::vector<int64_t>(w.begin() + 2, w.end()), cout, &windows));
  r->outputs.push_back({out, in[0].dtype});
  AddConvStrategies(r, bias, sd, c.groups, 0, 1, windows);
  return Status::Ok();
}

Status ConvWeightRule(std::span<const TensorInfo> in, const Attributes& a, RuleResult* r) {
  const std::string op = "conv_backward_weight";
  const std::vector<int64_t>&x = in[0].shape, &g = in[1].shape;
  if (x.size() < 3 || x.size() > 5 || g.size() != x.size())
    return OpError(op, "expects x and grad_out of 3 to 5 dims alike, got " + ShapeText(x) +
                           " and " + ShapeText(g));
  const size_t n = x.size() - 2;
  WEFT_ASSIGN_OR_RETURN(ConvAttrs c, ReadConvAttrs(op, a, n));
  WEFT_ASSIGN_OR_RETURN(std::vector<int64_t> kernel, PerDim(op, a, "kernel_size", n, 0, 1));
  const SpatialDims sd = SpatialDims::Of(static_cast<int32_t>(x.size()), c.channels_last);
  const int64_t cin = x[static_cast<size_t>(sd.channel)];
  const int64_t cout = g[static_cast<size_t>(sd.channel)];
  if (cin % c.groups != 0 || cout % c.groups != 0)
    return OpError(op, "channels " + std::to_string(cin) + " -> " + std::to_string(cout) +
                           " do not split into " + std::to_string(c.groups) + " groups");
  std::vector<WindowOp> windows;
  WEFT_ASSIGN_OR_RETURN(std::vector<int64_t> expect,
                        WindowedShape(op, x, sd, c, kernel, cout, &windows));
  if (expect != g)
    return OpError(op, "grad_out is " + ShapeText(g) + " but the convolution of " + ShapeText(x) +
                           " gives " + ShapeText(expect));
  if (in[1].dtype != in[0].dtype) return OpError(op, "x and grad_out have different dtypes");
  std::vector<int64_t> gw{cout, cin / c.groups};
  gw.insert(gw.end(), kernel.begin(), kernel.end());
  r->outputs.push_back({gw, in[0].dtype});
  const C R = C::R(), P = C::P(ReduceOp::kSum);
  r->strategies.push_back(Replicated(3));
  r->strategies.push_back({{C::S(sd.batch), C::S(sd.batch), P}});
  r->aligned.push_back({{0, sd.batch}, {1, sd.batch}});
  if (c.groups == 1) {
    r->strategies.push_back({{R, C::S(sd.channel), C::S(0)}});
    r->strategies.push_back({{C::S(sd.channel), R, C::S(1)}});
    r->aligned.push_back({{1, sd.channel}, {2, 0}});
    r->aligned.push_back({{0, sd.channel}, {2, 1}});
  }
  for (size_t i = 0; i < n; ++i)
    AddWindowStrategy(r, {R, R, P}, {{0, sd.spatial[i]}, {1, sd.spatial[i]}, windows[i]});
  r->strategies.push_back({{P, R, P}});
  r->strategies.push_back({{R, P, P}});
  return Status::Ok();
}

const std::vector<std::string> kConvAttrs{"stride", "padding", "dilation", "groups",
                                          "channels_last"};

}  // namespace

Status RegisterConv(Registry& reg) {
  OpDef conv;
  conv.name = "conv";
  conv.min_inputs = 2;
  conv.max_inputs = 3;
  conv.rule = ConvRule;
  conv.kernel = WindowKernel("conv");
  conv.key_attrs = kConvAttrs;
  WEFT_RETURN_IF_ERROR(reg.Add(std::move(conv)));
  for (const char* alias : {"conv1d", "conv2d", "conv3d", "convolution"})
    WEFT_RETURN_IF_ERROR(reg.AddAlias(alias, "conv", "built-in"));
  OpDef weight;
  weight.name = "conv_backward_weight";
  weight.min_inputs = weight.max_inputs = 2;
  weight.rule = ConvWeightRule;
  weight.kernel = WindowKernel("conv_backward_weight");
  weight.key_attrs = kConvAttrs;
  weight.key_attrs.push_back("kernel_size");
  return reg.Add(std::move(weight));
}

}  // namespace weft::ops
