// View and reshape operators (SPEC §5): reshape (alias view), flatten, unflatten, transpose,
// permute, squeeze, unsqueeze, expand, contiguous. None computes: a rank's block of the
// output is its block of the input rearranged, and Partials of every op pass through.
//   Dim maps (transpose, permute, squeeze, unsqueeze, contiguous, expand): an output dim
//   sharded alike with the input dim it is (aligned: ragged splits carry); expand's broadcast
//   dims cannot be sharded in the input but may be in the output (each rank makes its piece).
//   Reshapes: the dims fall into groups of equal products; in each, a shard of the outer input
//   dim (size-1 dims skipped) is a contiguous run of the group, which is a run of whole outer
//   output rows when every piece times the inner input product divides by the inner output
//   product: the output's split is the input's scaled (a derived split; the candidate is
//   invalid, and the engine redistributes, where a piece does not divide). A shard of an inner
//   dim of a group is not contiguous: no strategy, so it is redistributed.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "ops/rules/builtin.hpp"
#include "ops/rules/shape_util.hpp"

namespace weft::ops {
namespace {

using C = PlacementCode;
using shape::Count;
using shape::Dim;

// `want` with its one -1 resolved so that it holds `count` elements.
Result<std::vector<int64_t>> Resolve(const std::string& op, std::vector<int64_t> want,
                                     int64_t count, const std::vector<int64_t>& from) {
  int64_t known = 1;
  int32_t free = -1;
  for (size_t d = 0; d < want.size(); ++d) {
    if (want[d] == -1 && free < 0) {
      free = static_cast<int32_t>(d);
    } else if (want[d] < 0) {
      return InvalidArgument("operator '" + op + "': shape " + ShapeText(want) +
                             " may hold one -1 and no other negative extent");
    } else {
      known *= want[d];
    }
  }
  if (free >= 0 && known != 0 && count % known == 0)
    want[static_cast<size_t>(free)] = count / known;
  if (Count(want) != count)
    return InvalidArgument("operator '" + op + "': cannot reshape " + ShapeText(from) + " into " +
                           ShapeText(want));
  return want;
}

// The group strategies of a reshape (see the top of the file) and the passing Partials.
Status ReshapeTo(const TensorInfo& in, std::vector<int64_t> out, RuleResult* r) {
  r->outputs.push_back({out, in.dtype});
  r->strategies.push_back(Replicated(2));
  shape::AddPartials(r, 1, {0});
  const std::vector<int64_t>& a = in.shape;
  if (Count(a) == 0) return Status::Ok();
  size_t i = 0, j = 0;
  while (i < a.size() || j < out.size()) {
    const size_t i0 = i, j0 = j;
    int64_t pi = i < a.size() ? a[i++] : 1, pj = j < out.size() ? out[j++] : 1;
    while (pi != pj) {  // equal totals (non-zero): the smaller side has dims left
      if (pi < pj) {
        pi *= a[i++];
      } else {
        pj *= out[j++];
      }
    }
    size_t x = i0, y = j0;  // the group's outer dims of extent > 1
    while (x < i && a[x] == 1) ++x;
    while (y < j && out[y] == 1) ++y;
    if (x == i || y == j) continue;
    const auto sx = static_cast<int32_t>(x), sy = static_cast<int32_t>(y);
    r->strategies.push_back({{C::S(sx), C::S(sy)}});
    DerivedSplit d;
    d.out = {1, sy};
    d.from = {{0, sx}};
    d.num = pi / a[x];
    d.den = pj / out[y];
    r->derived.push_back(std::move(d));
  }
  return Status::Ok();
}

// Output dim j is input dim src[j], or (src[j] < 0) a new or broadcast dim the input holds
// once: sharded in the output only.
Status MapTo(const TensorInfo& in, std::vector<int64_t> out, const std::vector<int32_t>& src,
             RuleResult* r) {
  r->outputs.push_back({std::move(out), in.dtype});
  r->strategies.push_back(Replicated(2));
  for (size_t j = 0; j < src.size(); ++j) {
    const auto sj = static_cast<int32_t>(j);
    if (src[j] >= 0) {
      r->strategies.push_back({{C::S(src[j]), C::S(sj)}});
      r->aligned.push_back({{0, src[j]}, {1, sj}});
    } else if (r->outputs[0].shape[j] > 1) {
      r->strategies.push_back({{C::R(), C::S(sj)}});
    }
  }
  shape::AddPartials(r, 1, {0});
  return Status::Ok();
}

Status ReshapeRule(std::span<const TensorInfo> in, const Attributes& at, RuleResult* r) {
  WEFT_ASSIGN_OR_RETURN(std::vector<int64_t> want, at.Ints("shape"));
  WEFT_ASSIGN_OR_RETURN(want, Resolve("reshape", want, Count(in[0].shape), in[0].shape));
  return ReshapeTo(in[0], std::move(want), r);
}

Status FlattenRule(std::span<const TensorInfo> in, const Attributes& at, RuleResult* r) {
  const std::vector<int64_t>& s = in[0].shape;
  if (s.empty()) return ReshapeTo(in[0], {1}, r);
  const auto nd = static_cast<int32_t>(s.size());
  WEFT_ASSIGN_OR_RETURN(int64_t start_attr, at.Int("start_dim", 0));
  WEFT_ASSIGN_OR_RETURN(int64_t end_attr, at.Int("end_dim", -1));
  WEFT_ASSIGN_OR_RETURN(int32_t start, Dim("flatten", "start_dim", start_attr, nd));
  WEFT_ASSIGN_OR_RETURN(int32_t end, Dim("flatten", "end_dim", end_attr, nd));
  if (start > end)
    return InvalidArgument("operator 'flatten': start_dim " + std::to_string(start) +
                           " is after end_dim " + std::to_string(end));
  std::vector<int64_t> out(s.begin(), s.begin() + start);
  out.push_back(Count(
      std::span(s).subspan(static_cast<size_t>(start), static_cast<size_t>(end - start + 1))));
  out.insert(out.end(), s.begin() + end + 1, s.end());
  return ReshapeTo(in[0], std::move(out), r);
}

Status UnflattenRule(std::span<const TensorInfo> in, const Attributes& at, RuleResult* r) {
  const std::vector<int64_t>& s = in[0].shape;
  WEFT_ASSIGN_OR_RETURN(int64_t dim_attr, at.Int("dim"));
  WEFT_ASSIGN_OR_RETURN(int32_t dim,
                        Dim("unflatten", "dim", dim_attr, static_cast<int32_t>(s.size())));
  WEFT_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, at.Ints("sizes"));
  const std::vector<int64_t> piece{s[static_cast<size_t>(dim)]};
  WEFT_ASSIGN_OR_RETURN(sizes, Resolve("unflatten", sizes, piece[0], piece));
  std::vector<int64_t> out(s.begin(), s.begin() + dim);
  out.insert(out.end(), sizes.begin(), sizes.end());
  out.insert(out.end(), s.begin() + dim + 1, s.end());
  return ReshapeTo(in[0], std::move(out), r);
}

// transpose (dim0, dim1) and permute (dims): output dim j is input dim perm[j].
Result<std::vector<int32_t>> PermOf(const std::string& op, const Attributes& at, int32_t nd) {
  std::vector<int32_t> perm(static_cast<size_t>(nd));
  if (op == "transpose") {
    for (int32_t d = 0; d < nd; ++d) perm[static_cast<size_t>(d)] = d;
    WEFT_ASSIGN_OR_RETURN(int64_t a, at.Int("dim0"));
    WEFT_ASSIGN_OR_RETURN(int64_t b, at.Int("dim1"));
    WEFT_ASSIGN_OR_RETURN(int32_t d0, Dim(op, "dim0", a, nd));
    WEFT_ASSIGN_OR_RETURN(int32_t d1, Dim(op, "dim1", b, nd));
    std::swap(perm[static_cast<size_t>(d0)], perm[static_cast<size_t>(d1)]);
    return perm;
  }
  WEFT_ASSIGN_OR_RETURN(std::vector<int64_t> dims, at.Ints("dims"));
  std::vector<bool> seen(static_cast<size_t>(nd), false);
  if (dims.size() != perm.size())
    return InvalidArgument("operator 'permute': dims has " + std::to_string(dims.size()) +
                           " entries for " + std::to_string(nd) + " dims");
  for (size_t j = 0; j < dims.size(); ++j) {
    WEFT_ASSIGN_OR_RETURN(perm[j], Dim(op, "dims", dims[j], nd));
    if (seen[static_cast<size_t>(perm[j])])
      return InvalidArgument("operator 'permute': dims repeats " + std::to_string(perm[j]));
    seen[static_cast<size_t>(perm[j])] = true;
  }
  return perm;
}

RuleFn PermuteRule(std::string op) {
  return [op](std::span<const TensorInfo> in, const Attributes& at, RuleResult* r) -> Status {
    const auto nd = static_cast<int32_t>(in[0].shape.size());
    WEFT_ASSIGN_OR_RETURN(std::vector<int32_t> perm, PermOf(op, at, nd));
    std::vector<int64_t> out;
    for (int32_t p : perm) out.push_back(in[0].shape[static_cast<size_t>(p)]);
    return MapTo(in[0], std::move(out), perm, r);
  };
}

Status SqueezeRule(std::span<const TensorInfo> in, const Attributes& at, RuleResult* r) {
  const std::vector<int64_t>& s = in[0].shape;
  const auto nd = static_cast<int32_t>(s.size());
  std::vector<bool> drop(s.size(), false);
  if (at.Find("dims")) {
    WEFT_ASSIGN_OR_RETURN(std::vector<int64_t> dims, at.Ints("dims"));
    for (int64_t v : dims) {
      WEFT_ASSIGN_OR_RETURN(int32_t d, Dim("squeeze", "dims", v, nd));
      drop[static_cast<size_t>(d)] = s[static_cast<size_t>(d)] == 1;  // as torch: others stay
    }
  } else {
    for (size_t d = 0; d < s.size(); ++d) drop[d] = s[d] == 1;
  }
  std::vector<int64_t> out;
  std::vector<int32_t> src;
  for (int32_t d = 0; d < nd; ++d)
    if (!drop[static_cast<size_t>(d)]) {
      out.push_back(s[static_cast<size_t>(d)]);
      src.push_back(d);
    }
  return MapTo(in[0], std::move(out), src, r);
}

Status UnsqueezeRule(std::span<const TensorInfo> in, const Attributes& at, RuleResult* r) {
  const std::vector<int64_t>& s = in[0].shape;
  WEFT_ASSIGN_OR_RETURN(int64_t v, at.Int("dim"));
  WEFT_ASSIGN_OR_RETURN(int32_t dim,
                        Dim("unsqueeze", "dim", v, static_cast<int32_t>(s.size()) + 1));
  std::vector<int64_t> out(s);
  out.insert(out.begin() + dim, 1);
  std::vector<int32_t> src;
  for (int32_t j = 0; j < static_cast<int32_t>(out.size()); ++j)
    src.push_back(j < dim ? j : j == dim ? -1 : j - 1);
  return MapTo(in[0], std::move(out), src, r);
}

Status ContiguousRule(std::span<const TensorInfo> in, const Attributes&, RuleResult* r) {
  std::vector<int32_t> src;
  for (int32_t d = 0; d < static_cast<int32_t>(in[0].shape.size()); ++d) src.push_back(d);
  return MapTo(in[0], in[0].shape, src, r);
}

// expand (shape: -1 keeps a dim; new dims lead): a size-1 dim expanded is a broadcast dim.
Status ExpandRule(std::span<const TensorInfo> in, const Attributes& at, RuleResult* r) {
  const std::vector<int64_t>& s = in[0].shape;
  WEFT_ASSIGN_OR_RETURN(std::vector<int64_t> out, at.Ints("shape"));
  const size_t lead = out.size() - std::min(out.size(), s.size());
  std::vector<int32_t> src(out.size(), -1);
  bool ok = out.size() >= s.size();
  for (size_t j = 0; j < out.size() && ok; ++j) {
    if (j < lead) {
      ok = out[j] >= 0;
      continue;
    }
    const int64_t e = s[j - lead];
    if (out[j] == -1) out[j] = e;
    ok = out[j] == e || (e == 1 && out[j] >= 0);
    if (out[j] == e) src[j] = static_cast<int32_t>(j - lead);
  }
  if (!ok)
    return InvalidArgument("operator 'expand': cannot expand " + ShapeText(s) + " to " +
                           ShapeText(out));
  return MapTo(in[0], std::move(out), src, r);
}

// The kernels: a rank's output block is its input block rearranged.
KernelFn ReshapeKernel(RuleFn rule) {
  return [rule](const KernelCall& call, std::vector<DenseTensor>* out) -> Status {
    WEFT_ASSIGN_OR_RETURN(auto shapes, shape::OutputShapes(call, rule));
    if (Count(shapes[0]) != static_cast<int64_t>(call.inputs[0].values.size()))
      return InvalidArgument("reshape kernel: the local block does not fill " +
                             ShapeText(shapes[0]));
    out->assign(1, DenseTensor{shapes[0], call.inputs[0].values});
    return Status::Ok();
  };
}

KernelFn PermuteKernel(std::string op) {
  return [op](const KernelCall& call, std::vector<DenseTensor>* out) -> Status {
    const DenseTensor& x = call.inputs[0];
    WEFT_ASSIGN_OR_RETURN(auto perm, PermOf(op, *call.attrs, static_cast<int32_t>(x.shape.size())));
    out->assign(1, shape::Permute(x, perm));
    return Status::Ok();
  };
}

// Broadcasts the local block: a dim the input holds once (extent 1, or new) repeats.
Status ExpandKernel(const KernelCall& call, std::vector<DenseTensor>* out) {
  WEFT_ASSIGN_OR_RETURN(auto shapes, shape::OutputShapes(call, ExpandRule));
  const DenseTensor& x = call.inputs[0];
  DenseTensor y{shapes[0], {}};
  const size_t lead = y.shape.size() - x.shape.size();
  std::vector<int64_t> src(x.shape.size());
  shape::ForEach(y.shape, [&](const int64_t* idx) {
    for (size_t d = 0; d < src.size(); ++d) src[d] = x.shape[d] == 1 ? 0 : idx[d + lead];
    y.values.push_back(x.values[static_cast<size_t>(shape::Offset(x.shape, src.data()))]);
  });
  out->assign(1, std::move(y));
  return Status::Ok();
}

Status Add(Registry& reg, std::string name, RuleFn rule, std::vector<std::string> keys,
           KernelFn kernel) {
  OpDef op;
  op.name = std::move(name);
  op.rule = std::move(rule);
  op.key_attrs = std::move(keys);
  op.kernel = kernel ? std::move(kernel) : ReshapeKernel(op.rule);
  return reg.Add(std::move(op));
}

}  // namespace

