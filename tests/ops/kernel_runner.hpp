// Runs an operator's reference kernel rank by rank (one thread per rank of an abstract mesh)
// under a strategy, and assembles the outputs into global tensors, so that the families' tests
// can check a kernel on sharded, uneven and Partial blocks against its one-process result. A
// Partial input is handed out in parts that combine back exactly (small integers). The
// validation harness (tools/rulecheck) does this at scale; this is the tests' small version.
#pragma once

#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <tuple>
#include <vector>

#include "ops/engine/engine.hpp"
#include "ops/engine/kernel.hpp"
#include "ops/rules/dense.hpp"
#include "ops/rules/shape_util.hpp"

namespace weft::ops::testing {

using placement::Layout;

// The part of global `x` that `rank` holds under `l`: its block, and on each Partial mesh dim
// a share (sum: coordinate 0 holds x - (n-1), the others 1; avg: x + c - (n-1)/2; max: others
// x - 1; min: others x + 1; prod: others 1).
inline DenseTensor Part(const Layout& l, const DenseTensor& x, int32_t rank) {
  std::vector<int64_t> shape(size_t(l.ndim())), off(size_t(l.ndim()));
  l.LocalBlock(rank, shape.data(), off.data());
  placement::Coord c{};
  l.mesh().Coordinate(rank, c.data());
  DenseTensor b{shape, {}};
  ForEachIndex(shape, [&](const std::vector<int64_t>& at, int64_t) {
    int64_t g = 0;
    for (size_t d = 0; d < at.size(); ++d) g = g * x.shape[d] + at[d] + off[d];
    double v = x.values[size_t(g)];
    for (int32_t m = 0; m < l.mesh().ndim(); ++m) {
      const auto* p = std::get_if<placement::Partial>(&l.placements()[size_t(m)]);
      if (!p) continue;
      const double n = static_cast<double>(l.mesh().shape()[size_t(m)]), k = double(c[size_t(m)]);
      switch (p->op) {
        case ReduceOp::kSum:
          v = k == 0 ? v - (n - 1) : 1;
          break;
        case ReduceOp::kAvg:
          v = v + k - (n - 1) / 2;
          break;
        case ReduceOp::kMax:
          v = k == 0 ? v : v - 1;
          break;
        case ReduceOp::kMin:
          v = k == 0 ? v : v + 1;
          break;
        case ReduceOp::kProd:
          v = k == 0 ? v : 1;
          break;
      }
    }
    b.values.push_back(v);
  });
  return b;
}

// The global tensor the ranks' blocks of `l` make up: ranks at coordinate 0 of every
// replicated mesh dim contribute, Partial mesh dims combine.
inline DenseTensor Assemble(const Layout& l, const std::vector<DenseTensor>& blocks) {
  std::optional<ReduceOp> op;
  double avg = 1;
  for (int32_t m = 0; m < l.mesh().ndim(); ++m)
    if (const auto* p = std::get_if<placement::Partial>(&l.placements()[size_t(m)])) {
      op = p->op;
      avg *= static_cast<double>(l.mesh().shape()[size_t(m)]);
    }
  DenseTensor out{l.shape(), std::vector<double>(size_t(shape::Count(l.shape())), 0.0)};
  std::vector<bool> seen(out.values.size(), false);
  for (int32_t r = 0; r < static_cast<int32_t>(blocks.size()); ++r) {
    placement::Coord c{};
    l.mesh().Coordinate(r, c.data());
    bool first = true;
    for (int32_t m = 0; m < l.mesh().ndim(); ++m)
      if (std::holds_alternative<placement::Replicate>(l.placements()[size_t(m)]) && c[size_t(m)])
        first = false;
    if (!first) continue;
    std::vector<int64_t> shape(size_t(l.ndim())), off(size_t(l.ndim()));
    l.LocalBlock(r, shape.data(), off.data());
    ForEachIndex(shape, [&](const std::vector<int64_t>& at, int64_t flat) {
      int64_t g = 0;
      for (size_t d = 0; d < at.size(); ++d) g = g * l.shape()[d] + at[d] + off[d];
      const double v = blocks[size_t(r)].values[size_t(flat)];
      double& o = out.values[size_t(g)];
      if (!seen[size_t(g)] || !op)
        o = v;
      else if (*op == ReduceOp::kMax)
        o = std::max(o, v);
      else if (*op == ReduceOp::kMin)
        o = std::min(o, v);
      else if (*op == ReduceOp::kProd)
        o *= v;
      else
        o += v;
      seen[size_t(g)] = true;
    });
  }
  if (op == ReduceOp::kAvg)
    for (double& v : out.values) v /= avg;
  return out;
}

// One thread per rank of the strategy's mesh; all_gather meets the group's other ranks.
inline Result<std::vector<DenseTensor>> RunSharded(const OpDef& op, const Strategy& s,
                                                   const std::vector<DenseTensor>& global,
                                                   const Attributes& attrs) {
  const placement::Mesh& mesh = s.inputs[0]->mesh();
  const auto n = static_cast<int32_t>(mesh.size());
  std::vector<TensorInfo> infos;
  for (const auto& l : s.inputs) infos.push_back({l->shape(), l->dtype()});
  std::mutex mu;
  std::condition_variable cv;
  std::map<std::tuple<int32_t, int32_t, int32_t>, std::vector<std::optional<DenseTensor>>> meet;
  std::vector<std::vector<DenseTensor>> outs(static_cast<size_t>(n));
  std::vector<Status> status(static_cast<size_t>(n));
  auto rank_main = [&](int32_t r) {
    std::vector<DenseTensor> in;
    std::vector<std::vector<int64_t>> offs, out_shapes;
    for (size_t i = 0; i < global.size(); ++i) {
      in.push_back(Part(*s.inputs[i], global[i], r));
      offs.emplace_back(size_t(s.inputs[i]->ndim()));
      std::vector<int64_t> shape(size_t(s.inputs[i]->ndim()));
      s.inputs[i]->LocalBlock(r, shape.data(), offs.back().data());
    }
    for (const auto& l : s.outputs) {
      out_shapes.emplace_back(size_t(l->ndim()));
      std::vector<int64_t> off(size_t(l->ndim()));
      l->LocalBlock(r, out_shapes.back().data(), off.data());
    }
    placement::Coord c{};
    mesh.Coordinate(r, c.data());
    std::map<int32_t, int32_t> calls;
    KernelCall call{in, offs, out_shapes, infos, s.inputs, s.outputs, &attrs, r, {}};
    call.all_gather = [&](int32_t m, const DenseTensor& mine) -> Result<std::vector<DenseTensor>> {
      const auto group = mesh.Group(m, c.data());
      std::unique_lock<std::mutex> lock(mu);
      auto& slot = meet[{m, group[0], calls[m]++}];
      slot.resize(group.size());
      slot[size_t(c[size_t(m)])] = mine;
      cv.notify_all();
      cv.wait(lock, [&] {
        for (const auto& x : slot)
          if (!x) return false;
        return true;
      });
      std::vector<DenseTensor> all;
      for (const auto& x : slot) all.push_back(*x);
      return all;
    };
    status[size_t(r)] = op.kernel(call, &outs[size_t(r)]);
  };
  std::vector<std::thread> threads;
  for (int32_t r = 0; r < n; ++r) threads.emplace_back(rank_main, r);
  for (auto& t : threads) t.join();
  for (const Status& st : status) WEFT_RETURN_IF_ERROR(st);
  std::vector<DenseTensor> result;
  for (size_t o = 0; o < s.outputs.size(); ++o) {
    std::vector<DenseTensor> blocks;
    for (int32_t r = 0; r < n; ++r) blocks.push_back(outs[size_t(r)][o]);
    result.push_back(Assemble(*s.outputs[o], blocks));
  }
  return result;
}

}  // namespace weft::ops::testing
