// Status keeps its code and message through copies and moves; ok costs no allocation, and
// neither does a code without a message.
#include "common/status.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "common/result.hpp"

namespace {

using weft::Code;
using weft::Status;

TEST(Status, OkHasNoCodeAndNoMessage) {
  const Status s = Status::Ok();
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.code(), Code::kOk);
  EXPECT_EQ(s.message(), "");
  EXPECT_TRUE(Status(Code::kOk, "").ok());
}

TEST(Status, ErrorsKeepCodeAndMessageThroughCopiesAndMoves) {
  const Status e = weft::InvalidArgument("send is NULL");
  EXPECT_FALSE(e.ok());
  Status copy = e;
  EXPECT_EQ(copy.code(), Code::kInvalidArgument);
  EXPECT_EQ(copy.message(), "send is NULL");
  EXPECT_EQ(e.message(), "send is NULL");  // a deep copy: the source is intact
  Status moved = std::move(copy);
  EXPECT_EQ(moved.code(), Code::kInvalidArgument);
  EXPECT_EQ(moved.message(), "send is NULL");
  Status assigned;
  assigned = moved;
  EXPECT_EQ(assigned.message(), "send is NULL");
  assigned = Status::Ok();
  EXPECT_TRUE(assigned.ok());
}

TEST(Status, ACodeWithoutMessageIsNotOk) {
  const Status p(Code::kInProgress, "");
  EXPECT_FALSE(p.ok());
  EXPECT_EQ(p.code(), Code::kInProgress);
  EXPECT_EQ(p.message(), "");
  Status copy = p;
  EXPECT_EQ(copy.code(), Code::kInProgress);
  copy = weft::Internal("x");
  EXPECT_EQ(copy.code(), Code::kInternal);
  copy = p;  // back to a bare code: the message goes
  EXPECT_EQ(copy.code(), Code::kInProgress);
  EXPECT_EQ(copy.message(), "");
}

TEST(Status, ResultCarriesTheError) {
  const weft::Result<int> r = Status(Code::kTimeout, "late");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kTimeout);
  EXPECT_EQ(r.status().message(), "late");
}

TEST(Status, ResultWithAValueIsOk) {
  const weft::Result<std::string> v = std::string("seven");
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v.status().ok());
  EXPECT_EQ(*v, "seven");
}

}  // namespace
