// A plugin with only the mandatory ops (send/recv, requests, communicators): the host composes
// every collective, which in a world of one must still give exact values.
#include <string>
#include <vector>

#include "tests/backends/host/loader_test_util.hpp"
#include "tests/backends/host/tensor.hpp"

namespace loader_test {
namespace {

class ComposedWorld1 : public LoaderTest {
 protected:
  void SetUp() override {
    ASSERT_EQ(CreateWorld1(FakePath("fakeok").c_str(), &ctx_), WEFT_OK) << weft_last_error();
  }
  void TearDown() override { EXPECT_EQ(weft_context_destroy(ctx_), WEFT_OK) << weft_last_error(); }
  weft_context_t* ctx_ = nullptr;
};

#define EXPECT_WEFT_OK(call) EXPECT_EQ((call), WEFT_OK) << #call << ": " << weft_last_error()

TEST_F(ComposedWorld1, AllreduceEveryOp) {
  // The fake's allreduce is a decoy without its capability bit: calling it fails the op.
  for (int32_t op : {WEFT_REDUCE_SUM, WEFT_REDUCE_MAX, WEFT_REDUCE_MIN, WEFT_REDUCE_PROD}) {
    SCOPED_TRACE(op);
    Tensor<int32_t> send({3, -1, 7}), recv({0, 0, 0});
    EXPECT_WEFT_OK(
        weft_allreduce(ctx_, nullptr, 0, send.get(), recv.get(), op, nullptr, nullptr, nullptr));
    EXPECT_EQ(recv.data, (std::vector<int32_t>{3, -1, 7}));
  }
  Tensor<double> avg({0.1, -2.5}), avg_out({0, 0});
  EXPECT_WEFT_OK(weft_allreduce(ctx_, nullptr, 0, avg.get(), avg_out.get(), WEFT_REDUCE_AVG,
                                nullptr, nullptr, nullptr));
  EXPECT_EQ(avg_out.data, (std::vector<double>{0.1, -2.5}));
  Tensor<int32_t> inplace({4, 5});
  EXPECT_WEFT_OK(weft_allreduce(ctx_, nullptr, 0, inplace.get(), inplace.get(), WEFT_REDUCE_SUM,
                                nullptr, nullptr, nullptr));
  EXPECT_EQ(inplace.data, (std::vector<int32_t>{4, 5}));
}

TEST_F(ComposedWorld1, GathersAndScatters) {
  Tensor<int32_t> send({10, 20, 30}), out({0, 0, 0});
  EXPECT_WEFT_OK(
      weft_allgather(ctx_, nullptr, 0, send.get(), out.get(), nullptr, nullptr, nullptr));
  EXPECT_EQ(out.data, (std::vector<int32_t>{10, 20, 30}));

  // allgatherv with a displacement: the one block lands at element 1 of 4.
  const int64_t counts[] = {3}, displs[] = {1};
  Tensor<int32_t> outv({-9, -9, -9, -9});
  EXPECT_WEFT_OK(weft_allgatherv(ctx_, nullptr, 0, send.get(), outv.get(), counts, displs, nullptr,
                                 nullptr, nullptr));
  EXPECT_EQ(outv.data, (std::vector<int32_t>{-9, 10, 20, 30}));

  Tensor<int32_t> rs({0, 0, 0});
  EXPECT_WEFT_OK(weft_reduce_scatter(ctx_, nullptr, 0, send.get(), rs.get(), WEFT_REDUCE_SUM,
                                     nullptr, nullptr, nullptr));
  EXPECT_EQ(rs.data, (std::vector<int32_t>{10, 20, 30}));

  Tensor<double> rsv_in({1.5, 2.5, 3.5}), rsv({0, 0, 0});
  EXPECT_WEFT_OK(weft_reduce_scatterv(ctx_, nullptr, 0, rsv_in.get(), rsv.get(), counts,
                                      WEFT_REDUCE_AVG, nullptr, nullptr, nullptr));
  EXPECT_EQ(rsv.data, (std::vector<double>{1.5, 2.5, 3.5}));
}

TEST_F(ComposedWorld1, AlltoallsBroadcastAndBarrier) {
  Tensor<int32_t> send({1, 2, 3, 4}), out({0, 0, 0, 0});
  EXPECT_WEFT_OK(weft_alltoall(ctx_, nullptr, 0, send.get(), out.get(), nullptr, nullptr, nullptr));
  EXPECT_EQ(out.data, (std::vector<int32_t>{1, 2, 3, 4}));

  // alltoallv moving elements 1..2 of send to elements 2..3 of recv.
  const int64_t sc[] = {2}, sd[] = {1}, rc[] = {2}, rd[] = {2};
  Tensor<int32_t> outv({0, 0, 0, 0});
  EXPECT_WEFT_OK(weft_alltoallv(ctx_, nullptr, 0, send.get(), sc, sd, outv.get(), rc, rd, nullptr,
                                nullptr, nullptr));
  EXPECT_EQ(outv.data, (std::vector<int32_t>{0, 0, 2, 3}));

  // The fake sets broadcast's capability bit without a function: the host must compose it.
  Tensor<int32_t> buf({6, 7});
  EXPECT_WEFT_OK(weft_broadcast(ctx_, nullptr, 0, buf.get(), 0, nullptr, nullptr, nullptr));
  EXPECT_EQ(buf.data, (std::vector<int32_t>{6, 7}));
  EXPECT_WEFT_OK(weft_barrier(ctx_, nullptr, 0, nullptr, nullptr, nullptr));
}

TEST_F(ComposedWorld1, PointToPointWithOneselfKeepsOrderPerTag) {
  Tensor<int32_t> a({1, 2}), b({3, 4}), c({5, 6});
  EXPECT_WEFT_OK(weft_send(ctx_, nullptr, 0, a.get(), 0, 7, nullptr, nullptr, nullptr));
  EXPECT_WEFT_OK(weft_send(ctx_, nullptr, 0, b.get(), 0, 8, nullptr, nullptr, nullptr));
  EXPECT_WEFT_OK(weft_send(ctx_, nullptr, 0, c.get(), 0, 7, nullptr, nullptr, nullptr));
  Tensor<int32_t> r1({0, 0}), r2({0, 0}), r3({0, 0});
  EXPECT_WEFT_OK(weft_recv(ctx_, nullptr, 0, r1.get(), 0, 8, nullptr, nullptr, nullptr));
  EXPECT_WEFT_OK(weft_recv(ctx_, nullptr, 0, r2.get(), 0, 7, nullptr, nullptr, nullptr));
  EXPECT_WEFT_OK(weft_recv(ctx_, nullptr, 0, r3.get(), 0, 7, nullptr, nullptr, nullptr));
  EXPECT_EQ(r1.data, b.data);
  EXPECT_EQ(r2.data, a.data);
  EXPECT_EQ(r3.data, c.data);
}

TEST_F(ComposedWorld1, AsynchronousComposedOpsCompleteInOrder) {
  Tensor<int32_t> send({2, 4, 6}), r1({0, 0, 0}), r2({0, 0, 0});
  weft_work_t* w1 = nullptr;
  weft_work_t* w2 = nullptr;
  ASSERT_EQ(weft_allreduce(ctx_, nullptr, 0, send.get(), r1.get(), WEFT_REDUCE_SUM, nullptr,
                           nullptr, &w1),
            WEFT_OK)
      << weft_last_error();
  ASSERT_EQ(weft_allgather(ctx_, nullptr, 0, send.get(), r2.get(), nullptr, nullptr, &w2), WEFT_OK)
      << weft_last_error();
  EXPECT_WEFT_OK(weft_work_wait(w2, 30000));
  int32_t done = 0;
  EXPECT_WEFT_OK(weft_work_test(w1, &done));
  EXPECT_EQ(done, 1) << "work issued first finished after later work";
  EXPECT_WEFT_OK(weft_work_wait(w1, 30000));
  EXPECT_EQ(r1.data, send.data);
  EXPECT_EQ(r2.data, send.data);
  EXPECT_WEFT_OK(weft_work_release(w1));
  EXPECT_WEFT_OK(weft_work_release(w2));
}

}  // namespace
}  // namespace loader_test
