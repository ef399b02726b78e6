// An in-memory executor for planner tests: every rank's block is a dense buffer, each step
// moves data by the boxes Localize gives every rank, and the result is checked against a
// formula of the global index. Independent of the planner except for Localize's boxes, whose
// consistency across ranks it also checks.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "placement/planner/localize.hpp"
#include "placement/planner/search.hpp"

namespace weft::placement::planner::testing {

// f(global index): the logical value every test expects, an integer so sums are exact.
inline double F(const Layout& l, const int64_t* idx) {
  int64_t lin = 0;
  for (int32_t d = 0; d < l.ndim(); ++d) lin = lin * l.shape()[d] + idx[d];
  return static_cast<double>(lin + 1);
}

struct Buffer {
  Box box;
  std::vector<double> v;
  explicit Buffer(const Box& b, double fill = 0)
      : box(b), v(static_cast<size_t>(b.Volume()), fill) {}
  double& At(const int64_t* idx) {
    int64_t k = 0;
    for (int32_t d = 0; d < box.ndim; ++d) k = k * box.shape[d] + (idx[d] - box.offset[d]);
    return v[static_cast<size_t>(k)];
  }
};

// Calls fn(idx) for every global index in `box`, row-major.
template <class Fn>
void ForEach(const Box& box, Fn fn) {
  if (box.Empty()) return;
  std::array<int64_t, kMaxTensorDims> idx = box.offset;
  while (true) {
    fn(idx.data());
    int32_t d = box.ndim - 1;
    while (d >= 0 && ++idx[d] == box.offset[d] + box.shape[d]) {
      idx[d] = box.offset[d];
      --d;
    }
    if (d < 0) return;
  }
}

inline Box RankBlock(const Layout& l, int32_t rank) {
  Box b;
  b.ndim = l.ndim();
  l.LocalBlock(rank, b.shape.data(), b.offset.data());
  return b;
}

inline double Identity(ReduceOp op) {
  switch (op) {
    case ReduceOp::kProd:
      return 1;
    case ReduceOp::kMax:
      return -std::numeric_limits<double>::infinity();
    case ReduceOp::kMin:
      return std::numeric_limits<double>::infinity();
    default:
      return 0;
  }
}

inline double Combine(ReduceOp op, double a, double b) {
  switch (op) {
    case ReduceOp::kProd:
      return a * b;
    case ReduceOp::kMax:
      return std::max(a, b);
    case ReduceOp::kMin:
      return std::min(a, b);
    default:
      return a + b;  // sum, and avg before its division
  }
}

// Mesh dims of extent > 1 that are Partial in `l`.
inline std::vector<int32_t> PartialDims(const Layout& l) {
  std::vector<int32_t> out;
  for (int32_t m = 0; m < l.mesh().ndim(); ++m)
    if (IsPartial(l.placements()[m]) && l.mesh().shape()[m] > 1) out.push_back(m);
  return out;
}

// Rank `c`'s initial term of element idx: over the Partial dims the terms reduce to F
// exactly. Sum/avg: F on coordinate 0 of the sum dims plus a term that sums to zero along
// every Partial dim. Max/min: F minus (plus) a non-negative term that is 0 for one member.
inline double Term(const Layout& l, const int64_t* c, const int64_t* idx) {
  const double f = F(l, idx);
  const std::vector<int32_t> pd = PartialDims(l);
  if (pd.empty()) return f;
  const ReduceOp op0 = std::get<Partial>(l.placements()[pd[0]]).op;
  if (op0 == ReduceOp::kMax || op0 == ReduceOp::kMin) {
    int64_t t = 0, n = 1;
    for (int32_t m : pd) {
      t = t * l.mesh().shape()[m] + c[m];
      n *= l.mesh().shape()[m];
    }
    const double k = static_cast<double>((t + static_cast<int64_t>(f)) % n);
    return op0 == ReduceOp::kMax ? f - k : f + k;
  }
  if (op0 == ReduceOp::kProd) return c[pd[0]] == 0 ? f : 1;  // single prod dim only
  double keep = f, delta = 1;
  for (int32_t m : pd) {
    const int64_t n = l.mesh().shape()[m];
    delta *= static_cast<double>(2 * c[m] - (n - 1));
    if (std::get<Partial>(l.placements()[m]).op == ReduceOp::kSum && c[m] != 0) keep = 0;
  }
  return keep + delta;
}

class Simulation {
 public:
  // world: world ranks 0..world-1 are simulated (those outside the mesh must stay empty).
  Simulation(const Plan& plan, int32_t world) : plan_(plan), world_(world) {}

