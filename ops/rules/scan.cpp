// Ops along one dim (SPEC §5; docs/design/rules.md "Scans, sort and top-k"):
//   cumsum (attr `dim`): the other dims sharded alike on input and output; the scanned dim
//     sharded too, with the op's own communication: each rank adds the exclusive prefix of the
//     shards before it, from an all-gather of every shard's totals (an OpComm: a message of the
//     output block with the scanned dim collapsed). P(sum) and P(avg) pass (cumsum is linear).
//   sort (attrs `dim`, default -1; `descending`, default false) and topk (attrs `k`, `dim`,
//     default -1; `largest`, default true) -> values and int64 indices: only dims other than
//     `dim` sharded, alike on the input and both outputs.
#include <algorithm>
#include <numeric>
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

// R, then each dim other than `dim` sharded alike on the input and every output.
void FollowOthers(size_t ndim, size_t outputs, int32_t dim, RuleResult* r) {
  r->strategies.push_back(Replicated(1 + outputs));
  for (size_t d = 0; d < ndim; ++d) {
    const auto di = static_cast<int32_t>(d);
    if (di == dim) continue;
    r->strategies.push_back({std::vector<C>(1 + outputs, C::S(di))});
    std::vector<DimRef> group;
    for (size_t t = 0; t <= outputs; ++t) group.push_back({static_cast<int32_t>(t), di});
    r->aligned.push_back(std::move(group));
  }
}

Result<int32_t> DimAttr(const std::string& op, const Attributes& a, size_t ndim,
                        std::optional<int64_t> fallback) {
  WEFT_ASSIGN_OR_RETURN(int64_t given, ForOp(op, a.Int("dim", fallback)));
  return shape::Dim(op, "dim", given, static_cast<int32_t>(ndim));
}

Status CumsumRule(std::span<const TensorInfo> in, const Attributes& a, RuleResult* r) {
  WEFT_ASSIGN_OR_RETURN(int32_t dim, DimAttr("cumsum", a, in[0].shape.size(), std::nullopt));
  r->outputs.push_back(in[0]);
  FollowOthers(in[0].shape.size(), 1, dim, r);
  DimStrategy along{{C::S(dim), C::S(dim)}};
  along.comm = {{OpComm::Kind::kAllGather, 1, dim, 1}};
  r->strategies.push_back(std::move(along));
  r->aligned.push_back({{0, dim}, {1, dim}});
  for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kAvg})
    r->strategies.push_back({{C::P(op), C::P(op)}});
  return Status::Ok();
}

// The local scan, then the totals of the shards before this one added: over the mesh dims
// cutting `dim`, innermost first, the all-gathered totals of the group's earlier members are
// the prefix within the group, and the group's whole total is what the next level exchanges.
Status CumsumKernel(const KernelCall& call, std::vector<DenseTensor>* outputs) {
  const DenseTensor& x = call.inputs[0];
  WEFT_ASSIGN_OR_RETURN(int32_t dim, DimAttr("cumsum", *call.attrs, x.shape.size(), std::nullopt));
  const Lanes l = LanesOf(x.shape, dim);
  DenseTensor y{x.shape, x.values};
  DenseTensor totals{{l.outer, l.inner}, std::vector<double>(size_t(l.outer * l.inner), 0.0)};
  for (int64_t o = 0; o < l.outer; ++o)
    for (int64_t i = 0; i < l.inner; ++i) {
      double acc = 0;
      for (int64_t j = 0; j < l.n; ++j)
        y.values[size_t(l.At(o, j, i))] = acc += x.values[size_t(l.At(o, j, i))];
      totals.values[size_t(o * l.inner + i)] = acc;
    }
  std::vector<double> prefix(totals.values.size(), 0.0);
  const std::vector<int32_t> cut = CuttingMeshDims(call, 0, dim);
  for (size_t k = cut.size(); k-- > 0;) {
    if (!call.all_gather) return Internal("cumsum: a sharded scan needs all_gather");
    WEFT_ASSIGN_OR_RETURN(std::vector<DenseTensor> all, call.all_gather(cut[k], totals));
    const int64_t me = MeshCoordinate(call, cut[k]);
    for (size_t e = 0; e < totals.values.size(); ++e) {
      double before = 0, group = 0;
      for (size_t j = 0; j < all.size(); ++j) {
        group += all[j].values[e];
        if (static_cast<int64_t>(j) < me) before += all[j].values[e];
      }
      prefix[e] += before;
      totals.values[e] = group;
    }
  }
  for (int64_t o = 0; o < l.outer; ++o)
    for (int64_t j = 0; j < l.n; ++j)
      for (int64_t i = 0; i < l.inner; ++i)
        y.values[size_t(l.At(o, j, i))] += prefix[size_t(o * l.inner + i)];
  outputs->push_back(std::move(y));
  return Status::Ok();
}

