// The one parser of WEFT_* variables (common/param_parse.hpp): every type, suffixes, bounds,
// garbage, empty text and defaults, against values written out by hand; and the checks of
// declarations. No environment is touched: Parse takes the text.
#include "common/param_parse.hpp"

#include <gtest/gtest.h>

#include <string>

namespace weft::param {
namespace {

constexpr weft_bk_param_t kInt =
    DeclareInt("WEFT_T_INT", "3", -5, 100, kTuning, kLocal, "an integer");
constexpr weft_bk_param_t kBytes =
    DeclareBytes("WEFT_T_BYTES", "8M", 64, kTiB, kTuning, kMustMatch, "a size");
constexpr weft_bk_param_t kBool = DeclareBool("WEFT_T_BOOL", "1", kDebug, kLocal, "a switch");
constexpr weft_bk_param_t kMs =
    DeclareDeadlineMs("WEFT_CONNECT_TIMEOUT_MS", "60000", 1, 604800000, kUser, kLocal, "a time");
constexpr weft_bk_param_t kText = DeclareString("WEFT_T_TEXT", nullptr, kUser, kLocal, "a text");
constexpr weft_bk_param_t kEnum =
    DeclareEnum("WEFT_T_ENUM", "warn", "trace|warn|off", kUser, kLocal, "a word");

// The number a text parses to; fails the test with the parser's message otherwise.
int64_t Number(const weft_bk_param_t& p, const std::string& text) {
  const Parsed r = Parse(p, text);
  EXPECT_TRUE(r.ok()) << text << ": " << r.error;
  EXPECT_TRUE(r.value.set);
  return r.value.number;
}

// The error a text gives; fails the test if it parses.
std::string Error(const weft_bk_param_t& p, const std::string& text) {
  const Parsed r = Parse(p, text);
  EXPECT_FALSE(r.ok()) << text << " parsed as " << r.value.text;
  return r.error;
}

TEST(ParamParse, IntegersInBounds) {
  EXPECT_EQ(Number(kInt, "0"), 0);
  EXPECT_EQ(Number(kInt, "-5"), -5);
  EXPECT_EQ(Number(kInt, "100"), 100);
  EXPECT_EQ(Parse(kInt, "042").value.text, "42");  // canonical: plain decimal
  EXPECT_EQ(Error(kInt, "101"), "WEFT_T_INT is '101' but must be an integer in [-5, 100]");
  EXPECT_EQ(Error(kInt, "-6"), "WEFT_T_INT is '-6' but must be an integer in [-5, 100]");
}

TEST(ParamParse, IntegerGarbageIsAnErrorNeverADefault) {
  for (const char* bad :
       {"abc", "1.5", "+1", " 1", "1 ", "1e3", "0x10", "1K", "--1", "-", "99999999999999999999"}) {
    EXPECT_NE(Error(kInt, bad).find("WEFT_T_INT is '" + std::string(bad) + "'"), std::string::npos);
  }
}

TEST(ParamParse, EmptyIsUnsetAndTakesTheDefault) {
  EXPECT_EQ(Number(kInt, ""), 3);
  EXPECT_EQ(Number(kBytes, ""), 8 * kMiB);
  EXPECT_EQ(Parse(kEnum, "").value.text, "warn");
  const Parsed none = Parse(kText, "");
  EXPECT_TRUE(none.ok());
  EXPECT_FALSE(none.value.set);
  EXPECT_EQ(none.value.text, "");
}

TEST(ParamParse, SizesTakeOneSuffixOfPowersOf1024) {
  EXPECT_EQ(Number(kBytes, "64"), 64);
  EXPECT_EQ(Number(kBytes, "4K"), 4096);
  EXPECT_EQ(Number(kBytes, "4k"), 4096);
  EXPECT_EQ(Number(kBytes, "3M"), 3 * 1048576);
  EXPECT_EQ(Number(kBytes, "2g"), int64_t{2} << 30);
  EXPECT_EQ(Number(kBytes, "1024G"), int64_t{1} << 40);
  EXPECT_EQ(Parse(kBytes, "1M").value.text, "1048576");  // what must-match compares
  const std::string expect = "must be a number of bytes in [64, 1T], optionally with a K, M or G";
  for (const char* bad : {"63", "1025G", "-1", "1KB", "1KiB", "1T", "K", "1.5M", "1 M", "M1"})
    EXPECT_NE(Error(kBytes, bad).find(expect), std::string::npos) << bad;
  // 2^63 bytes and beyond overflow instead of wrapping.
  EXPECT_FALSE(
      Parse(DeclareBytes("WEFT_T_HUGE", nullptr, 0, INT64_MAX, kTuning, kLocal, "x"), "8589934592G")
          .ok());
}

TEST(ParamParse, Booleans) {
  for (const char* yes : {"1", "true", "TRUE", "Yes", "yes"}) EXPECT_EQ(Number(kBool, yes), 1);
  for (const char* no : {"0", "false", "False", "NO"}) EXPECT_EQ(Number(kBool, no), 0);
  EXPECT_EQ(Parse(kBool, "yes").value.text, "1");
  for (const char* bad : {"2", "on", "off", "y", "-1", "truee"})
    EXPECT_EQ(Error(kBool, bad), "WEFT_T_BOOL is '" + std::string(bad) +
                                     "' but must be 0 or 1 (or true/false, yes/no)");
}

TEST(ParamParse, DeadlinesAreWholeMillisecondsOrMinusOneForNone) {
  EXPECT_EQ(Number(kMs, "2000"), 2000);
  EXPECT_EQ(Number(kMs, "-1"), -1);
  EXPECT_EQ(Parse(kMs, "-1").value.text, "-1");
  const std::string must =
      "must be a whole number of milliseconds in [1, 604800000], or -1 for no deadline";
  EXPECT_EQ(Error(kMs, "2s"), "WEFT_CONNECT_TIMEOUT_MS is '2s' but " + must);
  for (const char* bad : {"0", "-2", "604800001", "1.5", "inf", "forever"})
    EXPECT_EQ(Error(kMs, bad), "WEFT_CONNECT_TIMEOUT_MS is '" + std::string(bad) + "' but " + must);
  // Without the forever flag, -1 is just below the bounds.
  const weft_bk_param_t plain =
      Declare(WEFT_BK_PARAM_MS, "WEFT_T_MS", "5", 0, 10, kDebug, kLocal, "x");
  EXPECT_FALSE(Parse(plain, "-1").ok());
  EXPECT_EQ(Expectation(plain), "a whole number of milliseconds in [0, 10]");
}

TEST(ParamParse, EnumsTakeTheirWordsInAnyCase) {
  EXPECT_EQ(Number(kEnum, "trace"), 0);
  EXPECT_EQ(Number(kEnum, "OFF"), 2);
  EXPECT_EQ(Parse(kEnum, "Warn").value.text, "warn");
  EXPECT_EQ(Error(kEnum, "verbose"),
            "WEFT_T_ENUM is 'verbose' but must be one of trace, warn, off");
  EXPECT_FALSE(Parse(kEnum, "tra").ok());
  EXPECT_FALSE(Parse(kEnum, "trace|warn").ok());
}

TEST(ParamParse, TextIsTakenAsIs) {
  const Parsed r = Parse(kText, " a b|c ");
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r.value.set);
  EXPECT_EQ(r.value.text, " a b|c ");
}

TEST(ParamParse, SoundDeclarationsPass) {
  for (const weft_bk_param_t& p : {kInt, kBytes, kBool, kMs, kText, kEnum})
    EXPECT_EQ(CheckDescriptor(p), "") << p.name;
}

TEST(ParamParse, MalformedDeclarationsAreNamed) {
  const auto why = [](weft_bk_param_t p) { return CheckDescriptor(p); };
  weft_bk_param_t p = kInt;
  p.name = "UCX_THING";
  EXPECT_EQ(why(p), "is not named WEFT_*");
  p.name = "WEFT_lower";
  EXPECT_NE(why(p).find("character"), std::string::npos);
  p = kInt;
  p.type = 9;
  EXPECT_EQ(why(p), "has an unknown type");
  p = kInt;
  p.audience = 7;
  EXPECT_EQ(why(p), "has an unknown audience");
  p = kInt;
  p.flags = 1u << 5;
  EXPECT_EQ(why(p), "has unknown flags");
  p = kInt;
  p.flags = WEFT_BK_PARAM_FOREVER;
  EXPECT_EQ(why(p), "says -1 means forever but is not a duration");
  p = kInt;
  p.doc = "";
  EXPECT_EQ(why(p), "has no doc line");
  p = kInt;
  p.min = 5;
  p.max = 4;
  EXPECT_EQ(why(p), "has min > max");
  p = kInt;
  p.default_value = "7x";
  EXPECT_EQ(why(p),
            "has a bad default: WEFT_T_INT's default is '7x' but must be an integer in "
            "[-5, 100]");
  p.default_value = "";
  EXPECT_EQ(why(p), "has an empty default (NULL means none)");
  p = kEnum;
  p.choices = "a||b";
  EXPECT_NE(why(p).find("empty choice"), std::string::npos);
  p.choices = nullptr;
  EXPECT_NE(why(p).find("empty choice"), std::string::npos);
}

TEST(ParamParse, IntegerGrammarSharedWithLaunchVariables) {
  int64_t v = 0;
  EXPECT_EQ(ParseInteger("-12", &v), IntError::kNone);
  EXPECT_EQ(v, -12);
  EXPECT_EQ(ParseInteger("12a", &v), IntError::kSyntax);
  EXPECT_EQ(ParseInteger("", &v), IntError::kSyntax);
  EXPECT_EQ(ParseInteger("9223372036854775808", &v), IntError::kRange);
}

}  // namespace
}  // namespace weft::param
