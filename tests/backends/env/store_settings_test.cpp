// The store's security settings from the environment: strict parsing, messages that name the
// variable, and a token that never appears in a message.
#include "backends/env/store_settings.hpp"

#include <gtest/gtest.h>

#include "tests/backends/env/env_test_util.hpp"

namespace weft::backends {
namespace {

using testing::EnvMap;
using testing::ExpectError;

Result<StoreSettings> Read(const EnvMap& vars) {
  return ReadStoreSettings([&vars](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  });
}

TEST(StoreSettings, UnsetMeansDefaults) {
  auto s = Read({});
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_FALSE(s->token.has_value());
  EXPECT_FALSE(s->insecure);
  EXPECT_FALSE(s->max_message || s->max_bytes || s->max_connections);
  EXPECT_FALSE(Read({{"WEFT_STORE_TOKEN", ""}})->token.has_value());  // `export VAR=` clears
}

TEST(StoreSettings, ReadsEveryVariable) {
  auto s = Read({{"WEFT_STORE_TOKEN", "0123456789abcdef0123"},
                 {"WEFT_STORE_INSECURE", "1"},
                 {"WEFT_STORE_MAX_MESSAGE", "1048576"},
                 {"WEFT_STORE_MAX_BYTES", "2147483648"},
                 {"WEFT_STORE_MAX_CONNECTIONS", "300"}});
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(*s->token, "0123456789abcdef0123");
  EXPECT_TRUE(s->insecure);
  EXPECT_EQ(*s->max_message, 1048576u);
  EXPECT_EQ(*s->max_bytes, 2147483648u);
  EXPECT_EQ(*s->max_connections, 300u);
  EXPECT_FALSE(Read({{"WEFT_STORE_INSECURE", "0"}})->insecure);
}

TEST(StoreSettings, AWeakOrOddTokenIsRefusedWithoutQuotingIt) {
  const std::string short_token = "s3cr3t";
  auto weak = Read({{"WEFT_STORE_TOKEN", short_token}});
  ExpectError(weak, Code::kInvalidArgument, {"WEFT_STORE_TOKEN", "6 characters", "16"});
  EXPECT_EQ(weak.status().message().find(short_token), std::string::npos);
  const std::string spaced = "0123456789 abcdef0123";
  auto odd = Read({{"WEFT_STORE_TOKEN", spaced}});
  ExpectError(odd, Code::kInvalidArgument, {"WEFT_STORE_TOKEN", "position 10"});
  EXPECT_EQ(odd.status().message().find(spaced), std::string::npos);
  ExpectError(Read({{"WEFT_STORE_TOKEN", std::string(1025, 'a')}}), Code::kInvalidArgument,
              {"WEFT_STORE_TOKEN", "1025"});
}

TEST(StoreSettings, MalformedValuesNameTheVariable) {
  ExpectError(Read({{"WEFT_STORE_INSECURE", "yes"}}), Code::kInvalidArgument,
              {"WEFT_STORE_INSECURE='yes'", "0 or 1"});
  ExpectError(Read({{"WEFT_STORE_MAX_MESSAGE", "64M"}}), Code::kInvalidArgument,
              {"WEFT_STORE_MAX_MESSAGE='64M'"});
  ExpectError(Read({{"WEFT_STORE_MAX_MESSAGE", "100"}}), Code::kInvalidArgument,
              {"WEFT_STORE_MAX_MESSAGE=100", "at least 4096"});
  ExpectError(Read({{"WEFT_STORE_MAX_MESSAGE", "2147483648"}}), Code::kInvalidArgument,
              {"WEFT_STORE_MAX_MESSAGE=2147483648", "too large"});
  ExpectError(Read({{"WEFT_STORE_MAX_BYTES", "-1"}}), Code::kInvalidArgument,
              {"WEFT_STORE_MAX_BYTES=-1", "negative"});
  ExpectError(Read({{"WEFT_STORE_MAX_CONNECTIONS", "0"}}), Code::kInvalidArgument,
              {"WEFT_STORE_MAX_CONNECTIONS=0"});
}

}  // namespace
}  // namespace weft::backends
