// pad (SPEC §5, §4.5; docs/design/rules.md "Windowed operators"): x -> x with `pad` rows added
// around its last dims, PyTorch's order (attr `pad`: low, high of the last dim, then of the one
// before, ...), attr `mode` "constant" (attr `value`, default 0), "reflect", "replicate" or
// "circular". Per mesh dim: any dim sharded on x and the output; a padded one through its
// window (kernel 1, stride 1): the ranks at the edges get the boundary rows from the halo's
// boundary rule (reflect, replicate, periodic — their source rows may live on other ranks),
// and the local kernel is a copy of the padded block. Partials that pass: P(max), P(min) and
// P(avg) (every rank pads alike); P(sum) unless constant padding with a non-zero value.
#include <string>
#include <utility>
#include <vector>

#include "ops/rules/builtin.hpp"
#include "ops/rules/rule_util.hpp"
#include "ops/rules/window_util.hpp"

namespace weft::ops {
namespace {

using C = PlacementCode;
using placement::halo::Boundary;
using placement::halo::WindowKind;
using placement::halo::WindowOp;

Result<Boundary> ModeRule(const std::string& op, const std::string& mode) {
  if (mode == "constant") return Boundary::kConstant;
  if (mode == "reflect") return Boundary::kReflect;
  if (mode == "replicate") return Boundary::kReplicate;
  if (mode == "circular") return Boundary::kPeriodic;
  return OpError(
      op, "attribute 'mode' is '" + mode + "'; expected constant, reflect, replicate or circular");
}

Status PadRule(std::span<const TensorInfo> in, const Attributes& a, RuleResult* r) {
  const std::string op = "pad";
  const std::vector<int64_t>& x = in[0].shape;
  WEFT_ASSIGN_OR_RETURN(std::vector<int64_t> pad, ForOp(op, a.Ints("pad")));
  WEFT_ASSIGN_OR_RETURN(std::string mode, ForOp(op, a.Text("mode", std::string("constant"))));
  WEFT_ASSIGN_OR_RETURN(const double value, ForOp(op, a.Float("value", 0.0)));
  WEFT_ASSIGN_OR_RETURN(const Boundary rule, ModeRule(op, mode));
  if (pad.size() % 2 != 0 || pad.size() / 2 > x.size())
    return OpError(op, "attribute 'pad' needs pairs for at most " + std::to_string(x.size()) +
                           " dims, got " + std::to_string(pad.size()) + " values");
  std::vector<int64_t> out = x;
  std::vector<WindowDim> windows;
  for (size_t k = 0; k < pad.size() / 2; ++k) {
    const auto d = static_cast<int32_t>(x.size() - 1 - k);
    const int64_t lo = pad[2 * k], hi = pad[2 * k + 1], n = x[static_cast<size_t>(d)];
    if (lo < 0 || hi < 0) return OpError(op, "negative padding (cropping) is not supported");
    if (lo == 0 && hi == 0) continue;
    const int64_t limit = rule == Boundary::kReflect ? n - 1 : n;
    if (rule != Boundary::kConstant && std::max(lo, hi) > limit)
      return OpError(op, mode + " padding of " + std::to_string(std::max(lo, hi)) +
                             " rows needs dim " + std::to_string(d) + " of at least " +
                             std::to_string(std::max(lo, hi) + (limit == n ? 0 : 1)) +
                             " rows, it has " + std::to_string(n));
    out[static_cast<size_t>(d)] = n + lo + hi;
    windows.push_back({{0, d},
                       {1, d},
                       WindowOp{WindowKind::kConv, 1, 1, 1, lo, hi, 0},
                       rule,
                       rule,
                       rule == Boundary::kConstant ? value : 0.0});
  }
  r->outputs.push_back({out, in[0].dtype});
  r->strategies.push_back(Replicated(2));
  for (int32_t d = 0; d < static_cast<int32_t>(x.size()); ++d) {
    bool windowed = false;
    for (const WindowDim& w : windows)
      if (w.in.dim == d) {
        AddWindowStrategy(r, {C::R(), C::R()}, w);
        windowed = true;
      }
    if (windowed) continue;
    r->strategies.push_back({{C::S(d), C::S(d)}});
    r->aligned.push_back({{0, d}, {1, d}});
  }
  std::vector<ReduceOp> pass{ReduceOp::kMax, ReduceOp::kMin, ReduceOp::kAvg};
  if (rule != Boundary::kConstant || value == 0.0) pass.push_back(ReduceOp::kSum);
  for (ReduceOp p : pass) r->strategies.push_back({{C::P(p), C::P(p)}});
  return Status::Ok();
}

}  // namespace

Status RegisterPad(Registry& reg) {
  OpDef op;
  op.name = "pad";
  op.rule = PadRule;
  op.kernel = WindowKernel("pad");
  op.key_attrs = {"pad", "mode", "value"};
  return reg.Add(std::move(op));
}

}  // namespace weft::ops
