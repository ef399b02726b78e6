// Finding, opening and checking plugins through weft_context_create (SPEC §6.6): every way a
// plugin can be wrong fails creation with a status and a message naming the plugin's path
// and what is wrong with it, and a good plugin is found by name on WEFT_PLUGIN_PATH.
#include <cstdio>
#include <fstream>
#include <string>

#include "tests/backends/host/loader_test_util.hpp"
#include "weft/backend_plugin.h"

namespace loader_test {
namespace {

// Creation must fail with `code`; the message is returned for further checks.
std::string CreateFails(const std::string& backend, weft_status_t code) {
  auto* const sentinel = reinterpret_cast<weft_context_t*>(0x1);
  weft_context_t* ctx = sentinel;
  const weft_status_t s = CreateWorld1(backend.c_str(), &ctx);
  EXPECT_EQ(s, code) << weft_status_string(s) << " | " << weft_last_error();
  EXPECT_EQ(ctx, sentinel) << "a failed create wrote its handle";
  const std::string msg = weft_last_error();
  EXPECT_CONTAINS(msg, "weft_context_create");
  return msg;
}

std::string BackendName(weft_context_t* ctx) {
  char buf[64] = {};
  size_t needed = 0;
  EXPECT_EQ(weft_context_backend_name(ctx, buf, sizeof(buf), &needed), WEFT_OK);
  return buf;
}

using PluginLoader = LoaderTest;

TEST_F(PluginLoader, FutureMajorEntryNamesBothVersionsAndThePath) {
  const std::string path = FakePath("fakev2");
  const std::string msg = CreateFails(path, WEFT_ERR_VERSION_MISMATCH);
  EXPECT_CONTAINS(msg, path);
  EXPECT_CONTAINS(msg, "ABI v2");
  EXPECT_CONTAINS(msg, "supports v1");
}

TEST_F(PluginLoader, TableOfAnotherMajorIsVersionMismatch) {
  for (const auto& [name, version] :
       {std::pair<std::string, std::string>{"fakeabi3", "3.7"}, {"fakeabi0", "0.7"}}) {
    SCOPED_TRACE(name);
    const std::string path = FakePath(name);
    const std::string msg = CreateFails(path, WEFT_ERR_VERSION_MISMATCH);
    EXPECT_CONTAINS(msg, path);
    EXPECT_CONTAINS(msg, "ABI " + version);
    EXPECT_CONTAINS(msg, "supports " + std::to_string(WEFT_BACKEND_PLUGIN_ABI_MAJOR) + "." +
                             std::to_string(WEFT_BACKEND_PLUGIN_ABI_MINOR));
  }
}

TEST_F(PluginLoader, TableSmallerThanAbi10IsVersionMismatch) {
  const std::string path = FakePath("fakesmall");
  const std::string msg = CreateFails(path, WEFT_ERR_VERSION_MISMATCH);
  EXPECT_CONTAINS(msg, path);
  EXPECT_CONTAINS(msg, std::to_string(WEFT_BACKEND_PLUGIN_V1_0_SIZE - sizeof(void*)) + " bytes");
}

TEST_F(PluginLoader, Abi10TableLoadsWithoutTheStridedOps) {
  weft_context_t* ctx = nullptr;
  ASSERT_EQ(CreateWorld1(FakePath("fakev10").c_str(), &ctx), WEFT_OK) << weft_last_error();
  EXPECT_EQ(BackendName(ctx), "faketable");
  EXPECT_EQ(weft_context_destroy(ctx), WEFT_OK) << weft_last_error();
}

TEST_F(PluginLoader, NoEntrySymbolNamesThePathAndTheSymbol) {
  // The fake exports look-alikes (weft_backend_plugin, weft_backend_plugin_v10) only.
  const std::string path = FakePath("fakenoentry");
  const std::string msg = CreateFails(path, WEFT_ERR_PLUGIN);
  EXPECT_CONTAINS(msg, path);
  EXPECT_CONTAINS(msg, "weft_backend_plugin_v1");
}

TEST_F(PluginLoader, EntryReturningNoTableIsRefused) {
  const std::string path = FakePath("fakenulltable");
  const std::string msg = CreateFails(path, WEFT_ERR_PLUGIN);
  EXPECT_CONTAINS(msg, path);
  EXPECT_CONTAINS(msg, "NULL table");
}

TEST_F(PluginLoader, MissingPathIsNotAvailableNamingIt) {
  const std::string path = "/nonexistent-weft-dir/libweft-backend-fakeok.so";
  const std::string msg = CreateFails(path, WEFT_ERR_NOT_AVAILABLE);
  EXPECT_CONTAINS(msg, path);
  EXPECT_CONTAINS(msg, "no such file");
}

TEST_F(PluginLoader, FileThatIsNotASharedObjectIsNotAvailable) {
  const std::string path = ::testing::TempDir() + "/libweft-backend-text.so";
  std::ofstream(path) << "not an ELF file\n";
  const std::string msg = CreateFails(path, WEFT_ERR_NOT_AVAILABLE);
  EXPECT_CONTAINS(msg, path);
  std::remove(path.c_str());
}

TEST_F(PluginLoader, UnknownNameListsEverySearchedPathInOrder) {
  ScopedEnv path("WEFT_PLUGIN_PATH", std::string("/nonexistent-weft-a:") + WEFT_FAKE_DIR);
  const std::string msg = CreateFails("nosuchbackend", WEFT_ERR_NOT_AVAILABLE);
  const std::string file = "/libweft-backend-nosuchbackend.so";
  const size_t a = msg.find("/nonexistent-weft-a" + file);
  const size_t fakes = msg.find(WEFT_FAKE_DIR + file);
  const size_t lib = msg.find(WEFT_LIB_DIR + file);
  ASSERT_NE(a, std::string::npos) << msg;
  ASSERT_NE(fakes, std::string::npos) << msg;
  ASSERT_NE(lib, std::string::npos) << msg;
  EXPECT_LT(a, fakes) << msg;
  EXPECT_LT(fakes, lib) << msg;
}

TEST_F(PluginLoader, NameIsFoundOnPluginPath) {
  ScopedEnv path("WEFT_PLUGIN_PATH", std::string("/nonexistent-weft-a::") + WEFT_FAKE_DIR);
  weft_context_t* ctx = nullptr;
  ASSERT_EQ(CreateWorld1("fakeok", &ctx), WEFT_OK) << weft_last_error();
  EXPECT_EQ(BackendName(ctx), "fakeok");
  EXPECT_EQ(weft_context_destroy(ctx), WEFT_OK) << weft_last_error();
}

TEST_F(PluginLoader, NameIsNotFoundWithoutPluginPath) {
  // The fakes are not next to libweft, so only WEFT_PLUGIN_PATH can find them.
  const std::string msg = CreateFails("fakeok", WEFT_ERR_NOT_AVAILABLE);
  EXPECT_CONTAINS(msg, WEFT_LIB_DIR + std::string("/libweft-backend-fakeok.so"));
}

TEST_F(PluginLoader, EarlierPluginPathDirectoryWins) {
  for (const auto& [dirs, want] :
       {std::pair<std::string, std::string>{std::string(WEFT_FAKE_ALT_DIR) + ":" + WEFT_FAKE_DIR,
                                            "fakeok-alt"},
        {std::string(WEFT_FAKE_DIR) + ":" + WEFT_FAKE_ALT_DIR, "fakeok"}}) {
    SCOPED_TRACE(dirs);
    ScopedEnv path("WEFT_PLUGIN_PATH", dirs);
    weft_context_t* ctx = nullptr;
    ASSERT_EQ(CreateWorld1("fakeok", &ctx), WEFT_OK) << weft_last_error();
    EXPECT_EQ(BackendName(ctx), want);
    EXPECT_EQ(weft_context_destroy(ctx), WEFT_OK) << weft_last_error();
  }
}

TEST_F(PluginLoader, BackendNameFromEnvironmentAndWorldFromEnvironment) {
  ScopedEnv path("WEFT_PLUGIN_PATH", WEFT_FAKE_DIR);
  ScopedEnv backend("WEFT_BACKEND", "fakeok");
  ScopedEnv rank("WEFT_RANK", "0");
  ScopedEnv world("WEFT_WORLD_SIZE", "1");
  weft_context_t* ctx = nullptr;
  ASSERT_EQ(weft_context_create(nullptr, &ctx), WEFT_OK) << weft_last_error();
  EXPECT_EQ(BackendName(ctx), "fakeok");
  int32_t size = 0;
  EXPECT_EQ(weft_context_world_size(ctx, &size), WEFT_OK);
  EXPECT_EQ(size, 1);
  EXPECT_EQ(weft_context_destroy(ctx), WEFT_OK) << weft_last_error();
}

// Each fake lacks one mandatory op; the message must name that op, not a family of them.
class MissingMandatoryOp : public LoaderTest, public ::testing::WithParamInterface<const char*> {};

TEST_P(MissingMandatoryOp, IsRefusedNamingIt) {
  const std::string path = FakePath(std::string("fakemissing-") + GetParam());
  const std::string msg = CreateFails(path, WEFT_ERR_PLUGIN);
  EXPECT_CONTAINS(msg, path);
  EXPECT_CONTAINS(msg, std::string(" ") + GetParam());
}

INSTANTIATE_TEST_SUITE_P(PluginLoader, MissingMandatoryOp,
                         ::testing::Values("init", "finalize", "abort", "comm_create",
                                           "comm_destroy", "send", "recv", "request_test",
                                           "request_wait", "request_cancel", "request_free",
                                           "name"));

}  // namespace
}  // namespace loader_test
