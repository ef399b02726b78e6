// offset_stencil (SPEC §5, §4.5; docs/design/rules.md "Windowed operators"): a generic stencil
// described by offsets. x (any rank), w [m] -> y of x's shape, y[i] = Σ_m w[m]·x[i + off_m],
// attr `dims` (the tensor dims the offsets span, distinct), `offsets` (m rows of len(dims)
// values, flat), `boundary` "zero" (default), "periodic", "reflect", "symmetric" or
// "replicate" for the rows past the edges. Per mesh dim: any dim of x and y; a stencil dim
// through a window of ±r rows (r its largest |offset|; symmetric, so y keeps x's split and a
// stencil iterated in a loop never redistributes); w R; linear: x P(sum)/P(avg) with w R, or
// w P(sum) with x R. (The scientific plugin's `stencil` is a 1-D banded one with weights as an
// attribute; this is its N-D built-in sibling.)
#include <cstdlib>
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
using placement::halo::Boundary;
using placement::halo::WindowKind;
using placement::halo::WindowOp;

constexpr const char* kOp = "offset_stencil";

struct StencilAttrs {
  std::vector<int32_t> dims;
  std::vector<int64_t> offsets;  // m × dims.size()
  std::vector<int64_t> reach;    // per stencil dim: max |offset|
  Boundary rule = Boundary::kConstant;
};

Result<Boundary> BoundaryRule(const std::string& name) {
  if (name == "zero") return Boundary::kConstant;
  if (name == "periodic") return Boundary::kPeriodic;
  if (name == "reflect") return Boundary::kReflect;
  if (name == "symmetric") return Boundary::kSymmetric;
  if (name == "replicate") return Boundary::kReplicate;
  return OpError(kOp, "attribute 'boundary' is '" + name +
                          "'; expected zero, periodic, reflect, symmetric or replicate");
}

Result<StencilAttrs> ReadStencilAttrs(const Attributes& a, const std::vector<int64_t>& x,
                                      int64_t m) {
  StencilAttrs s;
  WEFT_ASSIGN_OR_RETURN(s.dims, AttrDims(kOp, a, "dims", x.size()));
  WEFT_ASSIGN_OR_RETURN(s.offsets, ForOp(kOp, a.Ints("offsets")));
  WEFT_ASSIGN_OR_RETURN(std::string b, ForOp(kOp, a.Text("boundary", std::string("zero"))));
  WEFT_ASSIGN_OR_RETURN(s.rule, BoundaryRule(b));
  if (s.dims.empty() ||
      static_cast<int64_t>(s.offsets.size()) != m * static_cast<int64_t>(s.dims.size()))
    return OpError(kOp, "attribute 'offsets' needs " + std::to_string(m) +
                            " rows (w's extent) of " + std::to_string(s.dims.size()) +
                            " values, got " + std::to_string(s.offsets.size()) + " values");
  s.reach.assign(s.dims.size(), 0);
  for (size_t k = 0; k < s.offsets.size(); ++k)
    s.reach[k % s.dims.size()] = std::max(s.reach[k % s.dims.size()], std::abs(s.offsets[k]));
  for (size_t i = 0; i < s.dims.size(); ++i) {
    const int64_t n = x[static_cast<size_t>(s.dims[i])];
    const int64_t limit = s.rule == Boundary::kReflect ? n - 1 : n;
    if (s.rule != Boundary::kConstant && s.reach[i] > limit)
      return OpError(kOp, "offsets reach " + std::to_string(s.reach[i]) + " rows past dim " +
                              std::to_string(s.dims[i]) + " of " + std::to_string(n) +
                              " rows, more than '" + b + "' can mirror or wrap");
  }
  return s;
}

