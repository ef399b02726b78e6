// Concatenation and slicing (SPEC §5): cat, stack, split, chunk, narrow, slice. Along the other
// dims every tensor is sharded alike (aligned: ragged splits carry). Along the cat or slice
// dim itself the output stays sharded with a ragged split instead of being gathered (beyond
// DTensor, which replicates there): a slice keeps each rank's intersection with the window,
// so pieces may be empty; cat of inputs each sharded on the dim concatenates each rank's local
// pieces, piece p of the output the sum of the inputs' pieces p, which is exact only where the
// pieces are in order (e.g. [3,2] ++ [0,4]; chunk ++ chunk interleaves them, so the engine
// drops that candidate and redistributes). Partials pass (values are only moved).
#include <algorithm>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "ops/rules/builtin.hpp"
#include "ops/rules/shape_util.hpp"

namespace weft::ops {
namespace {

using C = PlacementCode;
using shape::Dim;

std::string Str(int64_t v) { return std::to_string(v); }

Status CatRule(std::span<const TensorInfo> in, const Attributes& at, RuleResult* r) {
  const std::vector<int64_t>& s0 = in[0].shape;
  const auto nd = static_cast<int32_t>(s0.size());
  WEFT_ASSIGN_OR_RETURN(int64_t v, at.Int("dim"));
  WEFT_ASSIGN_OR_RETURN(int32_t dim, Dim("cat", "dim", v, nd));
  std::vector<int64_t> out = s0;
  for (size_t i = 1; i < in.size(); ++i) {
    bool same = in[i].shape.size() == s0.size() && in[i].dtype == in[0].dtype;
    for (int32_t d = 0; d < nd && same; ++d)
      same = d == dim || in[i].shape[static_cast<size_t>(d)] == s0[static_cast<size_t>(d)];
    if (!same)
      return InvalidArgument("operator 'cat': input " + Str(int64_t(i)) + " " +
                             ShapeText(in[i].shape) + " does not match input 0 " + ShapeText(s0) +
                             " but on dim " + Str(dim));
    out[static_cast<size_t>(dim)] += in[i].shape[static_cast<size_t>(dim)];
  }
  r->outputs.push_back({out, in[0].dtype});
  const size_t n = in.size();
  r->strategies.push_back(Replicated(n + 1));
  for (int32_t d = 0; d < nd; ++d) {
    r->strategies.push_back({std::vector<C>(n + 1, C::S(d))});
    std::vector<DimRef> group;
    for (size_t i = 0; i <= n; ++i) group.push_back({static_cast<int32_t>(i), d});
    if (d != dim) {
      r->aligned.push_back(std::move(group));
      continue;
    }
    DerivedSplit x{DerivedSplit::Kind::kConcat, group.back(), {}};
    group.pop_back();
    x.from = std::move(group);
    r->derived.push_back(std::move(x));
  }
  std::vector<size_t> all(n);
  for (size_t i = 0; i < n; ++i) all[i] = i;
  shape::AddPartials(r, n, all);
  return Status::Ok();
}

Status StackRule(std::span<const TensorInfo> in, const Attributes& at, RuleResult* r) {
  const std::vector<int64_t>& s0 = in[0].shape;
  const auto nd = static_cast<int32_t>(s0.size());
  WEFT_ASSIGN_OR_RETURN(int64_t v, at.Int("dim"));
  WEFT_ASSIGN_OR_RETURN(int32_t dim, Dim("stack", "dim", v, nd + 1));
  for (size_t i = 1; i < in.size(); ++i)
    if (in[i].shape != s0 || in[i].dtype != in[0].dtype)
      return InvalidArgument("operator 'stack': input " + Str(int64_t(i)) + " " +
                             ShapeText(in[i].shape) + " does not match input 0 " + ShapeText(s0));
  std::vector<int64_t> out = s0;
  out.insert(out.begin() + dim, static_cast<int64_t>(in.size()));
  r->outputs.push_back({out, in[0].dtype});
  const size_t n = in.size();
  r->strategies.push_back(Replicated(n + 1));
  for (int32_t d = 0; d < nd; ++d) {
    const int32_t od = d < dim ? d : d + 1;
    DimStrategy s{std::vector<C>(n, C::S(d))};
    s.codes.push_back(C::S(od));
    r->strategies.push_back(std::move(s));
    std::vector<DimRef> group;
    for (size_t i = 0; i < n; ++i) group.push_back({static_cast<int32_t>(i), d});
    group.push_back({static_cast<int32_t>(n), od});
    r->aligned.push_back(std::move(group));
  }
  std::vector<size_t> all(n);
  for (size_t i = 0; i < n; ++i) all[i] = i;
  shape::AddPartials(r, n, all);
  return Status::Ok();
}

// The windows (start, length) along `dim` that split, chunk, narrow and slice cut.
struct Cut {
  int32_t dim = 0;
  std::vector<std::pair<int64_t, int64_t>> windows;
};

// Consecutive windows of `size` (the last shorter) over `extent`.
void Runs(int64_t extent, int64_t size, Cut* c) {
  for (int64_t at = 0; at < extent; at += size)
    c->windows.push_back({at, std::min(size, extent - at)});
}

Result<Cut> NarrowCut(const std::string& op, const TensorInfo& in, const Attributes& at, Cut c) {
  const int64_t n = in.shape[static_cast<size_t>(c.dim)];
  WEFT_ASSIGN_OR_RETURN(int64_t start,
                        at.Int("start", op == "slice" ? 0 : std::optional<int64_t>{}));
  int64_t length = 0;
  if (op == "narrow") {
    WEFT_ASSIGN_OR_RETURN(length, at.Int("length"));
    if (start < 0) start += n;
    if (start < 0 || length < 0 || start > n || length > n - start)
      return InvalidArgument("operator 'narrow': start " + Str(start) + " length " + Str(length) +
                             " leave the extent " + Str(n));
  } else {  // slice: Python's clamping, step 1 only
    WEFT_ASSIGN_OR_RETURN(int64_t end, at.Int("end", std::numeric_limits<int64_t>::max()));
    WEFT_ASSIGN_OR_RETURN(int64_t step, at.Int("step", 1));
    if (step != 1)
      return Unsupported("operator 'slice': step " + Str(step) + " (only 1 is supported)");
    auto clamp = [n](int64_t x) { return std::clamp(x < 0 ? x + n : x, int64_t{0}, n); };
    start = clamp(start);
    length = std::max<int64_t>(0, clamp(end) - start);
  }
  c.windows.push_back({start, length});
  return c;
}

Result<Cut> CutOf(const std::string& op, const TensorInfo& in, const Attributes& at) {
  const auto nd = static_cast<int32_t>(in.shape.size());
  WEFT_ASSIGN_OR_RETURN(
      int64_t v, at.Int("dim", op == "split" || op == "chunk" ? 0 : std::optional<int64_t>{}));
  Cut c;
  WEFT_ASSIGN_OR_RETURN(c.dim, Dim(op, "dim", v, nd));
  const int64_t n = in.shape[static_cast<size_t>(c.dim)];
  if (op == "narrow" || op == "slice") return NarrowCut(op, in, at, std::move(c));
  if (op == "chunk") {
    WEFT_ASSIGN_OR_RETURN(int64_t chunks, at.Int("chunks"));
    if (chunks <= 0) return InvalidArgument("operator 'chunk': chunks is " + Str(chunks));
    Runs(n, n / chunks + (n % chunks != 0), &c);  // as torch.chunk: maybe fewer pieces
  } else if (at.Find("sizes")) {
    WEFT_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, at.Ints("sizes"));
    int64_t total = 0;
    for (int64_t s : sizes) {
      if (s < 0 || s > n - total) break;
      c.windows.push_back({total, s});
      total += s;
    }
    if (c.windows.size() != sizes.size() || total != n)
      return InvalidArgument("operator 'split': sizes " + ShapeText(sizes) +
                             " do not sum to the extent " + Str(n));
  } else {
    WEFT_ASSIGN_OR_RETURN(int64_t size, at.Int("split_size"));
    if (size <= 0) return InvalidArgument("operator 'split': split_size is " + Str(size));
    Runs(n, size, &c);
  }
  if (c.windows.empty()) c.windows.push_back({0, 0});  // an empty dim: one empty piece
  return c;
}

RuleFn CutRule(std::string op) {
  return [op](std::span<const TensorInfo> in, const Attributes& at, RuleResult* r) -> Status {
    WEFT_ASSIGN_OR_RETURN(Cut c, CutOf(op, in[0], at));
    const size_t outs = c.windows.size(), nd = in[0].shape.size();
    for (const auto& [start, length] : c.windows) {
      std::vector<int64_t> s = in[0].shape;
      s[static_cast<size_t>(c.dim)] = length;
      r->outputs.push_back({std::move(s), in[0].dtype});
    }
    r->strategies.push_back(Replicated(outs + 1));
    for (int32_t d = 0; d < static_cast<int32_t>(nd); ++d) {
      r->strategies.push_back({std::vector<C>(outs + 1, C::S(d))});
      std::vector<DimRef> group{{0, d}};
      for (size_t o = 0; o < outs; ++o) {
        const DimRef out{static_cast<int32_t>(o + 1), d};
        if (d != c.dim) {
          group.push_back(out);
          continue;
        }
        DerivedSplit x{DerivedSplit::Kind::kWindow, out, {{0, d}}};
        x.start = c.windows[o].first;
        x.length = c.windows[o].second;
        r->derived.push_back(std::move(x));
      }
      if (d != c.dim) r->aligned.push_back(std::move(group));
    }
    shape::AddPartials(r, 1, {0});
    return Status::Ok();
  };
}

// Kernels: the local pieces laid end to end (cat, stack), or each window's intersection with
// the local block, which starts at the input's offset along the dim.
Status CatKernel(const KernelCall& call, std::vector<DenseTensor>* out) {
  WEFT_ASSIGN_OR_RETURN(int64_t v, call.attrs->Int("dim"));
  WEFT_ASSIGN_OR_RETURN(int32_t dim,
                        Dim("cat", "dim", v, static_cast<int32_t>(call.inputs[0].shape.size())));
  out->assign(1, shape::Concat(call.inputs, dim));
  return Status::Ok();
}

Status StackKernel(const KernelCall& call, std::vector<DenseTensor>* out) {
  WEFT_ASSIGN_OR_RETURN(int64_t v, call.attrs->Int("dim"));
  WEFT_ASSIGN_OR_RETURN(
      int32_t dim, Dim("stack", "dim", v, static_cast<int32_t>(call.inputs[0].shape.size()) + 1));
  std::vector<DenseTensor> parts(call.inputs.begin(), call.inputs.end());
  for (DenseTensor& p : parts) p.shape.insert(p.shape.begin() + dim, 1);
  out->assign(1, shape::Concat(parts, dim));
  return Status::Ok();
}

KernelFn CutKernel(std::string op) {
  return [op](const KernelCall& call, std::vector<DenseTensor>* out) -> Status {
    WEFT_ASSIGN_OR_RETURN(Cut c, CutOf(op, call.global_inputs[0], *call.attrs));
    const DenseTensor& x = call.inputs[0];
    const auto d = static_cast<size_t>(c.dim);
    const int64_t at = call.input_offsets.empty() ? 0 : call.input_offsets[0][d];
    out->clear();
    for (const auto& [start, length] : c.windows) {
      const int64_t lo = std::max(start, at), hi = std::min(start + length, at + x.shape[d]);
      out->push_back(shape::Slice(x, c.dim, hi > lo ? lo - at : 0, std::max<int64_t>(0, hi - lo)));
    }
    return Status::Ok();
  };
}

}  // namespace

Status RegisterConcat(Registry& reg) {
  constexpr int32_t kMany = 1024;  // variadic: cat and stack of up to this many tensors
  WEFT_RETURN_IF_ERROR(reg.Add({.name = "cat",
                                .max_inputs = kMany,
                                .rule = CatRule,
                                .key_attrs = {"dim"},
                                .kernel = CatKernel}));
  WEFT_RETURN_IF_ERROR(reg.Add({.name = "stack",
                                .max_inputs = kMany,
                                .rule = StackRule,
                                .key_attrs = {"dim"},
                                .kernel = StackKernel}));
  const std::vector<std::pair<const char*, std::vector<std::string>>> cuts = {
      {"split", {"dim", "split_size", "sizes"}},
      {"chunk", {"dim", "chunks"}},
      {"narrow", {"dim", "start", "length"}},
      {"slice", {"dim", "start", "end", "step"}}};
  for (const auto& [name, keys] : cuts)
    WEFT_RETURN_IF_ERROR(reg.Add(
        {.name = name, .rule = CutRule(name), .key_attrs = keys, .kernel = CutKernel(name)}));
  return Status::Ok();
}

}  // namespace weft::ops
