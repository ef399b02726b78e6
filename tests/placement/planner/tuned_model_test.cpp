// The tuning file (common/tuning_file.hpp) and the cost model the planner makes from it
// (placement/planner/tuned_model.hpp): parsing and its errors, link classes, the per-mesh-dim
// figures, what weft_plan_describe shows, and plans that change only where the links differ.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "common/tuning_file.hpp"
#include "placement/planner/localize.hpp"
#include "placement/planner/plan.hpp"
#include "placement/planner/search.hpp"
#include "placement/planner/tuned_model.hpp"
#include "tests/placement/placement_test_util.hpp"
#include "tests/placement/planner/planner_sim.hpp"

namespace weft::placement::planner {
namespace {

using placement::testing::MakeLayout;
using placement::testing::MakeMesh;
using testing::PlanAndSimulate;
using tuning::LinkClass;

// Two hosts of two ranks each, hosts joined by a 1 Gbit/s link, ranks of a host by shared
// memory: the [hosts, local] shape of scripts/netns-hosts.sh.
constexpr const char* kTwoHosts = R"({
  "weft_tuning": 1,
  "ranks": [{"rank": 0, "host": 0, "numa": 0, "l3": 0}, {"rank": 1, "host": 0, "numa": 0, "l3": 0},
            {"rank": 2, "host": 1, "numa": 1, "l3": 1}, {"rank": 3, "host": 1, "numa": 1, "l3": 1}],
  "links": {
    "same_l3": {"alpha_s": 5e-6, "beta_s_per_byte": 2e-10},
    "cross_host": {"alpha_s": 60e-6, "beta_s_per_byte": 8e-9, "alpha_err_s": 1e-6}
  },
  "local": {"copy_beta_s_per_byte": 1e-10},
  "params": {"WEFT_UCX_ALLREDUCE_RING_BYTES": "128K", "WEFT_UCX_ALLTOALL_INFLIGHT": 8}
})";

tuning::File MustParse(const std::string& text) {
  auto f = tuning::Parse(text, "t.json");
  EXPECT_TRUE(f.ok()) << f.status().message();
  return f.ok() ? *f : tuning::File{};
}

std::string ParseError(const std::string& text) {
  auto f = tuning::Parse(text, "t.json");
  return f.ok() ? "" : f.status().message();
}

TEST(TuningFile, ParsesEverySection) {
  const tuning::File f = MustParse(kTwoHosts);
  ASSERT_EQ(f.ranks.size(), 4u);
  EXPECT_EQ(f.ranks[2].host, 1);
  EXPECT_TRUE(f.links[0].measured);
  EXPECT_FALSE(f.links[1].measured);
  EXPECT_DOUBLE_EQ(f.links[3].beta, 8e-9);
  EXPECT_DOUBLE_EQ(f.links[3].alpha_err, 1e-6);
  EXPECT_DOUBLE_EQ(f.copy_beta, 1e-10);
  EXPECT_DOUBLE_EQ(f.reduce_beta, 0);
  EXPECT_EQ(f.params.at("WEFT_UCX_ALLREDUCE_RING_BYTES"), "128K");
  EXPECT_EQ(f.params.at("WEFT_UCX_ALLTOALL_INFLIGHT"), "8");  // integers become text
}

TEST(TuningFile, ErrorsNameTheField) {
  EXPECT_NE(ParseError("{").find("not valid JSON"), std::string::npos);
  EXPECT_NE(ParseError("{}").find("not a tuning file"), std::string::npos);
  EXPECT_NE(ParseError(R"({"weft_tuning": 2})").find("this Weft reads version 1"),
            std::string::npos);
  EXPECT_NE(ParseError(R"({"weft_tuning": 1, "links": {"fast": {}}})").find("links has \"fast\""),
            std::string::npos);
  EXPECT_NE(ParseError(R"({"weft_tuning": 1, "links": {"same_l3": {"alpha_s": 1}}})")
                .find("links.same_l3 has no \"beta_s_per_byte\""),
            std::string::npos);
  EXPECT_NE(
      ParseError(
          R"({"weft_tuning": 1, "links": {"same_l3": {"alpha_s": -1, "beta_s_per_byte": 1}}})")
          .find("links.same_l3.alpha_s must be a finite number >= 0"),
      std::string::npos);
  EXPECT_NE(
      ParseError(R"({"weft_tuning": 1, "ranks": [{"rank": 1}]})").find("ranks[0].rank must be 0"),
      std::string::npos);
  EXPECT_NE(ParseError(R"({"weft_tuning": 1, "params": {"PATH": "x"}})")
                .find("params.PATH is not a WEFT_* tuning parameter"),
            std::string::npos);
  EXPECT_NE(ParseError(R"({"weft_tuning": 1, "params": {"WEFT_UCX_BOARD": [1]}})")
                .find("must be a string or an integer"),
            std::string::npos);
}

