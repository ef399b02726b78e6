// Plugin parameters (ABI 1.3) through weft_context_create: a malformed declaration fails the
// load naming the plugin and the parameter; a malformed value of a sound one fails creation
// naming the variable, before init; and the host's own variables are checked the same way
// (WEFT_CONNECT_TIMEOUT_MS=2s used to become the 60 s default in silence).
#include <fstream>
#include <string>

#include "tests/backends/host/loader_test_util.hpp"

namespace loader_test {
namespace {

using PluginParams = LoaderTest;

std::string CreateFails(const char* backend, weft_status_t code) {
  weft_context_t* ctx = nullptr;
  const weft_status_t s = CreateWorld1(backend, &ctx);
  EXPECT_EQ(s, code) << weft_status_string(s) << " | " << weft_last_error();
  if (s == WEFT_OK) {
    EXPECT_EQ(weft_context_destroy(ctx), WEFT_OK);
  }
  return weft_last_error();
}

TEST_F(PluginParams, SoundDeclarationsLoadAndTheirValuesAreRead) {
  ScopedEnv level("WEFT_FAKEP_LEVEL", "3");
  weft_context_t* ctx = nullptr;
  ASSERT_EQ(CreateWorld1(FakePath("fakeparams-ok").c_str(), &ctx), WEFT_OK) << weft_last_error();
  EXPECT_EQ(weft_context_destroy(ctx), WEFT_OK) << weft_last_error();
}

TEST_F(PluginParams, MalformedPluginValueFailsCreationNamingTheVariable) {
  ScopedEnv level("WEFT_FAKEP_LEVEL", "7");
  const std::string msg = CreateFails(FakePath("fakeparams-ok").c_str(), WEFT_ERR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(msg, "WEFT_FAKEP_LEVEL is '7' but must be an integer in [0, 3]");
}

TEST_F(PluginParams, MalformedDeclarationsFailTheLoadNamingPluginAndParameter) {
  const std::pair<const char*, const char*> cases[] = {
      {"fakeparams-badname", "parameter 1 (FAKEP_LABEL) is not named WEFT_*"},
      {"fakeparams-twice", "parameter 1 (WEFT_FAKEP_LEVEL) is declared twice"},
      {"fakeparams-hostname", "parameter 1 (WEFT_TIMEOUT_MS) is declared by libweft already"},
      {"fakeparams-baddefault",
       "parameter 0 (WEFT_FAKEP_LEVEL) has a bad default: WEFT_FAKEP_LEVEL's default is '9'"},
      {"fakeparams-stride", "parameter 0 has struct_size 56 (ABI 1.3's is 64"},
  };
  for (const auto& [fake, why] : cases) {
    SCOPED_TRACE(fake);
    const std::string path = FakePath(fake);
    const std::string msg = CreateFails(path.c_str(), WEFT_ERR_PLUGIN);
    EXPECT_CONTAINS(msg, "plugin " + path);
    EXPECT_CONTAINS(msg, why);
  }
}

// Fails before the registry: the text was taken for the 60 s default.
TEST_F(PluginParams, MalformedConnectTimeoutFailsCreationNamingIt) {
  ScopedEnv timeout("WEFT_CONNECT_TIMEOUT_MS", "2s");
  const std::string msg = CreateFails(FakePath("fakeok").c_str(), WEFT_ERR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(msg,
                  "WEFT_CONNECT_TIMEOUT_MS is '2s' but must be a whole number of "
                  "milliseconds in [1, 604800000], or -1 for no deadline");
}

TEST_F(PluginParams, MinusOneIsTheOneWayToSayNoDeadline) {
  for (const char* ok : {"-1", "1", "604800000"}) {
    ScopedEnv timeout("WEFT_CONNECT_TIMEOUT_MS", ok);
    ScopedEnv ops("WEFT_TIMEOUT_MS", ok);
    weft_context_t* ctx = nullptr;
    ASSERT_EQ(CreateWorld1(FakePath("fakeok").c_str(), &ctx), WEFT_OK)
        << ok << ": " << weft_last_error();
    EXPECT_EQ(weft_context_destroy(ctx), WEFT_OK);
  }
  for (const char* bad : {"0", "-2", "-1s"}) {
    ScopedEnv timeout("WEFT_TIMEOUT_MS", bad);
    const std::string msg = CreateFails(FakePath("fakeok").c_str(), WEFT_ERR_INVALID_ARGUMENT);
    EXPECT_CONTAINS(msg, std::string("WEFT_TIMEOUT_MS is '") + bad + "'");
  }
}

TEST_F(PluginParams, DisableOpsNamingNoOpIsAnError) {
  ScopedEnv disabled("WEFT_BACKEND_DISABLE_OPS", "broadcast,allreduc");
  const std::string msg = CreateFails(FakePath("fakeok").c_str(), WEFT_ERR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(msg,
                  "WEFT_BACKEND_DISABLE_OPS is 'broadcast,allreduc' but 'allreduc' names "
                  "no op");
}

TEST_F(PluginParams, MalformedLogLevelFailsCreation) {
  ScopedEnv level("WEFT_LOG_LEVEL", "verbose");
  const std::string msg = CreateFails(FakePath("fakeok").c_str(), WEFT_ERR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(msg, "WEFT_LOG_LEVEL is 'verbose' but must be one of trace, debug, info");
}

// The tuning file (WEFT_TUNING_FILE, docs/tuning.md) gives tuning variables their value where
// the environment has none, for the plugin's variables as for libweft's, with the same checks.
class TuningFileParams : public LoaderTest {
 protected:
  std::string Write(const std::string& text) {
    const std::string path = ::testing::TempDir() + "/weft_plugin_params_tuning.json";
    std::ofstream(path) << text;
    return path;
  }
};

TEST_F(TuningFileParams, AValueFromTheFileIsCheckedAndSaysWhereItCameFrom) {
  ScopedEnv file("WEFT_TUNING_FILE",
                 Write(R"({"weft_tuning": 1, "params": {"WEFT_FAKEP_LEVEL": "7"}})"));
  ScopedEnv level("WEFT_FAKEP_LEVEL", std::nullopt);
  const std::string msg = CreateFails(FakePath("fakeparams-ok").c_str(), WEFT_ERR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(msg, "WEFT_FAKEP_LEVEL is '7' but must be an integer in [0, 3]");
  EXPECT_CONTAINS(msg, "set by the tuning file");
}

TEST_F(TuningFileParams, TheEnvironmentWinsOverTheFile) {
  ScopedEnv file("WEFT_TUNING_FILE",
                 Write(R"({"weft_tuning": 1, "params": {"WEFT_FAKEP_LEVEL": "7"}})"));
  ScopedEnv level("WEFT_FAKEP_LEVEL", "2");
  weft_context_t* ctx = nullptr;
  ASSERT_EQ(CreateWorld1(FakePath("fakeparams-ok").c_str(), &ctx), WEFT_OK) << weft_last_error();
  EXPECT_EQ(weft_context_destroy(ctx), WEFT_OK) << weft_last_error();
}

TEST_F(TuningFileParams, AFileMaySetOnlyTuningVariables) {
  ScopedEnv file("WEFT_TUNING_FILE",
                 Write(R"({"weft_tuning": 1, "params": {"WEFT_TIMEOUT_MS": "5"}})"));
  const std::string msg = CreateFails(FakePath("fakeok").c_str(), WEFT_ERR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(msg, "sets WEFT_TIMEOUT_MS, which is not a tuning variable");
}

TEST_F(TuningFileParams, AFileThatCannotBeReadFailsCreation) {
  ScopedEnv file("WEFT_TUNING_FILE", ::testing::TempDir() + "/no_such_tuning_file.json");
  EXPECT_CONTAINS(CreateFails(FakePath("fakeok").c_str(), WEFT_ERR_INVALID_ARGUMENT),
                  "no_such_tuning_file.json (WEFT_TUNING_FILE) cannot be read");
  ScopedEnv bad("WEFT_TUNING_FILE", Write(R"({"weft_tuning": 7})"));
  EXPECT_CONTAINS(CreateFails(FakePath("fakeok").c_str(), WEFT_ERR_INVALID_ARGUMENT),
                  "version 7; this Weft reads version 1");
}

}  // namespace
}  // namespace loader_test
