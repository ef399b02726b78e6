// backends/host/plugin_loader.hpp on its own: which native ops survive the capability check
// and WEFT_BACKEND_DISABLE_OPS's mask, and the order of the search path.
#include "backends/host/plugin_loader.hpp"

#include <string>
#include <vector>

#include "common/params.hpp"
#include "tests/backends/host/loader_test_util.hpp"

namespace loader_test {
namespace {

using weft::backends::LoadBackendPlugin;
using weft::backends::PluginSearchPath;

using LoaderDirect = LoaderTest;

TEST_F(LoaderDirect, NativeOpIsKeptUnlessDisabled) {
  for (const auto& [disabled, kept] : {std::pair<std::string, bool>{"", true},
                                       {"broadcast", true},
                                       {"allreduce", false},
                                       {"barrier,allreduce", false},
                                       {"all", false}}) {
    SCOPED_TRACE("disabled: \"" + disabled + "\"");
    auto plugin = LoadBackendPlugin(FakePath("fakeopfail"), disabled);
    ASSERT_TRUE(plugin.ok()) << plugin.status().message();
    EXPECT_EQ((*plugin)->path(), FakePath("fakeopfail"));
    EXPECT_EQ(std::string((*plugin)->table().name), "fakeopfail");
    EXPECT_EQ((*plugin)->table().allreduce != nullptr, kept);
    EXPECT_EQ(((*plugin)->capabilities() & WEFT_BK_CAP_ALLREDUCE) != 0, kept);
  }
}

TEST_F(LoaderDirect, DisabledOpsNamingNoOpAreRefused) {
  // Once taken for "nothing to disable": a typo left the op native and its test testing nothing.
  for (const std::string disabled : {"allreduce_x", "allreduce,", ",all", "all,barrier", " all"}) {
    SCOPED_TRACE("disabled: \"" + disabled + "\"");
    auto plugin = LoadBackendPlugin(FakePath("fakeopfail"), disabled);
    ASSERT_FALSE(plugin.ok());
    EXPECT_EQ(plugin.status().code(), weft::Code::kInvalidArgument);
    EXPECT_CONTAINS(plugin.status().message(),
                    "WEFT_BACKEND_DISABLE_OPS is '" + disabled + "' but '");
  }
}

TEST_F(LoaderDirect, ParameterDeclarationsAreExposedAsDeclared) {
  auto plugin = LoadBackendPlugin(FakePath("fakeparams-ok"), "");
  ASSERT_TRUE(plugin.ok()) << plugin.status().message();
  const auto params = (*plugin)->params();
  ASSERT_EQ(params.size(), 2u);
  EXPECT_EQ(std::string(params[0].name), "WEFT_FAKEP_LEVEL");
  EXPECT_EQ(params[0].flags, static_cast<uint32_t>(WEFT_BK_PARAM_MUST_MATCH));
  EXPECT_EQ(std::string(params[1].name), "WEFT_FAKEP_LABEL");
  EXPECT_EQ(params[1].default_value, nullptr);
  // A plugin of ABI 1.2 and before declares none.
  auto old = LoadBackendPlugin(FakePath("fakev10"), "");
  ASSERT_TRUE(old.ok()) << old.status().message();
  EXPECT_TRUE((*old)->params().empty());
}

TEST_F(LoaderDirect, CapabilityBitAndFunctionAreNeededTogether) {
  // fakeok: broadcast's bit without a function, an allreduce function without its bit.
  auto plugin = LoadBackendPlugin(FakePath("fakeok"), "");
  ASSERT_TRUE(plugin.ok()) << plugin.status().message();
  // Only the op bits: fake_core also declares WEFT_BK_CAP_SIZE_SAFE, which names no function.
  EXPECT_EQ((*plugin)->capabilities() & ~WEFT_BK_CAP_SIZE_SAFE, 0u);
  EXPECT_EQ((*plugin)->table().allreduce, nullptr);
  EXPECT_EQ((*plugin)->table().broadcast, nullptr);
  EXPECT_NE((*plugin)->table().send, nullptr);
}

TEST_F(LoaderDirect, SearchPathIsPluginPathThenTheLoadersDirectory) {
  ScopedEnv path("WEFT_PLUGIN_PATH", "/a::/b/c:");
  weft::params::ReloadForTesting();  // the registry read the environment before the line above
  const std::vector<std::string> got = PluginSearchPath("x");
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0], "/a/libweft-backend-x.so");
  EXPECT_EQ(got[1], "/b/c/libweft-backend-x.so");
  // Here the loader is linked into the test program, so "next to libweft" is next to it.
  EXPECT_NE(got[2], "/libweft-backend-x.so");
  EXPECT_TRUE(got[2].ends_with("/libweft-backend-x.so")) << got[2];
}

TEST_F(LoaderDirect, FutureVersionIsRefusedBeforeAnythingIsCalled) {
  auto plugin = LoadBackendPlugin(FakePath("fakev2"), "");
  ASSERT_FALSE(plugin.ok());
  EXPECT_EQ(plugin.status().code(), weft::Code::kVersionMismatch);
}

// Names and paths the file system cannot look up are refused by the loader itself, naming the
// limit (no std::filesystem exception text), and an over-long search directory is reported
// among the places tried.
TEST_F(LoaderDirect, NamesBeyondTheLimitsAreInvalidArguments) {
  for (const std::string& bad : {std::string(5000, 'a'), "/tmp/" + std::string(5000, 'a'),
                                 "/tmp/" + std::string(256, 'a'), std::string("a b")}) {
    auto plugin = LoadBackendPlugin(bad, "");
    ASSERT_FALSE(plugin.ok());
    EXPECT_EQ(plugin.status().code(), weft::Code::kInvalidArgument) << plugin.status().message();
    EXPECT_EQ(plugin.status().message().find("filesystem"), std::string::npos)
        << plugin.status().message();
  }
  ScopedEnv path("WEFT_PLUGIN_PATH", "/tmp/" + std::string(5000, 'd'));
  auto plugin = LoadBackendPlugin("nosuchbackend", "");
  ASSERT_FALSE(plugin.ok());
  EXPECT_EQ(plugin.status().code(), weft::Code::kNotAvailable) << plugin.status().message();
}

}  // namespace
}  // namespace loader_test
