// matmul over [..., m, k] x [..., k, n] -> [..., m, n] with equal batch dims (mm and bmm are
// aliases): per mesh dim, batch dims sharded alike on all three; rows of the left operand;
// columns of the right; the contracted dim sharded on both -> P(sum); and linearity in each
// operand alone, so P(sum) or P(avg) on one with R on the other stays Partial.
#include <string>
#include <utility>
#include <vector>

#include "ops/declarative/einsum.hpp"
#include "ops/rules/builtin.hpp"

namespace weft::ops {
namespace {

Status MatmulRule(std::span<const TensorInfo> in, const Attributes&, RuleResult* r) {
  const std::vector<int64_t>& a = in[0].shape;
  const std::vector<int64_t>& b = in[1].shape;
  const auto nd = static_cast<int32_t>(a.size());
  auto bad = [&](const std::string& why) {
    return InvalidArgument("operator 'matmul': " + why + " (" + ShapeText(a) + " x " +
                           ShapeText(b) + ")");
  };
  if (nd < 2 || b.size() != a.size())
    return bad("both operands need the same number of dims, at least 2");
  for (int32_t d = 0; d + 2 < nd; ++d)
    if (a[d] != b[d]) return bad("batch dim " + std::to_string(d) + " differs");
  if (a[nd - 1] != b[nd - 2]) return bad("the contracted extents differ");
  if (in[0].dtype != in[1].dtype) return bad("the operands' dtypes differ");
  std::vector<int64_t> out(a.begin(), a.end() - 1);
  out.push_back(b[nd - 1]);
  r->outputs.push_back({out, in[0].dtype});
  const int32_t m = nd - 2, k = nd - 1, n = nd - 1;  // dims: a's m and k, b's k (= nd-2) and n
  using C = PlacementCode;
  const C R = C::R(), Psum = C::P(ReduceOp::kSum), Pavg = C::P(ReduceOp::kAvg);
  r->strategies.push_back(Replicated(3));
  for (int32_t d = 0; d < nd - 2; ++d) {
    r->strategies.push_back({{C::S(d), C::S(d), C::S(d)}});
    r->aligned.push_back({{0, d}, {1, d}, {2, d}});
  }
  r->strategies.push_back({{C::S(m), R, C::S(m)}});
  r->strategies.push_back({{R, C::S(n), C::S(n)}});
  r->strategies.push_back({{C::S(k), C::S(nd - 2), Psum}});
  r->strategies.push_back({{Psum, R, Psum}});
  r->strategies.push_back({{R, Psum, Psum}});
  r->strategies.push_back({{Pavg, R, Pavg}});
  r->strategies.push_back({{R, Pavg, Pavg}});
  r->aligned.push_back({{0, m}, {2, m}});
  r->aligned.push_back({{1, n}, {2, n}});
  r->aligned.push_back({{0, k}, {1, nd - 2}});
  return Status::Ok();
}

// The product as an einsum over the operands' ranks ("...mk,...kn->...mn").
Status MatmulKernel(const KernelCall& call, std::vector<DenseTensor>* out) {
  const size_t nd = call.inputs[0].shape.size();
  std::string batch;
  for (size_t d = 0; d + 2 < nd; ++d) batch.push_back(static_cast<char>('a' + d));
  auto spec = ParseEinsum(batch + "mk," + batch + "kn->" + batch + "mn");
  if (!spec.ok()) return spec.status();
  out->resize(1);
  return EinsumKernel(*spec, "matmul", call.inputs, &(*out)[0]);
}

}  // namespace

Status RegisterMatmul(Registry& reg) {
  OpDef op;
  op.name = "matmul";
  op.min_inputs = op.max_inputs = 2;
  op.rule = MatmulRule;
  op.kernel = MatmulKernel;
  WEFT_RETURN_IF_ERROR(reg.Add(std::move(op)));
  WEFT_RETURN_IF_ERROR(reg.AddAlias("mm", "matmul", "built-in"));
  return reg.AddAlias("bmm", "matmul", "built-in");
}

}  // namespace weft::ops