Status SortRule(const std::string& op, std::span<const TensorInfo> in, const Attributes& a,
                RuleResult* r) {
  WEFT_ASSIGN_OR_RETURN(int32_t dim, DimAttr(op, a, in[0].shape.size(), -1));
  std::vector<int64_t> shape = in[0].shape;
  if (op == "topk") {
    WEFT_ASSIGN_OR_RETURN(int64_t k, ForOp(op, a.Int("k")));
    if (k < 0 || k > shape[static_cast<size_t>(dim)])
      return OpError(op, "attribute 'k': " + std::to_string(k) + " is not between 0 and " +
                             std::to_string(shape[static_cast<size_t>(dim)]));
    shape[static_cast<size_t>(dim)] = k;
  }
  r->outputs.push_back({shape, in[0].dtype});
  r->outputs.push_back({shape, kIndexDType});
  FollowOthers(shape.size(), 2, dim, r);
  return Status::Ok();
}

// Per lane along `dim` (whole on every rank): a stable sort of the positions, the first
// `k` kept (all for sort).
Status SortKernel(const std::string& op, const KernelCall& call,
                  std::vector<DenseTensor>* outputs) {
  const DenseTensor& x = call.inputs[0];
  const Attributes& a = *call.attrs;
  WEFT_ASSIGN_OR_RETURN(int32_t dim, DimAttr(op, a, x.shape.size(), -1));
  const Lanes l = LanesOf(x.shape, dim);
  int64_t k = l.n;
  bool down = false;
  if (op == "topk") {
    WEFT_ASSIGN_OR_RETURN(k, a.Int("k"));
    WEFT_ASSIGN_OR_RETURN(down, a.Bool("largest", true));
  } else {
    WEFT_ASSIGN_OR_RETURN(down, a.Bool("descending", false));
  }
  DenseTensor values{call.output_shapes[0], std::vector<double>(size_t(l.outer * k * l.inner))};
  DenseTensor indices{call.output_shapes[1], values.values};
  const Lanes lo{l.outer, k, l.inner};
  std::vector<int64_t> order(static_cast<size_t>(l.n));
  for (int64_t o = 0; o < l.outer; ++o)
    for (int64_t i = 0; i < l.inner; ++i) {
      auto v = [&](int64_t j) { return x.values[size_t(l.At(o, j, i))]; };
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(),
                       [&](int64_t p, int64_t q) { return down ? v(p) > v(q) : v(p) < v(q); });
      for (int64_t j = 0; j < k; ++j) {
        values.values[size_t(lo.At(o, j, i))] = v(order[size_t(j)]);
        indices.values[size_t(lo.At(o, j, i))] = static_cast<double>(order[size_t(j)]);
      }
    }
  outputs->push_back(std::move(values));
  outputs->push_back(std::move(indices));
  return Status::Ok();
}

}  // namespace

Status RegisterScan(Registry& reg) {
  OpDef cumsum;
  cumsum.name = "cumsum";
  cumsum.key_attrs = {"dim"};
  cumsum.rule = CumsumRule;
  cumsum.kernel = CumsumKernel;
  WEFT_RETURN_IF_ERROR(reg.Add(std::move(cumsum)));
  for (const char* name : {"sort", "topk"}) {
    OpDef op;
    op.name = name;
    op.key_attrs = {"dim"};
    if (op.name == "topk") op.key_attrs.push_back("k");
    op.rule = [name](std::span<const TensorInfo> in, const Attributes& a, RuleResult* r) {
      return SortRule(name, in, a, r);
    };
    op.kernel = [name](const KernelCall& call, std::vector<DenseTensor>* out) {
      return SortKernel(name, call, out);
    };
    WEFT_RETURN_IF_ERROR(reg.Add(std::move(op)));
  }
  return Status::Ok();
}

}  // namespace weft::ops
