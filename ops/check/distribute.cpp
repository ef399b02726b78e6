#include "ops/check/distribute.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <variant>

namespace weft::ops::check {
namespace {

int64_t Count(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t e : shape) n *= e;
  return n;
}

// Calls f(global flat index, block flat index) for every element of the block at `offset`.
template <typename F>
void ForBlock(const std::vector<int64_t>& global, const std::vector<int64_t>& shape,
              const std::vector<int64_t>& offset, F&& f) {
  const int64_t n = Count(shape);
  std::vector<int64_t> idx(shape.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t g = 0;
    for (size_t d = 0; d < shape.size(); ++d) g = g * global[d] + offset[d] + idx[d];
    f(g, k);
    for (size_t d = shape.size(); d-- > 0;) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
}

struct Partials {
  ReduceOp op = ReduceOp::kSum;
  std::vector<int32_t> dims;  // Partial mesh dims of extent > 1
  int64_t avg_ranks = 1;      // product of the avg dims' extents (sum mixed with avg)
};

Partials PartialDims(const placement::Layout& l) {
  Partials p;
  for (int32_t m = 0; m < l.mesh().ndim(); ++m) {
    const auto* q = std::get_if<placement::Partial>(&l.placements()[m]);
    if (!q || l.mesh().shape()[m] == 1) continue;
    p.dims.push_back(m);
    if (q->op == ReduceOp::kAvg) p.avg_ranks *= l.mesh().shape()[m];
    if (q->op != ReduceOp::kSum) p.op = q->op;
  }
  return p;
}

// Where `rank` sits for a Partial share-out: its group (its coordinates on the mesh dims that
// are neither Partial nor Replicate: ranks differing only on Replicate dims are replicas and
// must hold the same share) and its place within the group (over the Partial dims).
std::pair<int64_t, int64_t> GroupOf(const placement::Layout& l, int32_t rank,
                                    const std::vector<int32_t>& dims) {
  const placement::Mesh& mesh = l.mesh();
  std::vector<int64_t> c(static_cast<size_t>(mesh.ndim()));
  mesh.Coordinate(rank, c.data());
  int64_t group = 0, member = 0;
  for (int32_t m = 0; m < mesh.ndim(); ++m) {
    if (std::find(dims.begin(), dims.end(), m) != dims.end()) {
      member = member * mesh.shape()[m] + c[m];
    } else if (!std::holds_alternative<placement::Replicate>(l.placements()[m])) {
      group = group * mesh.shape()[m] + c[m];
    }
  }
  return {group, member};
}

// n parts of `v` that reduce to it with `p`'s op.
std::vector<double> Shares(double v, int64_t n, const Partials& p, Rng& rng) {
  std::uniform_int_distribution<int> small(-3, 3), down(0, 3);
  std::vector<double> parts(static_cast<size_t>(n), 0);
  const size_t holder = static_cast<size_t>(rng() % static_cast<uint64_t>(n));
  switch (p.op) {
    case ReduceOp::kSum:
    case ReduceOp::kAvg: {
      double total = v * static_cast<double>(p.avg_ranks), rest = total;
      for (size_t i = 0; i + 1 < parts.size(); ++i) rest -= parts[i] = small(rng);
      parts.back() = rest;
      break;
    }
    case ReduceOp::kMax:
    case ReduceOp::kMin:
      for (double& x : parts) x = v + (p.op == ReduceOp::kMax ? -1 : 1) * down(rng);
      parts[holder] = v;
      break;
    case ReduceOp::kProd:
      std::fill(parts.begin(), parts.end(), 1.0);
      parts[holder] = v;
      break;
  }
  return parts;
}

}  // namespace

std::vector<RankBlock> Distribute(const DenseTensor& global, const placement::Layout& layout,
                                  Rng& rng) {
  const placement::Mesh& mesh = layout.mesh();
  const auto n = static_cast<int32_t>(mesh.size());
  std::vector<RankBlock> out(static_cast<size_t>(n));
  for (int32_t r = 0; r < n; ++r) {
    RankBlock& b = out[static_cast<size_t>(r)];
    b.block.shape.assign(static_cast<size_t>(layout.ndim()), 0);
    b.offset.assign(static_cast<size_t>(layout.ndim()), 0);
    layout.LocalBlock(r, b.block.shape.data(), b.offset.data());
    b.block.values.resize(static_cast<size_t>(Count(b.block.shape)));
    ForBlock(global.shape, b.block.shape, b.offset,
             [&](int64_t g, int64_t k) { b.block.values[k] = global.values[g]; });
  }
  const Partials p = PartialDims(layout);
  if (p.dims.empty()) return out;
  int64_t members = 1;
  for (int32_t m : p.dims) members *= mesh.shape()[m];
  // Per group, one draw of parts per element; every rank takes its member's part (replicas the
  // same one).
  std::map<int64_t, std::vector<std::vector<double>>> drawn;  // group -> element -> parts
  for (int32_t r = 0; r < n; ++r) {
    const auto [g, member] = GroupOf(layout, r, p.dims);
    std::vector<double>& values = out[static_cast<size_t>(r)].block.values;
    auto [it, fresh] = drawn.try_emplace(g);
    if (fresh)
      for (double v : values) it->second.push_back(Shares(v, members, p, rng));
    for (size_t k = 0; k < values.size(); ++k)
      values[k] = it->second[k][static_cast<size_t>(member)];
  }
  return out;
}

std::string FirstDifference(const DenseTensor& got, const DenseTensor& want, double tolerance) {
  if (got.shape != want.shape || got.values.size() != want.values.size()) return "shape differs";
  double scale = 0;
  for (double w : want.values) scale = std::max(scale, std::abs(w));
  for (size_t i = 0; i < want.values.size(); ++i) {
    const double g = got.values[i], w = want.values[i];
    const bool same = (std::isnan(g) && std::isnan(w)) || g == w ||
                      (tolerance > 0 && std::abs(g - w) <= tolerance * std::max(scale, 1.0));
    if (!same)
      return "element " + std::to_string(i) + " is " + std::to_string(g) + ", expected " +
             std::to_string(w);
  }
  return {};
}

Result<DenseTensor> Assemble(const std::vector<DenseTensor>& blocks,
                             const placement::Layout& layout, double tolerance) {
  const placement::Mesh& mesh = layout.mesh();
  const Partials p = PartialDims(layout);
  DenseTensor out{layout.shape(), std::vector<double>(static_cast<size_t>(Count(layout.shape())))};
  std::vector<int64_t> seen(out.values.size(), 0);  // contributions per element
  const auto n = static_cast<int32_t>(mesh.size());
  for (int32_t r = 0; r < n; ++r) {
    std::vector<int64_t> shape(static_cast<size_t>(layout.ndim())), offset(shape.size());
    layout.LocalBlock(r, shape.data(), offset.data());
    const DenseTensor& b = blocks[static_cast<size_t>(r)];
    if (b.shape != shape || b.values.size() != static_cast<size_t>(Count(shape)))
      return Internal("rank " + std::to_string(r) + "'s output block has the wrong shape");
    // A replica (off 0 on some Replicate mesh dim) must equal its representative.
    std::vector<int64_t> c(static_cast<size_t>(mesh.ndim()));
    mesh.Coordinate(r, c.data());
    bool replica = false;
    for (int32_t m = 0; m < mesh.ndim(); ++m)
      if (std::holds_alternative<placement::Replicate>(layout.placements()[m]) && c[m] != 0) {
        replica = true;
        c[m] = 0;
      }
    if (replica) {
      const std::string diff = FirstDifference(b, blocks[mesh.RankAt(c.data())], tolerance);
      if (!diff.empty())
        return Internal("rank " + std::to_string(r) + " should hold the same block as rank " +
                        std::to_string(mesh.RankAt(c.data())) + ", but its " + diff);
      continue;
    }
    ForBlock(layout.shape(), shape, offset, [&](int64_t g, int64_t k) {
      double& o = out.values[g];
      const double v = b.values[k];
      if (seen[g]++ == 0) {
        o = v;
      } else if (p.op == ReduceOp::kSum || p.op == ReduceOp::kAvg) {
        o += v;
      } else if (p.op == ReduceOp::kMax) {
        o = std::max(o, v);
      } else if (p.op == ReduceOp::kMin) {
        o = std::min(o, v);
      } else {
        o *= v;
      }
    });
  }
  for (size_t g = 0; g < seen.size(); ++g)  // a layout's blocks cover the tensor
    if (seen[g] == 0) return Internal("element " + std::to_string(g) + " is held by no rank");
  if (p.avg_ranks > 1)
    for (double& v : out.values) v /= static_cast<double>(p.avg_ranks);
  return out;
}

}  // namespace weft::ops::check
