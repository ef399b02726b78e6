// max_pool and avg_pool, 1-D/2-D/3-D by the input's rank (SPEC §5, §4.5; docs/design/rules.md
// "Windowed operators"): x [N, C, S...] (attr `channels_last`: [N, S..., C]) -> the same with
// pooled spatial extents. Attrs `kernel_size` (required), `stride` (default: the kernel),
// `padding` (1, n or 2n values), `dilation` (max_pool), `ceil_mode`, `count_include_pad`
// (avg_pool, default true). Per mesh dim:
//   the batch or the channels on x and the output;
//   a spatial dim through its window: x gets a halo whose padding holds -inf (max) or 0 (avg);
//     ceil_mode's extra last window is more padding on the high side. avg_pool shards a dim
//     only where the divisor cannot tell padding from data: no padding, or count_include_pad
//     without ceil_mode's extra rows (which PyTorch leaves out of the count);
//   Partials that pass: P(max) through max_pool; P(sum), P(avg) through avg_pool (linear).
#include <cmath>
#include <limits>
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

Status PoolRule(const std::string& op, bool max, std::span<const TensorInfo> in,
                const Attributes& a, RuleResult* r) {
  const std::vector<int64_t>& x = in[0].shape;
  WEFT_ASSIGN_OR_RETURN(const PoolAttrs p, ReadPoolAttrs(op, max, x, a));
  const SpatialDims sd = SpatialDims::Of(static_cast<int32_t>(x.size()), p.channels_last);
  std::vector<int64_t> out = x;
  const double fill = max ? -std::numeric_limits<double>::infinity() : 0.0;
  std::vector<WindowDim> windows;
  for (size_t i = 0; i < p.windows.size(); ++i) {
    const WindowOp& w = p.windows[i];
    WEFT_ASSIGN_OR_RETURN(out[static_cast<size_t>(sd.spatial[i])],
                          WindowExtent(op, x[static_cast<size_t>(sd.spatial[i])], w));
    const bool padded = w.pad_lo + w.pad_hi > 0;
    if (max || !padded || (p.count_include_pad && p.extra[i] == 0))
      windows.push_back({{0, sd.spatial[i]},
                         {1, sd.spatial[i]},
                         w,
                         placement::halo::Boundary::kConstant,
                         placement::halo::Boundary::kConstant,
                         fill});
  }
  r->outputs.push_back({out, in[0].dtype});
  r->strategies.push_back(Replicated(2));
  for (int32_t d : {sd.batch, sd.channel}) {
    r->strategies.push_back({{C::S(d), C::S(d)}});
    r->aligned.push_back({{0, d}, {1, d}});
  }
  for (const WindowDim& w : windows) AddWindowStrategy(r, {C::R(), C::R()}, w);
  for (ReduceOp p : max ? std::vector<ReduceOp>{ReduceOp::kMax}
                        : std::vector<ReduceOp>{ReduceOp::kSum, ReduceOp::kAvg})
    r->strategies.push_back({{C::P(p), C::P(p)}});
  return Status::Ok();
}

Status MaxPoolRule(std::span<const TensorInfo> in, const Attributes& a, RuleResult* r) {
  return PoolRule("max_pool", true, in, a, r);
}
Status AvgPoolRule(std::span<const TensorInfo> in, const Attributes& a, RuleResult* r) {
  return PoolRule("avg_pool", false, in, a, r);
}

}  // namespace

Status RegisterPool(Registry& reg) {
  const std::vector<std::string> keys{"kernel_size",  "stride",    "padding",
                                      "dilation",     "ceil_mode", "count_include_pad",
                                      "channels_last"};
  const std::pair<const char*, RuleFn> ops[] = {{"max_pool", MaxPoolRule},
                                                {"avg_pool", AvgPoolRule}};
  for (const auto& [name, rule] : ops) {
    OpDef op;
    op.name = name;
    op.rule = rule;
    op.kernel = WindowKernel(name);
    op.key_attrs = keys;
    WEFT_RETURN_IF_ERROR(reg.Add(std::move(op)));
    for (const char* rank : {"1d", "2d", "3d"})
      WEFT_RETURN_IF_ERROR(reg.AddAlias(std::string(name) + rank, name, "built-in"));
  }
  return Status::Ok();
}

}  // namespace weft::ops
