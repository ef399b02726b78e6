// Normalisations and dropout (SPEC §5; docs/design/rules.md "Normalisations"):
//   softmax, log_softmax (attr `dim`): that dim whole on every rank, the others sharded alike
//     on input and output;
//   layer_norm(x, [weight, [bias]]), rms_norm(x, [weight]) (attr `normalized_shape`, an int
//     list equal to x's trailing extents, or `ndims`, how many trailing dims; `eps` for the
//     kernel, default 1e-5): the normalised trailing dims whole, the leading ones sharded
//     alike, weight and bias R;
//   dropout (attrs `p` in [0, 1], default 0.5; `train`, default true; `seed` for the kernel):
//     pointwise, no Partial passes (masks differ per element, and each rank's sum would be
//     masked differently). The rule is layout-only; the kernel's mask is a function of the
//     seed and the element's global index, so it is the same whatever the layout.
// No Partial input passes any of them (none is linear).
#include <algorithm>
#include <cmath>
#include <functional>
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

// Strategies sharding every dim of input 0 outside `whole` alike on output 0, the other
// inputs (weight, bias) R.
void FollowOutside(std::span<const TensorInfo> in, const std::vector<bool>& whole, RuleResult* r) {
  const size_t n = in.size() + 1;
  r->strategies.push_back(Replicated(n));
  for (size_t d = 0; d < whole.size(); ++d) {
    if (whole[d]) continue;
    const auto di = static_cast<int32_t>(d);
    DimStrategy s = Replicated(n);
    s.codes[0] = s.codes[n - 1] = C::S(di);
    r->strategies.push_back(std::move(s));
    r->aligned.push_back({{0, di}, {static_cast<int32_t>(n - 1), di}});
  }
}

Status SoftmaxRule(const std::string& op, std::span<const TensorInfo> in, const Attributes& a,
                   RuleResult* r) {
  WEFT_ASSIGN_OR_RETURN(int64_t given, ForOp(op, a.Int("dim")));
  WEFT_ASSIGN_OR_RETURN(int32_t dim,
                        shape::Dim(op, "dim", given, static_cast<int32_t>(in[0].shape.size())));
  r->outputs.push_back(in[0]);
  std::vector<bool> whole(in[0].shape.size(), false);
  whole[static_cast<size_t>(dim)] = true;
  FollowOutside(in, whole, r);
  return Status::Ok();
}

Status SoftmaxKernel(const std::string& op, const KernelCall& call,
                     std::vector<DenseTensor>* outputs) {
  const DenseTensor& x = call.inputs[0];
  WEFT_ASSIGN_OR_RETURN(int64_t given, call.attrs->Int("dim"));
  WEFT_ASSIGN_OR_RETURN(int32_t dim,
                        shape::Dim(op, "dim", given, static_cast<int32_t>(x.shape.size())));
  const Lanes l = LanesOf(x.shape, dim);
  DenseTensor y{x.shape, x.values};
  for (int64_t o = 0; o < l.outer; ++o)
    for (int64_t i = 0; i < l.inner; ++i) {
      double max = -INFINITY, sum = 0;
      for (int64_t j = 0; j < l.n; ++j) max = std::max(max, x.values[size_t(l.At(o, j, i))]);
      for (int64_t j = 0; j < l.n; ++j) sum += std::exp(x.values[size_t(l.At(o, j, i))] - max);
      for (int64_t j = 0; j < l.n; ++j) {
        double& v = y.values[size_t(l.At(o, j, i))];
        v = op == "log_softmax" ? v - max - std::log(sum) : std::exp(v - max) / sum;
      }
    }
  outputs->push_back(std::move(y));
  return Status::Ok();
}

// How many trailing dims `normalized_shape` or `ndims` names, checked against x, weight, bias.
Result<size_t> NormalizedDims(const std::string& op, std::span<const TensorInfo> in,
                              const Attributes& a) {
  const std::vector<int64_t>& x = in[0].shape;
  size_t k = 0;
  if (a.Find("normalized_shape")) {
    WEFT_ASSIGN_OR_RETURN(std::vector<int64_t> ns, ForOp(op, a.Ints("normalized_shape")));
    if (ns.empty() || ns.size() > x.size() ||
        !std::equal(ns.begin(), ns.end(), x.end() - static_cast<ptrdiff_t>(ns.size())))
      return OpError(op, "attribute 'normalized_shape': " + ShapeText(ns) +
                             " is not the trailing extents of " + ShapeText(x));
    k = ns.size();
  } else {
    WEFT_ASSIGN_OR_RETURN(int64_t nd, ForOp(op, a.Int("ndims", 1)));
    if (nd < 1 || nd > static_cast<int64_t>(x.size()))
      return OpError(op, "attribute 'ndims': " + std::to_string(nd) + " is not between 1 and " +
                             std::to_string(x.size()));
    k = static_cast<size_t>(nd);
  }
  const std::vector<int64_t> trailing(x.end() - static_cast<ptrdiff_t>(k), x.end());
  for (size_t i = 1; i < in.size(); ++i)
    if (in[i].shape != trailing)
      return OpError(op, std::string(i == 1 ? "weight " : "bias ") + ShapeText(in[i].shape) +
                             " is not the normalized shape " + ShapeText(trailing));
  return k;
}

