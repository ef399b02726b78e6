// Vocabulary ops (SPEC §5; docs/design/rules.md "Embedding and cross-entropy"):
//   embedding(weight [V,D], indices [...]) -> [..., D], per mesh dim:
//     weight rows S(0), indices R -> P(sum): a rank looks up only the rows in its slice and
//       gives zeros elsewhere (the kernel masks by the slice's offset), so the partial results
//       sum to the lookup exactly, whatever the split (DTensor's MaskPartial, as a plain sum);
//     weight columns S(1) -> the output's last dim, aligned;
//     indices S(d) -> output S(d), aligned;
//     weight P(sum) or P(avg), indices R -> the same Partial (the lookup is linear in weight).
//   cross_entropy(logits [N,C], target [N]) (attr `reduction`: "mean" (default), "sum",
//     "none"), per mesh dim:
//     rows S(0) on both -> "none": S(0); "sum", "mean": P(sum) ("mean" divides by the global
//       N on each rank, so uneven rows stay exact);
//     classes S(1), target R -> R, with the op's own communication: an all-reduce of the row
//       maxima, then one of the (sum of exponentials, target logit) pairs: two OpComms.
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

Status EmbeddingRule(std::span<const TensorInfo> in, const Attributes&, RuleResult* r) {
  const TensorInfo &w = in[0], &idx = in[1];
  if (w.shape.size() != 2)
    return OpError("embedding", "weight " + ShapeText(w.shape) + " is not [V,D]");
  if (!IsIntegral(idx.dtype)) return OpError("embedding", "indices must have an integer dtype");
  std::vector<int64_t> out = idx.shape;
  out.push_back(w.shape[1]);
  r->outputs.push_back({out, w.dtype});
  const auto last = static_cast<int32_t>(idx.shape.size());
  r->strategies.push_back(Replicated(3));
  r->strategies.push_back({{C::S(0), C::R(), C::P(ReduceOp::kSum)}});
  r->strategies.push_back({{C::S(1), C::R(), C::S(last)}});
  r->aligned.push_back({{0, 1}, {2, last}});
  for (int32_t d = 0; d < last; ++d) {
    r->strategies.push_back({{C::R(), C::S(d), C::S(d)}});
    r->aligned.push_back({{1, d}, {2, d}});
  }
  for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kAvg})
    r->strategies.push_back({{C::P(op), C::R(), C::P(op)}});
  return Status::Ok();
}

// Rows outside this rank's slice of the vocabulary give zeros.
Status EmbeddingKernel(const KernelCall& call, std::vector<DenseTensor>* outputs) {
  const DenseTensor &w = call.inputs[0], &idx = call.inputs[1];
  const int64_t vocab = call.global_inputs[0].shape[0], first = call.input_offsets[0][0];
  const int64_t rows = w.shape[0], width = w.shape[1];
  DenseTensor out{idx.shape, {}};
  out.shape.push_back(width);
  out.values.assign(static_cast<size_t>(shape::Count(out.shape)), 0.0);
  for (size_t i = 0; i < idx.values.size(); ++i) {
    const double v = idx.values[i];
    if (!(v >= 0 && v < static_cast<double>(vocab)) || v != std::floor(v))
      return KernelError("embedding", "index " + std::to_string(v) + " is not a row of [0," +
                                          std::to_string(vocab) + ")");
    const int64_t row = static_cast<int64_t>(v) - first;
    if (row < 0 || row >= rows) continue;
    std::copy_n(w.values.begin() + row * width, width,
                out.values.begin() + static_cast<int64_t>(i) * width);
  }
  outputs->push_back(std::move(out));
  return Status::Ok();
}

