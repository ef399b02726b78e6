// conv_transpose (1-D/2-D/3-D; SPEC §5, §4.5; docs/design/rules.md "Windowed operators"):
// x [N, Cin, S...] (attr `channels_last`: [N, S..., Cin]), w [Cin, Cout/groups, K...], optional
// b [Cout] -> [N, Cout, So...] with So = (S−1)·stride − 2·padding + dilation·(K−1) + 1 +
// output_padding (attrs `stride`, `padding`, `output_padding`, `dilation`: one value or one
// per spatial dim; `groups`). Per mesh dim: the batch; output channels on w's dim 1, b and the
// output (groups == 1); input channels on x and w's dim 0 -> P(sum); a spatial dim through its
// window (the input rows whose scattered taps reach the rank's outputs; the output split puts
// each output with the input row whose scattered centre is nearest); linear Partials.
// The local kernel computes its outputs j from the padded block by gathering: output j takes
// x[i]·w[t] for every i, t with s·i − p + t·d = j (global indices). Its weight gradient is
// conv_transpose_backward_weight (below); its input gradient the local gradient of the padded
// block, summed into the owners by weft_halo_accumulate over the forward's halo plan.
#include <string>
#include <utility>
#include <vector>

#include "ops/rules/builtin.hpp"
#include "ops/rules/rule_util.hpp"
#include "ops/rules/shape_util.hpp"
#include "ops/rules/window_util.hpp"