Status NormRule(const std::string& op, std::span<const TensorInfo> in, const Attributes& a,
                RuleResult* r) {
  WEFT_ASSIGN_OR_RETURN(size_t k, NormalizedDims(op, in, a));
  r->outputs.push_back(in[0]);
  const size_t nd = in[0].shape.size();
  std::vector<bool> whole(nd, false);
  for (size_t d = nd - k; d < nd; ++d) whole[d] = true;
  FollowOutside(in, whole, r);
  return Status::Ok();
}

// Each row of the normalised trailing dims (whole on every rank): layer_norm subtracts the
// mean and divides by the biased standard deviation, rms_norm divides by the root mean square.
Status NormKernel(const std::string& op, const KernelCall& call,
                  std::vector<DenseTensor>* outputs) {
  WEFT_ASSIGN_OR_RETURN(size_t k, NormalizedDims(op, call.global_inputs, *call.attrs));
  WEFT_ASSIGN_OR_RETURN(double eps, ForOp(op, call.attrs->Float("eps", 1e-5)));
  const DenseTensor& x = call.inputs[0];
  const std::vector<int64_t> row(x.shape.end() - static_cast<ptrdiff_t>(k), x.shape.end());
  const int64_t width = shape::Count(row), rows = width ? shape::Count(x.shape) / width : 0;
  DenseTensor y{x.shape, x.values};
  for (int64_t r = 0; r < rows; ++r) {
    double* v = y.values.data() + r * width;
    double mean = 0, sq = 0;
    for (int64_t j = 0; j < width; ++j) mean += v[j] / static_cast<double>(width);
    if (op == "rms_norm") mean = 0;
    for (int64_t j = 0; j < width; ++j) sq += (v[j] - mean) * (v[j] - mean);
    const double scale = 1 / std::sqrt(sq / static_cast<double>(width) + eps);
    for (int64_t j = 0; j < width; ++j) {
      v[j] = (v[j] - mean) * scale;
      if (call.inputs.size() > 1) v[j] *= call.inputs[1].values[size_t(j)];
      if (call.inputs.size() > 2) v[j] += call.inputs[2].values[size_t(j)];
    }
  }
  outputs->push_back(std::move(y));
  return Status::Ok();
}

Status DropoutRule(std::span<const TensorInfo> in, const Attributes& a, RuleResult* r) {
  WEFT_ASSIGN_OR_RETURN(double p, ForOp("dropout", a.Float("p", 0.5)));
  if (!(p >= 0 && p <= 1))
    return OpError("dropout", "attribute 'p': " + std::to_string(p) + " is not in [0, 1]");
  WEFT_RETURN_IF_ERROR(ForOp("dropout", a.Bool("train", true)).status());
  r->outputs.push_back(in[0]);
  FollowOutside(in, std::vector<bool>(in[0].shape.size(), false), r);
  return Status::Ok();
}

// A counter-based mask: element e (its global row-major index) is kept when a hash of (seed,
// e) maps above p, and scaled by 1 / (1 - p). The identity when p is 0 or not training.
Status DropoutKernel(const KernelCall& call, std::vector<DenseTensor>* outputs) {
  const Attributes& a = *call.attrs;
  WEFT_ASSIGN_OR_RETURN(double p, a.Float("p", 0.5));
  WEFT_ASSIGN_OR_RETURN(bool train, a.Bool("train", true));
  WEFT_ASSIGN_OR_RETURN(int64_t seed, a.Int("seed", 0));
  const DenseTensor& x = call.inputs[0];
  DenseTensor y{x.shape, x.values};
  if (!train || p == 0) {
    outputs->push_back(std::move(y));
    return Status::Ok();
  }
  const std::vector<int64_t>& global = call.global_inputs[0].shape;
  const std::vector<int64_t>& off = call.input_offsets[0];
  ForEachIndex(x.shape, [&](const std::vector<int64_t>& c, int64_t flat) {
    uint64_t e = 0;
    for (size_t d = 0; d < c.size(); ++d)
      e = e * static_cast<uint64_t>(global[d]) + static_cast<uint64_t>(c[d] + off[d]);
    uint64_t h = (e + 1) * 0x9E3779B97F4A7C15ULL ^ static_cast<uint64_t>(seed);  // splitmix64
    h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ULL;
    h = (h ^ (h >> 27)) * 0x94D049BB133111EBULL;
    h ^= h >> 31;
    const double u = static_cast<double>(h >> 11) * 0x1.0p-53;
    double& v = y.values[static_cast<size_t>(flat)];
    v = u < p ? 0 : v / (1 - p);
  });
  outputs->push_back(std::move(y));
  return Status::Ok();
}

}  // namespace

Status RegisterNorm(Registry& reg) {
  using namespace std::placeholders;
  for (const char* name : {"softmax", "log_softmax"})
    WEFT_RETURN_IF_ERROR(reg.Add({.name = name,
                                  .rule = std::bind(SoftmaxRule, name, _1, _2, _3),
                                  .key_attrs = {"dim"},
                                  .kernel = std::bind(SoftmaxKernel, name, _1, _2)}));
  for (const auto& [name, inputs] : {std::pair{"layer_norm", 3}, std::pair{"rms_norm", 2}})
    WEFT_RETURN_IF_ERROR(reg.Add({.name = name,
                                  .max_inputs = inputs,
                                  .rule = std::bind(NormRule, name, _1, _2, _3),
                                  .key_attrs = {"normalized_shape", "ndims"},
                                  .kernel = std::bind(NormKernel, name, _1, _2)}));
  return reg.Add({.name = "dropout",
                  .rule = DropoutRule,
                  .key_attrs = {"p", "train"},
                  .kernel = DropoutKernel});
}

}  // namespace weft::ops
