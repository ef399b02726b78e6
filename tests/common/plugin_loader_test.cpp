// common/plugin_loader.hpp for a second plugin kind, one that exists only here
// (plugin_fakes/test_kind.h): another entry symbol, file pattern, major version, table and
// adapters than the backend kind, loaded through the same code. Fake plugins, each wrong in
// one way, check every error; RTLD_NOLOAD checks that nothing stays mapped after a handle goes
// or a load fails.
#include "common/plugin_loader.hpp"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <climits>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "common/params.hpp"
#include "tests/common/plugin_fakes/test_kind.h"

namespace weft::plugin {
namespace {

int32_t HostTwice(int32_t x) { return x + x; }

// The defaults of what each minor added, for tables that predate it.
void Fill21(void* table) { static_cast<weft_testkind_plugin_t*>(table)->twice = &HostTwice; }
void Fill22(void* table) { static_cast<weft_testkind_plugin_t*>(table)->motto = "none given"; }

constexpr PluginAdapter kAdapters[] = {
    {1, WEFT_TESTKIND_V2_1_SIZE, &Fill21},
    {2, sizeof(weft_testkind_plugin_t), &Fill22},
};

Status CheckAnswer(const void* table, const std::string& who) {
  if (static_cast<const weft_testkind_plugin_t*>(table)->answer != nullptr) return Status::Ok();
  return Status(Code::kPlugin, who + " lacks answer");
}

const PluginKind kTestKind = {
    .noun = "test plugin",
    .short_noun = "test plugin",
    .entry_prefix = "weft_testkind_plugin_v",
    .file_pattern = "libweft-testkind-%s.so",
    .search_path = "WEFT_PLUGIN_PATH",
    .major = WEFT_TESTKIND_MAJOR,
    .minor = WEFT_TESTKIND_MINOR,
    .table_size = sizeof(weft_testkind_plugin_t),
    .min_size = WEFT_TESTKIND_V2_0_SIZE,
    .adapters = kAdapters,
    .validate = &CheckAnswer,
};

std::string Fake(const std::string& variant) {
  return std::string(WEFT_TESTKIND_DIR) + "/libweft-testkind-" + variant + ".so";
}

// Whether the file is mapped into this process now (without mapping it).
bool Mapped(const std::string& path) {
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (h) dlclose(h);
  return h != nullptr;
}

Result<LoadedTable<weft_testkind_plugin_t>> Load(const std::string& name_or_path) {
  return LoadPlugin<weft_testkind_plugin_t>(kTestKind, name_or_path);
}

// Loading must fail with `code` and a message holding every part of `parts`, leaving nothing
// mapped.
void ExpectRefused(const std::string& variant, Code code, const std::vector<std::string>& parts) {
  SCOPED_TRACE(variant);
  const std::string path = Fake(variant);
  auto loaded = Load(path);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), code) << loaded.status().message();
  for (const std::string& part : parts)
    EXPECT_NE(loaded.status().message().find(part), std::string::npos)
        << "\"" << loaded.status().message() << "\" lacks \"" << part << "\"";
  EXPECT_FALSE(Mapped(path));
}

class ScopedPluginPath {
 public:
  explicit ScopedPluginPath(const std::string& value) {
    if (const char* old = std::getenv("WEFT_PLUGIN_PATH")) old_ = old;
    setenv("WEFT_PLUGIN_PATH", value.c_str(), 1);
    params::ReloadForTesting();  // the registry caches what it read
  }
  ~ScopedPluginPath() {
    if (old_)
      setenv("WEFT_PLUGIN_PATH", old_->c_str(), 1);
    else
      unsetenv("WEFT_PLUGIN_PATH");
    params::ReloadForTesting();
  }

 private:
  std::optional<std::string> old_;
};

TEST(PluginLoaderKinds, CurrentTableIsCopiedAsItIs) {
  auto loaded = Load(Fake("good"));
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  const weft_testkind_plugin_t& t = loaded->table;
  EXPECT_EQ(std::string(t.name), "good");
  EXPECT_EQ(t.answer(), 42);
  EXPECT_EQ(t.twice(5), 10);
  EXPECT_NE(t.twice, &HostTwice);
  EXPECT_EQ(std::string(t.motto), "mine");
  EXPECT_EQ(t.flags, 7u);
  EXPECT_EQ(t.struct_size, sizeof(weft_testkind_plugin_t));
  EXPECT_EQ(loaded->module.abi_version(), static_cast<uint32_t>(WEFT_TESTKIND_VERSION));
  EXPECT_EQ(loaded->module.carried_minor(), 2u);
  EXPECT_EQ(loaded->module.path(), Fake("good"));
}

TEST(PluginLoaderKinds, OlderMinorGetsEachAdaptersDefaults) {
  auto loaded = Load(Fake("v20"));
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  const weft_testkind_plugin_t& t = loaded->table;
  EXPECT_EQ(t.answer(), 42);
  EXPECT_EQ(t.twice, &HostTwice);
  EXPECT_EQ(std::string(t.motto), "none given");
  EXPECT_EQ(t.flags, 0u);
  EXPECT_EQ(t.struct_size, sizeof(weft_testkind_plugin_t));  // the host's, not the plugin's
  EXPECT_EQ(loaded->module.carried_minor(), 0u);
}

