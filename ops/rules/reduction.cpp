// Reductions over `dims` (an int list; absent: every dim) with `keepdim` (default false): sum,
// mean, prod, max, min, amax, amin, argmax (SPEC §5; docs/design/rules.md "Reductions").
// Per mesh dim: an unreduced dim sharded alike on input and output (aligned); a reduced dim
// sharded gives the Partial that combines the per-shard results exactly:
//   sum -> P(sum); prod -> P(prod); max, amax -> P(max); min, amin -> P(min);
//   mean -> P(sum): each shard divides its sum by the GLOBAL count, so the partial results add
//   up to the mean whatever the split (DTensor's P(avg) of local means is exact only for even
//   splits, and a rule never sees the split);
//   argmax: never (the index of a shard's maximum needs the other shards' maxima).
// Partial inputs pass where the reduction commutes with the Partial's op: sum and mean are
// linear (P(sum) and P(avg) pass), max/amax keep P(max), min/amin keep P(min), prod P(prod).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "ops/rules/builtin.hpp"
#include "ops/rules/dense.hpp"
#include "ops/rules/rule_util.hpp"
#include "ops/rules/shape_util.hpp"

namespace weft::ops {
namespace {

enum class Fold { kSum, kMean, kProd, kMax, kMin, kArgMax };

struct Reduction {
  std::string name;
  Fold fold;
  std::vector<ReduceOp> passes;  // Partial inputs that pass through unchanged
};

constexpr double kInf = std::numeric_limits<double>::infinity();

struct Plan {
  std::vector<int32_t> dims;  // reduced, ascending
  bool keepdim = false;
  std::vector<int64_t> out;      // the output's global shape
  std::vector<int32_t> out_dim;  // per input dim, its output dim (-1: removed)
};

Result<Plan> MakePlan(const Reduction& red, const std::vector<int64_t>& shape,
                      const Attributes& attrs) {
  Plan p;
  WEFT_ASSIGN_OR_RETURN(p.dims, AttrDims(red.name, attrs, "dims", shape.size()));
  WEFT_ASSIGN_OR_RETURN(p.keepdim, ForOp(red.name, attrs.Bool("keepdim", false)));
  if (red.fold == Fold::kArgMax && attrs.Find("dims") && p.dims.size() != 1)
    return OpError(red.name, "attribute 'dims': argmax reduces one dim or, absent, all of them");
  size_t k = 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    const bool reduced = k < p.dims.size() && p.dims[k] == static_cast<int32_t>(d);
    k += reduced ? 1 : 0;
    p.out_dim.push_back(reduced && !p.keepdim ? -1 : static_cast<int32_t>(p.out.size()));
    if (!reduced || p.keepdim) p.out.push_back(reduced ? 1 : shape[d]);
  }
  return p;
}

ReduceOp ShardedOp(Fold f) {
  switch (f) {
    case Fold::kProd:
      return ReduceOp::kProd;
    case Fold::kMax:
      return ReduceOp::kMax;
    case Fold::kMin:
      return ReduceOp::kMin;
    default:
      return ReduceOp::kSum;  // sum, and mean's globally scaled sums
  }
}

Status ReductionRule(const Reduction& red, std::span<const TensorInfo> in, const Attributes& attrs,
                     RuleResult* r) {
  WEFT_ASSIGN_OR_RETURN(Plan p, MakePlan(red, in[0].shape, attrs));
  r->outputs.push_back({p.out, red.fold == Fold::kArgMax ? kIndexDType : in[0].dtype});
  using C = PlacementCode;
  r->strategies.push_back(Replicated(2));
  for (size_t d = 0; d < in[0].shape.size(); ++d) {
    const auto di = static_cast<int32_t>(d);
    const bool reduced = std::find(p.dims.begin(), p.dims.end(), di) != p.dims.end();
    if (!reduced) {
      r->strategies.push_back({{C::S(di), C::S(p.out_dim[d])}});
      r->aligned.push_back({{0, di}, {1, p.out_dim[d]}});
    } else if (red.fold != Fold::kArgMax) {
      r->strategies.push_back({{C::S(di), C::P(ShardedOp(red.fold))}});
    }
  }
  for (ReduceOp op : red.passes) r->strategies.push_back({{C::P(op), C::P(op)}});
  return Status::Ok();
}

double Init(Fold f) {
  switch (f) {
    case Fold::kProd:
      return 1;
    case Fold::kMax:
    case Fold::kArgMax:
      return -kInf;
    case Fold::kMin:
      return kInf;
    default:
      return 0;
  }
}

// Folds the local block: every element lands in the output element its kept coordinates name.
// argmax keeps (best value, global index) and takes the first of equal maxima.
Status ReductionKernel(const Reduction& red, const KernelCall& call,
                       std::vector<DenseTensor>* outputs) {
  const std::vector<int64_t>& global = call.global_inputs[0].shape;
  WEFT_ASSIGN_OR_RETURN(Plan p, MakePlan(red, global, *call.attrs));
  const DenseTensor& x = call.inputs[0];
  DenseTensor out{call.output_shapes[0], {}};
  out.values.assign(static_cast<size_t>(shape::Count(out.shape)), Init(red.fold));
  std::vector<double> best(out.values.size(), -kInf);
  std::vector<int64_t> out_stride(out.shape.size(), 1);
  for (size_t d = out.shape.size(); d-- > 1;) out_stride[d - 1] = out_stride[d] * out.shape[d];
  const std::vector<int64_t>& off = call.input_offsets[0];
  ForEachIndex(x.shape, [&](const std::vector<int64_t>& c, int64_t flat) {
    int64_t at = 0, index = 0;
    for (size_t d = 0; d < c.size(); ++d) {
      const auto di = static_cast<int32_t>(d);
      if (std::find(p.dims.begin(), p.dims.end(), di) != p.dims.end())
        index = index * global[d] + c[d] + off[d];
      else
        at += c[d] * out_stride[static_cast<size_t>(p.out_dim[d])];
    }
    const double v = x.values[static_cast<size_t>(flat)];
    double& o = out.values[static_cast<size_t>(at)];
    switch (red.fold) {
      case Fold::kSum:
      case Fold::kMean:
        o += v;
        break;
      case Fold::kProd:
        o *= v;
        break;
      case Fold::kMax:
        o = std::max(o, v);
        break;
      case Fold::kMin:
        o = std::min(o, v);
        break;
      case Fold::kArgMax:
        if (v > best[static_cast<size_t>(at)] || o == -kInf) {
          best[static_cast<size_t>(at)] = v;
          o = static_cast<double>(index);
        }
        break;
    }
  });
  if (red.fold == Fold::kMean) {
    double count = 1;
    for (int32_t d : p.dims) count *= static_cast<double>(global[static_cast<size_t>(d)]);
    for (double& v : out.values) v /= count;
  }
  outputs->push_back(std::move(out));
  return Status::Ok();
}

Status Add(Registry& reg, Reduction red) {
  OpDef op;
  op.name = red.name;
  op.key_attrs = {"dims", "keepdim"};
  op.rule = [red](std::span<const TensorInfo> in, const Attributes& a, RuleResult* r) {
    return ReductionRule(red, in, a, r);
  };
  op.kernel = [red](const KernelCall& call, std::vector<DenseTensor>* out) {
    return ReductionKernel(red, call, out);
  };
  return reg.Add(std::move(op));
}

}  // namespace

Status RegisterReduction(Registry& reg) {
  const ReduceOp sum = ReduceOp::kSum, avg = ReduceOp::kAvg, max = ReduceOp::kMax,
                 min = ReduceOp::kMin;
  WEFT_RETURN_IF_ERROR(Add(reg, {"sum", Fold::kSum, {sum, avg}}));
  WEFT_RETURN_IF_ERROR(Add(reg, {"mean", Fold::kMean, {sum, avg}}));
  WEFT_RETURN_IF_ERROR(Add(reg, {"prod", Fold::kProd, {ReduceOp::kProd}}));
  WEFT_RETURN_IF_ERROR(Add(reg, {"max", Fold::kMax, {max}}));
  WEFT_RETURN_IF_ERROR(Add(reg, {"amax", Fold::kMax, {max}}));
  WEFT_RETURN_IF_ERROR(Add(reg, {"min", Fold::kMin, {min}}));
  WEFT_RETURN_IF_ERROR(Add(reg, {"amin", Fold::kMin, {min}}));
  return Add(reg, {"argmax", Fold::kArgMax, {}});
}

}  // namespace weft::ops
