#include "ops/engine/candidate.hpp"

#include <optional>
#include <string>
#include <utility>

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

// The mesh dims that shard dim `d` of tensor `t` under `choice`, ascending.
std::vector<int32_t> ShardingDims(const RuleResult& r, const std::vector<int32_t>& choice, size_t t,
                                  int32_t d) {
  std::vector<int32_t> dims;
  for (size_t m = 0; m < choice.size(); ++m) {
    if (choice[m] < 0) continue;
    const PlacementCode& c = r.strategies[static_cast<size_t>(choice[m])].codes[t];
    if (c.kind == PlacementCode::Kind::kShard && c.dim == d)
      dims.push_back(static_cast<int32_t>(m));
  }
  return dims;
}

// The explicit sizes tensor t's dim d takes, or nullopt (the chunk rule).
std::optional<std::vector<int64_t>> SplitFor(std::span<const LayoutPtr> current,
                                             const RuleResult& r,
                                             const std::vector<int32_t>& choice, size_t t,
                                             int32_t d, int64_t extent) {
  const std::vector<int32_t> dims = ShardingDims(r, choice, t, d);
  if (dims.empty()) return std::nullopt;
  std::vector<DimRef> group{{static_cast<int32_t>(t), d}};
  for (const auto& g : r.aligned)
    for (const DimRef& x : g)
      if (x == group[0]) group = g;
  for (const DimRef& x : group) {
    if (x.tensor >= static_cast<int32_t>(current.size())) continue;  // an output
    const Layout& in = *current[static_cast<size_t>(x.tensor)];
    const placement::DimSplit& s = in.split(x.dim);
    if (!s.is_explicit() || s.mesh_dims != dims || in.shape()[x.dim] != extent) continue;
    if (ShardingDims(r, choice, static_cast<size_t>(x.tensor), x.dim) != dims) continue;
    return in.ResolvedSizes(x.dim);
  }
  return std::nullopt;
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
  }
  for (const auto& g : r.aligned)
    for (const DimRef& x : g)
      if (x.tensor < 0 || static_cast<size_t>(x.tensor) >= n || x.dim < 0 ||
          x.dim >= ndim(static_cast<size_t>(x.tensor)))
        return Internal(who + "aligns dim " + Str(x.dim) + " of tensor " + Str(x.tensor) +
                        ", which does not exist");
  return Status::Ok();
}

Result<Candidate> BuildCandidate(std::span<const LayoutPtr> current, const RuleResult& r,
                                 std::vector<int32_t> choice) {
  const placement::MeshPtr& mesh = current[0]->mesh_ptr();
  Candidate c;
  const size_t n = current.size() + r.outputs.size();
  for (size_t t = 0; t < n; ++t) {
    Layout::Spec spec;
    spec.mesh = mesh;
    const bool input = t < current.size();
    spec.shape = input ? current[t]->shape() : r.outputs[t - current.size()].shape;
    spec.dtype = input ? current[t]->dtype() : r.outputs[t - current.size()].dtype;
    for (size_t m = 0; m < choice.size(); ++m)
      spec.placements.push_back(
          choice[m] < 0 ? placement::Placement{placement::Replicate{}}
                        : ToPlacement(r.strategies[static_cast<size_t>(choice[m])].codes[t]));
    for (int32_t d = 0; d < static_cast<int32_t>(spec.shape.size()); ++d)
      spec.splits.push_back(SplitFor(current, r, choice, t, d, spec.shape[d]));
    WEFT_ASSIGN_OR_RETURN(LayoutPtr l, Layout::Create(std::move(spec)));
    (input ? c.inputs : c.outputs).push_back(std::move(l));
  }
  c.choice = std::move(choice);
  return c;
}

}  // namespace weft::ops