Status CrossEntropyRule(std::span<const TensorInfo> in, const Attributes& a, RuleResult* r) {
  const std::string op = "cross_entropy";
  const TensorInfo &logits = in[0], &target = in[1];
  if (logits.shape.size() != 2 || target.shape.size() != 1 || target.shape[0] != logits.shape[0])
    return OpError(op, "expects logits [N,C] and target [N], got " + ShapeText(logits.shape) +
                           " and " + ShapeText(target.shape));
  if (!IsIntegral(target.dtype)) return OpError(op, "target must have an integer dtype");
  WEFT_ASSIGN_OR_RETURN(std::string red, ForOp(op, a.Text("reduction", "mean")));
  if (red != "mean" && red != "sum" && red != "none")
    return OpError(op, "attribute 'reduction': '" + red + "' is not mean, sum or none");
  const bool none = red == "none";
  r->outputs.push_back({none ? logits.shape : std::vector<int64_t>{}, logits.dtype});
  if (none) r->outputs[0].shape.resize(1);
  r->strategies.push_back(Replicated(3));
  r->strategies.push_back({{C::S(0), C::S(0), none ? C::S(0) : C::P(ReduceOp::kSum)}});
  r->aligned.push_back({{0, 0}, {1, 0}});
  if (none) r->aligned.back().push_back({2, 0});
  DimStrategy classes{{C::S(1), C::R(), C::R()}};
  classes.comm = {{OpComm::Kind::kAllReduce, 0, 1, 1}, {OpComm::Kind::kAllReduce, 0, 1, 2}};
  r->strategies.push_back(std::move(classes));
  return Status::Ok();
}

// Per row: the maximum, the sum of exp(logit - max) and the target's logit, each combined
// over the mesh dims cutting the classes (the op's own all-reduces), then the loss.
Status CrossEntropyKernel(const KernelCall& call, std::vector<DenseTensor>* outputs) {
  const DenseTensor &x = call.inputs[0], &t = call.inputs[1];
  const int64_t n = x.shape[0], c = x.shape[1], first = call.input_offsets[0][1];
  const int64_t classes = call.global_inputs[0].shape[1];
  const std::vector<int32_t> cut = CuttingMeshDims(call, 0, 1);
  DenseTensor max{{n}, std::vector<double>(size_t(n), -INFINITY)};
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < c; ++j)
      max.values[size_t(i)] = std::max(max.values[size_t(i)], x.values[size_t(i * c + j)]);
  WEFT_ASSIGN_OR_RETURN(max, CombineOver(call, cut, std::move(max),
                                         [](double a, double b) { return std::max(a, b); }));
  DenseTensor pair{{n, 2}, std::vector<double>(size_t(2 * n), 0.0)};
  for (int64_t i = 0; i < n; ++i) {
    const double target = t.values[size_t(i)];
    if (!(target >= 0 && target < static_cast<double>(classes)))
      return KernelError("cross_entropy", "target " + std::to_string(target) +
                                              " is not a class of [0," + std::to_string(classes) +
                                              ")");
    for (int64_t j = 0; j < c; ++j)
      pair.values[size_t(2 * i)] += std::exp(x.values[size_t(i * c + j)] - max.values[size_t(i)]);
    const int64_t local = static_cast<int64_t>(target) - first;
    if (local >= 0 && local < c) pair.values[size_t(2 * i + 1)] = x.values[size_t(i * c + local)];
  }
  WEFT_ASSIGN_OR_RETURN(
      pair, CombineOver(call, cut, std::move(pair), [](double a, double b) { return a + b; }));
  WEFT_ASSIGN_OR_RETURN(std::string red, call.attrs->Text("reduction", "mean"));
  DenseTensor out{call.output_shapes[0], {}};
  double total = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double loss = std::log(pair.values[size_t(2 * i)]) + max.values[size_t(i)] -
                        pair.values[size_t(2 * i + 1)];
    if (red == "none") out.values.push_back(loss);
    total += loss;
  }
  if (red != "none")
    out.values.push_back(
        red == "sum" ? total : total / static_cast<double>(call.global_inputs[0].shape[0]));
  outputs->push_back(std::move(out));
  return Status::Ok();
}

}  // namespace

Status RegisterEmbedding(Registry& reg) {
  WEFT_RETURN_IF_ERROR(reg.Add({.name = "embedding",
                                .min_inputs = 2,
                                .max_inputs = 2,
                                .rule = EmbeddingRule,
                                .kernel = EmbeddingKernel}));
  return reg.Add({.name = "cross_entropy",
                  .min_inputs = 2,
                  .max_inputs = 2,
                  .rule = CrossEntropyRule,
                  .key_attrs = {"reduction"},
                  .kernel = CrossEntropyKernel});
}

}  // namespace weft::ops
