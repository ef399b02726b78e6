// Groups of mesh dims (created on first use by their members only) and asynchronous work.
#include <vector>

#include "values.hpp"
#include "world.hpp"

namespace conformance {
namespace {

TEST(Mesh, AllreduceOverEachMeshDim) {
  World& w = TheWorld();
  // The largest 2-D factorization: 2×(n/2) for even n, else n×1.
  const int64_t rows = (w.size % 2 == 0) ? 2 : w.size, cols = w.size / rows;
  const int64_t shape[2] = {rows, cols};
  weft::test::Buffer<int32_t> ranks(w.size);
  for (int32_t i = 0; i < w.size; ++i) ranks[i] = w.size - 1 - i;  // explicit, reversed
  weft_mesh_t* mesh = nullptr;
  WEFT_OK_OR_FAIL(weft_mesh_create(w.ctx, 2, shape, ranks.data(), &mesh));
  int64_t coord[2];
  WEFT_OK_OR_FAIL(weft_mesh_coordinate(mesh, w.rank, coord));
  for (int32_t dim = 0; dim < 2; ++dim) {
    // One buffer for the device launches: value, out, id.
    weft::test::Buffer<int64_t> v{w.rank + 1, -1, w.rank};
    int64_t sum = 0;
    int32_t group[16];
    WEFT_OK_OR_FAIL(weft_mesh_group(mesh, dim, w.rank, group, 16));
    for (int64_t i = 0; i < shape[dim]; ++i) sum += group[i] + 1;
    const DLDataType i64{kDLInt, 64, 1};
    Tensor ti(&v[0], 1, i64), to(&v[1], 1, i64);
    WEFT_OK_OR_FAIL(weft_allreduce(w.ctx, mesh, dim, ti.get(), to.get(), WEFT_REDUCE_SUM, nullptr,
                                   nullptr, nullptr));
    EXPECT_EQ(v[1], sum) << "mesh dim " << dim;
    // Broadcast from group coordinate 0 of the dim: every member gets that rank's id.
    Tensor tb(&v[2], 1, i64);
    WEFT_OK_OR_FAIL(weft_broadcast(w.ctx, mesh, dim, tb.get(), 0, nullptr, nullptr, nullptr));
    EXPECT_EQ(v[2], group[0]);
  }
  weft_mesh_destroy(mesh);
}

TEST(Mesh, AsyncWorkCompletesInIssueOrder) {
  World& w = TheWorld();
  const DLDataType f64{kDLFloat, 64, 1};
  const int kOps = 4;
  weft::test::Buffer<double> in(kOps * 1000), out(kOps * 1000, -1);
  std::vector<Tensor> ti, to;
  ti.reserve(kOps);  // Tensor points into itself: no reallocation
  to.reserve(kOps);
  std::vector<weft_work_t*> works(kOps, nullptr);
  for (int k = 0; k < kOps; ++k) {
    for (int i = 0; i < 1000; ++i) in[k * 1000 + i] = w.rank * 1000 + i + k;
  }
  for (int k = 0; k < kOps; ++k) {
    ti.emplace_back(in.data() + k * 1000, 1000, f64);
    to.emplace_back(out.data() + k * 1000, 1000, f64);
  }
  for (int k = 0; k < kOps; ++k)
    WEFT_OK_OR_FAIL(weft_allreduce(w.ctx, nullptr, 0, ti[k].get(), to[k].get(), WEFT_REDUCE_MAX,
                                   nullptr, nullptr, &works[k]));
  for (int k = kOps - 1; k >= 0; --k) {
    WEFT_OK_OR_FAIL(weft_work_wait(works[k], -1));
    int32_t done = 0;
    WEFT_OK_OR_FAIL(weft_work_test(works[k], &done));
    EXPECT_EQ(done, 1);
    WEFT_OK_OR_FAIL(weft_work_release(works[k]));
  }
  for (int k = 0; k < kOps; ++k)
    for (int i = 0; i < 1000; ++i) EXPECT_EQ(out[k * 1000 + i], (w.size - 1) * 1000 + i + k);
}

// Blocking calls issued while work is queued wait their turn (the executor's queued path),
// and work issued after a blocking call runs after it: every rank issues the same sequence,
// so any reordering pairs different collectives and shows in the values.
TEST(Mesh, BlockingCallsBetweenQueuedWorkKeepIssueOrder) {
  World& w = TheWorld();
  const DLDataType i64{kDLInt, 64, 1};
  constexpr int kRounds = 40, kAsync = 3;
  for (int round = 0; round < kRounds; ++round) {
    weft::test::Buffer<int64_t> in(kAsync), out(kAsync, -1), pair{w.rank + round, -1};
    std::vector<Tensor> ti, to;
    ti.reserve(kAsync);
    to.reserve(kAsync);
    std::vector<weft_work_t*> works(kAsync, nullptr);
    for (int k = 0; k < kAsync; ++k) {
      in[k] = (w.rank + 1) * 100 + round * 10 + k;
      ti.emplace_back(&in[k], 1, i64);
      to.emplace_back(&out[k], 1, i64);
    }
    WEFT_OK_OR_FAIL(weft_allreduce(w.ctx, nullptr, 0, ti[0].get(), to[0].get(), WEFT_REDUCE_MAX,
                                   nullptr, nullptr, &works[0]));
    Tensor tm(&pair[0], 1, i64), ts(&pair[1], 1, i64);
    WEFT_OK_OR_FAIL(weft_allreduce(w.ctx, nullptr, 0, tm.get(), ts.get(), WEFT_REDUCE_SUM, nullptr,
                                   nullptr, nullptr));
    for (int k = 1; k < kAsync; ++k)
      WEFT_OK_OR_FAIL(weft_allreduce(w.ctx, nullptr, 0, ti[k].get(), to[k].get(), WEFT_REDUCE_MAX,
                                     nullptr, nullptr, &works[k]));
    if (round % 2 == 0) WEFT_OK_OR_FAIL(weft_barrier(w.ctx, nullptr, 0, nullptr, nullptr, nullptr));
    for (int k = kAsync - 1; k >= 0; --k) {
      WEFT_OK_OR_FAIL(weft_work_wait(works[k], -1));
      WEFT_OK_OR_FAIL(weft_work_release(works[k]));
    }
    EXPECT_EQ(pair[1], int64_t{w.size} * (w.size - 1) / 2 + int64_t{w.size} * round) << round;
    for (int k = 0; k < kAsync; ++k) EXPECT_EQ(out[k], w.size * 100 + round * 10 + k) << round;
  }
}

TEST(Mesh, ContextReportsItself) {
  World& w = TheWorld();
  char name[32];
  size_t needed = 0;
  WEFT_OK_OR_FAIL(weft_context_backend_name(w.ctx, name, sizeof(name), &needed));
  const char* expect = std::getenv("WEFT_BACKEND");
  if (expect) {
    EXPECT_STREQ(name, expect);
  }
  weft_status_t st = WEFT_ERR_INTERNAL;
  int32_t failed = 0;
  WEFT_OK_OR_FAIL(weft_context_error(w.ctx, &st, &failed, nullptr, 0, &needed));
  EXPECT_EQ(st, WEFT_OK);
  EXPECT_EQ(failed, -1);
}

}  // namespace
}  // namespace conformance
