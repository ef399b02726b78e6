// Operator attributes: typed accessors, messages naming the attribute, and the cache key.
#include "ops/engine/attributes.hpp"

#include <gtest/gtest.h>

namespace weft::ops {
namespace {

TEST(Attributes, TypedAccessorsAndFallbacks) {
  Attributes a;
  ASSERT_TRUE(a.Set("dim", int64_t{1}).ok());
  ASSERT_TRUE(a.Set("dims", std::vector<int64_t>{0, 2}).ok());
  ASSERT_TRUE(a.Set("keepdim", true).ok());
  ASSERT_TRUE(a.Set("eps", 1e-5).ok());
  ASSERT_TRUE(a.Set("mode", std::string("mean")).ok());
  EXPECT_EQ(*a.Int("dim"), 1);
  EXPECT_EQ(*a.Ints("dims"), (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(*a.Ints("dim"), (std::vector<int64_t>{1}));  // one int is a list of one
  EXPECT_TRUE(*a.Bool("keepdim"));
  EXPECT_DOUBLE_EQ(*a.Float("eps"), 1e-5);
  EXPECT_DOUBLE_EQ(*a.Float("dim"), 1.0);
  EXPECT_EQ(*a.Text("mode"), "mean");
  EXPECT_EQ(*a.Int("missing", 7), 7);
  EXPECT_EQ(a.Describe(), "dim=1, dims=[0,2], eps=0.000010, keepdim=true, mode='mean'");
}

TEST(Attributes, ErrorsNameTheAttribute) {
  Attributes a;
  ASSERT_TRUE(a.Set("dim", std::string("x")).ok());
  auto r = a.Int("dim");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "attribute 'dim': expected int, got string");
  auto m = a.Bool("keepdim");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().message(), "attribute 'keepdim' is missing (bool)");
  Status twice = a.Set("dim", int64_t{2});
  EXPECT_EQ(twice.code(), Code::kInvalidArgument);
  EXPECT_EQ(twice.message(), "attribute 'dim' is given twice");
  EXPECT_FALSE(a.Set("", true).ok());
}

TEST(Attributes, KeyCoversOnlyTheNamedAttributesAndTheirKinds) {
  Attributes a, b, c, d;
  ASSERT_TRUE(a.Set("dim", int64_t{1}).ok());
  ASSERT_TRUE(a.Set("name", std::string("x")).ok());
  ASSERT_TRUE(b.Set("dim", int64_t{1}).ok());
  ASSERT_TRUE(b.Set("name", std::string("y")).ok());
  ASSERT_TRUE(c.Set("dim", int64_t{2}).ok());
  ASSERT_TRUE(d.Set("dim", 1.0).ok());
  const std::vector<std::string> dim = {"dim"};
  EXPECT_EQ(a.Key(dim), b.Key(dim));  // "name" is not read: it cannot split the cache
  EXPECT_NE(a.Key(dim), c.Key(dim));
  EXPECT_NE(a.Key(dim), d.Key(dim));  // an int and a float of one value differ
  EXPECT_NE(a.Key(dim), Attributes().Key(dim));
  const std::vector<std::string> both = {"dim", "name"};
  EXPECT_NE(a.Key(both), b.Key(both));
}

}  // namespace
}  // namespace weft::ops
