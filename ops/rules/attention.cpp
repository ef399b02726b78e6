// scaled_dot_product_attention(q [..., Lq, E], k [..., Lk, E], v [..., Lk, Ev]) ->
// [..., Lq, Ev] = softmax(q k^T * scale) v (attrs `is_causal`, default false: query i sees
// keys j <= i; `scale`, default 1/sqrt(E), kernel only) (SPEC §5; docs/design/rules.md
// "Attention"). Per mesh dim:
//   a leading (batch, head) dim sharded alike on all four;
//   the query sequence sharded on q and the output, k and v R (each query row needs every key;
//     the causal mask uses the row's global position);
//   Ev sharded on v and the output, q and k R (the output's columns are v's);
//   v P(sum) or P(avg), q and k R -> the same Partial (linear in v).
// No strategy shards Lk or E: the softmax needs whole score rows, so sequence-sharded keys and
// values are gathered (ring attention is its own op, with its own communication).
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "ops/rules/builtin.hpp"
#include "ops/rules/dense.hpp"
#include "ops/rules/rule_util.hpp"
#include "ops/rules/shape_util.hpp"

namespace weft::ops {
namespace {

using C = PlacementCode;

Status AttentionRule(std::span<const TensorInfo> in, const Attributes& a, RuleResult* r) {
  const std::string op = "scaled_dot_product_attention";
  const std::vector<int64_t>&q = in[0].shape, &k = in[1].shape, &v = in[2].shape;
  const size_t nd = q.size();
  if (nd < 2 || k.size() != nd || v.size() != nd ||
      !std::equal(q.begin(), q.end() - 2, k.begin()) ||
      !std::equal(q.begin(), q.end() - 2, v.begin()) || k[nd - 1] != q[nd - 1] ||
      v[nd - 2] != k[nd - 2])
    return OpError(op, "expects q [...,Lq,E], k [...,Lk,E], v [...,Lk,Ev], got " + ShapeText(q) +
                           ", " + ShapeText(k) + ", " + ShapeText(v));
  if (in[1].dtype != in[0].dtype || in[2].dtype != in[0].dtype)
    return OpError(op, "q, k and v have different dtypes");
  WEFT_RETURN_IF_ERROR(ForOp(op, a.Bool("is_causal", false)).status());
  std::vector<int64_t> out = q;
  out.back() = v.back();
  r->outputs.push_back({out, in[0].dtype});
  r->strategies.push_back(Replicated(4));
  for (size_t d = 0; d + 2 < nd; ++d) {
    const auto di = static_cast<int32_t>(d);
    r->strategies.push_back({std::vector<C>(4, C::S(di))});
    r->aligned.push_back({{0, di}, {1, di}, {2, di}, {3, di}});
  }
  const auto lq = static_cast<int32_t>(nd - 2), ev = static_cast<int32_t>(nd - 1);
  r->strategies.push_back({{C::S(lq), C::R(), C::R(), C::S(lq)}});
  r->aligned.push_back({{0, lq}, {3, lq}});
  r->strategies.push_back({{C::R(), C::R(), C::S(ev), C::S(ev)}});
  r->aligned.push_back({{2, ev}, {3, ev}});
  for (ReduceOp p : {ReduceOp::kSum, ReduceOp::kAvg})
    r->strategies.push_back({{C::R(), C::R(), C::P(p), C::P(p)}});
  return Status::Ok();
}

// Per leading index: scores, row softmax (masked entries excluded), the weighted sum of v.
Status AttentionKernel(const KernelCall& call, std::vector<DenseTensor>* outputs) {
  const DenseTensor &q = call.inputs[0], &k = call.inputs[1], &v = call.inputs[2];
  const size_t nd = q.shape.size();
  const int64_t lq = q.shape[nd - 2], e = q.shape[nd - 1], lk = k.shape[nd - 2];
  const int64_t ev = v.shape[nd - 1], batch = lq * e > 0 ? shape::Count(q.shape) / (lq * e) : 0;
  const int64_t row0 = call.input_offsets[0][nd - 2];
  WEFT_ASSIGN_OR_RETURN(bool causal, call.attrs->Bool("is_causal", false));
  WEFT_ASSIGN_OR_RETURN(double scale,
                        call.attrs->Float("scale", 1 / std::sqrt(static_cast<double>(e))));
  std::vector<int64_t> shape = q.shape;
  shape.back() = ev;
  DenseTensor out{shape, std::vector<double>(size_t(shape::Count(shape)), 0.0)};
  std::vector<double> w(static_cast<size_t>(lk));
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < lq; ++i) {
      double max = -INFINITY, sum = 0;
      for (int64_t j = 0; j < lk; ++j) {
        double s = 0;
        for (int64_t c = 0; c < e; ++c)
          s += q.values[size_t((b * lq + i) * e + c)] * k.values[size_t((b * lk + j) * e + c)];
        w[size_t(j)] = causal && j > row0 + i ? -INFINITY : s * scale;
        max = std::max(max, w[size_t(j)]);
      }
      for (int64_t j = 0; j < lk; ++j) sum += w[size_t(j)] = std::exp(w[size_t(j)] - max);
      for (int64_t j = 0; j < lk; ++j)
        for (int64_t c = 0; c < ev; ++c)
          out.values[size_t((b * lq + i) * ev + c)] +=
              w[size_t(j)] / sum * v.values[size_t((b * lk + j) * ev + c)];
    }
  outputs->push_back(std::move(out));
  return Status::Ok();
}

}  // namespace

Status RegisterAttention(Registry& reg) {
  OpDef op;
  op.name = "scaled_dot_product_attention";
  op.min_inputs = op.max_inputs = 3;
  op.key_attrs = {"is_causal"};
  op.rule = AttentionRule;
  op.kernel = AttentionKernel;
  WEFT_RETURN_IF_ERROR(reg.Add(std::move(op)));
  return reg.AddAlias("sdpa", "scaled_dot_product_attention", "built-in");
}

}  // namespace weft::ops
