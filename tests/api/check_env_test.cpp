// WEFT_CHECK_COLLECTIVES* through weft_context_create (docs/collective_checks.md): a malformed
// value fails the creation naming the variable; good values create the context. The cases share
// one process, so each restores the variables it set (ScopedVar).
#include <gtest/gtest.h>
#include <weft/weft.h>

#include <cstdlib>
#include <string>

namespace {

// Sets a variable for one case and puts the previous value back, so cases stay independent.
class ScopedVar {
 public:
  ScopedVar(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    had_ = std::getenv(name) != nullptr;
    setenv(name, value, 1);
  }
  ~ScopedVar() { had_ ? setenv(name_.c_str(), old_.c_str(), 1) : unsetenv(name_.c_str()); }
  ScopedVar(const ScopedVar&) = delete;
  ScopedVar& operator=(const ScopedVar&) = delete;

 private:
  std::string name_, old_;
  bool had_ = false;
};

weft_status_t CreateWorldOfOne(weft_context_t** ctx) {
  weft_context_options_t opts = WEFT_CONTEXT_OPTIONS_INIT;
  opts.rank = 0;
  opts.world_size = 1;
  opts.backend = "self";
  return weft_context_create(&opts, ctx);
}

void ExpectRefused(const char* name, const char* value) {
  ScopedVar var(name, value);
  weft_context_t* ctx = nullptr;
  EXPECT_EQ(CreateWorldOfOne(&ctx), WEFT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ctx, nullptr);
  const std::string m = weft_last_error();
  EXPECT_NE(m.find(std::string(name) + " is '" + value + "'"), std::string::npos) << m;
}

TEST(CheckEnv, MalformedModeFailsContextCreation) { ExpectRefused("WEFT_CHECK_COLLECTIVES", "on"); }

TEST(CheckEnv, MalformedThresholdFailsContextCreation) {
  ExpectRefused("WEFT_CHECK_COLLECTIVES_MIN_BYTES", "1MB");
}

TEST(CheckEnv, GoodValuesCreateTheContext) {
  ScopedVar mode("WEFT_CHECK_COLLECTIVES", "1");
  ScopedVar threshold("WEFT_CHECK_COLLECTIVES_MIN_BYTES", "64K");
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
