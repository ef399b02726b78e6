// A fake environment for DetectLaunchEnv: a map behind the GetEnv hook, so tests never touch
// the real process environment.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>

#include "backends/env/launch_env.hpp"

namespace weft::backends::testing {

using EnvMap = std::map<std::string, std::string>;

inline Result<LaunchEnv> Detect(const EnvMap& vars, const LaunchOptions& opts = {}) {
  return DetectLaunchEnv(opts, [&vars](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  });
}

inline LaunchOptions Options(int32_t rank, int32_t world_size) {
  LaunchOptions o;
  o.rank = rank;
  o.world_size = world_size;
  return o;
}

// Checks the code and that the message contains every fragment (variable names, values).
template <class T>
void ExpectError(const Result<T>& r, Code code, std::initializer_list<std::string> fragments) {
  ASSERT_FALSE(r.ok()) << "expected an error";
  EXPECT_EQ(r.status().code(), code) << r.status().message();
  for (const std::string& f : fragments) {
    EXPECT_NE(r.status().message().find(f), std::string::npos)
        << "message '" << r.status().message() << "' lacks '" << f << "'";
  }
}

}  // namespace weft::backends::testing
