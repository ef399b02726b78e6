// Helpers of the plugin loader tests: where the fakes are, a 1-rank context on a given
// backend, and scoped environment variables.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "weft/weft.h"

namespace loader_test {

inline std::string FakePath(const std::string& name, const char* dir = WEFT_FAKE_DIR) {
  return std::string(dir) + "/libweft-backend-" + name + ".so";
}

// Creates a 1-rank context on `backend` (a name or a path; NULL: the environment's).
inline weft_status_t CreateWorld1(const char* backend, weft_context_t** ctx) {
  weft_context_options_t opts = WEFT_CONTEXT_OPTIONS_INIT;
  opts.rank = 0;
  opts.world_size = 1;
  opts.backend = backend;
  return weft_context_create(&opts, ctx);
}

// Sets (or with nullopt unsets) an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      setenv(name, value->c_str(), 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// Every case starts from an environment that cannot pick a plugin or a world for it.
class LoaderTest : public ::testing::Test {
 protected:
  ScopedEnv path_{"WEFT_PLUGIN_PATH", std::nullopt};
  ScopedEnv backend_{"WEFT_BACKEND", std::nullopt};
  ScopedEnv disabled_{"WEFT_BACKEND_DISABLE_OPS", std::nullopt};
  ScopedEnv rank_{"WEFT_RANK", std::nullopt};
  ScopedEnv world_{"WEFT_WORLD_SIZE", std::nullopt};
};

#define EXPECT_CONTAINS(text, part)                          \
  EXPECT_NE(std::string(text).find(part), std::string::npos) \
      << "\"" << (text) << "\" lacks \"" << (part) << "\""

}  // namespace loader_test