  // Runs the plan on every rank and checks the result; failures are gtest failures.
  void Run() {
    Start();
    std::vector<std::vector<RankStep>> local(static_cast<size_t>(world_));
    for (int32_t r = 0; r < world_; ++r) {
      auto l = Localize(plan_, r);
      ASSERT_TRUE(l.ok()) << l.status().message();
      local[r] = std::move(*l);
    }
    for (size_t k = 0; k < plan_.steps.size(); ++k) {
      std::vector<const RankStep*> step(static_cast<size_t>(world_));
      for (int32_t r = 0; r < world_; ++r) step[r] = &local[r][k];
      CheckConsistent(plan_.steps[k], step);
      if (::testing::Test::HasFailure()) return;
      Execute(plan_.steps[k], step);
    }
    Finish();
  }

 private:
  void Start() {
    const Layout& src = *plan_.src;
    Coord c{};
    for (int32_t r = 0; r < world_; ++r) {
      buf_.emplace_back(RankBlock(src, r));
      if (!src.mesh().Coordinate(r, c.data())) continue;
      ForEach(buf_[r].box, [&](const int64_t* idx) { buf_[r].At(idx) = Term(src, c.data(), idx); });
    }
  }

  // Every member agrees on the group; sends match recvs; movement steps tile to_block.
  void CheckConsistent(const Step& s, const std::vector<const RankStep*>& st) {
    for (int32_t p = 0; p < world_; ++p) {
      const RankStep& me = *st[p];
      EXPECT_EQ(me.from_block, RankBlock(*s.from, p));
      EXPECT_EQ(me.to_block, RankBlock(*s.to, p));
      for (size_t k = 0; k < me.group.size(); ++k) {
        const RankStep& peer = *st[me.group[k]];
        EXPECT_EQ(peer.group, me.group) << "rank " << p << " member " << k;
        EXPECT_EQ(peer.self_index, static_cast<int64_t>(k));
      }
      for (const Transfer& t : me.recvs) {
        const RankStep& q = *st[me.group[t.member]];
        EXPECT_TRUE(HasTransfer(q.sends, me.self_index, t.box)) << "rank " << p;
      }
      for (const Transfer& t : me.sends) {
        const RankStep& q = *st[me.group[t.member]];
        EXPECT_TRUE(HasTransfer(q.recvs, me.self_index, t.box)) << "rank " << p;
      }
      if (s.kind == StepKind::kAllReduce || s.kind == StepKind::kReduceScatter) {
        const size_t expect = me.to_block.Empty() ? 0 : me.group.size() - 1;
        EXPECT_EQ(me.recvs.size(), expect);
        for (const Transfer& t : me.recvs) EXPECT_EQ(t.box, me.to_block);
        continue;
      }
      if (s.conjugate) continue;
      // keep + recvs tile to_block exactly.
      std::vector<Box> parts;
      if (me.keep) parts.push_back(*me.keep);
      for (const Transfer& t : me.recvs) parts.push_back(t.box);
      int64_t volume = 0;
      for (size_t i = 0; i < parts.size(); ++i) {
        EXPECT_TRUE(Contains(me.to_block, parts[i]));
        volume += parts[i].Volume();
        for (size_t j = 0; j < i; ++j) EXPECT_TRUE(Intersect(parts[i], parts[j]).Empty());
      }
      EXPECT_EQ(volume, me.to_block.Volume()) << "rank " << p;
    }
  }