TEST(TuningFile, LinkClassesNest) {
  const tuning::Place a{0, 0, 0}, same_l3{0, 0, 0}, other_l3{0, 0, 1}, other_numa{0, 1, 2},
      other_host{1, 2, 3}, unknown{-1, -1, -1};
  EXPECT_EQ(tuning::ClassOf(a, same_l3), LinkClass::kSameL3);
  EXPECT_EQ(tuning::ClassOf(a, other_l3), LinkClass::kSameNuma);
  EXPECT_EQ(tuning::ClassOf(a, other_numa), LinkClass::kCrossNuma);
  EXPECT_EQ(tuning::ClassOf(a, other_host), LinkClass::kCrossHost);
  EXPECT_EQ(tuning::ClassOf(unknown, unknown), LinkClass::kCrossHost);  // unknown shares nothing
}

TEST(TuningFile, UnmeasuredClassesTakeTheNearestSlowerFit) {
  const tuning::File f = MustParse(kTwoHosts);
  EXPECT_EQ(f.Fit(LinkClass::kSameNuma), &f.links[3]);  // slower: cross_host
  EXPECT_EQ(f.Fit(LinkClass::kCrossNuma), &f.links[3]);
  EXPECT_EQ(f.Fit(LinkClass::kSameL3), &f.links[0]);
  tuning::File only_fast = MustParse(
      R"({"weft_tuning": 1, "links": {"same_l3": {"alpha_s": 1e-6, "beta_s_per_byte": 1e-10}}})");
  EXPECT_EQ(only_fast.Fit(LinkClass::kCrossHost), &only_fast.links[0]);  // else faster
  EXPECT_EQ(MustParse(R"({"weft_tuning": 1})").Fit(LinkClass::kSameL3), nullptr);
}

TEST(TunedModel, EachMeshDimTakesItsSlowestLink) {
  const tuning::File f = MustParse(kTwoHosts);
  const CostModel m = TunedModel(*MakeMesh({2, 2}), f);  // [hosts, local]
  ASSERT_EQ(m.dims.size(), 2u);
  EXPECT_DOUBLE_EQ(m.dims[0].alpha, 60e-6);
  EXPECT_DOUBLE_EQ(m.dims[0].beta, 8e-9);
  EXPECT_DOUBLE_EQ(m.dims[1].alpha, 5e-6);
  EXPECT_DOUBLE_EQ(m.dims[1].beta, 2e-10);
  EXPECT_DOUBLE_EQ(m.copy_beta, 1e-10);
  EXPECT_DOUBLE_EQ(m.reduce_beta, CostModel{}.reduce_beta);  // not measured: the default
  EXPECT_NE(m.source.find("mesh dim 0 cross_host"), std::string::npos) << m.source;
  EXPECT_NE(m.source.find("mesh dim 1 same_l3"), std::string::npos) << m.source;

  // Ranks ordered across hosts first: the innermost dim now crosses them.
  const CostModel t = TunedModel(*MakeMesh({2, 2}, std::vector<int32_t>{0, 2, 1, 3}), f);
  EXPECT_DOUBLE_EQ(t.dims[0].beta, 2e-10);
  EXPECT_DOUBLE_EQ(t.dims[1].beta, 8e-9);
  // A 1-D mesh over all four has a cross-host link in its one group.
  EXPECT_DOUBLE_EQ(TunedModel(*MakeMesh({4}), f).dims[0].beta, 8e-9);
  // Within one host: the fast link only.
  EXPECT_DOUBLE_EQ(TunedModel(*MakeMesh({2}, std::vector<int32_t>{2, 3}), f).dims[0].beta, 2e-10);
}

