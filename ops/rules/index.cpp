// Selection by an index tensor (SPEC §5): index_select (x, 1-D index; dim) and gather (x,
// index of x's rank; dim). The output follows the index: sharded where the index is (x whole
// on the dim), and along x's other dims sharded alike with x. x sharded on the selected dim
// with the index whole gives P(sum): each rank takes the indices that fall in its rows and
// zeros elsewhere (masking, as vocab-parallel embeddings do), so the sum over the ranks is
// exact. Partials of x pass with a whole index (values are only selected). The index stays
// integer: never Partial.
#include <functional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "ops/rules/builtin.hpp"
#include "ops/rules/shape_util.hpp"

namespace weft::ops {
namespace {

using C = PlacementCode;

Status CheckIndex(const std::string& op, const TensorInfo& index) {
  if (index.dtype.code == kCodeInt || index.dtype.code == kCodeUInt) return Status::Ok();
  return InvalidArgument("operator '" + op + "': the index is " + DTypeName(index.dtype) +
                         ", not an integer dtype");
}

Status IndexSelectRule(std::span<const TensorInfo> in, const Attributes& at, RuleResult* r) {
  const std::vector<int64_t>& x = in[0].shape;
  const auto nd = static_cast<int32_t>(x.size());
  WEFT_ASSIGN_OR_RETURN(int64_t v, at.Int("dim"));
  WEFT_ASSIGN_OR_RETURN(int32_t dim, shape::Dim("index_select", "dim", v, nd));
  WEFT_RETURN_IF_ERROR(CheckIndex("index_select", in[1]));
  if (in[1].shape.size() != 1)
    return InvalidArgument("operator 'index_select': the index " + ShapeText(in[1].shape) +
                           " is not 1-D");
  std::vector<int64_t> out = x;
  out[static_cast<size_t>(dim)] = in[1].shape[0];
  r->outputs.push_back({out, in[0].dtype});
  r->strategies.push_back(Replicated(3));
  for (int32_t d = 0; d < nd; ++d) {
    if (d == dim) continue;
    r->strategies.push_back({{C::S(d), C::R(), C::S(d)}});
    r->aligned.push_back({{0, d}, {2, d}});
  }
  r->strategies.push_back({{C::R(), C::S(0), C::S(dim)}});
  r->aligned.push_back({{1, 0}, {2, dim}});
  r->strategies.push_back({{C::S(dim), C::R(), C::P(ReduceOp::kSum)}});
  shape::AddPartials(r, 2, {0});
  return Status::Ok();
}

// gather: out[i] = x[i with i[dim] replaced by index[i]]; the index's other extents at most
// x's. A dim where they are equal may be sharded alike on all three.
Status GatherRule(std::span<const TensorInfo> in, const Attributes& at, RuleResult* r) {
  const std::vector<int64_t>&x = in[0].shape, &ix = in[1].shape;
  const auto nd = static_cast<int32_t>(x.size());
  WEFT_ASSIGN_OR_RETURN(int64_t v, at.Int("dim"));
  WEFT_ASSIGN_OR_RETURN(int32_t dim, shape::Dim("gather", "dim", v, nd));
  WEFT_RETURN_IF_ERROR(CheckIndex("gather", in[1]));
  bool fits = ix.size() == x.size();
  for (int32_t d = 0; d < nd && fits; ++d)
    fits = d == dim || ix[static_cast<size_t>(d)] <= x[static_cast<size_t>(d)];
  if (!fits)
    return InvalidArgument("operator 'gather': the index " + ShapeText(ix) + " does not fit x " +
                           ShapeText(x) + " but on dim " + std::to_string(dim));
  r->outputs.push_back({ix, in[0].dtype});
  r->strategies.push_back(Replicated(3));
  for (int32_t d = 0; d < nd; ++d) {
    r->strategies.push_back({{C::R(), C::S(d), C::S(d)}});
    if (d != dim && ix[static_cast<size_t>(d)] == x[static_cast<size_t>(d)]) {
      r->strategies.push_back({{C::S(d), C::S(d), C::S(d)}});
      r->aligned.push_back({{0, d}, {1, d}, {2, d}});
    } else {
      r->aligned.push_back({{1, d}, {2, d}});
    }
  }
  r->strategies.push_back({{C::S(dim), C::R(), C::P(ReduceOp::kSum)}});
  shape::AddPartials(r, 2, {0});
  return Status::Ok();
}

// Both kernels: for every output element, the global position it reads from x, then x's local
// block if it holds it (else 0: the masked P(sum) case). `source(idx, src)` writes the global
// x index of local output index `idx` and returns false for an index value out of range.
Status Select(const KernelCall& call, int32_t dim, const std::vector<int64_t>& out_shape,
              const std::function<bool(const int64_t*, int64_t*)>& source,
              std::vector<DenseTensor>* out) {
  const DenseTensor& x = call.inputs[0];
  const std::vector<int64_t> zero(x.shape.size(), 0);
  const std::vector<int64_t>& off = call.input_offsets.empty() ? zero : call.input_offsets[0];
  DenseTensor y{out_shape, {}};
  std::vector<int64_t> src(x.shape.size());
  bool ok = true;
  shape::ForEach(y.shape, [&](const int64_t* idx) {
    ok = source(idx, src.data()) && ok;
    bool mine = true;
    for (size_t d = 0; d < src.size(); ++d) {
      src[d] -= off[d];
      mine = mine && src[d] >= 0 && src[d] < x.shape[d];
    }
    y.values.push_back(mine ? x.values[static_cast<size_t>(shape::Offset(x.shape, src.data()))]
                            : 0.0);
  });
  if (!ok)
    return InvalidArgument("index kernel: an index value is outside dim " + std::to_string(dim));
  out->assign(1, std::move(y));
  return Status::Ok();
}

// The offsets of the index's block (zeros on one process).
std::vector<int64_t> IndexOffsets(const KernelCall& call) {
  return call.input_offsets.empty() ? std::vector<int64_t>(call.inputs[1].shape.size(), 0)
                                    : call.input_offsets[1];
}

Status IndexSelectKernel(const KernelCall& call, std::vector<DenseTensor>* out) {
  const std::vector<int64_t>& g = call.global_inputs[0].shape;
  WEFT_ASSIGN_OR_RETURN(int64_t v, call.attrs->Int("dim"));
  WEFT_ASSIGN_OR_RETURN(int32_t dim, shape::Dim("index_select", "dim", v, int32_t(g.size())));
  const DenseTensor& x = call.inputs[0];
  const DenseTensor& index = call.inputs[1];
  const std::vector<int64_t> xo =
      call.input_offsets.empty() ? std::vector<int64_t>(g.size(), 0) : call.input_offsets[0];
  std::vector<int64_t> shape = x.shape;
  shape[static_cast<size_t>(dim)] = index.shape[0];
  return Select(
      call, dim, shape,
      [&](const int64_t* idx, int64_t* src) {
        for (size_t d = 0; d < g.size(); ++d) src[d] = idx[d] + xo[d];
        const double value = index.values[static_cast<size_t>(idx[dim])];
        src[dim] = static_cast<int64_t>(value);
        return value >= 0 && src[dim] < g[static_cast<size_t>(dim)];
      },
      out);
}

Status GatherKernel(const KernelCall& call, std::vector<DenseTensor>* out) {
  const std::vector<int64_t>& g = call.global_inputs[0].shape;
  WEFT_ASSIGN_OR_RETURN(int64_t v, call.attrs->Int("dim"));
  WEFT_ASSIGN_OR_RETURN(int32_t dim, shape::Dim("gather", "dim", v, int32_t(g.size())));
  const DenseTensor& index = call.inputs[1];
  const std::vector<int64_t> io = IndexOffsets(call);
  return Select(
      call, dim, index.shape,
      [&](const int64_t* idx, int64_t* src) {
        for (size_t d = 0; d < g.size(); ++d) src[d] = idx[d] + io[d];
        const double value = index.values[static_cast<size_t>(shape::Offset(index.shape, idx))];
        src[dim] = static_cast<int64_t>(value);
        return value >= 0 && src[dim] < g[static_cast<size_t>(dim)];
      },
      out);
}

}  // namespace

Status RegisterIndex(Registry& reg) {
  for (auto [name, rule, kernel] :
       {std::tuple{"index_select", RuleFn(IndexSelectRule), KernelFn(IndexSelectKernel)},
        std::tuple{"gather", RuleFn(GatherRule), KernelFn(GatherKernel)}}) {
    OpDef op;
    op.name = name;
    op.min_inputs = op.max_inputs = 2;
    op.rule = std::move(rule);
    op.key_attrs = {"dim"};
    op.kernel = std::move(kernel);
    WEFT_RETURN_IF_ERROR(reg.Add(std::move(op)));
  }
  return Status::Ok();
}

}  // namespace weft::ops
