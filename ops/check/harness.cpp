#include "ops/check/harness.hpp"

#include <algorithm>

#include "ops/check/halo_blocks.hpp"
#include "ops/check/ranks.hpp"

namespace weft::ops::check {
namespace {

int64_t Uniform(Rng& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

// Random sizes summing to `n` over `pieces` (some zero).
std::vector<int64_t> RandomSizes(int64_t n, int64_t pieces, Rng& rng) {
  std::vector<int64_t> cuts{0, n};
  for (int64_t k = 0; k + 1 < pieces; ++k) cuts.push_back(Uniform(rng, 0, n));
  std::sort(cuts.begin(), cuts.end());
  std::vector<int64_t> sizes;
  for (size_t k = 1; k < cuts.size(); ++k) sizes.push_back(cuts[k] - cuts[k - 1]);
  return sizes;
}

// The one-process result: the kernel on the global inputs.
Result<std::vector<DenseTensor>> OneProcess(const OpDef& op, const Case& c, const Strategy& any) {
  std::vector<std::vector<int64_t>> shapes, zeros;
  for (const placement::LayoutPtr& l : any.outputs) shapes.push_back(l->shape());
  for (const DenseTensor& t : c.values) zeros.emplace_back(t.shape.size(), 0);
  KernelCall call;
  call.inputs = c.values;
  call.input_offsets = zeros;
  call.output_shapes = shapes;
  call.global_inputs = c.inputs;
  call.attrs = &c.attrs;
  std::vector<DenseTensor> out;
  WEFT_RETURN_IF_ERROR(op.kernel(call, &out));
  return out;
}

std::string Context(const Case& c, const std::vector<placement::LayoutPtr>& current,
                    const Strategy& s) {
  std::string out = "op " + c.op + " (" + c.attrs.Describe() + ")";
  for (size_t i = 0; i < current.size(); ++i)
    out += "\n  current input " + std::to_string(i) + ": " + current[i]->Describe();
  return out + "\n  strategy " + s.Describe();
}

// One candidate against the one-process result: "" or why not.
std::string RunCandidate(const OpDef& op, const Case& c, const Strategy& s,
                         const std::vector<DenseTensor>& want, Rng& rng) {
  auto got = RunStrategy(op, s, c.inputs, c.values, c.attrs, c.tolerance, rng);
  if (!got.ok()) return got.status().message();
  if (got->size() != want.size()) return "the kernel's output count differs from the rule's";
  for (size_t o = 0; o < want.size(); ++o) {
    const std::string diff = FirstDifference((*got)[o], want[o], c.tolerance);
    if (!diff.empty()) return "output " + std::to_string(o) + ": " + diff;
  }
  return {};
}

}  // namespace

Result<std::vector<DenseTensor>> RunStrategy(const OpDef& op, const Strategy& s,
                                             std::span<const TensorInfo> inputs,
                                             const std::vector<DenseTensor>& values,
                                             const Attributes& attrs, double tolerance, Rng& rng) {
  std::vector<std::vector<RankBlock>> blocks;
  for (size_t i = 0; i < values.size(); ++i) {
    blocks.push_back(Distribute(values[i], *s.inputs[i], rng));
    // A windowed input's halo: the kernel reads the padded window.
    if (i < s.halos.size() && !s.halos[i].dims.empty())
      blocks.back() = PadBlocks(blocks.back(), *s.inputs[i], s.halos[i]);
  }
  WEFT_ASSIGN_OR_RETURN(auto outs, RunRanks(op.kernel, s, inputs, attrs, blocks));
  std::vector<DenseTensor> global;
  for (size_t o = 0; o < s.outputs.size(); ++o) {
    std::vector<DenseTensor> per_rank;
    for (auto& rank_outputs : outs) {
      if (rank_outputs.size() != s.outputs.size())
        return Internal("a rank's kernel gave " + std::to_string(rank_outputs.size()) +
                        " outputs, the rule " + std::to_string(s.outputs.size()));
      per_rank.push_back(std::move(rank_outputs[o]));
    }
    auto got = Assemble(per_rank, *s.outputs[o], tolerance);
    if (!got.ok()) return Internal("output " + std::to_string(o) + ": " + got.status().message());
    global.push_back(std::move(*got));
  }
  return global;
}

placement::MeshPtr RandomMesh(Rng& rng) {
  placement::Mesh::Spec spec;
  switch (Uniform(rng, 1, 3)) {
    case 1:
      spec.shape = {Uniform(rng, 1, 4)};
      break;
    case 2:
      spec.shape = {Uniform(rng, 1, 3), Uniform(rng, 1, 3)};
      break;
    default:
      spec.shape = {2, 2, Uniform(rng, 1, 2)};
  }
  return *placement::Mesh::Create(std::move(spec));
}

placement::LayoutPtr RandomLayout(const placement::MeshPtr& mesh, const TensorInfo& info,
                                  bool partial, Rng& rng) {
  const bool integral = info.dtype.code != kCodeFloat;
  const ReduceOp ops[] = {ReduceOp::kSum, ReduceOp::kAvg, ReduceOp::kMax, ReduceOp::kMin};
  for (int attempt = 0; attempt < 16; ++attempt) {
    ReduceOp op = ops[Uniform(rng, 0, 3)];
    if (integral && op == ReduceOp::kAvg) op = ReduceOp::kSum;
    placement::Layout::Spec spec{mesh, info.shape, info.dtype, {}, {}};
    for (int32_t m = 0; m < mesh->ndim(); ++m) {
      const int64_t pick = Uniform(rng, 0, partial ? 3 : 2);
      if (pick == 0 || info.shape.empty()) {
        spec.placements.push_back(placement::Replicate{});
      } else if (pick == 3) {
        spec.placements.push_back(placement::Partial{op});
      } else {
        spec.placements.push_back(placement::Shard{
            static_cast<int32_t>(Uniform(rng, 0, static_cast<int64_t>(info.shape.size()) - 1))});
      }
    }
    spec.splits.resize(info.shape.size());
    for (size_t d = 0; d < info.shape.size(); ++d) {
      int64_t pieces = 1;
      for (int32_t m = 0; m < mesh->ndim(); ++m)
        if (const auto* s = std::get_if<placement::Shard>(&spec.placements[m]);
            s && s->dim == static_cast<int32_t>(d))
          pieces *= mesh->shape()[m];
      if (pieces > 1 && Uniform(rng, 0, 1) == 1)
        spec.splits[d] = RandomSizes(info.shape[d], pieces, rng);
    }
    if (auto l = placement::Layout::Create(std::move(spec)); l.ok()) return *l;
  }
  placement::Layout::Spec spec{
      mesh,
      info.shape,
      info.dtype,
      std::vector<placement::Placement>(static_cast<size_t>(mesh->ndim()), placement::Replicate{}),
      {}};
  return *placement::Layout::Create(std::move(spec));
}

CaseResult CheckCase(Engine& engine, const OpDef& op, const Case& c, int64_t layouts, Rng& rng) {
  CaseResult result;
  std::vector<DenseTensor> want;
  for (int64_t k = 0; k < layouts && result.failure.empty(); ++k) {
    const placement::MeshPtr mesh = RandomMesh(rng);
    std::vector<placement::LayoutPtr> current;
    for (size_t i = 0; i < c.inputs.size(); ++i) {
      const bool partial = i >= c.no_partial.size() || !c.no_partial[i];
      current.push_back(RandomLayout(mesh, c.inputs[i], partial, rng));
    }
    auto all = engine.Enumerate(c.op, current, c.attrs);
    if (!all.ok()) {
      result.failure = "enumerate: " + all.status().message();
      break;
    }
    ++result.layouts;
    if (want.empty()) {
      auto one = OneProcess(op, c, *(*all)[0]);
      if (!one.ok()) {
        result.failure = "the kernel on one process: " + one.status().message();
        break;
      }
      want = std::move(*one);
    }
    for (const StrategyPtr& s : *all) {
      ++result.candidates;
      const std::string why = RunCandidate(op, c, *s, want, rng);
      if (!why.empty()) {
        result.failure = why + "\n" + Context(c, current, *s);
        break;
      }
    }
  }
  return result;
}

}  // namespace weft::ops::check
