// Elementwise selection with broadcasting (SPEC §5; docs/design/rules.md "Selection"):
//   where(cond, a, b) -> promote(a, b): dims sharded as pointwise ops shard them (rule_util.hpp);
//     Partials pass where picking commutes with the Partial's op: a and b both P(sum) (or
//     both P(avg)) with cond R (each rank picks from its own partials, and the picks add up),
//     a and b P(max) or R with cond R -> P(max) (the max over ranks of a pick is the pick of
//     the maxima; an R operand is the same on every rank), likewise P(min).
//   masked_fill(x, mask, attr `value`) -> x's shape and dtype; the mask broadcasts to x. Keeps
//     P(max) and P(min) on x (the filled value is the same on every rank), not P(sum) (it would
//     be counted once per rank).
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "ops/rules/builtin.hpp"
#include "ops/rules/dense.hpp"
#include "ops/rules/rule_util.hpp"

namespace weft::ops {
namespace {

using C = PlacementCode;

Status WhereRule(std::span<const TensorInfo> in, const Attributes&, RuleResult* r) {
  WEFT_ASSIGN_OR_RETURN(std::vector<int64_t> shape, BroadcastShape("where", in));
  r->outputs.push_back({shape, PromotedDType(in.subspan(1))});
  AddBroadcastStrategies(in, shape, r);
  const C R = C::R();
  for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kAvg})
    r->strategies.push_back({{R, C::P(op), C::P(op), C::P(op)}});
  for (ReduceOp op : {ReduceOp::kMax, ReduceOp::kMin}) {
    const C P = C::P(op);
    r->strategies.push_back({{R, P, P, P}});
    r->strategies.push_back({{R, P, R, P}});
    r->strategies.push_back({{R, R, P, P}});
  }
  return Status::Ok();
}

Status WhereKernel(const KernelCall& call, std::vector<DenseTensor>* outputs) {
  std::vector<int64_t> shape;
  for (const DenseTensor& t : call.inputs) shape.resize(std::max(shape.size(), t.shape.size()), 1);
  for (const DenseTensor& t : call.inputs)
    for (size_t d = 0; d < t.shape.size(); ++d) {
      int64_t& o = shape[shape.size() - t.shape.size() + d];
      if (t.shape[d] != 1) o = t.shape[d];
    }
  std::vector<std::vector<int64_t>> at;
  for (const DenseTensor& t : call.inputs) at.push_back(BroadcastIndex(shape, t.shape));
  DenseTensor out{shape, {}};
  for (size_t e = 0; e < at[0].size(); ++e) {
    const bool pick = call.inputs[0].values[size_t(at[0][e])] != 0;
    out.values.push_back(pick ? call.inputs[1].values[size_t(at[1][e])]
                              : call.inputs[2].values[size_t(at[2][e])]);
  }
  outputs->push_back(std::move(out));
  return Status::Ok();
}

Status MaskedFillRule(std::span<const TensorInfo> in, const Attributes& a, RuleResult* r) {
  WEFT_RETURN_IF_ERROR(ForOp("masked_fill", a.Float("value")).status());
  WEFT_ASSIGN_OR_RETURN(std::vector<int64_t> shape, BroadcastShape("masked_fill", in));
  if (shape != in[0].shape)
    return OpError("masked_fill", "mask " + ShapeText(in[1].shape) + " does not broadcast to " +
                                      ShapeText(in[0].shape));
  r->outputs.push_back(in[0]);
  AddBroadcastStrategies(in, shape, r);
  for (ReduceOp op : {ReduceOp::kMax, ReduceOp::kMin})
    r->strategies.push_back({{C::P(op), C::R(), C::P(op)}});
  return Status::Ok();
}

Status MaskedFillKernel(const KernelCall& call, std::vector<DenseTensor>* outputs) {
  WEFT_ASSIGN_OR_RETURN(double value, call.attrs->Float("value"));
  const DenseTensor &x = call.inputs[0], &mask = call.inputs[1];
  const std::vector<int64_t> at = BroadcastIndex(x.shape, mask.shape);
  DenseTensor out{x.shape, x.values};
  for (size_t e = 0; e < at.size(); ++e)
    if (mask.values[size_t(at[e])] != 0) out.values[e] = value;
  outputs->push_back(std::move(out));
  return Status::Ok();
}

}  // namespace

Status RegisterSelect(Registry& reg) {
  WEFT_RETURN_IF_ERROR(reg.Add({.name = "where",
                                .min_inputs = 3,
                                .max_inputs = 3,
                                .rule = WhereRule,
                                .kernel = WhereKernel}));
  return reg.Add({.name = "masked_fill",
                  .min_inputs = 2,
                  .max_inputs = 2,
                  .rule = MaskedFillRule,
                  .key_attrs = {"value"},
                  .kernel = MaskedFillKernel});
}

}  // namespace weft::ops