TEST(PluginLoaderKinds, FieldsOfMinorsTheTableDoesNotClaimAreReplaced) {
  // claims20 is long enough for 2.2 but says 2.0; v21 says 2.2 but ends before motto.
  auto claims = Load(Fake("claims20"));
  ASSERT_TRUE(claims.ok()) << claims.status().message();
  EXPECT_EQ(claims->table.twice, &HostTwice);
  EXPECT_EQ(std::string(claims->table.motto), "none given");
  EXPECT_EQ(claims->table.flags, 0u);
  auto short21 = Load(Fake("v21"));
  ASSERT_TRUE(short21.ok()) << short21.status().message();
  EXPECT_EQ(short21->table.twice(4), 8);
  EXPECT_NE(short21->table.twice, &HostTwice);
  EXPECT_EQ(std::string(short21->table.motto), "none given");
  EXPECT_EQ(short21->module.carried_minor(), 1u);
}

TEST(PluginLoaderKinds, NewerMinorLoadsWithWhatThisHostKnows) {
  auto loaded = Load(Fake("newer"));
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(std::string(loaded->table.motto), "mine");
  EXPECT_EQ(loaded->module.abi_version(), static_cast<uint32_t>(WEFT_TESTKIND_MAJOR << 16 | 9));
  EXPECT_EQ(loaded->module.carried_minor(), 2u);
}

TEST(PluginLoaderKinds, ReleasingTheHandleUnloadsThePlugin) {
  const std::string path = Fake("good");
  ASSERT_FALSE(Mapped(path));
  {
    auto loaded = Load(path);
    ASSERT_TRUE(loaded.ok()) << loaded.status().message();
    EXPECT_TRUE(Mapped(path));
    PluginModule moved = std::move(loaded->module);  // ownership moves, the mapping stays
    EXPECT_FALSE(loaded->module.loaded());
    EXPECT_TRUE(Mapped(path));
  }
  EXPECT_FALSE(Mapped(path));
}

TEST(PluginLoaderKinds, OtherMajorsAreVersionMismatchesNamingBoth) {
  ExpectRefused("v3", Code::kVersionMismatch, {Fake("v3"), "test plugin ABI v3", "supports v2"});
  ExpectRefused("major1", Code::kVersionMismatch, {Fake("major1"), "ABI 1.4", "supports 2.2"});
  ExpectRefused("small", Code::kVersionMismatch,
                {std::to_string(WEFT_TESTKIND_V2_0_SIZE - 1) + " bytes", "ABI 2.0's"});
}

TEST(PluginLoaderKinds, MalformedTablesArePluginErrors) {
  ExpectRefused("noanswer", Code::kPlugin, {Fake("noanswer"), "lacks answer"});
  ExpectRefused("noname", Code::kPlugin, {Fake("noname"), "has no name"});
  ExpectRefused("longname", Code::kPlugin, {"longer than 64 bytes"});
  ExpectRefused("null", Code::kPlugin, {"NULL table"});
  ExpectRefused("otherkind", Code::kPlugin,
                {"exports no weft_testkind_plugin_v1..weft_testkind_plugin_v9",
                 "needs weft_testkind_plugin_v2"});
}

TEST(PluginLoaderKinds, NameIsSearchedWithTheKindsPattern) {
  ScopedPluginPath path(std::string("/nonexistent-weft-a::") + WEFT_TESTKIND_DIR);
  auto loaded = Load("good");
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(loaded->module.path(), Fake("good"));
  auto missing = Load("nosuch");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Code::kNotAvailable);
  const std::string& msg = missing.status().message();
  const size_t a = msg.find("/nonexistent-weft-a/libweft-testkind-nosuch.so: no such file");
  const size_t b = msg.find(std::string(WEFT_TESTKIND_DIR) + "/libweft-testkind-nosuch.so");
  ASSERT_NE(a, std::string::npos) << msg;
  ASSERT_NE(b, std::string::npos) << msg;
  EXPECT_LT(a, b) << msg;
  EXPECT_NE(msg.find("test plugin \"nosuch\" not found"), std::string::npos) << msg;
}

TEST(PluginLoaderKinds, NamesAndPathsBeyondTheLimitsAreInvalidArguments) {
  const std::string at_limit(kMaxPluginName, 'a');
  EXPECT_EQ(Load(at_limit).status().code(), Code::kNotAvailable);
  for (const std::string& bad :
       {at_limit + "a", std::string(5000, 'a'), "/tmp/" + std::string(5000, 'a'),
        "/tmp/" + std::string(NAME_MAX + 1, 'a'), std::string("a b"), std::string("a\nb"),
        std::string("/tmp/a\tb"), std::string()}) {
    SCOPED_TRACE(bad.substr(0, 20));
    auto loaded = Load(bad);
    ASSERT_FALSE(loaded.ok());
    EXPECT_EQ(loaded.status().code(), Code::kInvalidArgument) << loaded.status().message();
    EXPECT_NE(loaded.status().message().find("the test plugin"), std::string::npos)
        << loaded.status().message();
    EXPECT_EQ(loaded.status().message().find("filesystem"), std::string::npos);
  }
  EXPECT_NE(Load(at_limit + "a").status().message().find("at most 64 characters"),
            std::string::npos);
}

TEST(PluginLoaderKinds, AnInconsistentKindIsAnInternalError) {
  constexpr PluginAdapter kBackwards[] = {{2, sizeof(weft_testkind_plugin_t), nullptr},
                                          {1, WEFT_TESTKIND_V2_1_SIZE, nullptr}};
  PluginKind kind = kTestKind;
  kind.adapters = kBackwards;
  weft_testkind_plugin_t table{};
  EXPECT_EQ(OpenPlugin(kind, Fake("good"), &table).status().code(), Code::kInternal);
}

}  // namespace
}  // namespace weft::plugin
