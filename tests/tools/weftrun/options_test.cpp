#include "tools/weftrun/options.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace weft::tools {
namespace {

Result<Options> Parse(std::vector<std::string> args) { return ParseOptions(args); }

void ExpectUsageError(std::vector<std::string> args, const std::string& fragment) {
  const Result<Options> opts = Parse(args);
  ASSERT_FALSE(opts.ok()) << "accepted: " << ::testing::PrintToString(args);
  EXPECT_EQ(opts.status().code(), Code::kInvalidUsage);
  EXPECT_NE(opts.status().message().find(fragment), std::string::npos) << opts.status().message();
}

TEST(WeftrunOptions, ParsesEveryOption) {
  const Result<Options> opts = Parse({"-n", "4", "--backend", "gloo", "--timeout", "2.5", "--grace",
                                      "0", "--no-prefix", "prog", "a", "b"});
  ASSERT_TRUE(opts.ok()) << opts.status().message();
  EXPECT_EQ(opts->ranks, 4);
  EXPECT_EQ(opts->backend, "gloo");
  EXPECT_EQ(opts->timeout_s, 2.5);
  EXPECT_EQ(opts->grace_s, 0.0);
  EXPECT_FALSE(opts->prefix);
  EXPECT_EQ(opts->command, (std::vector<std::string>{"prog", "a", "b"}));
}

TEST(WeftrunOptions, DefaultsAndInlineValues) {
  const Result<Options> opts = Parse({"-n8", "--timeout=1", "--backend=self", "prog"});
  ASSERT_TRUE(opts.ok()) << opts.status().message();
  EXPECT_EQ(opts->ranks, 8);
  EXPECT_EQ(opts->timeout_s, 1.0);
  EXPECT_EQ(opts->backend, "self");
  EXPECT_EQ(opts->grace_s, 3.0);
  EXPECT_TRUE(opts->prefix);
  const Result<Options> plain = Parse({"-n", "1", "prog"});
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->backend.has_value());
  EXPECT_FALSE(plain->timeout_s.has_value());
}

TEST(WeftrunOptions, ProgramArgumentsAreNotWeftrunOptions) {
  const Result<Options> opts = Parse({"-n", "2", "prog", "-n", "5", "--bogus"});
  ASSERT_TRUE(opts.ok()) << opts.status().message();
  EXPECT_EQ(opts->ranks, 2);
  EXPECT_EQ(opts->command, (std::vector<std::string>{"prog", "-n", "5", "--bogus"}));
  const Result<Options> dashed = Parse({"-n", "2", "--", "-prog", "--"});
  ASSERT_TRUE(dashed.ok()) << dashed.status().message();
  EXPECT_EQ(dashed->command, (std::vector<std::string>{"-prog", "--"}));
}

TEST(WeftrunOptions, RankCountBounds) {
  EXPECT_TRUE(Parse({"-n", "1", "p"}).ok());
  EXPECT_TRUE(Parse({"-n", "4096", "p"}).ok());
  ExpectUsageError({"-n", "0", "p"}, "between 1 and 4096");
  ExpectUsageError({"-n", "4097", "p"}, "between 1 and 4096");
  ExpectUsageError({"-n", "-3", "p"}, "between 1 and 4096");
  ExpectUsageError({"-n", "abc", "p"}, "whole number");
  ExpectUsageError({"-n", "3x", "p"}, "whole number");
  ExpectUsageError({"-n", "", "p"}, "whole number");
  ExpectUsageError({"-n", "99999999999999", "p"}, "whole number");
}

TEST(WeftrunOptions, MissingPieces) {
  ExpectUsageError({}, "missing -n");
  ExpectUsageError({"prog"}, "missing -n");
  ExpectUsageError({"-n", "2"}, "missing the program");
  ExpectUsageError({"-n", "2", "--"}, "missing the program");
  ExpectUsageError({"-n"}, "-n needs a value");
  ExpectUsageError({"-n", "2", "--timeout"}, "--timeout needs a value");
}

TEST(WeftrunOptions, RejectsUnknownOptionsAndBadValues) {
  ExpectUsageError({"-n", "2", "--bogus", "p"}, "unknown option '--bogus'");
  ExpectUsageError({"-x", "-n", "2", "p"}, "unknown option '-x'");
  ExpectUsageError({"-n", "2", "--no-prefix=1", "p"}, "takes no value");
  ExpectUsageError({"-n", "2", "--timeout", "0", "p"}, "--timeout expects");
  ExpectUsageError({"-n", "2", "--timeout", "-1", "p"}, "--timeout expects");
  ExpectUsageError({"-n", "2", "--timeout", "nan", "p"}, "--timeout expects");
  ExpectUsageError({"-n", "2", "--timeout", "1e30", "p"}, "--timeout expects");
  ExpectUsageError({"-n", "2", "--grace", "-1", "p"}, "--grace expects");
  ExpectUsageError({"-n", "2", "--backend=", "p"}, "--backend expects");
}

TEST(WeftrunOptions, HelpNeedsNothingElse) {
  for (const char* flag : {"-h", "--help"}) {
    const Result<Options> opts = Parse({flag});
    ASSERT_TRUE(opts.ok()) << flag;
    EXPECT_TRUE(opts->help);
  }
  EXPECT_NE(std::string(UsageText()).find("usage: weftrun -n N"), std::string::npos);
}

TEST(WeftrunOptions, PrintParamsNeedsNoRanksNorProgram) {
  const Result<Options> plain = Parse({"--print-params"});
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  EXPECT_TRUE(plain->print_params);
  EXPECT_FALSE(plain->help);
  EXPECT_FALSE(plain->backend.has_value());
  const Result<Options> named = Parse({"--print-params", "--backend", "ucx"});
  ASSERT_TRUE(named.ok()) << named.status().message();
  EXPECT_EQ(named->backend, "ucx");
  ExpectUsageError({"--print-params", "prog"}, "--print-params runs no program");
  ExpectUsageError({"--print-params=1"}, "takes no value");
}

}  // namespace
}  // namespace weft::tools