TEST(TunedModel, RanksTheFileDoesNotPlaceKeepTheDefaults) {
  const tuning::File f = MustParse(kTwoHosts);
  const CostModel m = TunedModel(*MakeMesh({8}), f);
  EXPECT_TRUE(m.dims.empty());
  EXPECT_NE(m.source.find("built-in defaults"), std::string::npos);
  EXPECT_NE(m.source.find("places 4 ranks, the mesh holds rank 4"), std::string::npos) << m.source;
}

// Bytes rank `rank` receives from ranks of the other host ([hosts, local] 2x2: ranks 0-1 on
// host 0, 2-3 on host 1), over every step.
int64_t CrossHostBytes(const Plan& p, int32_t rank) {
  auto local = Localize(p, rank);
  EXPECT_TRUE(local.ok());
  int64_t bytes = 0;
  for (const RankStep& s : *local)
    for (const Transfer& t : s.recvs)
      if (s.group[static_cast<size_t>(t.member)] / 2 != rank / 2) bytes += t.box.Volume() * 4;
  return bytes;
}

// S(0),S(1) -> R,S(0) on [hosts, local]: with equal links the planner takes one exchange over
// both dims, in which some rank receives all it lacks over the slow link. Tuned, it gathers
// across hosts first (each rank receives half as much over the slow link) and finishes with an
// all-to-all within each host. Both plans must move the data exactly.
TEST(TunedModel, TheSlowLinkCarriesFewerBytes) {
  const tuning::File f = MustParse(kTwoHosts);
  auto mesh = MakeMesh({2, 2});
  auto src = MakeLayout(mesh, {4096, 1024}, {Shard{0}, Shard{1}});
  auto dst = MakeLayout(mesh, {4096, 1024}, {Replicate{}, Shard{0}});
  const Plan with = PlanAndSimulate(src, dst, -1, TunedModel(*mesh, f));
  const Plan without = PlanAndSimulate(src, dst);
  EXPECT_NE(with.hash, without.hash);
  int64_t most_with = 0, most_without = 0;
  for (int32_t r = 0; r < 4; ++r) {
    most_with = std::max(most_with, CrossHostBytes(with, r));
    most_without = std::max(most_without, CrossHostBytes(without, r));
  }
  EXPECT_EQ(most_with, 4 << 20) << Describe(with, 0);
  EXPECT_EQ(most_without, 8 << 20) << Describe(without, 0);
  EXPECT_NE(Describe(with, 0).find("cost model: tuning file t.json"), std::string::npos);
}

// Without a tuning file, ModelFor gives the built-in figures: every plan is the one the
// default model makes, and describe says where the figures came from.
TEST(TunedModel, WithoutAFilePlansAreUnchanged) {
  ::unsetenv("WEFT_TUNING_FILE");
  auto mesh = MakeMesh({2, 2});
  auto model = ModelFor(*mesh);
  ASSERT_TRUE(model.ok());
  EXPECT_TRUE(model->dims.empty());
  const std::vector<std::vector<Placement>> cases = {{Shard{0}, Shard{0}},
                                                     {Shard{0}, Shard{1}},
                                                     {Replicate{}, Shard{1}},
                                                     {Partial{ReduceOp::kSum}, Shard{0}},
                                                     {Shard{1}, Replicate{}}};
  for (const auto& a : cases)
    for (const auto& b : cases) {
      auto src = MakeLayout(mesh, {96, 40}, a), dst = MakeLayout(mesh, {96, 40}, b);
      auto p1 = PlanRedistribute(src, dst, *model), p2 = PlanRedistribute(src, dst);
      ASSERT_TRUE(p1.ok() && p2.ok());
      EXPECT_EQ(p1->hash, p2->hash);
      if (!p1->steps.empty()) {
        EXPECT_NE(Describe(*p1, 0).find("cost model: built-in defaults"), std::string::npos);
      }
    }
}

