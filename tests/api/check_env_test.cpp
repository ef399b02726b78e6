// WEFT_CHECK_COLLECTIVES* through weft_context_create (docs/collective_checks.md): a malformed
// value fails the creation naming the variable; good values create the context. Each case runs
// in a process of its own (one ctest per case), so setenv stays local to it.
#include <gtest/gtest.h>
#include <weft/weft.h>

#include <cstdlib>
#include <string>

namespace {

weft_status_t CreateWorldOfOne(weft_context_t** ctx) {
  weft_context_options_t opts = WEFT_CONTEXT_OPTIONS_INIT;
  opts.rank = 0;
  opts.world_size = 1;
  opts.backend = "self";
  return weft_context_create(&opts, ctx);
}

void ExpectRefused(const char* name, const char* value) {
  ASSERT_EQ(setenv(name, value, 1), 0);
  weft_context_t* ctx = nullptr;
  EXPECT_EQ(CreateWorldOfOne(&ctx), WEFT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ctx, nullptr);
  const std::string m = weft_last_error();
  EXPECT_NE(m.find(std::string(name) + " is \"" + value + "\""), std::string::npos) << m;
}

TEST(CheckEnv, MalformedModeFailsContextCreation) {
  ExpectRefused("WEFT_CHECK_COLLECTIVES", "on");
}

TEST(CheckEnv, MalformedThresholdFailsContextCreation) {
  ExpectRefused("WEFT_CHECK_COLLECTIVES_MIN_BYTES", "1MB");
}

TEST(CheckEnv, GoodValuesCreateTheContext) {
  ASSERT_EQ(setenv("WEFT_CHECK_COLLECTIVES", "1", 1), 0);
  ASSERT_EQ(setenv("WEFT_CHECK_COLLECTIVES_MIN_BYTES", "64K", 1), 0);
  weft_context_t* ctx = nullptr;
  ASSERT_EQ(CreateWorldOfOne(&ctx), WEFT_OK) << weft_last_error();
  float v = 1.5f, out = 0;
  int64_t one = 1;
  DLTensor in{&v, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, &one, nullptr, 0};
  DLTensor o{&out, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, &one, nullptr, 0};
  EXPECT_EQ(weft_allreduce(ctx, nullptr, 0, &in, &o, WEFT_REDUCE_SUM, nullptr, nullptr, nullptr),
            WEFT_OK);
  EXPECT_EQ(out, 1.5f);
  EXPECT_EQ(weft_context_destroy(ctx), WEFT_OK);
}

}  // namespace
