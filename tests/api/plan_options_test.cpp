// weft_plan_options_t.extra_bytes_cap and WEFT_PLAN_EXTRA_BYTES_CAP (SPEC §3.2's byte bound)
// through the C ABI, on an abstract mesh: the cap decides whether a plan may receive more than
// a rank lacks, weft_plan_describe says so, weft_plan_stats reports the bytes, and callers built
// against the first, 16-byte options struct still plan with the default.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "weft/weft.h"

namespace {

const DLDataType kF32{kDLFloat, 32, 1};

// [S0, S0, S0] -> [R, S0, S0] of 600 float32 on an abstract 2x2x2 mesh: small enough that the
// cost model prefers gathering more than each rank lacks (within the default cap).
struct Pair {
  weft_mesh_t* mesh = nullptr;
  weft_layout_t *src = nullptr, *dst = nullptr;
  Pair() {
    const int64_t shape[3] = {2, 2, 2}, global[1] = {600};
    const weft_placement_t s = WEFT_PLACEMENT_SHARD(0), r = WEFT_PLACEMENT_REPLICATE;
    const weft_placement_t from[3] = {s, s, s}, to[3] = {r, s, s};
    EXPECT_EQ(weft_mesh_create(nullptr, 3, shape, nullptr, &mesh), WEFT_OK);
    EXPECT_EQ(weft_layout_create(mesh, 1, global, kF32, from, &src), WEFT_OK);
    EXPECT_EQ(weft_layout_create(mesh, 1, global, kF32, to, &dst), WEFT_OK);
  }
  ~Pair() {
    weft_layout_destroy(src);
    weft_layout_destroy(dst);
    weft_mesh_destroy(mesh);
  }
  // |dst \ src| of `rank` in bytes, from the layouts' local shapes and offsets.
  int64_t Lacked(int32_t rank) const {
    int64_t ns = 0, os = 0, nd = 0, od = 0;
    weft_layout_local_shape(src, rank, &ns, &os);
    weft_layout_local_shape(dst, rank, &nd, &od);
    const int64_t lo = std::max(os, od), hi = std::min(os + ns, od + nd);
    return (nd - std::max<int64_t>(0, hi - lo)) * 4;
  }
};

struct Planned {
  weft_status_t status = WEFT_OK;
  weft_plan_stats_t stats = WEFT_PLAN_STATS_INIT;
  std::string text;
};

Planned PlanWith(const Pair& p, const weft_plan_options_t& opts) {
  Planned out;
  weft_plan_t* plan = nullptr;
  out.status = weft_redistribute_plan_create(p.src, p.dst, &opts, &plan);
  if (out.status != WEFT_OK) {
    out.text = weft_last_error();
    return out;
  }
  EXPECT_EQ(weft_plan_stats(plan, &out.stats), WEFT_OK);
  size_t needed = 0;
  EXPECT_EQ(weft_plan_describe(plan, nullptr, 0, &needed), WEFT_OK);
  out.text.assign(needed, '\0');
  EXPECT_EQ(weft_plan_describe(plan, out.text.data(), needed, &needed), WEFT_OK);
  weft_plan_destroy(plan);
  return out;
}

class PlanOptions : public ::testing::Test {
 protected:
  void SetUp() override { unsetenv("WEFT_PLAN_EXTRA_BYTES_CAP"); }
  void TearDown() override { unsetenv("WEFT_PLAN_EXTRA_BYTES_CAP"); }
  Pair pair;
};

TEST_F(PlanOptions, CapZeroReceivesOnlyWhatIsLacked) {
  int exceeded = 0;
  for (int32_t rank = 0; rank < 8; ++rank) {
    weft_plan_options_t opts = WEFT_PLAN_OPTIONS_INIT;
    ASSERT_EQ(opts.extra_bytes_cap, -1);
    opts.rank = rank;
    const Planned loose = PlanWith(pair, opts);
    ASSERT_EQ(loose.status, WEFT_OK) << loose.text;
    opts.extra_bytes_cap = 0;
    const Planned strict = PlanWith(pair, opts);
    ASSERT_EQ(strict.status, WEFT_OK) << strict.text;
    SCOPED_TRACE("rank " + std::to_string(rank) + "\n" + loose.text + strict.text);
    EXPECT_EQ(strict.stats.steps, 1);
    EXPECT_EQ(strict.stats.recv_bytes, pair.Lacked(rank));
    EXPECT_NE(strict.text.find("byte bound"), std::string::npos);
    EXPECT_NE(strict.text.find("over the extra-bytes cap of 0 B"), std::string::npos);
    // The default cap keeps the cheaper plan, says so, and its excess stays under 256 KiB.
    EXPECT_GT(loose.stats.steps, 1);
    EXPECT_LE(loose.stats.recv_bytes, 2 * pair.Lacked(rank) + 256 * 1024);
    EXPECT_NE(loose.text.find("exceeded on rank"), std::string::npos);
    exceeded += loose.stats.recv_bytes > 2 * pair.Lacked(rank);
  }
  EXPECT_GT(exceeded, 0);
}

TEST_F(PlanOptions, BadCapAndOlderStructs) {
  weft_plan_options_t opts = WEFT_PLAN_OPTIONS_INIT;
  opts.rank = 0;
  opts.extra_bytes_cap = -2;
  const Planned bad = PlanWith(pair, opts);
  EXPECT_EQ(bad.status, WEFT_ERR_INVALID_ARGUMENT);
  EXPECT_NE(bad.text.find("opts->extra_bytes_cap is -2"), std::string::npos) << bad.text;
  // A caller built against the first 16-byte struct: accepted, with the default cap. The field
  // past its struct_size is never read (here it holds 0, which would mean "never exceed").
  opts.extra_bytes_cap = 0;
  opts.struct_size = 16;
  const Planned old = PlanWith(pair, opts);
  ASSERT_EQ(old.status, WEFT_OK) << old.text;
  EXPECT_GT(old.stats.steps, 1);
  opts.struct_size = 12;
  EXPECT_EQ(PlanWith(pair, opts).status, WEFT_ERR_INVALID_ARGUMENT);
}

TEST_F(PlanOptions, EnvironmentSetsTheDefault) {
  weft_plan_options_t opts = WEFT_PLAN_OPTIONS_INIT;
  opts.rank = 2;
  setenv("WEFT_PLAN_EXTRA_BYTES_CAP", "0", 1);
  const Planned strict = PlanWith(pair, opts);
  ASSERT_EQ(strict.status, WEFT_OK) << strict.text;
  EXPECT_EQ(strict.stats.steps, 1);
  EXPECT_EQ(strict.stats.recv_bytes, pair.Lacked(2));
  opts.extra_bytes_cap = 1 << 20;  // the option wins over the environment
  EXPECT_GT(PlanWith(pair, opts).stats.steps, 1);
  opts.extra_bytes_cap = -1;
  for (const char* bad : {"12x", "-1", " 5", "99999999999999999999"}) {
    setenv("WEFT_PLAN_EXTRA_BYTES_CAP", bad, 1);
    const Planned p = PlanWith(pair, opts);
    EXPECT_EQ(p.status, WEFT_ERR_INVALID_ARGUMENT) << "'" << bad << "'";
    EXPECT_NE(p.text.find("WEFT_PLAN_EXTRA_BYTES_CAP is '" + std::string(bad) + "'"),
              std::string::npos)
        << p.text;
  }
  setenv("WEFT_PLAN_EXTRA_BYTES_CAP", "262144", 1);
  EXPECT_GT(PlanWith(pair, opts).stats.steps, 1);
}

}  // namespace
