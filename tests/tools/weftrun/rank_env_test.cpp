#include "tools/weftrun/rank_env.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace weft::tools {
namespace {

bool Has(const std::vector<std::string>& env, const std::string& entry) {
  return std::find(env.begin(), env.end(), entry) != env.end();
}

size_t CountNamed(const std::vector<std::string>& env, const std::string& name) {
  return static_cast<size_t>(std::count_if(
      env.begin(), env.end(), [&](const std::string& e) { return e.starts_with(name + "="); }));
}

TEST(WeftrunRankEnvironment, SetsTheWeftVariables) {
  const std::vector<std::string> env = RankEnvironment({}, {4, "127.0.0.1:4242", std::nullopt}, 2);
  EXPECT_TRUE(Has(env, "WEFT_RANK=2"));
  EXPECT_TRUE(Has(env, "WEFT_WORLD_SIZE=4"));
  EXPECT_TRUE(Has(env, "WEFT_LOCAL_RANK=2"));
  EXPECT_TRUE(Has(env, "WEFT_LOCAL_WORLD_SIZE=4"));
  EXPECT_TRUE(Has(env, "WEFT_STORE=127.0.0.1:4242"));
  EXPECT_EQ(CountNamed(env, "WEFT_BACKEND"), 0u);
  EXPECT_TRUE(Has(RankEnvironment({}, {4, "127.0.0.1:1", std::nullopt, "s3cret"}, 0),
                  "WEFT_STORE_TOKEN=s3cret"));
}

TEST(WeftrunRankEnvironment, ReplacesInheritedValuesAndKeepsTheRest) {
  const std::vector<std::string> base = {
      "PATH=/bin",        "WEFT_RANK=7",      "WEFT_STORE=x:1", "WEFT_STORE_TOKEN=old",
      "WEFT_BACKEND=ucx", "WEFT_RANK_X=keep", "ODD_ENTRY"};
  const std::vector<std::string> env =
      RankEnvironment(base, {2, "127.0.0.1:1", std::nullopt, "new"}, 0);
  EXPECT_TRUE(Has(env, "PATH=/bin"));
  EXPECT_TRUE(Has(env, "WEFT_RANK_X=keep"));
  EXPECT_TRUE(Has(env, "ODD_ENTRY"));
  EXPECT_TRUE(Has(env, "WEFT_BACKEND=ucx"));  // no --backend: inherited
  EXPECT_EQ(CountNamed(env, "WEFT_RANK"), 1u);
  EXPECT_TRUE(Has(env, "WEFT_RANK=0"));
  EXPECT_EQ(CountNamed(env, "WEFT_STORE"), 1u);
  EXPECT_TRUE(Has(env, "WEFT_STORE=127.0.0.1:1"));
  EXPECT_EQ(CountNamed(env, "WEFT_STORE_TOKEN"), 1u);
  EXPECT_TRUE(Has(env, "WEFT_STORE_TOKEN=new"));
}

TEST(WeftrunRankEnvironment, BackendOptionOverridesTheInheritedOne) {
  const std::vector<std::string> base = {"WEFT_BACKEND=ucx"};
  const std::vector<std::string> env = RankEnvironment(base, {1, "127.0.0.1:1", "gloo"}, 0);
  EXPECT_EQ(CountNamed(env, "WEFT_BACKEND"), 1u);
  EXPECT_TRUE(Has(env, "WEFT_BACKEND=gloo"));
}

TEST(WeftrunCurrentEnvironment, ReadsThisProcess) {
  ASSERT_EQ(::setenv("WEFTRUN_TEST_MARKER", "42", 1), 0);
  EXPECT_TRUE(Has(CurrentEnvironment(), "WEFTRUN_TEST_MARKER=42"));
  ::unsetenv("WEFTRUN_TEST_MARKER");
}

}  // namespace
}  // namespace weft::tools