namespace weft::ops {
namespace {

using placement::halo::WindowKind;
using placement::halo::WindowOp;

struct TransposeAttrs {
  ConvAttrs conv;  // stride, dilation, padding (pad_lo), groups, channels_last
  std::vector<int64_t> output_padding;
};

Result<TransposeAttrs> ReadTransposeAttrs(const std::string& op, const Attributes& a, size_t n) {
  TransposeAttrs t;
  WEFT_ASSIGN_OR_RETURN(t.conv, ReadConvAttrs(op, a, n));
  for (size_t i = 0; i < n; ++i)
    if (t.conv.pad_lo[i] != t.conv.pad_hi[i])
      return OpError(op,
                     "attribute 'padding' must be symmetric (use 'output_padding' for "
                     "the high end)");
  WEFT_ASSIGN_OR_RETURN(t.output_padding, PerDim(op, a, "output_padding", n, 0, 0));
  return t;
}

WindowOp TransposeWindow(const TransposeAttrs& t, size_t i, int64_t kernel) {
  return {
      WindowKind::kConvTranspose, kernel, t.conv.stride[i], t.conv.dilation[i], t.conv.pad_lo[i],
      t.output_padding[i],        0};
}

Status TransposeRule(std::span<const TensorInfo> in, const Attributes& a, RuleResult* r) {
  const std::string op = "conv_transpose";
  const std::vector<int64_t>&x = in[0].shape, &w = in[1].shape;
  const bool bias = in.size() == 3;
  WEFT_ASSIGN_OR_RETURN(const size_t n, ConvOperands(op, x, w));
  WEFT_ASSIGN_OR_RETURN(TransposeAttrs t, ReadTransposeAttrs(op, a, n));
  const SpatialDims sd = SpatialDims::Of(static_cast<int32_t>(x.size()), t.conv.channels_last);
  const int64_t cin = x[static_cast<size_t>(sd.channel)], cout = w[1] * t.conv.groups;
  if (w[0] != cin || cin % t.conv.groups != 0)
    return OpError(op, "w " + ShapeText(w) + " does not match " + std::to_string(cin) +
                           " input channels in " + std::to_string(t.conv.groups) + " groups");
  if (bias && (in[2].shape.size() != 1 || in[2].shape[0] != cout))
    return OpError(op, "b must be [" + std::to_string(cout) + "], got " + ShapeText(in[2].shape));
  std::vector<int64_t> out = x;
  out[static_cast<size_t>(sd.channel)] = cout;
  std::vector<WindowOp> windows;
  for (size_t i = 0; i < n; ++i) {
    windows.push_back(TransposeWindow(t, i, w[2 + i]));
    const auto d = static_cast<size_t>(sd.spatial[i]);
    WEFT_ASSIGN_OR_RETURN(out[d], WindowExtent(op, x[d], windows.back()));
  }
  r->outputs.push_back({out, in[0].dtype});
  AddConvStrategies(r, bias, sd, t.conv.groups, 1, 0, windows);
  return Status::Ok();
}

// Calls f() for every tap combination `taps` through which an input row reaches output cell
// `o` (local; `at` the output block's global offset), with xi's spatial entries set to that
// row in the (padded) block x of global origin `origin`: input row i feeds output j through
// tap t when j = s·i − p + t·d.
template <class F>
void ForSources(const TransposeAttrs& t, const SpatialDims& sd, const std::vector<int64_t>& origin,
                const std::vector<int64_t>& at, const int64_t* o, const std::vector<int64_t>& x,
                const int64_t* kernel, std::vector<int64_t>& xi, std::vector<int64_t>& taps,
                F&& f) {
  const size_t n = taps.size();
  std::fill(taps.begin(), taps.end(), 0);
  for (;;) {
    bool hit = true;
    for (size_t i = 0; i < n && hit; ++i) {
      const auto d = static_cast<size_t>(sd.spatial[i]);
      const int64_t num = at[d] + o[d] + t.conv.pad_lo[i] - taps[i] * t.conv.dilation[i];
      const int64_t row = num / t.conv.stride[i] - origin[d];
      hit = num >= 0 && num % t.conv.stride[i] == 0 && row >= 0 && row < x[d];
      xi[d] = row;
    }
    if (hit) f();
    size_t i = n;
    while (i-- > 0 && ++taps[i] == kernel[i]) taps[i] = 0;
    if (i == static_cast<size_t>(-1)) return;
  }
}

Status TransposeKernel(const KernelCall& call, std::vector<DenseTensor>* out) {
  const DenseTensor &x = call.inputs[0], &w = call.inputs[1];
  const size_t n = x.shape.size() - 2;
  WEFT_ASSIGN_OR_RETURN(TransposeAttrs t, ReadTransposeAttrs("conv_transpose", *call.attrs, n));
  const SpatialDims sd =
      SpatialDims::Of(static_cast<int32_t>(x.shape.size()), t.conv.channels_last);
  const std::vector<int64_t> at = OutputOffset(call, 0);
  out->assign(1, DenseTensor{call.output_shapes[0], {}});
  DenseTensor& y = (*out)[0];
  y.values.assign(static_cast<size_t>(shape::Count(y.shape)), 0.0);
  const int64_t cin_group = x.shape[static_cast<size_t>(sd.channel)] / t.conv.groups;
  const int64_t cout_group = w.shape[1];
  std::vector<int64_t> xi(x.shape.size()), wi(w.shape.size()), taps(n);
  shape::ForEach(y.shape, [&](const int64_t* o) {
    const int64_t co = o[sd.channel];
    double sum = call.inputs.size() == 3 ? call.inputs[2].values[static_cast<size_t>(co)] : 0.0;
    xi[static_cast<size_t>(sd.batch)] = o[sd.batch];
    wi[1] = co % cout_group;
    const int64_t group = t.conv.groups == 1 ? 0 : co / cout_group;
    ForSources(t, sd, call.input_offsets[0], at, o, x.shape, w.shape.data() + 2, xi, taps, [&] {
      std::copy(taps.begin(), taps.end(), wi.begin() + 2);
      for (int64_t j = 0; j < cin_group; ++j) {
        xi[static_cast<size_t>(sd.channel)] = wi[0] = group * cin_group + j;
        sum += x.values[static_cast<size_t>(shape::Offset(x.shape, xi.data()))] *
               w.values[static_cast<size_t>(shape::Offset(w.shape, wi.data()))];
      }
    });
    y.values[static_cast<size_t>(shape::Offset(y.shape, o))] = sum;
  });
  return Status::Ok();
}

// conv_transpose_backward_weight(x, grad_out) -> grad_w [Cin, Cout/groups, K...] (attr
// `kernel_size`, the others as conv_transpose): every output gradient cell adds x · g into
// the taps its sources reach it through. Per mesh dim: batch and spatial dims -> P(sum)
// (grad_out cut like conv_transpose's output, x with its halo), output channels on grad_out
// and grad_w's dim 1, input channels on x and grad_w's dim 0 (groups == 1); linear in each.
Status TransposeWeightRule(std::span<const TensorInfo> in, const Attributes& a, RuleResult* r) {
  const std::string op = "conv_transpose_backward_weight";
  const std::vector<int64_t>&x = in[0].shape, &g = in[1].shape;
  WEFT_ASSIGN_OR_RETURN(const size_t n, ConvOperands(op, x, g));
  WEFT_ASSIGN_OR_RETURN(TransposeAttrs t, ReadTransposeAttrs(op, a, n));
  WEFT_ASSIGN_OR_RETURN(std::vector<int64_t> kernel, PerDim(op, a, "kernel_size", n, 0, 1));
  const SpatialDims sd = SpatialDims::Of(static_cast<int32_t>(x.size()), t.conv.channels_last);
  const int64_t cin = x[static_cast<size_t>(sd.channel)];
  const int64_t cout = g[static_cast<size_t>(sd.channel)];
  if (cin % t.conv.groups != 0 || cout % t.conv.groups != 0)
    return OpError(op, "channels " + std::to_string(cin) + " -> " + std::to_string(cout) +
                           " do not split into " + std::to_string(t.conv.groups) + " groups");
  std::vector<int64_t> expect = x;
  expect[static_cast<size_t>(sd.channel)] = cout;
  std::vector<WindowOp> windows;
  for (size_t i = 0; i < n; ++i) {
    windows.push_back(TransposeWindow(t, i, kernel[i]));
    const auto d = static_cast<size_t>(sd.spatial[i]);
    WEFT_ASSIGN_OR_RETURN(expect[d], WindowExtent(op, x[d], windows.back()));
  }
  if (expect != g)
    return OpError(op, "grad_out is " + ShapeText(g) + " but the transposed convolution of " +
                           ShapeText(x) + " gives " + ShapeText(expect));
  std::vector<int64_t> gw{cin, cout / t.conv.groups};
  gw.insert(gw.end(), kernel.begin(), kernel.end());
  r->outputs.push_back({gw, in[0].dtype});
  using C = PlacementCode;
  const C R = C::R(), P = C::P(ReduceOp::kSum);
  r->strategies.push_back(Replicated(3));
  r->strategies.push_back({{C::S(sd.batch), C::S(sd.batch), P}});
  r->aligned.push_back({{0, sd.batch}, {1, sd.batch}});
  if (t.conv.groups == 1) {
    r->strategies.push_back({{R, C::S(sd.channel), C::S(1)}});
    r->strategies.push_back({{C::S(sd.channel), R, C::S(0)}});
    r->aligned.push_back({{1, sd.channel}, {2, 1}});
    r->aligned.push_back({{0, sd.channel}, {2, 0}});
  }
  for (size_t i = 0; i < n; ++i)
    AddWindowStrategy(r, {R, R, P}, {{0, sd.spatial[i]}, {1, sd.spatial[i]}, windows[i]});
  r->strategies.push_back({{P, R, P}});
  r->strategies.push_back({{R, P, P}});
  return Status::Ok();
}

Status TransposeWeightKernel(const KernelCall& call, std::vector<DenseTensor>* out) {
  const DenseTensor &x = call.inputs[0], &g = call.inputs[1];
  const size_t n = x.shape.size() - 2;
  WEFT_ASSIGN_OR_RETURN(TransposeAttrs t,
                        ReadTransposeAttrs("conv_transpose_backward_weight", *call.attrs, n));
  const SpatialDims sd =
      SpatialDims::Of(static_cast<int32_t>(x.shape.size()), t.conv.channels_last);
  out->assign(1, DenseTensor{call.output_shapes[0], {}});
  DenseTensor& gw = (*out)[0];
  gw.values.assign(static_cast<size_t>(shape::Count(gw.shape)), 0.0);
  // grad_out's block offset: where its cells sit among conv_transpose's outputs.
  const std::vector<int64_t>& at = call.input_offsets[1];
  const int64_t cin_group = x.shape[static_cast<size_t>(sd.channel)] / t.conv.groups;
  const int64_t cout_group = gw.shape[1];
  std::vector<int64_t> xi(x.shape.size()), wi(gw.shape.size()), taps(n);
  shape::ForEach(g.shape, [&](const int64_t* o) {
    const int64_t co = o[sd.channel];
    const double gv = g.values[static_cast<size_t>(shape::Offset(g.shape, o))];
    xi[static_cast<size_t>(sd.batch)] = o[sd.batch];
    wi[1] = co % cout_group;
    const int64_t group = t.conv.groups == 1 ? 0 : co / cout_group;
    ForSources(t, sd, call.input_offsets[0], at, o, x.shape, gw.shape.data() + 2, xi, taps, [&] {
      std::copy(taps.begin(), taps.end(), wi.begin() + 2);
      for (int64_t j = 0; j < cin_group; ++j) {
        xi[static_cast<size_t>(sd.channel)] = group * cin_group + j;
        wi[0] = group * cin_group + j;
        gw.values[static_cast<size_t>(shape::Offset(gw.shape, wi.data()))] +=
            gv * x.values[static_cast<size_t>(shape::Offset(x.shape, xi.data()))];
      }
    });
  });
  return Status::Ok();
}

}  // namespace

Status RegisterConvTranspose(Registry& reg) {
  OpDef op;
  op.name = "conv_transpose";
  op.min_inputs = 2;
  op.max_inputs = 3;
  op.rule = TransposeRule;
  op.kernel = TransposeKernel;
  op.key_attrs = {"stride", "padding", "output_padding", "dilation", "groups", "channels_last"};
  WEFT_RETURN_IF_ERROR(reg.Add(std::move(op)));
  for (const char* alias : {"conv_transpose1d", "conv_transpose2d", "conv_transpose3d"})
    WEFT_RETURN_IF_ERROR(reg.AddAlias(alias, "conv_transpose", "built-in"));
  OpDef weight;
  weight.name = "conv_transpose_backward_weight";
  weight.min_inputs = weight.max_inputs = 2;
  weight.rule = TransposeWeightRule;
  weight.kernel = TransposeWeightKernel;
  weight.key_attrs = {"stride", "padding",       "output_padding", "dilation",
                      "groups", "channels_last", "kernel_size"};
  return reg.Add(std::move(weight));
}

}  // namespace weft::ops