Status RegisterView(Registry& reg) {
  WEFT_RETURN_IF_ERROR(Add(reg, "reshape", ReshapeRule, {"shape"}, nullptr));
  WEFT_RETURN_IF_ERROR(reg.AddAlias("view", "reshape", "built-in"));
  WEFT_RETURN_IF_ERROR(Add(reg, "flatten", FlattenRule, {"start_dim", "end_dim"}, nullptr));
  WEFT_RETURN_IF_ERROR(Add(reg, "unflatten", UnflattenRule, {"dim", "sizes"}, nullptr));
  WEFT_RETURN_IF_ERROR(Add(reg, "transpose", PermuteRule("transpose"), {"dim0", "dim1"},
                           PermuteKernel("transpose")));
  WEFT_RETURN_IF_ERROR(
      Add(reg, "permute", PermuteRule("permute"), {"dims"}, PermuteKernel("permute")));
  WEFT_RETURN_IF_ERROR(Add(reg, "squeeze", SqueezeRule, {"dims"}, nullptr));
  WEFT_RETURN_IF_ERROR(Add(reg, "unsqueeze", UnsqueezeRule, {"dim"}, nullptr));
  WEFT_RETURN_IF_ERROR(Add(reg, "expand", ExpandRule, {"shape"}, ExpandKernel));
  return Add(reg, "contiguous", ContiguousRule, {}, nullptr);
}

}  // namespace weft::ops
