// Pointwise operators with broadcasting (SPEC §5): an output dim may be sharded alike on the
// output and on every input that has it at full extent (inputs broadcasting there stay R); and
// which Partial inputs pass through to a Partial output, per operator, where that is exact:
//   add, sub: P(sum) with P(sum) -> P(sum) (and avg): a sum of partial sums;
//   mul: P(sum) by R -> P(sum) either way round (linear in each input alone), never two
//        Partials (the cross terms);  div: P(sum) / R -> P(sum);
//   neg: P(sum) -> P(sum), P(max) -> P(min), P(min) -> P(max);
//   maximum, minimum: P(max) with P(max) or R -> P(max) (and min with min): max is associative;
//   monotone non-decreasing unary ops (relu, tanh, sigmoid, exp) keep P(max) and P(min), and
//   nothing else (relu of a partial sum is not the sum of relus).
#include <string>
#include <utility>
#include <vector>

#include "ops/rules/builtin.hpp"
#include "ops/rules/rule_util.hpp"

namespace weft::ops {
namespace {

struct PartialCase {
  std::vector<PlacementCode> inputs;
  PlacementCode output;
};

Status Rule(const std::string& op, const std::vector<PartialCase>& partials,
            std::span<const TensorInfo> in, RuleResult* r) {
  WEFT_ASSIGN_OR_RETURN(std::vector<int64_t> shape, BroadcastShape(op, in));
  r->outputs.push_back({shape, PromotedDType(in)});
  AddBroadcastStrategies(in, shape, r);
  for (const PartialCase& p : partials) {
    DimStrategy s{p.inputs};
    s.codes.push_back(p.output);
    r->strategies.push_back(std::move(s));
  }
  return Status::Ok();
}

Status Add(Registry& reg, const std::string& name, int32_t arity,
           std::vector<PartialCase> partials) {
  OpDef op;
  op.name = name;
  op.min_inputs = op.max_inputs = arity;
  op.rule = [name, partials = std::move(partials)](std::span<const TensorInfo> in,
                                                   const Attributes&, RuleResult* r) {
    return Rule(name, partials, in, r);
  };
  op.kernel = PointwiseKernel(name);
  return reg.Add(std::move(op));
}

}  // namespace

Status RegisterPointwise(Registry& reg) {
  const PlacementCode R = PlacementCode::R(), Psum = PlacementCode::P(ReduceOp::kSum),
                      Pavg = PlacementCode::P(ReduceOp::kAvg),
                      Pmax = PlacementCode::P(ReduceOp::kMax),
                      Pmin = PlacementCode::P(ReduceOp::kMin);
  const std::vector<PartialCase> sums = {{{Psum, Psum}, Psum}, {{Pavg, Pavg}, Pavg}};
  WEFT_RETURN_IF_ERROR(Add(reg, "add", 2, sums));
  WEFT_RETURN_IF_ERROR(Add(reg, "sub", 2, sums));
  WEFT_RETURN_IF_ERROR(Add(
      reg, "mul", 2, {{{Psum, R}, Psum}, {{R, Psum}, Psum}, {{Pavg, R}, Pavg}, {{R, Pavg}, Pavg}}));
  WEFT_RETURN_IF_ERROR(Add(reg, "div", 2, {{{Psum, R}, Psum}, {{Pavg, R}, Pavg}}));
  WEFT_RETURN_IF_ERROR(
      Add(reg, "maximum", 2, {{{Pmax, Pmax}, Pmax}, {{Pmax, R}, Pmax}, {{R, Pmax}, Pmax}}));
  WEFT_RETURN_IF_ERROR(
      Add(reg, "minimum", 2, {{{Pmin, Pmin}, Pmin}, {{Pmin, R}, Pmin}, {{R, Pmin}, Pmin}}));
  WEFT_RETURN_IF_ERROR(
      Add(reg, "neg", 1, {{{Psum}, Psum}, {{Pavg}, Pavg}, {{Pmax}, Pmin}, {{Pmin}, Pmax}}));
  for (const char* monotone : {"relu", "tanh", "sigmoid", "exp"})
    WEFT_RETURN_IF_ERROR(Add(reg, monotone, 1, {{{Pmax}, Pmax}, {{Pmin}, Pmin}}));
  for (const char* other : {"gelu", "abs", "sqrt", "log"})
    WEFT_RETURN_IF_ERROR(Add(reg, other, 1, {}));
  return Status::Ok();
}

}  // namespace weft::ops
