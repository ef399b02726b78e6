// SPEC §6.4 for redistribute: a rank whose buffers do not match its local shapes fails with
// WEFT_ERR_INVALID_ARGUMENT before communicating, buffers untouched; its peers get
// WEFT_ERR_ABORTED naming it. The context is aborted after this, so the case runs in a launch
// of its own (filter BadBuffer.*), one variant per launch.
#include <cstdlib>
#include <cstring>
#include <string>

#include "harness.hpp"

namespace redist {
namespace {

TEST(BadBuffer, LastRankRejectsItsOutputPeersAbort) {
  World& w = TheWorld();
  w.expect_abort = true;
  const char* which = std::getenv("REDIST_BAD");
  const std::string bad = which ? which : "shape";
  Mesh mesh({w.size});
  const int64_t rows = 2 * w.size + 1, cols = 2 * w.size;
  const DLDataType f32{kDLFloat, 32, 1};
  Layout src(mesh, {rows, cols}, f32, {"S0"}), dst(mesh, {rows, cols}, f32, {"S1"});
  const Type& t = TypeNamed("float32");
  Local in(src, t, w.rank), out(dst, t, w.rank);
  const bool culprit = w.rank == w.size - 1;
  int64_t zero_strides[2] = {0, 0};
  if (culprit) {
    if (bad == "shape") out.shape[0] += 1;
    if (bad == "dtype") out.t.dtype = DLDataType{kDLInt, 32, 1};
    if (bad == "device") out.t.device = DLDevice{kDLCUDA, 0};
    if (bad == "strides") out.t.strides = zero_strides;
  }
  const weft::test::Buffer<char> in_before = in.mem, out_before = out.mem;
  Plan plan;
  WEFT_OK_OR_FAIL(weft_redistribute_plan_create(src.l, dst.l, nullptr, &plan.p));
  // Every rank must be done creating its context before the culprit publishes its failure;
  // a peer still inside weft_context_create would fail there instead. A peer still leaving the
  // barrier may see the failure there already; its execute then fails the same way.
  const weft_status_t b = weft_barrier(w.ctx, nullptr, 0, nullptr, nullptr, nullptr);
  EXPECT_TRUE(b == WEFT_OK || (!culprit && b == WEFT_ERR_ABORTED)) << weft_last_error();
  const weft_status_t s = weft_plan_execute(plan.p, &in.t, &out.t, nullptr, nullptr, nullptr);
  if (culprit) {
    EXPECT_EQ(s, WEFT_ERR_INVALID_ARGUMENT) << weft_last_error();
    EXPECT_NE(std::strstr(weft_last_error(), "out->"), nullptr) << weft_last_error();
    EXPECT_EQ(out.mem, out_before);
  } else {
    EXPECT_EQ(s, WEFT_ERR_ABORTED) << weft_last_error();
    EXPECT_NE(std::strstr(weft_last_error(), ("rank " + std::to_string(w.size - 1)).c_str()),
              nullptr)
        << weft_last_error();
  }
  EXPECT_EQ(in.mem, in_before);
}

}  // namespace
}  // namespace redist