Status StencilRule(std::span<const TensorInfo> in, const Attributes& a, RuleResult* r) {
  const std::vector<int64_t>& x = in[0].shape;
  if (in[1].shape.size() != 1) return OpError(kOp, "w must be 1-D, got " + ShapeText(in[1].shape));
  if (in[1].dtype != in[0].dtype) return OpError(kOp, "x and w have different dtypes");
  WEFT_ASSIGN_OR_RETURN(StencilAttrs s, ReadStencilAttrs(a, x, in[1].shape[0]));
  r->outputs.push_back({x, in[0].dtype});
  r->strategies.push_back(Replicated(3));
  for (int32_t d = 0; d < static_cast<int32_t>(x.size()); ++d) {
    size_t i = 0;
    while (i < s.dims.size() && s.dims[i] != d) ++i;
    if (i == s.dims.size() || s.reach[i] == 0) {
      r->strategies.push_back({{C::S(d), C::R(), C::S(d)}});
      r->aligned.push_back({{0, d}, {2, d}});
      continue;
    }
    const int64_t reach = s.reach[i];
    const WindowOp w{WindowKind::kConv, 2 * reach + 1, 1, 1, reach, reach, 0};
    AddWindowStrategy(r, {C::R(), C::R(), C::R()}, {{0, d}, {2, d}, w, s.rule, s.rule, 0.0});
  }
  const C R = C::R();
  for (ReduceOp p : {ReduceOp::kSum, ReduceOp::kAvg})
    r->strategies.push_back({{C::P(p), R, C::P(p)}});
  r->strategies.push_back({{R, C::P(ReduceOp::kSum), C::P(ReduceOp::kSum)}});
  return Status::Ok();
}

// Row i of a dim of n rows mapped by `rule` when outside; -1 for zero.
int64_t Mapped(int64_t i, int64_t n, Boundary rule) {
  if (i >= 0 && i < n) return i;
  switch (rule) {
    case Boundary::kPeriodic:
      return ((i % n) + n) % n;
    case Boundary::kReflect:
      return i < 0 ? -i : 2 * (n - 1) - i;
    case Boundary::kSymmetric:
      return i < 0 ? -i - 1 : 2 * n - 1 - i;
    case Boundary::kReplicate:
      return i < 0 ? 0 : n - 1;
    default:
      return -1;
  }
}

Status StencilKernel(const KernelCall& call, std::vector<DenseTensor>* out) {
  const DenseTensor &x = call.inputs[0], &w = call.inputs[1];
  const std::vector<int64_t>& global = call.global_inputs[0].shape;
  WEFT_ASSIGN_OR_RETURN(StencilAttrs s, ReadStencilAttrs(*call.attrs, global, w.shape[0]));
  const std::vector<int64_t>& origin = call.input_offsets[0];
  const std::vector<int64_t> at = OutputOffset(call, 0);
  out->assign(1, DenseTensor{call.output_shapes[0], {}});
  DenseTensor& y = (*out)[0];
  y.values.assign(static_cast<size_t>(shape::Count(y.shape)), 0.0);
  std::vector<int64_t> xi(x.shape.size());
  shape::ForEach(y.shape, [&](const int64_t* o) {
    double sum = 0;
    for (int64_t m = 0; m < w.shape[0]; ++m) {
      bool zero = false;
      for (size_t d = 0; d < xi.size(); ++d) xi[d] = at[d] + o[d];  // global
      for (size_t i = 0; i < s.dims.size(); ++i) {
        const auto d = static_cast<size_t>(s.dims[i]);
        int64_t g = xi[d] + s.offsets[static_cast<size_t>(m) * s.dims.size() + i];
        // Along a halo dim the padded block holds the boundary rows already.
        if (!HasHalo(call, 0, s.dims[i])) {
          g = Mapped(g, global[d], s.rule);
          zero |= g < 0;
        }
        xi[d] = g;
      }
      if (zero) continue;
      for (size_t d = 0; d < xi.size(); ++d) xi[d] -= origin[d];
      sum += w.values[static_cast<size_t>(m)] *
             x.values[static_cast<size_t>(shape::Offset(x.shape, xi.data()))];
    }
    y.values[static_cast<size_t>(shape::Offset(y.shape, o))] = sum;
  });
  return Status::Ok();
}

}  // namespace

Status RegisterOffsetStencil(Registry& reg) {
  OpDef op;
  op.name = kOp;
  op.min_inputs = op.max_inputs = 2;
  op.rule = StencilRule;
  op.kernel = StencilKernel;
  op.key_attrs = {"dims", "offsets", "boundary"};
  return reg.Add(std::move(op));
}

}  // namespace weft::ops
