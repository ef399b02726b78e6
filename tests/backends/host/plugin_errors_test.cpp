// Plugins that fail on purpose (SPEC §6.6 "Errors"): the status a plugin returns and the
// message it gave host->set_error reach the caller of the C ABI.
#include <string>
#include <vector>

#include "tests/backends/host/loader_test_util.hpp"
#include "tests/backends/host/tensor.hpp"

namespace loader_test {
namespace {

using PluginErrors = LoaderTest;

TEST_F(PluginErrors, InitFailureFailsCreateWithThePluginsStatusAndMessage) {
  weft_context_t* ctx = nullptr;
  EXPECT_EQ(CreateWorld1(FakePath("fakeinitfail").c_str(), &ctx), WEFT_ERR_BACKEND);
  EXPECT_EQ(ctx, nullptr);
  const std::string msg = weft_last_error();
  EXPECT_CONTAINS(msg, "weft_context_create");
  EXPECT_CONTAINS(msg, "fakeinitfail: refusing to start (rank 0 on purpose)");
  EXPECT_CONTAINS(msg, "init");
}

class OpFails : public LoaderTest {
 protected:
  void SetUp() override {
    ASSERT_EQ(CreateWorld1(FakePath("fakeopfail").c_str(), &ctx_), WEFT_OK) << weft_last_error();
  }
  void TearDown() override { EXPECT_EQ(weft_context_destroy(ctx_), WEFT_OK) << weft_last_error(); }

  // The context's sticky error.
  weft_status_t Sticky(int32_t* failed_rank) {
    size_t needed = 0;
    EXPECT_EQ(weft_context_error(ctx_, &sticky_, failed_rank, nullptr, 0, &needed), WEFT_OK);
    return sticky_;
  }

  weft_context_t* ctx_ = nullptr;
  weft_status_t sticky_ = WEFT_OK;
};

TEST_F(OpFails, AllreduceErrorReachesTheCallerWithTheMessage) {
  Tensor<int32_t> send({1, 2, 3}), recv({0, 0, 0});
  EXPECT_EQ(weft_allreduce(ctx_, nullptr, 0, send.get(), recv.get(), WEFT_REDUCE_SUM, nullptr,
                           nullptr, nullptr),
            WEFT_ERR_INTERNAL);
  const std::string msg = weft_last_error();
  EXPECT_CONTAINS(msg, "weft_allreduce");
  EXPECT_CONTAINS(msg, "fakeopfail: allreduce of 3 elements failed on purpose");
  EXPECT_EQ(send.data, (std::vector<int32_t>{1, 2, 3})) << "a failed op modified its input";
}

TEST_F(OpFails, AsynchronousAllreduceErrorComesFromWorkWait) {
  Tensor<int32_t> send({1, 2, 3, 4}), recv({0, 0, 0, 0});
  weft_work_t* work = nullptr;
  ASSERT_EQ(weft_allreduce(ctx_, nullptr, 0, send.get(), recv.get(), WEFT_REDUCE_SUM, nullptr,
                           nullptr, &work),
            WEFT_OK)
      << weft_last_error();
  EXPECT_EQ(weft_work_wait(work, 30000), WEFT_ERR_INTERNAL);
  EXPECT_CONTAINS(weft_last_error(), "fakeopfail: allreduce failed on purpose");
  EXPECT_EQ(weft_work_release(work), WEFT_OK);
}

TEST_F(OpFails, ErrorWithoutAMessageSaysSo) {
  Tensor<int32_t> send({5}), recv({0});
  EXPECT_EQ(weft_allreduce(ctx_, nullptr, 0, send.get(), recv.get(), WEFT_REDUCE_MAX, nullptr,
                           nullptr, nullptr),
            WEFT_ERR_INTERNAL);
  const std::string msg = weft_last_error();
  EXPECT_CONTAINS(msg, "fakeopfail backend allreduce");
  EXPECT_CONTAINS(msg, "without a message");
}

// A plugin's op error concerns that op only (unlike a peer failure or an abort, SPEC §10): the
// context holds no sticky error and the next operation runs.
TEST_F(OpFails, ContextStaysUsableAfterAnOpError) {
  Tensor<int32_t> send({7, 8}), recv({0, 0});
  ASSERT_EQ(weft_allreduce(ctx_, nullptr, 0, send.get(), recv.get(), WEFT_REDUCE_SUM, nullptr,
                           nullptr, nullptr),
            WEFT_ERR_INTERNAL);
  int32_t failed_rank = 42;
  EXPECT_EQ(Sticky(&failed_rank), WEFT_OK);
  EXPECT_EQ(failed_rank, -1);
  Tensor<int32_t> gathered({0, 0});
  ASSERT_EQ(weft_allgather(ctx_, nullptr, 0, send.get(), gathered.get(), nullptr, nullptr, nullptr),
            WEFT_OK)
      << weft_last_error();
  EXPECT_EQ(gathered.data, (std::vector<int32_t>{7, 8}));
  EXPECT_EQ(weft_barrier(ctx_, nullptr, 0, nullptr, nullptr, nullptr), WEFT_OK)
      << weft_last_error();
}

TEST_F(PluginErrors, DisabledNativeOpIsComposedInstead) {
  // WEFT_BACKEND_DISABLE_OPS hides the failing native allreduce: the host composes it.
  ScopedEnv disabled("WEFT_BACKEND_DISABLE_OPS", "broadcast,allreduce");
  weft_context_t* ctx = nullptr;
  ASSERT_EQ(CreateWorld1(FakePath("fakeopfail").c_str(), &ctx), WEFT_OK) << weft_last_error();
  Tensor<int32_t> send({1, -2, 3}), recv({0, 0, 0});
  EXPECT_EQ(weft_allreduce(ctx, nullptr, 0, send.get(), recv.get(), WEFT_REDUCE_SUM, nullptr,
                           nullptr, nullptr),
            WEFT_OK)
      << weft_last_error();
  EXPECT_EQ(recv.data, (std::vector<int32_t>{1, -2, 3}));
  EXPECT_EQ(weft_context_destroy(ctx), WEFT_OK) << weft_last_error();
}

// weft_context_error's outputs other than buf are required (context.h): NULL is
// INVALID_ARGUMENT naming the argument, never a crash.
TEST_F(OpFails, ContextErrorRejectsNullOutputs) {
  weft_status_t status = 99;
  int32_t rank = 99;
  size_t needed = 0;
  EXPECT_EQ(weft_context_error(ctx_, nullptr, &rank, nullptr, 0, &needed),
            WEFT_ERR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(weft_last_error(), "status");
  EXPECT_EQ(weft_context_error(ctx_, &status, nullptr, nullptr, 0, &needed),
            WEFT_ERR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(weft_last_error(), "failed_rank");
  EXPECT_EQ(weft_context_error(ctx_, &status, &rank, nullptr, 0, nullptr),
            WEFT_ERR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(weft_last_error(), "needed");
  EXPECT_EQ(weft_context_error(nullptr, &status, &rank, nullptr, 0, &needed),
            WEFT_ERR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(weft_last_error(), "ctx");
  EXPECT_EQ(status, 99) << "an output was written by a failed call";
  EXPECT_EQ(rank, 99) << "an output was written by a failed call";
}

}  // namespace
}  // namespace loader_test
