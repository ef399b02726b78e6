// Backend names the loader cannot look up (SPEC §6.6, §10): too long, with characters a name
// may not hold, or a path beyond PATH_MAX or NAME_MAX give WEFT_ERR_INVALID_ARGUMENT naming
// where the name came from (opts->backend or WEFT_BACKEND) and the limit, never an internal
// error carrying a library's exception text.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "tests/api/bad_input.hpp"
#include "weft/weft.h"

namespace {

using weft_test::ExpectInvalid;

weft_status_t CreateSelf(const char* backend, weft_context_t** ctx) {
  weft_context_options_t opts = WEFT_CONTEXT_OPTIONS_INIT;
  opts.rank = 0;
  opts.world_size = 1;
  opts.backend = backend;
  opts.timeout_ms = 20000;
  return weft_context_create(&opts, ctx);
}

TEST(BackendName, TooLongIsRejectedNamingTheLimit) {
  const std::string name(5000, 'a');
  weft_context_t* ctx = nullptr;
  ExpectInvalid(CreateSelf(name.c_str(), &ctx), "weft_context_create", "opts->backend",
                "at most 64");
  EXPECT_NE(std::string(weft_last_error()).find("5000"), std::string::npos) << weft_last_error();
  EXPECT_EQ(std::string(weft_last_error()).find("exception"), std::string::npos)
      << weft_last_error();
  EXPECT_EQ(ctx, nullptr);
}

TEST(BackendName, PathsBeyondTheFileSystemLimitsAreRejected) {
  weft_context_t* ctx = nullptr;
  const std::string long_path = "/tmp/" + std::string(5000, 'a');
  ExpectInvalid(CreateSelf(long_path.c_str(), &ctx), "weft_context_create", "opts->backend",
                "PATH_MAX");
  const std::string long_component = "/tmp/" + std::string(300, 'a') + "/x.so";
  ExpectInvalid(CreateSelf(long_component.c_str(), &ctx), "weft_context_create", "opts->backend",
                "NAME_MAX");
  EXPECT_EQ(ctx, nullptr);
}

TEST(BackendName, OddCharactersAreRejected) {
  weft_context_t* ctx = nullptr;
  for (const char* name : {"se lf", "self\n", "g\x01loo", "*"}) {
    SCOPED_TRACE(name);
    ExpectInvalid(CreateSelf(name, &ctx), "weft_context_create", "opts->backend", "character");
  }
  ExpectInvalid(CreateSelf("/tmp/x\x02y.so", &ctx), "weft_context_create", "opts->backend",
                "control");
  EXPECT_EQ(ctx, nullptr);
}

TEST(BackendName, FromTheEnvironmentIsNamedAsSuch) {
  const std::string name(5000, 'b');
  ASSERT_EQ(setenv("WEFT_BACKEND", name.c_str(), 1), 0);
  weft_context_t* ctx = nullptr;
  const weft_status_t s = CreateSelf(nullptr, &ctx);
  unsetenv("WEFT_BACKEND");
  ExpectInvalid(s, "weft_context_create", "WEFT_BACKEND", "at most 64");
  EXPECT_EQ(ctx, nullptr);
}

// A plugin path entry the file system refuses is reported among the places tried.
TEST(BackendName, LongPluginPathEntryIsNotAnInternalError) {
  const std::string dir = "/tmp/" + std::string(5000, 'c');
  ASSERT_EQ(setenv("WEFT_PLUGIN_PATH", dir.c_str(), 1), 0);
  weft_context_t* ctx = nullptr;
  const weft_status_t s = CreateSelf("nosuchbackend", &ctx);
  unsetenv("WEFT_PLUGIN_PATH");
  EXPECT_EQ(s, WEFT_ERR_NOT_AVAILABLE) << weft_last_error();
  EXPECT_NE(std::string(weft_last_error()).find("too long"), std::string::npos)
      << weft_last_error();
  EXPECT_EQ(ctx, nullptr);
}

}  // namespace