  static bool HasTransfer(const std::vector<Transfer>& list, int64_t member, const Box& box) {
    for (const Transfer& t : list)
      if (t.member == member && t.box == box) return true;
    return false;
  }

  void Execute(const Step& s, const std::vector<const RankStep*>& st) {
    const bool reduce = s.kind == StepKind::kAllReduce || s.kind == StepKind::kReduceScatter;
    const double hole = std::numeric_limits<double>::quiet_NaN();
    std::vector<Buffer> next;
    for (int32_t p = 0; p < world_; ++p) {
      const RankStep& me = *st[p];
      next.emplace_back(me.to_block, s.conjugate ? Identity(s.op) : hole);
      Buffer& out = next.back();
      if (me.keep) {
        EXPECT_TRUE(Contains(me.from_block, *me.keep));
        ForEach(*me.keep, [&](const int64_t* i) { out.At(i) = buf_[p].At(i); });
      }
      for (const Transfer& t : me.recvs) {
        Buffer& from = buf_[me.group[t.member]];
        EXPECT_TRUE(Contains(from.box, t.box));
        ForEach(t.box, [&](const int64_t* i) {
          out.At(i) = reduce ? Combine(s.op, out.At(i), from.At(i)) : from.At(i);
        });
      }
      if (reduce && s.op == ReduceOp::kAvg) {
        const double n = static_cast<double>(me.group.size());
        for (double& v : out.v) v /= n;
      }
    }
    buf_ = std::move(next);
  }

  // Every rank holds its dst block; over dst's Partial dims the terms reduce to F.
  void Finish() {
    const Layout& dst = *plan_.dst;
    const std::vector<int32_t> pd = PartialDims(dst);
    std::map<std::vector<int64_t>, std::vector<int32_t>> groups;  // by non-Partial coords
    Coord c{};
    for (int32_t r = 0; r < world_; ++r) {
      ASSERT_EQ(buf_[r].box, RankBlock(dst, r)) << "rank " << r;
      if (!dst.mesh().Coordinate(r, c.data())) continue;
      for (int32_t m : pd) c[m] = 0;
      groups[std::vector<int64_t>(c.begin(), c.begin() + dst.mesh().ndim())].push_back(r);
    }
    for (auto& [coord, ranks] : groups) {
      double div = 1;
      ReduceOp op = ReduceOp::kSum;
      for (int32_t m : pd) {
        op = std::get<Partial>(dst.placements()[m]).op;
        if (op == ReduceOp::kAvg) div *= static_cast<double>(dst.mesh().shape()[m]);
      }
      if (op == ReduceOp::kAvg) op = ReduceOp::kSum;
      Buffer acc(buf_[ranks[0]].box, Identity(op));
      for (int32_t r : ranks)
        ForEach(acc.box,
                [&](const int64_t* i) { acc.At(i) = Combine(op, acc.At(i), buf_[r].At(i)); });
      int64_t bad = 0;
      ForEach(acc.box, [&](const int64_t* i) {
        if (acc.At(i) / div != F(dst, i) && bad++ < 3)
          ADD_FAILURE() << "rank " << ranks[0] << " element " << i[0] << ": got " << acc.At(i) / div
                        << ", want " << F(dst, i);
      });
      if (bad) return;
    }
  }

  const Plan& plan_;
  int32_t world_;
  std::vector<Buffer> buf_;
};

// Plans src -> dst and simulates it on world ranks 0..world-1 (default: the mesh's size).
inline Plan PlanAndSimulate(const LayoutPtr& src, const LayoutPtr& dst, int32_t world = -1,
                            const CostModel& model = {}) {
  auto plan = PlanRedistribute(src, dst, model);
  EXPECT_TRUE(plan.ok()) << plan.status().message();
  if (!plan.ok()) return {};
  if (world < 0) world = static_cast<int32_t>(src->mesh().size());
  Simulation(*plan, world).Run();
  return *plan;
}

}  // namespace weft::placement::planner::testing
