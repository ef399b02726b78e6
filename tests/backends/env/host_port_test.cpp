// Store addresses as users type them into WEFT_STORE.
#include "backends/env/host_port.hpp"

#include <gtest/gtest.h>

#include "tests/backends/env/env_test_util.hpp"

namespace weft::backends {
namespace {

using HostPort = std::pair<std::string, uint16_t>;

HostPort Parse(std::string_view s) {
  auto r = ParseHostPort(s);
  EXPECT_TRUE(r.ok()) << s << ": " << r.status().message();
  return r.ok() ? *r : HostPort{};
}

TEST(HostPortTest, Ipv4) { EXPECT_EQ(Parse("10.0.0.1:29500"), (HostPort{"10.0.0.1", 29500})); }

TEST(HostPortTest, HostNames) {
  EXPECT_EQ(Parse("localhost:1"), (HostPort{"localhost", 1}));
  EXPECT_EQ(Parse("node-01.cluster_a.example:65535"),
            (HostPort{"node-01.cluster_a.example", 65535}));
}

TEST(HostPortTest, BracketedIpv6LosesItsBrackets) {
  EXPECT_EQ(Parse("[::1]:29500"), (HostPort{"::1", 29500}));
  EXPECT_EQ(Parse("[fd00:1::7]:80"), (HostPort{"fd00:1::7", 80}));
  EXPECT_EQ(Parse("[fe80::1%eth0]:80"), (HostPort{"fe80::1%eth0", 80}));
}

TEST(HostPortTest, BadInputIsRejectedAndQuoted) {
  for (const char* bad : {"",
                          "host",
                          "host:",
                          ":29500",
                          "::1:29500",
                          "[::1]",
                          "[::1]29500",
                          "[::1",
                          "[]:1",
                          "[::1]:",
                          "host:0",
                          "host:65536",
                          "host:-1",
                          "host:12ab",
                          "host: 1",
                          "ho st:1",
                          "host:99999999999999999999",
                          "http://host:1",
                          "[a]]:1",
                          "h\n:1"}) {
    const auto r = ParseHostPort(bad);
    testing::ExpectError(r, Code::kInvalidArgument, {"'" + std::string(bad) + "'"});
  }
}

TEST(HostPortTest, ExplainsTheCommonMistakes) {
  testing::ExpectError(ParseHostPort("::1:29500"), Code::kInvalidArgument, {"brackets"});
  testing::ExpectError(ParseHostPort("host"), Code::kInvalidArgument, {"missing ':port'"});
  testing::ExpectError(ParseHostPort("host:70000"), Code::kInvalidArgument, {"1-65535"});
}

TEST(HostPortTest, PlausibleHosts) {
  EXPECT_TRUE(IsPlausibleHost("a"));
  EXPECT_TRUE(IsPlausibleHost("fd00::1"));
  EXPECT_FALSE(IsPlausibleHost(""));
  EXPECT_FALSE(IsPlausibleHost("a b"));
  EXPECT_FALSE(IsPlausibleHost("a/b"));
}

}  // namespace
}  // namespace weft::backends
