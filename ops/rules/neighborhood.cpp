// neighborhood_attention, 1-D and 2-D (SPEC §5, §4.5; docs/design/rules.md "Windowed
// operators"): q, k [B, H, S..., D], v [B, H, S..., Dv] -> [B, H, S..., Dv]; query i attends
// to the keys [start(i), start(i) + K) per spatial dim, start(i) = min(max(i − ⌊K/2⌋, 0), N − K)
// (attr `kernel_size`: odd, <= the extent; one value or one per dim), softmax of q·k · `scale`
// (default 1/√D). Per mesh dim: batch or heads on all four; Dv on v and the output; a spatial
// dim on all four, k and v through the neighbourhood window (their halo: the keys the rank's
// queries see, several shards away when shards are smaller than ⌊K/2⌋; the output keeps q's
// split); v P(sum) or P(avg) with q, k R (linear in v).
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

constexpr const char* kOp = "neighborhood_attention";

Status NeighborhoodRule(std::span<const TensorInfo> in, const Attributes& a, RuleResult* r) {
  const std::vector<int64_t>&q = in[0].shape, &k = in[1].shape, &v = in[2].shape;
  const size_t nd = q.size();
  if ((nd != 4 && nd != 5) || k != q || v.size() != nd ||
      !std::equal(q.begin(), q.end() - 1, v.begin()))
    return OpError(kOp,
                   "expects q, k [B,H,S...,D] alike and v [B,H,S...,Dv] (1 or 2 spatial "
                   "dims), got " +
                       ShapeText(q) + ", " + ShapeText(k) + ", " + ShapeText(v));
  if (in[1].dtype != in[0].dtype || in[2].dtype != in[0].dtype)
    return OpError(kOp, "q, k and v have different dtypes");
  const size_t n = nd - 3;
  WEFT_ASSIGN_OR_RETURN(std::vector<int64_t> kernel, PerDim(kOp, a, "kernel_size", n, 0, 1));
  WEFT_RETURN_IF_ERROR(ForOp(kOp, a.Float("scale", 1.0)).status());
  r->outputs.push_back({v, in[0].dtype});
  r->strategies.push_back(Replicated(4));
  for (int32_t d : {0, 1}) {
    r->strategies.push_back({std::vector<C>(4, C::S(d))});
    r->aligned.push_back({{0, d}, {1, d}, {2, d}, {3, d}});
  }
  const auto ev = static_cast<int32_t>(nd - 1);
  r->strategies.push_back({{C::R(), C::R(), C::S(ev), C::S(ev)}});
  r->aligned.push_back({{2, ev}, {3, ev}});
  for (size_t i = 0; i < n; ++i) {
    const auto d = static_cast<int32_t>(2 + i);
    const WindowOp w{WindowKind::kNeighborhoodAttention, kernel[i], 1, 1, 0, 0, 0};
    WEFT_RETURN_IF_ERROR(WindowExtent(kOp, q[static_cast<size_t>(d)], w).status());
    r->strategies.push_back({std::vector<C>(4, C::S(d))});
    r->windows.push_back({{1, d}, {3, d}, w});
    r->windows.push_back({{2, d}, {3, d}, w});
    r->aligned.push_back({{0, d}, {1, d}, {2, d}, {3, d}});
  }
  for (ReduceOp p : {ReduceOp::kSum, ReduceOp::kAvg})
    r->strategies.push_back({{C::R(), C::R(), C::P(p), C::P(p)}});
  return Status::Ok();
}

Status NeighborhoodKernel(const KernelCall& call, std::vector<DenseTensor>* out) {
  const DenseTensor &q = call.inputs[0], &k = call.inputs[1], &v = call.inputs[2];
  const std::vector<int64_t>& global = call.global_inputs[0].shape;
  const size_t nd = q.shape.size(), n = nd - 3;
  WEFT_ASSIGN_OR_RETURN(std::vector<int64_t> kernel,
                        PerDim(kOp, *call.attrs, "kernel_size", n, 0, 1));
  const int64_t e = global[nd - 1];
  WEFT_ASSIGN_OR_RETURN(const double scale,
                        call.attrs->Float("scale", 1.0 / std::sqrt(static_cast<double>(e))));
  const std::vector<int64_t> at = OutputOffset(call, 0);
  const std::vector<int64_t>&ko = call.input_offsets[1], &vo = call.input_offsets[2];
  out->assign(1, DenseTensor{call.output_shapes[0], {}});
  DenseTensor& y = (*out)[0];
  y.values.assign(static_cast<size_t>(shape::Count(y.shape)), 0.0);
  const int64_t dv = y.shape[nd - 1];
  // One query row at a time: its window of keys, scores, softmax, the weighted values.
  std::vector<int64_t> row_shape(y.shape.begin(), y.shape.end() - 1);
  std::vector<int64_t> qi(nd), ki(nd), vi(nd), yi(nd), taps(n);
  shape::ForEach(row_shape, [&](const int64_t* r) {
    std::vector<double> scores, weights;
    std::vector<std::vector<int64_t>> keys;
    std::fill(taps.begin(), taps.end(), 0);
    for (;;) {
      for (size_t d = 0; d + 1 < nd; ++d) ki[d] = vi[d] = qi[d] = r[d];
      for (size_t i = 0; i < n; ++i) {
        const size_t d = 2 + i;
        const int64_t g = at[d] + r[d];
        const int64_t start =
            std::min(std::max(g - kernel[i] / 2, int64_t{0}), global[d] - kernel[i]);
        ki[d] = start + taps[i] - ko[d];
        vi[d] = start + taps[i] - vo[d];
      }
      double s = 0;
      for (int64_t c = 0; c < e; ++c) {
        qi[nd - 1] = ki[nd - 1] = c;
        s += q.values[static_cast<size_t>(shape::Offset(q.shape, qi.data()))] *
             k.values[static_cast<size_t>(shape::Offset(k.shape, ki.data()))];
      }
      scores.push_back(s * scale);
      keys.push_back(vi);
      size_t i = n;
      while (i-- > 0 && ++taps[i] == kernel[i]) taps[i] = 0;
      if (i == static_cast<size_t>(-1)) break;
    }
    double top = scores[0], total = 0;
    for (double s : scores) top = std::max(top, s);
    for (double s : scores) total += std::exp(s - top);
    for (size_t j = 0; j < keys.size(); ++j) {
      const double p = std::exp(scores[j] - top) / total;
      for (int64_t c = 0; c < dv; ++c) {
        keys[j][nd - 1] = c;
        for (size_t d = 0; d + 1 < nd; ++d) yi[d] = r[d];
        yi[nd - 1] = c;
        y.values[static_cast<size_t>(shape::Offset(y.shape, yi.data()))] +=
            p * v.values[static_cast<size_t>(shape::Offset(v.shape, keys[j].data()))];
      }
    }
  });
  return Status::Ok();
}

}  // namespace

Status RegisterNeighborhood(Registry& reg) {
  OpDef op;
  op.name = kOp;
  op.min_inputs = op.max_inputs = 3;
  op.rule = NeighborhoodRule;
  op.kernel = NeighborhoodKernel;
  op.key_attrs = {"kernel_size", "scale"};
  WEFT_RETURN_IF_ERROR(reg.Add(std::move(op)));
  return reg.AddAlias("na", kOp, "built-in");
}

}  // namespace weft::ops
