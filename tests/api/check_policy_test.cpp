// WEFT_CHECK_COLLECTIVES and WEFT_CHECK_COLLECTIVES_MIN_BYTES (api/src/check_policy.cpp): the
// strict parser and the decisions it leads to.
#include "api/src/check_policy.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace weft::api {
namespace {

Result<CheckPolicy> Read(const std::map<std::string, std::string>& env) {
  return ReadCheckPolicy([&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

TEST(CheckPolicy, UnsetOrEmptyIsAutomaticWithTheDefaultThreshold) {
  for (const auto& env :
       {std::map<std::string, std::string>{},
        {{"WEFT_CHECK_COLLECTIVES", ""}, {"WEFT_CHECK_COLLECTIVES_MIN_BYTES", ""}}}) {
    auto p = Read(env);
    ASSERT_TRUE(p.ok()) << p.status().message();
    EXPECT_EQ(p.value().mode, CheckPolicy::Mode::kAuto);
    EXPECT_EQ(p.value().min_bytes, CheckPolicy::kDefaultMinBytes);
  }
}

TEST(CheckPolicy, ZeroAndOne) {
  EXPECT_EQ(Read({{"WEFT_CHECK_COLLECTIVES", "1"}}).value().mode, CheckPolicy::Mode::kAll);
  EXPECT_EQ(Read({{"WEFT_CHECK_COLLECTIVES", "0"}}).value().mode, CheckPolicy::Mode::kOff);
}

TEST(CheckPolicy, MalformedModeNamesTheVariable) {
  // The registry's boolean words (0/1, true/false, yes/no) are accepted; nothing else is.
  for (const char* bad : {"on", "2", "01", " 1", "enabled"}) {
    auto p = Read({{"WEFT_CHECK_COLLECTIVES", bad}});
    ASSERT_FALSE(p.ok()) << bad;
    EXPECT_EQ(p.status().code(), Code::kInvalidArgument);
    EXPECT_NE(p.status().message().find("WEFT_CHECK_COLLECTIVES is '" + std::string(bad) + "'"),
              std::string::npos)
        << p.status().message();
  }
}

TEST(CheckPolicy, ThresholdTakesBytesWithBinarySuffixes) {
  const std::map<std::string, uint64_t> good = {
      {"0", 0}, {"4096", 4096}, {"64K", 65536}, {"4M", 4u << 20}, {"2G", uint64_t{2} << 30}};
  for (const auto& [text, bytes] : good) {
    auto p = Read({{"WEFT_CHECK_COLLECTIVES_MIN_BYTES", text}});
    ASSERT_TRUE(p.ok()) << text << ": " << p.status().message();
    EXPECT_EQ(p.value().min_bytes, bytes) << text;
  }
  for (const char* bad :
       {"-1", "1.5M", "4MB", "K", "4 K", "18446744073709551616", "17179869184G"}) {
    auto p = Read({{"WEFT_CHECK_COLLECTIVES_MIN_BYTES", bad}});
    ASSERT_FALSE(p.ok()) << bad;
    EXPECT_NE(p.status().message().find("WEFT_CHECK_COLLECTIVES_MIN_BYTES"), std::string::npos);
  }
}

TEST(CheckPolicy, ABackendThatCouldTerminateIsAlwaysChecked) {
  for (auto mode : {CheckPolicy::Mode::kAuto, CheckPolicy::Mode::kAll, CheckPolicy::Mode::kOff}) {
    CheckPolicy p;
    p.mode = mode;
    EXPECT_TRUE(p.CheckCollective(false, 0));
    EXPECT_TRUE(p.CheckPointToPoint(false));
  }
}

TEST(CheckPolicy, ASizeSafeBackendIsCheckedFromTheThresholdOrWhenAsked) {
  CheckPolicy p;
  p.min_bytes = 1000;
  EXPECT_FALSE(p.CheckCollective(true, 999));
  EXPECT_TRUE(p.CheckCollective(true, 1000));
  EXPECT_FALSE(p.CheckPointToPoint(true));
  p.mode = CheckPolicy::Mode::kAll;
  EXPECT_TRUE(p.CheckCollective(true, 0));
  EXPECT_TRUE(p.CheckPointToPoint(true));
  p.mode = CheckPolicy::Mode::kOff;
  EXPECT_FALSE(p.CheckCollective(true, uint64_t{1} << 40));
  EXPECT_FALSE(p.CheckPointToPoint(true));
}

}  // namespace
}  // namespace weft::api
