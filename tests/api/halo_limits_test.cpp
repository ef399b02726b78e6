// Halo depths at the edge of what window bounds hold (SPEC §4, §10; weft_halo_dim_t's limits):
// lo, hi, pad_lo and pad_hi above 2^56 are refused naming that limit, as are an extent plus
// depths beyond 2^63, a padded tensor beyond 2^63 - 1 bytes and explicit windows far outside
// the padding, before any arithmetic on them could overflow (this suite runs under UBSan).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "tests/api/bad_input.hpp"
#include "weft/weft.h"

namespace {

using weft_test::ExpectInvalid;

constexpr DLDataType kU8 = {kDLUInt, 8, 1};

// A halo plan of a [extent0, extent1] uint8 layout on an abstract mesh of one position, for
// rank 0, with one windowed dim described by `dim`.
weft_status_t PlanHalo(std::vector<int64_t> shape, const weft_halo_dim_t& dim) {
  const int64_t one[1] = {1};
  weft_mesh_t* mesh = nullptr;
  EXPECT_EQ(weft_mesh_create(nullptr, 1, one, nullptr, &mesh), WEFT_OK);
  const weft_placement_t r[1] = {WEFT_PLACEMENT_REPLICATE};
  weft_layout_t* layout = nullptr;
  EXPECT_EQ(
      weft_layout_create(mesh, static_cast<int32_t>(shape.size()), shape.data(), kU8, r, &layout),
      WEFT_OK)
      << weft_last_error();
  weft_halo_desc_t desc = WEFT_HALO_DESC_INIT;
  desc.ndims = 1;
  desc.dims = &dim;
  weft_plan_options_t opts = WEFT_PLAN_OPTIONS_INIT;
  opts.rank = 0;
  weft_plan_t* plan = nullptr;
  const weft_status_t s = weft_halo_plan_create(layout, &desc, &opts, &plan);
  const std::string msg = weft_last_error();
  weft_plan_destroy(plan);
  weft_layout_destroy(layout);
  weft_mesh_destroy(mesh);
  if (s != WEFT_OK) {  // the destroys above leave the message alone; make sure of it
    EXPECT_EQ(msg, weft_last_error());
  }
  return s;
}

constexpr int64_t kTwo56 = int64_t{1} << 56;

weft_halo_dim_t Constant(int64_t lo, int64_t hi, int64_t pad_lo, int64_t pad_hi) {
  return {0, WEFT_BOUNDARY_CONSTANT, WEFT_BOUNDARY_CONSTANT, 0, lo, hi, pad_lo, pad_hi, nullptr};
}

TEST(HaloDepth, AboveTwoTo56IsRejectedNamingTheLimit) {
  const struct {
    weft_halo_dim_t dim;
    const char* field;
  } cases[] = {{Constant(kTwo56 + 1, 0, 0, 0), "desc->dims[0].lo"},
               {Constant(0, kTwo56 + 1, 0, 0), "desc->dims[0].hi"},
               {Constant(0, 0, kTwo56 + 1, 0), "desc->dims[0].pad_lo"},
               {Constant(0, 0, 0, INT64_MAX), "desc->dims[0].pad_hi"}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.field);
    ExpectInvalid(PlanHalo({8}, c.dim), "weft_halo_plan_create", c.field, "at most 2^56");
    const std::string msg = weft_last_error();
    EXPECT_NE(msg.find("72057594037927936"), std::string::npos) << msg;
    EXPECT_EQ(msg.find("must be >= 0"), std::string::npos) << msg;
  }
  ExpectInvalid(PlanHalo({8}, Constant(-1, 0, 0, 0)), "weft_halo_plan_create", "desc->dims[0].lo",
                "must be >= 0");
}

TEST(HaloDepth, TwoTo56IsAcceptedOnASmallTensor) {
  // lo and hi reach past the tensor and are clamped to the padding.
  EXPECT_EQ(PlanHalo({8}, Constant(kTwo56, kTwo56, 1, 1)), WEFT_OK) << weft_last_error();
}

// Window bounds are 64-bit: an extent near 2^63 leaves no room for the padding.
TEST(HaloDepth, ExtentPlusDepthsBeyondTwoTo63IsRejected) {
  ExpectInvalid(PlanHalo({INT64_MAX - 4}, Constant(0, 0, 0, 8)), "weft_halo_plan_create",
                "desc->dims[0]", "below 2^63");
  ExpectInvalid(PlanHalo({INT64_MAX - 4}, Constant(0, 8, 0, 0)), "weft_halo_plan_create",
                "desc->dims[0]", "below 2^63");
}

// The padded tensor must fit in 2^63 - 1 bytes, as every buffer must.
TEST(HaloDepth, PaddedTensorBeyondTwoTo63BytesIsRejected) {
  ExpectInvalid(PlanHalo({int64_t{1} << 31, int64_t{1} << 31}, Constant(0, 0, 0, int64_t{1} << 40)),
                "weft_halo_plan_create", "desc", "2^63 - 1 bytes");
}

// An explicit window is checked against [-pad_lo, N + pad_hi) before any arithmetic on it.
TEST(HaloDepth, ExplicitWindowFarOutsideIsRejected) {
  const int64_t windows[2] = {-(int64_t{1} << 62), int64_t{1} << 62};
  weft_halo_dim_t dim = Constant(0, 0, 1, 1);
  dim.windows = windows;
  ExpectInvalid(PlanHalo({8}, dim), "weft_halo_plan_create", "desc->dims[0].windows",
                "outside [-pad_lo");
}

}  // namespace
