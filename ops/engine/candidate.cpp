#include "ops/engine/candidate.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "placement/halo/derive/layout_windows.hpp"

namespace weft::ops {
namespace {

using placement::Layout;
using placement::LayoutPtr;

std::string Str(int64_t v) { return std::to_string(v); }

placement::Placement ToPlacement(const PlacementCode& c) {
  switch (c.kind) {
    case PlacementCode::Kind::kShard:
      return placement::Shard{c.dim};
    case PlacementCode::Kind::kPartial:
      return placement::Partial{c.op};
    case PlacementCode::Kind::kReplicate:
      break;
  }
  return placement::Replicate{};
}

// The mesh dims that shard dim `d` of tensor `t` under `choice`, as a mask (bit m: mesh dim m;
// ascending order is implied).
uint32_t ShardMask(const RuleResult& r, const std::vector<int32_t>& choice, size_t t, int32_t d) {
  uint32_t mask = 0;
  for (size_t m = 0; m < choice.size(); ++m) {
    if (choice[m] < 0) continue;
    const PlacementCode& c = r.strategies[static_cast<size_t>(choice[m])].codes[t];
    if (c.kind == PlacementCode::Kind::kShard && c.dim == d) mask |= 1u << m;
  }
  return mask;
}

// `s`'s mesh dims as a mask.
uint32_t MaskOf(const placement::DimSplit& s) {
  uint32_t mask = 0;
  for (int32_t m : s.mesh_dims) mask |= 1u << m;
  return mask;
}

// The explicit sizes tensor t's dim d takes, or nullopt (the chunk rule).
std::optional<std::vector<int64_t>> SplitFor(std::span<const LayoutPtr> current,
                                             const RuleResult& r,
                                             const std::vector<int32_t>& choice, size_t t,
                                             int32_t d, int64_t extent) {
  const uint32_t dims = ShardMask(r, choice, t, d);
  if (dims == 0) return std::nullopt;
  const DimRef self{static_cast<int32_t>(t), d};
  std::span<const DimRef> group(&self, 1);
  for (const auto& g : r.aligned)
    for (const DimRef& x : g)
      if (x == self) group = g;
  for (const DimRef& x : group) {
    if (x.tensor >= static_cast<int32_t>(current.size())) continue;  // an output
    const Layout& in = *current[static_cast<size_t>(x.tensor)];
    const placement::DimSplit& s = in.split(x.dim);
    if (!s.is_explicit() || MaskOf(s) != dims || in.shape()[x.dim] != extent) continue;
    if (ShardMask(r, choice, static_cast<size_t>(x.tensor), x.dim) != dims) continue;
    return in.ResolvedSizes(x.dim);
  }
  return std::nullopt;
}

// Aligned dims sharded under `choice` must be cut by the same mesh dims: one strategy may shard
// a group's dims on some tensors only (gather's index and output, its x whole), and another
// mesh dim's strategy all of them; combined, x would be cut more coarsely than the index, and
// a rank's index rows would not lie in its x rows.
Status CheckAligned(const RuleResult& r, const std::vector<int32_t>& choice) {
  for (const auto& g : r.aligned) {
    uint32_t first = 0;
    for (const DimRef& x : g) {
      const uint32_t dims = ShardMask(r, choice, static_cast<size_t>(x.tensor), x.dim);
      if (dims == 0) continue;
      if (first == 0)
        first = dims;
      else if (dims != first)
        return InvalidArgument("aligned dims cut by different mesh dims");
    }
  }
  return Status::Ok();
}

const DerivedSplit* DerivedFor(const RuleResult& r, size_t t, int32_t d) {
  for (const DerivedSplit& x : r.derived)
    if (x.out == DimRef{static_cast<int32_t>(t), d}) return &x;
  return nullptr;
}

// kConcat: piece p of the output is the pieces p of the inputs laid end to end, which is the
// run of the concatenation it claims only when no piece of an input sits after a piece of a
// later input (input i's non-empty pieces no later than input i+1's); otherwise it is a
// permutation of the result.
Status InOrder(const std::vector<std::vector<int64_t>>& parts) {
  int64_t floor = 0;  // the last piece holding anything of the inputs so far
  for (size_t i = 0; i < parts.size(); ++i)
    for (size_t p = 0; p < parts[i].size(); ++p) {
      if (parts[i][p] == 0) continue;
      if (static_cast<int64_t>(p) < floor)
        return InvalidArgument("piece " + Str(int64_t(p)) + " of input " + Str(int64_t(i)) +
                               " would follow a later input's piece");
      floor = static_cast<int64_t>(p);
    }
  return Status::Ok();
}

// The sizes of a derived split whose output dim is cut by the mesh dims `dims`, made from the
// candidate's input layouts; an error when they cannot make it exactly (the candidate is then
// dropped and the engine redistributes to another).
Result<std::vector<int64_t>> Derive(const DerivedSplit& x, std::span<const LayoutPtr> inputs,
                                    uint32_t dims) {
  std::vector<std::vector<int64_t>> parts;
  for (const DimRef& f : x.from) {
    const Layout& in = *inputs[static_cast<size_t>(f.tensor)];
    if (MaskOf(in.split(f.dim)) != dims)
      return InvalidArgument("dim " + Str(f.dim) + " of input " + Str(f.tensor) +
                             " is cut by other mesh dims than the output dim made from it");
    parts.push_back(in.ResolvedSizes(f.dim));
  }
  if (x.kind == DerivedSplit::Kind::kConcat) WEFT_RETURN_IF_ERROR(InOrder(parts));
  std::vector<int64_t> sizes(parts[0].size(), 0);
  int64_t at = 0;  // kWindow: the piece's start
  for (size_t p = 0; p < sizes.size(); ++p) {
    const int64_t first = parts[0][p];
    switch (x.kind) {
      case DerivedSplit::Kind::kScale:
        if (first * x.num % x.den != 0)
          return InvalidArgument("piece " + Str(int64_t(p)) + " of " + Str(first) +
                                 " does not scale by " + Str(x.num) + "/" + Str(x.den));
        sizes[p] = first * x.num / x.den;
        break;
      case DerivedSplit::Kind::kConcat:
        for (const auto& part : parts) sizes[p] += part[p];
        break;
      case DerivedSplit::Kind::kWindow:
        sizes[p] =
            std::max<int64_t>(0, std::min(at + first, x.start + x.length) - std::max(at, x.start));
        at += first;
        break;
    }
  }
  return sizes;
}

const WindowDim* WindowFor(const RuleResult& r, size_t t, int32_t d) {
  for (const WindowDim& w : r.windows)
    if (w.out == DimRef{static_cast<int32_t>(t), d}) return &w;
  return nullptr;
}

// The output split a windowed dim gives: the pieces of the input dim it reads, through the
// operator's index map (each piece owns the outputs anchored in its rows).
Result<std::vector<int64_t>> DeriveWindowed(const WindowDim& w, std::span<const LayoutPtr> inputs,
                                            uint32_t dims) {
  const Layout& in = *inputs[static_cast<size_t>(w.in.tensor)];
  if (MaskOf(in.split(w.in.dim)) != dims)
    return InvalidArgument("windowed dim " + Str(w.in.dim) + " of input " + Str(w.in.tensor) +
                           " is cut by other mesh dims than the output dim made from it");
  WEFT_ASSIGN_OR_RETURN(placement::halo::LayoutWindows lw,
                        placement::halo::DeriveLayoutWindows(in, w.in.dim, w.op));
  return std::move(lw.out_sizes);
}

Status CheckWindows(const std::string& who, size_t inputs, size_t n,
                    const std::function<int32_t(size_t)>& ndim, const RuleResult& r) {
  auto bad = [&](const DimRef& x) {
    return x.tensor < 0 || static_cast<size_t>(x.tensor) >= n || x.dim < 0 ||
           x.dim >= ndim(static_cast<size_t>(x.tensor));
  };
  for (const WindowDim& w : r.windows) {
    // The output dim may be an input's that must match (a gradient): a later one, so that the
    // windowed input's layout is built before it.
    bool ok = !bad(w.in) && !bad(w.out) && static_cast<size_t>(w.in.tensor) < inputs &&
              w.out.tensor > w.in.tensor;
    for (const WindowDim& v : r.windows)
      ok = ok && (v.in.tensor != w.in.tensor || v.fill == w.fill ||
                  (std::isnan(v.fill) && std::isnan(w.fill)));
    if (!ok)
      return Internal(who + "windows dim " + Str(w.out.dim) + " of tensor " + Str(w.out.tensor) +
                      " wrongly (a later tensor's dim from an input dim, one fill per input)");
  }
  return Status::Ok();
}

Status CheckDerived(const std::string& who, size_t inputs, size_t n,
                    const std::function<int32_t(size_t)>& ndim, const RuleResult& r) {
  auto bad = [&](const DimRef& x) {
    return x.tensor < 0 || static_cast<size_t>(x.tensor) >= n || x.dim < 0 ||
           x.dim >= ndim(static_cast<size_t>(x.tensor));
  };
  for (const DerivedSplit& x : r.derived) {
    bool ok = !bad(x.out) && static_cast<size_t>(x.out.tensor) >= inputs && !x.from.empty() &&
              x.num > 0 && x.den > 0 && x.start >= 0 && x.length >= 0 &&
              (x.kind == DerivedSplit::Kind::kConcat || x.from.size() == 1);
    for (const DimRef& f : x.from) ok = ok && !bad(f) && static_cast<size_t>(f.tensor) < inputs;
    if (!ok)
      return Internal(who + "derives dim " + Str(x.out.dim) + " of tensor " + Str(x.out.tensor) +
                      " wrongly (an output dim from input dims, positive factors)");
  }
  return Status::Ok();
}

}  // namespace

Status CheckRuleResult(const char* op, std::span<const TensorInfo> inputs, const RuleResult& r) {
  const size_t n = inputs.size() + r.outputs.size();
  auto ndim = [&](size_t t) {
    return static_cast<int32_t>(t < inputs.size() ? inputs[t].shape.size()
                                                  : r.outputs[t - inputs.size()].shape.size());
  };
  const std::string who = std::string("operator '") + op + "': its rule ";
  if (r.outputs.empty()) return Internal(who + "gave no outputs");
  if (r.strategies.empty()) return Internal(who + "gave no strategies");
  for (size_t k = 0; k < r.strategies.size(); ++k) {
    const auto& codes = r.strategies[k].codes;
    if (codes.size() != n)
      return Internal(who + "gave strategy " + Str(int64_t(k)) + " " + Str(int64_t(codes.size())) +
                      " codes for " + Str(int64_t(n)) + " tensors");
    for (size_t t = 0; t < n; ++t)
      if (codes[t].kind == PlacementCode::Kind::kShard &&
          (codes[t].dim < 0 || codes[t].dim >= ndim(t)))
        return Internal(who + "shards dim " + Str(codes[t].dim) + " of tensor " + Str(int64_t(t)) +
                        ", which has " + Str(ndim(t)) + " dims");
    for (const OpComm& c : r.strategies[k].comm)
      if (c.tensor < 0 || static_cast<size_t>(c.tensor) >= n || c.dim < 0 ||
          c.dim >= ndim(static_cast<size_t>(c.tensor)) || c.width < 1)
        return Internal(who + "gave strategy " + Str(int64_t(k)) + " communication over dim " +
                        Str(c.dim) + " of tensor " + Str(c.tensor) + " (width " + Str(c.width) +
                        "), which does not exist");
  }
  for (const auto& g : r.aligned)
    for (const DimRef& x : g)
      if (x.tensor < 0 || static_cast<size_t>(x.tensor) >= n || x.dim < 0 ||
          x.dim >= ndim(static_cast<size_t>(x.tensor)))
        return Internal(who + "aligns dim " + Str(x.dim) + " of tensor " + Str(x.tensor) +
                        ", which does not exist");
  WEFT_RETURN_IF_ERROR(CheckWindows(who, inputs.size(), n, ndim, r));
  return CheckDerived(who, inputs.size(), n, ndim, r);
}

Result<Candidate> BuildCandidate(std::span<const LayoutPtr> current, const RuleResult& r,
                                 std::vector<int32_t> choice) {
  const placement::MeshPtr& mesh = current[0]->mesh_ptr();
  WEFT_RETURN_IF_ERROR(CheckAligned(r, choice));
  Candidate c;
  const size_t n = current.size() + r.outputs.size();
  c.inputs.reserve(current.size());
  c.outputs.reserve(r.outputs.size());
  for (size_t t = 0; t < n; ++t) {
    Layout::Spec spec;
    spec.mesh = mesh;
    const bool input = t < current.size();
    spec.shape = input ? current[t]->shape() : r.outputs[t - current.size()].shape;
    spec.dtype = input ? current[t]->dtype() : r.outputs[t - current.size()].dtype;
    spec.placements.reserve(choice.size());
    spec.splits.reserve(spec.shape.size());
    for (size_t m = 0; m < choice.size(); ++m)
      spec.placements.push_back(
          choice[m] < 0 ? placement::Placement{placement::Replicate{}}
                        : ToPlacement(r.strategies[static_cast<size_t>(choice[m])].codes[t]));
    for (int32_t d = 0; d < static_cast<int32_t>(spec.shape.size()); ++d) {
      const DerivedSplit* x = input ? nullptr : DerivedFor(r, t, d);
      const WindowDim* w = x ? nullptr : WindowFor(r, t, d);
      const uint32_t dims = x || w ? ShardMask(r, choice, t, d) : 0;
      if (dims == 0) {
        spec.splits.push_back(SplitFor(current, r, choice, t, d, spec.shape[d]));
        continue;
      }
      WEFT_ASSIGN_OR_RETURN(std::vector<int64_t> sizes,
                            x ? Derive(*x, c.inputs, dims) : DeriveWindowed(*w, c.inputs, dims));
      spec.splits.push_back(std::move(sizes));
    }
    WEFT_ASSIGN_OR_RETURN(LayoutPtr l, Layout::Create(std::move(spec)));
    (input ? c.inputs : c.outputs).push_back(std::move(l));
  }
  c.choice = std::move(choice);
  return c;
}

}  // namespace weft::ops
