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
  // The registry's defaults (common/host_params.hpp); connections follow the world size.
  EXPECT_EQ(s->max_message, std::optional<uint32_t>(64u << 20));
  EXPECT_EQ(s->max_bytes, std::optional<uint64_t>(uint64_t{1} << 30));
  EXPECT_FALSE(s->max_connections.has_value());
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
  // The registry's parser (common/param_parse.hpp) gives the words; "yes" is a boolean there.
  ExpectError(Read({{"WEFT_STORE_INSECURE", "maybe"}}), Code::kInvalidArgument,
              {"WEFT_STORE_INSECURE is 'maybe'", "0 or 1"});
  EXPECT_TRUE(Read({{"WEFT_STORE_INSECURE", "yes"}})->insecure);
  EXPECT_EQ(*Read({{"WEFT_STORE_MAX_MESSAGE", "64M"}})->max_message, uint64_t{64} << 20);
  ExpectError(Read({{"WEFT_STORE_MAX_MESSAGE", "64MB"}}), Code::kInvalidArgument,
              {"WEFT_STORE_MAX_MESSAGE is '64MB'"});
  ExpectError(Read({{"WEFT_STORE_MAX_MESSAGE", "100"}}), Code::kInvalidArgument,
              {"WEFT_STORE_MAX_MESSAGE is '100'", "[4K, 1G]"});
  ExpectError(Read({{"WEFT_STORE_MAX_MESSAGE", "2147483648"}}), Code::kInvalidArgument,
              {"WEFT_STORE_MAX_MESSAGE is '2147483648'", "[4K, 1G]"});
  ExpectError(Read({{"WEFT_STORE_MAX_BYTES", "-1"}}), Code::kInvalidArgument,
              {"WEFT_STORE_MAX_BYTES is '-1'", "[1M, 1T]"});
  ExpectError(Read({{"WEFT_STORE_MAX_CONNECTIONS", "0"}}), Code::kInvalidArgument,
              {"WEFT_STORE_MAX_CONNECTIONS is '0'", "[1, "});
}

}  // namespace
}  // namespace weft::backends
