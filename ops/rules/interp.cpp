// interpolate (SPEC §5, §4.5; docs/design/rules.md "Windowed operators"): x [N, C, S...]
// (attr `channels_last`: [N, S..., C]) resized to attr `size` (one value or one per spatial
// dim), attr `mode` "nearest" or "linear" ("bilinear", "trilinear": the same, per dim),
// `align_corners` (linear only, default false). Source positions are PyTorch's for a given
// size: nearest reads ⌊j·N/N_out⌋; linear σ = max((j + ½)·N/N_out − ½, 0), or j·(N−1)/(N_out−1)
// with align_corners, and mixes rows ⌊σ⌋ and ⌊σ⌋+1. Per mesh dim: the batch or the channels; a
// spatial dim through its window (linear reads one row past a shard's edge; nearest none);
// Partials that pass: P(sum), P(avg) (linear in x), and P(max), P(min) for nearest (a copy).
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "ops/rules/builtin.hpp"
#include "ops/rules/rule_util.hpp"
#include "ops/rules/shape_util.hpp"
#include "ops/rules/window_util.hpp"

namespace weft::ops {
namespace {

using C = PlacementCode;
using placement::halo::WindowKind;
using placement::halo::WindowOp;

struct InterpAttrs {
  std::vector<int64_t> size;
  bool nearest = true, align = false, channels_last = false;
};

Result<InterpAttrs> ReadInterpAttrs(const std::string& op, const Attributes& a, size_t n) {
  InterpAttrs t;
  WEFT_ASSIGN_OR_RETURN(t.size, PerDim(op, a, "size", n, 0, 1));
  WEFT_ASSIGN_OR_RETURN(std::string mode, ForOp(op, a.Text("mode", std::string("nearest"))));
  WEFT_ASSIGN_OR_RETURN(t.align, ForOp(op, a.Bool("align_corners", false)));
  WEFT_ASSIGN_OR_RETURN(t.channels_last, ForOp(op, a.Bool("channels_last", false)));
  if (mode != "nearest" && mode != "linear" && mode != "bilinear" && mode != "trilinear")
    return OpError(
        op, "attribute 'mode' is '" + mode + "'; expected nearest, linear, bilinear or trilinear");
  t.nearest = mode == "nearest";
  if (t.nearest && t.align)
    return OpError(op, "attribute 'align_corners' applies to linear modes only");
  return t;
}

WindowOp InterpWindow(const InterpAttrs& t, size_t i) {
  WindowOp w;
  w.kind = t.nearest ? WindowKind::kInterpNearest
                     : (t.align ? WindowKind::kInterpLinearAligned : WindowKind::kInterpLinear);
  w.out_extent = t.size[i];
  return w;
}

Status InterpRule(std::span<const TensorInfo> in, const Attributes& a, RuleResult* r) {
  const std::string op = "interpolate";
  const std::vector<int64_t>& x = in[0].shape;
  if (x.size() < 3 || x.size() > 5)
    return OpError(op, "expects x of 3 to 5 dims, got " + ShapeText(x));
  const size_t n = x.size() - 2;
  WEFT_ASSIGN_OR_RETURN(InterpAttrs t, ReadInterpAttrs(op, a, n));
  const SpatialDims sd = SpatialDims::Of(static_cast<int32_t>(x.size()), t.channels_last);
  std::vector<int64_t> out = x;
  r->strategies.push_back(Replicated(2));
  for (int32_t d : {sd.batch, sd.channel}) {
    r->strategies.push_back({{C::S(d), C::S(d)}});
    r->aligned.push_back({{0, d}, {1, d}});
  }
  for (size_t i = 0; i < n; ++i) {
    const int32_t d = sd.spatial[i];
    WEFT_ASSIGN_OR_RETURN(out[static_cast<size_t>(d)],
                          WindowExtent(op, x[static_cast<size_t>(d)], InterpWindow(t, i)));
    AddWindowStrategy(r, {C::R(), C::R()}, {{0, d}, {1, d}, InterpWindow(t, i)});
  }
  r->outputs.push_back({out, in[0].dtype});
  std::vector<ReduceOp> pass{ReduceOp::kSum, ReduceOp::kAvg};
  if (t.nearest) pass.insert(pass.end(), {ReduceOp::kMax, ReduceOp::kMin});
  for (ReduceOp p : pass) r->strategies.push_back({{C::P(p), C::P(p)}});
  return Status::Ok();
}

// Output row j's source rows and weights along a dim of n rows resized to n_out.
struct Taps {
  int64_t row[2] = {0, 0};
  double weight[2] = {1, 0};
};
Taps SourceOf(const InterpAttrs& t, int64_t j, int64_t n, int64_t n_out) {
  Taps s;
  if (t.nearest) {
    s.row[0] = s.row[1] = j * n / n_out;
    return s;
  }
  // σ = num / den exactly, so the rows are the ones the windows were derived from.
  int64_t num = 0, den = 1;
  if (t.align) {
    num = n_out == 1 ? 0 : j * (n - 1);
    den = n_out == 1 ? 1 : n_out - 1;
  } else {
    num = std::max<int64_t>((2 * j + 1) * n - n_out, 0);
    den = 2 * n_out;
  }
  s.row[0] = std::min(num / den, n - 1);
  s.row[1] = std::min(s.row[0] + 1, n - 1);
  s.weight[1] = static_cast<double>(num - (num / den) * den) / static_cast<double>(den);
  s.weight[0] = 1.0 - s.weight[1];
  return s;
}

Status InterpKernel(const KernelCall& call, std::vector<DenseTensor>* out) {
  const DenseTensor& x = call.inputs[0];
  const std::vector<int64_t>& global = call.global_inputs[0].shape;
  const size_t n = x.shape.size() - 2;
  WEFT_ASSIGN_OR_RETURN(InterpAttrs t, ReadInterpAttrs("interpolate", *call.attrs, n));
  const SpatialDims sd = SpatialDims::Of(static_cast<int32_t>(x.shape.size()), t.channels_last);
  const std::vector<int64_t>& origin = call.input_offsets[0];
  const std::vector<int64_t> at = OutputOffset(call, 0);
  out->assign(1, DenseTensor{call.output_shapes[0], {}});
  DenseTensor& y = (*out)[0];
  y.values.assign(static_cast<size_t>(shape::Count(y.shape)), 0.0);
  std::vector<int64_t> xi(x.shape.size());
  std::vector<Taps> taps(n);
  shape::ForEach(y.shape, [&](const int64_t* o) {
    for (size_t d = 0; d < xi.size(); ++d) xi[d] = o[d];
    for (size_t i = 0; i < n; ++i) {
      const auto d = static_cast<size_t>(sd.spatial[i]);
      taps[i] = SourceOf(t, at[d] + o[d], global[d], t.size[i]);
    }
    double sum = 0;
    for (int64_t corner = 0; corner < (int64_t{1} << n); ++corner) {
      double weight = 1;
      for (size_t i = 0; i < n; ++i) {
        const int64_t bit = (corner >> i) & 1;
        weight *= taps[i].weight[bit];
        const auto d = static_cast<size_t>(sd.spatial[i]);
        xi[d] = taps[i].row[bit] - origin[d];
      }
      if (weight != 0)
        sum += weight * x.values[static_cast<size_t>(shape::Offset(x.shape, xi.data()))];
    }
    y.values[static_cast<size_t>(shape::Offset(y.shape, o))] = sum;
  });
  return Status::Ok();
}

}  // namespace

Status RegisterInterp(Registry& reg) {
  OpDef op;
  op.name = "interpolate";
  op.rule = InterpRule;
  op.kernel = InterpKernel;
  op.key_attrs = {"size", "mode", "align_corners", "channels_last"};
  WEFT_RETURN_IF_ERROR(reg.Add(std::move(op)));
  return reg.AddAlias("upsample", "interpolate", "built-in");
}

}  // namespace weft::ops
