// Requests a halo plan must refuse at plan time (SPEC §4.1–4.2), with a message naming the
// window and the rule, and the windows it must compute exactly (uniform formula, empty shards,
// explicit tables).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "placement/halo/halo_plan.hpp"

namespace weft::placement::halo {
namespace {

// A 1-D tensor of extent n over a mesh of `ranks`, with explicit piece sizes (empty = chunk).
LayoutPtr Line(int64_t n, int64_t ranks, std::vector<int64_t> sizes = {}) {
  Mesh::Spec ms;
  ms.shape = {ranks};
  Layout::Spec ls;
  ls.mesh = *Mesh::Create(ms);
  ls.shape = {n};
  ls.dtype = DType{kCodeFloat, 32, 1};
  ls.placements = {Shard{0}};
  if (!sizes.empty()) ls.splits = {sizes};
  return *Layout::Create(ls);
}

HaloSpec Uniform(int64_t lo, int64_t hi, int64_t pad, Boundary rule) {
  HaloSpec s;
  DimSpec d;
  d.lo = lo;
  d.hi = hi;
  d.pad_lo = d.pad_hi = pad;
  d.lo_rule = d.hi_rule = rule;
  s.dims = {d};
  return s;
}

std::string Error(const LayoutPtr& l, const HaloSpec& s) {
  auto p = HaloPlan::Create(l, s, 0);
  EXPECT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), Code::kInvalidArgument);
  return p.status().message();
}

TEST(HaloPlanErrors, OverhangBeyondTheRuleIsRefused) {
  EXPECT_NE(Error(Line(3, 2), Uniform(1, 1, 3, Boundary::kReflect)).find("at most 2"),
            std::string::npos);
  EXPECT_NE(Error(Line(3, 2), Uniform(1, 1, 4, Boundary::kPeriodic)).find("at most 3"),
            std::string::npos);
  EXPECT_NE(Error(Line(3, 2), Uniform(1, 1, 4, Boundary::kSymmetric)).find("at most 3"),
            std::string::npos);
  EXPECT_NE(Error(Line(8, 2), Uniform(1, 1, 1, Boundary::kNone)).find("NONE"), std::string::npos);
  // At the limits the plans exist.
  EXPECT_TRUE(HaloPlan::Create(Line(3, 2), Uniform(1, 1, 2, Boundary::kReflect), 0).ok());
  EXPECT_TRUE(HaloPlan::Create(Line(3, 2), Uniform(1, 1, 3, Boundary::kPeriodic), 1).ok());
  EXPECT_TRUE(HaloPlan::Create(Line(3, 2), Uniform(1, 1, 9, Boundary::kConstant), 1).ok());
  EXPECT_TRUE(HaloPlan::Create(Line(3, 2), Uniform(1, 1, 9, Boundary::kReplicate), 1).ok());
}

TEST(HaloPlanErrors, ExplicitWindowsMustLieInsideThePaddedExtent) {
  HaloSpec s = Uniform(0, 0, 1, Boundary::kConstant);
  s.dims[0].windows = {-2, 3, 3, 6};  // position 0 starts below -pad_lo
  EXPECT_NE(Error(Line(6, 2), s).find("outside [-pad_lo, N + pad_hi) = [-1, 7)"),
            std::string::npos);
  s.dims[0].windows = {0, 3, 4, 2};  // position 1 ends before it begins
  EXPECT_NE(Error(Line(6, 2), s).find("ends before it begins"), std::string::npos);
}

TEST(HaloPlanErrors, UniformWindowsFollowTheFormula) {
  // Pieces [0,1) [6,6) [1,5) [5,6) (an empty piece sits at N): the empty shard's window is empty;
  // edge shards extend by the padding whatever lo/hi are; inner sides by lo/hi (clamped to the
  // padded extent).
  const auto l = Line(6, 4, {1, 0, 4, 1});
  const HaloSpec s = Uniform(2, 3, 1, Boundary::kConstant);
  const int64_t want[4][2] = {{-1, 4}, {6, 6}, {-1, 7}, {3, 7}};
  for (int32_t r = 0; r < 4; ++r) {
    auto p = HaloPlan::Create(l, s, r);
    ASSERT_TRUE(p.ok()) << p.status().message();
    EXPECT_EQ((*p)->window().offset[0], want[r][0]) << "rank " << r;
    EXPECT_EQ((*p)->window().offset[0] + (*p)->window().shape[0], want[r][1]) << "rank " << r;
  }
}

TEST(HaloPlanErrors, ForcedPhasesNeedWindowsThatHoldTheirRows) {
  // A 2-D tensor over 2x2 whose dim-1 neighbours have different explicit dim-0 windows: corner
  // forwarding would read rows the neighbour's padded block does not hold.
  Mesh::Spec ms;
  ms.shape = {2, 2};
  Layout::Spec ls;
  ls.mesh = *Mesh::Create(ms);
  ls.shape = {4, 4};
  ls.dtype = DType{kCodeFloat, 32, 1};
  ls.placements = {Shard{0}, Shard{1}};
  const auto l = *Layout::Create(ls);
  HaloSpec s;
  DimSpec d0, d1;
  d0.dim = 0;
  d0.windows = {0, 2, 1, 3, 2, 4, 2, 4};  // (0,0) reads [0,2), its neighbour (0,1) holds [1,3)
  d1.dim = 1;
  d1.lo = d1.hi = 1;
  d1.lo_rule = d1.hi_rule = Boundary::kPeriodic;
  d1.pad_lo = d1.pad_hi = 1;
  s.dims = {d0, d1};
  s.transport = Transport::kPhases;
  EXPECT_NE(Error(l, s).find("PHASES"), std::string::npos);
  s.transport = Transport::kAuto;  // falls back to the neighbour exchange
  auto p = HaloPlan::Create(l, s, 0);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ((*p)->transport(), Transport::kNeighbor);
  EXPECT_FALSE((*p)->windows_contain_owned());
}

}  // namespace
}  // namespace weft::placement::halo