TEST(TunedModel, ModelForReadsTheFileTheEnvironmentNames) {
  const std::string path = ::testing::TempDir() + "/weft_tuned_model_test.json";
  { std::ofstream(path) << kTwoHosts; }
  ::setenv("WEFT_TUNING_FILE", path.c_str(), 1);
  auto model = ModelFor(*MakeMesh({2, 2}));
  ASSERT_TRUE(model.ok()) << model.status().message();
  EXPECT_DOUBLE_EQ(model->dims[0].beta, 8e-9);
  EXPECT_STREQ(tuning::ParamText("WEFT_UCX_ALLREDUCE_RING_BYTES"), "128K");
  EXPECT_EQ(tuning::ParamText("WEFT_UCX_PIPE_BYTES"), nullptr);
  // A rewritten file is read again.
  {
    std::ofstream(path) << R"({"weft_tuning": 1, "links": {"same_l3": {"alpha_s": 1e-6,
                                "beta_s_per_byte": 3e-10}}, "extra": 1,
                                "ranks": [{"rank": 0}, {"rank": 1}, {"rank": 2}, {"rank": 3}]})";
  }
  auto again = ModelFor(*MakeMesh({2, 2}));
  ASSERT_TRUE(again.ok());
  EXPECT_DOUBLE_EQ(again->dims[0].beta, 3e-10);  // unknown places: the only fit measured
  ::setenv("WEFT_TUNING_FILE", (path + ".missing").c_str(), 1);
  auto missing = ModelFor(*MakeMesh({2, 2}));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("cannot be read"), std::string::npos);
  EXPECT_EQ(tuning::ParamText("WEFT_UCX_ALLREDUCE_RING_BYTES"), nullptr);
  ::unsetenv("WEFT_TUNING_FILE");
  std::remove(path.c_str());
}

// Every pair of 2-D placements on [hosts, local], 16 MiB (where bandwidth, not latency, decides):
// where the tuned plan differs from the built-in model's, it must move fewer bytes across hosts
// (for the rank that moves most), and it must still move the data exactly. (At small sizes
// the tuned model also trades cross-host messages for local ones, on latency.) (An exchange over
// both dims priced at the slow link for every byte used to pick plans that move more in all and no
// less across hosts.)
TEST(TunedModel, EveryChangedPlanMovesLessAcrossHosts) {
  const tuning::File f = MustParse(kTwoHosts);
  auto mesh = MakeMesh({2, 2});
  const CostModel tuned = TunedModel(*mesh, f);
  const std::vector<Placement> ps = {Shard{0}, Shard{1}, Replicate{}, Partial{ReduceOp::kSum}};
  int changed = 0;
  for (const auto& a0 : ps)
    for (const auto& a1 : ps)
      for (const auto& b0 : ps)
        for (const auto& b1 : ps) {
          if (IsPartial(b0) || IsPartial(b1)) continue;
          auto src = MakeLayout(mesh, {4096, 1024}, {a0, a1});
          auto dst = MakeLayout(mesh, {4096, 1024}, {b0, b1});
          auto planned = PlanRedistribute(src, dst, tuned);
          ASSERT_TRUE(planned.ok()) << planned.status().message();
          if (planned->hash == PlanRedistribute(src, dst)->hash) continue;
          ++changed;
          const Plan with = PlanAndSimulate(src, dst, -1, tuned);
          const Plan without = PlanAndSimulate(src, dst);
          int64_t most_with = 0, most_without = 0;
          for (int32_t r = 0; r < 4; ++r) {
            most_with = std::max(most_with, CrossHostBytes(with, r));
            most_without = std::max(most_without, CrossHostBytes(without, r));
          }
          EXPECT_LT(most_with, most_without) << Describe(with, 0) << Describe(without, 0);
        }
  EXPECT_EQ(changed, 4);  // S0S1 -> S1S1, R S0 and their mirrors (S1S0 -> S0S0, R S1)
}

}  // namespace
}  // namespace weft::placement::planner
