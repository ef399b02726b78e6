// backends/host/plugin_loader.hpp on its own: which native ops survive the capability check
// and WEFT_BACKEND_DISABLE_OPS's mask, and the order of the search path.
#include "backends/host/plugin_loader.hpp"

#include <string>
#include <vector>

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
                                       {"all", false},
                                       {"allreduce_x", true}}) {
    SCOPED_TRACE("disabled: \"" + disabled + "\"");
    auto plugin = LoadBackendPlugin(FakePath("fakeopfail"), disabled);
    ASSERT_TRUE(plugin.ok()) << plugin.status().message();
    EXPECT_EQ((*plugin)->path(), FakePath("fakeopfail"));
    EXPECT_EQ(std::string((*plugin)->table().name), "fakeopfail");
    EXPECT_EQ((*plugin)->table().allreduce != nullptr, kept);
    EXPECT_EQ(((*plugin)->capabilities() & WEFT_BK_CAP_ALLREDUCE) != 0, kept);
  }
}

TEST_F(LoaderDirect, CapabilityBitAndFunctionAreNeededTogether) {
  // fakeok: broadcast's bit without a function, an allreduce function without its bit.
  auto plugin = LoadBackendPlugin(FakePath("fakeok"), "");
  ASSERT_TRUE(plugin.ok()) << plugin.status().message();
  EXPECT_EQ((*plugin)->capabilities(), 0u);
  EXPECT_EQ((*plugin)->table().allreduce, nullptr);
  EXPECT_EQ((*plugin)->table().broadcast, nullptr);
  EXPECT_NE((*plugin)->table().send, nullptr);
}

TEST_F(LoaderDirect, SearchPathIsPluginPathThenTheLoadersDirectory) {
  ScopedEnv path("WEFT_PLUGIN_PATH", "/a::/b/c:");
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
