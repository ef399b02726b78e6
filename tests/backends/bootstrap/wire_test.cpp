// The frame codec: round trips, and rejection of malformed input without reading past it.
#include "backends/bootstrap/wire.hpp"

#include <gtest/gtest.h>

namespace weft::backends::bootstrap::wire {
namespace {

std::string_view BodyOf(const std::string& encoded) {
  return std::string_view(encoded).substr(kLengthBytes);
}

TEST(BootstrapWire, RoundTripsEveryField) {
  Frame f;
  f.id = 0x0102030405060708ull;
  f.verb = Verb::kCompareSet;
  f.code = static_cast<int8_t>(Code::kTimeout);
  f.flags = kHasExpected;
  f.timeout_ms = 1234;
  f.keys = {"a", std::string("b\0c", 3), ""};
  f.values = {std::string(1000, '\0'), "xyz"};
  std::string encoded = Encode(f);
  auto length = DecodeLength(reinterpret_cast<const unsigned char*>(encoded.data()));
  ASSERT_TRUE(length.ok()) << length.status().message();
  EXPECT_EQ(*length, encoded.size() - kLengthBytes);
  auto back = DecodeBody(BodyOf(encoded));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->id, f.id);
  EXPECT_EQ(back->verb, f.verb);
  EXPECT_EQ(back->code, f.code);
  EXPECT_EQ(back->flags, f.flags);
  EXPECT_EQ(back->timeout_ms, f.timeout_ms);
  EXPECT_EQ(back->keys, f.keys);
  EXPECT_EQ(back->values, f.values);
}

TEST(BootstrapWire, RejectsLengthsBelowTheFixedPart) {
  const unsigned char too_small[4] = {0, 0, 0, 3};
  const unsigned char largest[4] = {0xFF, 0xFF, 0xFF, 0xFF};
  EXPECT_FALSE(DecodeLength(too_small).ok());
  // The upper bound is the reader's limit (the store's message limit), not the codec's.
  EXPECT_EQ(*DecodeLength(largest), 0xFFFFFFFFu);
}

TEST(BootstrapWire, TrailingValueEncodingEqualsTheWholeFrame) {
  Frame f;
  f.verb = Verb::kEvent;
  f.keys = {"failed/3"};
  f.values = {"first"};
  const std::string value(70000, 'v');
  Frame whole = f;
  whole.values.push_back(value);
  EXPECT_EQ(EncodeWithTrailingValue(f, value.size()) + value, Encode(whole));
  EXPECT_EQ(EncodedBodySize(whole), Encode(whole).size() - kLengthBytes);
}

TEST(BootstrapWire, DecodeFixedReadsOnlyTheHeader) {
  Frame f;
  f.id = 77;
  f.verb = Verb::kSet;
  f.timeout_ms = 5;
  f.keys = {"k"};
  f.values = {"v"};
  const std::string body(BodyOf(Encode(f)));
  auto fixed = DecodeFixed(std::string_view(body).substr(0, kFixedBodyBytes));
  ASSERT_TRUE(fixed.ok()) << fixed.status().message();
  EXPECT_EQ(fixed->id, 77u);
  EXPECT_EQ(fixed->verb, Verb::kSet);
  EXPECT_TRUE(fixed->keys.empty());
  EXPECT_FALSE(DecodeFixed(std::string_view(body).substr(0, kFixedBodyBytes - 1)).ok());
}

TEST(BootstrapWire, RejectsTruncatedAndTrailingBytes) {
  Frame f;
  f.verb = Verb::kSet;
  f.keys = {"key"};
  f.values = {"value"};
  std::string body(BodyOf(Encode(f)));
  for (size_t cut = 0; cut < body.size(); ++cut) {
    EXPECT_FALSE(DecodeBody(std::string_view(body).substr(0, cut)).ok()) << "cut at " << cut;
  }
  EXPECT_FALSE(DecodeBody(body + "x").ok());
}

TEST(BootstrapWire, RejectsWrongMagicAndVersion) {
  std::string body(BodyOf(Encode(Frame{})));
  std::string bad_magic = body;
  bad_magic[0] = 'X';
  EXPECT_EQ(DecodeBody(bad_magic).status().code(), Code::kSystem);
  std::string bad_version = body;
  bad_version[1] = static_cast<char>(kVersion + 1);
  EXPECT_EQ(DecodeBody(bad_version).status().code(), Code::kVersionMismatch);
}

TEST(BootstrapWire, TimeoutBudget) {
  EXPECT_EQ(TimeoutMs(Clock::now() - std::chrono::seconds(1)), 0u);
  EXPECT_EQ(TimeoutMs(Clock::time_point::max()), kNoTimeout);
  uint32_t ms = TimeoutMs(Clock::now() + std::chrono::milliseconds(500));
  EXPECT_GE(ms, 450u);
  EXPECT_LE(ms, 501u);
}

}  // namespace
}  // namespace weft::backends::bootstrap::wire
