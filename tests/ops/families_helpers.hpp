// What the families' tests share: one-process kernel calls, and the check that every
// candidate strategy's sharded run (the validation harness's, ops/check) reassembles the
// one-process result.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "ops/check/harness.hpp"
#include "ops/rules/shape_util.hpp"
#include "tests/ops/engine_fixture.hpp"

namespace weft::ops {
namespace {

using namespace weft::ops::testing;  // NOLINT: the fixture's meshes and layouts

// Small integers, deterministic: exact sums, products and maxima.
[[maybe_unused]] DenseTensor Values(std::vector<int64_t> shape, uint64_t seed, int64_t lo = -3,
                                    int64_t hi = 3) {
  DenseTensor t{std::move(shape), {}};
  uint64_t x = seed * 0x9E3779B97F4A7C15ULL + 1;
  for (int64_t i = 0; i < shape::Count(t.shape); ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    t.values.push_back(
        static_cast<double>(lo + static_cast<int64_t>((x >> 33) % uint64_t(hi - lo + 1))));
  }
  return t;
}

class FamiliesTest : public EngineFixture {
 protected:
  // The kernel on one process: global inputs, zero offsets, output shapes from the rule.
  std::vector<DenseTensor> Local(const std::string& name, const std::vector<DenseTensor>& in,
                                 const Attributes& a = {}) {
    const OpDef* op = registry_.Find(name);
    EXPECT_TRUE(op && op->kernel) << name;
    std::vector<TensorInfo> infos;
    std::vector<std::vector<int64_t>> offs, shapes;
    for (const DenseTensor& t : in) {
      infos.push_back({t.shape, kF32});
      offs.emplace_back(t.shape.size(), 0);
    }
    if (name == "embedding" || name == "cross_entropy") infos[1].dtype = {kCodeInt, 64, 1};
    RuleResult r;
    Status st = op->rule(infos, a, &r);
    EXPECT_TRUE(st.ok()) << st.message();
    for (const TensorInfo& o : r.outputs) shapes.push_back(o.shape);
    KernelCall call{in, offs, shapes, infos, {}, {}, &a, 0, {}};
    std::vector<DenseTensor> out;
    st = op->kernel(call, &out);
    EXPECT_TRUE(st.ok()) << st.message();
    return out;
  }

  // Every candidate of `name` on `layouts` run sharded equals the one-process result.
  void EveryStrategyAgrees(const std::string& name, const std::vector<LayoutPtr>& layouts,
                           const std::vector<DenseTensor>& in, const Attributes& a = {}) {
    const std::vector<DenseTensor> want = Local(name, in, a);
    auto all = engine_.Enumerate(name, layouts, a);
    ASSERT_TRUE(all.ok()) << all.status().message();
    for (const StrategyPtr& s : *all) {
      SCOPED_TRACE(s->Describe());
      std::vector<TensorInfo> infos;
      for (const LayoutPtr& l : s->inputs) infos.push_back({l->shape(), l->dtype()});
      check::Rng rng(17);
      auto got = check::RunStrategy(*registry_.Find(name), *s, infos, in, a, 1e-9, rng);
      ASSERT_TRUE(got.ok()) << got.status().message();
      ASSERT_EQ(got->size(), want.size());
      for (size_t o = 0; o < want.size(); ++o) {
        ASSERT_EQ((*got)[o].shape, want[o].shape);
        for (size_t e = 0; e < want[o].values.size(); ++e)
          ASSERT_NEAR((*got)[o].values[e], want[o].values[e],
                      1e-9 * (1 + std::abs(want[o].values[e])))
              << "output " << o << " element " << e;
      }
    }
  }
};

[[maybe_unused]] std::vector<Placement> Places(const LayoutPtr& l) { return l->placements(); }

[[maybe_unused]] const DType kI64{kCodeInt, 64, 1};

[[maybe_unused]] LayoutPtr MakeInt(const MeshPtr& mesh, std::vector<int64_t> shape,
                                   std::vector<Placement> p) {
  auto l = placement::Layout::Create({mesh, std::move(shape), kI64, std::move(p), {}});
  EXPECT_TRUE(l.ok()) << l.status().message();
  return *l;
}

[[maybe_unused]] Attributes Attrs(std::vector<std::pair<std::string, AttrValue>> items) {
  Attributes a;
  for (auto& [k, v] : items) EXPECT_TRUE(a.Set(k, std::move(v)).ok()) << k;
  return a;
}

[[maybe_unused]] std::string Error(Engine& e, const std::string& op, std::vector<LayoutPtr> in,
                                   const Attributes& a) {
  auto s = e.Propagate(op, in, a);
  EXPECT_FALSE(s.ok());
  if (s.ok()) return "";
  EXPECT_EQ(s.status().code(), Code::kInvalidArgument);
  return s.status().message();
}

}  // namespace
}  // namespace weft::ops
