// Products with a bias added: linear(x [...,k], w [n,k], bias [n]?) = x w^T + bias,
// addmm(bias, a [m,k], b [k,n]) and baddbmm(bias, a [B,m,k], b [B,k,n]) = beta bias +
// alpha (a @ b). The product's strategies are its einsum's (ops/declarative/einsum.hpp); the
// bias, broadcast against the output, follows the output's code: sharded where the output is
// and the bias has that dim at full extent; P(sum) where the output is P(sum) (the bias must be
// split into partial sums too, or it would be counted once per rank); R under P(avg) (the mean
// of (p_i + bias) is mean(p_i) + bias).
#include <string>
#include <utility>
#include <vector>

#include "ops/declarative/einsum.hpp"
#include "ops/rules/builtin.hpp"

namespace weft::ops {
namespace {

// "ab...": one letter per leading dim, skipping the product's own letters.
std::string Lead(size_t n) {
  std::string s;
  for (char c = 'a'; s.size() < n; ++c)
    if (c != 'k' && c != 'n' && c != 'm') s.push_back(c);
  return s;
}

struct Product {
  EinsumSpec spec;
  int32_t bias = -1;              // the bias input's index, -1 without one
  std::vector<int32_t> operands;  // the product's two inputs
};

// Adds the bias's code to every strategy (and its dims to the output's aligned groups).
Status AddBias(const Product& p, std::span<const TensorInfo> in, RuleResult* r) {
  const std::vector<int64_t>& out = r->outputs[0].shape;
  const std::vector<int64_t>& b = in[p.bias].shape;
  if (b.size() > out.size()) return InvalidArgument("the bias has more dims than the output");
  const size_t lead = out.size() - b.size();
  for (size_t d = 0; d < b.size(); ++d)
    if (b[d] != 1 && b[d] != out[lead + d])
      return InvalidArgument("bias " + ShapeText(b) + " does not broadcast to " + ShapeText(out));
  for (DimStrategy& s : r->strategies) {
    const PlacementCode o = s.codes.back();
    PlacementCode code = PlacementCode::R();
    if (o.kind == PlacementCode::Kind::kPartial && o.op == ReduceOp::kSum) code = o;
    if (o.kind == PlacementCode::Kind::kShard && o.dim >= static_cast<int32_t>(lead) &&
        b[o.dim - lead] == out[o.dim])
      code = PlacementCode::S(o.dim - static_cast<int32_t>(lead));
    s.codes.insert(s.codes.begin() + p.bias, code);
  }
  for (auto& group : r->aligned) {
    for (DimRef& ref : group)
      if (ref.tensor >= p.bias) ++ref.tensor;  // the bias sits before the later tensors
    for (const DimRef& ref : std::vector<DimRef>(group))
      if (ref.tensor == static_cast<int32_t>(in.size()) && ref.dim >= static_cast<int32_t>(lead) &&
          b[ref.dim - lead] == out[ref.dim])
        group.push_back({p.bias, ref.dim - static_cast<int32_t>(lead)});
  }
  return Status::Ok();
}

Status ProductRule(const Product& p, std::string_view op, std::span<const TensorInfo> in,
                   RuleResult* r) {
  std::vector<TensorInfo> operands;
  for (int32_t i : p.operands) operands.push_back(in[i]);
  WEFT_RETURN_IF_ERROR(EinsumRule(p.spec, op, operands, r));
  if (p.bias < 0) return Status::Ok();
  if (in[p.bias].dtype != in[p.operands[0]].dtype)
    return InvalidArgument("operator '" + std::string(op) + "': the bias's dtype differs");
  Status s = AddBias(p, in, r);
  return s.ok() ? s : InvalidArgument("operator '" + std::string(op) + "': " + s.message());
}

Status ProductKernel(const Product& p, std::string_view op, const KernelCall& call,
                     std::vector<DenseTensor>* out) {
  std::vector<DenseTensor> operands;
  for (int32_t i : p.operands) operands.push_back(call.inputs[i]);
  out->resize(1);
  DenseTensor& y = (*out)[0];
  WEFT_RETURN_IF_ERROR(EinsumKernel(p.spec, op, operands, &y));
  if (p.bias < 0) return Status::Ok();
  auto alpha = call.attrs->Float("alpha", 1.0);
  auto beta = call.attrs->Float("beta", 1.0);
  if (!alpha.ok() || !beta.ok()) return alpha.ok() ? beta.status() : alpha.status();
  const DenseTensor& b = call.inputs[p.bias];
  const size_t lead = y.shape.size() - b.shape.size();
  for (size_t i = 0; i < y.values.size(); ++i) {
    int64_t rest = static_cast<int64_t>(i), off = 0, stride = 1;
    for (size_t d = y.shape.size(); d-- > 0;) {  // the bias's element under y's index i
      const int64_t idx = rest % y.shape[d];
      rest /= y.shape[d];
      if (d < lead) continue;
      const int64_t e = b.shape[d - lead];
      off += (e == 1 ? 0 : idx) * stride;
      stride *= e;
    }
    y.values[i] = *alpha * y.values[i] + *beta * b.values[off];
  }
  return Status::Ok();
}

// The product of `name` for the inputs' ranks (linear's x may have any number of leading dims).
Result<Product> Describe(std::string_view name, std::span<const TensorInfo> in) {
  Product p;
  std::string eq;
  if (name == "linear") {
    if (in[0].shape.empty()) return InvalidArgument("operator 'linear': x has no dims");
    const std::string lead = Lead(in[0].shape.size() - 1);
    eq = lead + "k,nk->" + lead + "n";
    p.operands = {0, 1};
    p.bias = in.size() == 3 ? 2 : -1;
  } else {
    eq = name == "addmm" ? "mk,kn->mn" : "bmk,bkn->bmn";
    p.operands = {1, 2};
    p.bias = 0;
  }
  auto spec = ParseEinsum(eq);
  if (!spec.ok()) return spec.status();
  p.spec = std::move(*spec);
  return p;
}

Status Register(Registry& reg, const char* name, int32_t min_in, int32_t max_in) {
  OpDef op;
  op.name = name;
  op.min_inputs = min_in;
  op.max_inputs = max_in;
  op.rule = [n = std::string(name)](std::span<const TensorInfo> in, const Attributes&,
                                    RuleResult* r) {
    auto p = Describe(n, in);
    return p.ok() ? ProductRule(*p, n, in, r) : p.status();
  };
  op.kernel = [n = std::string(name)](const KernelCall& call, std::vector<DenseTensor>* out) {
    auto p = Describe(n, call.global_inputs);
    return p.ok() ? ProductKernel(*p, n, call, out) : p.status();
  };
  return reg.Add(std::move(op));
}

}  // namespace

Status RegisterLinear(Registry& reg) {
  WEFT_RETURN_IF_ERROR(Register(reg, "linear", 2, 3));
  WEFT_RETURN_IF_ERROR(Register(reg, "addmm", 3, 3));
  return Register(reg, "baddbmm", 3, 3);
}

}  // namespace weft::ops
