// The plugin kit (common/plugin_kit/): entry trampolines, deadlines and argument checks, built
// here without any Weft library, as a plugin would include them.
#include <gtest/gtest.h>

#include <climits>
#include <cstring>
#include <stdexcept>
#include <string>
#include <system_error>

#include "common/plugin_kit/deadline.hpp"
#include "common/plugin_kit/entry.hpp"
#include "common/plugin_kit/op_args.hpp"

namespace weft::plugin_kit {
namespace {

using std::chrono::milliseconds;

template <typename E>
Failure Caught(E e) {
  Failure seen;
  const weft_status_t s = Guard([&]() -> weft_status_t { throw e; },
                                [&](const Failure& f) {
                                  seen = f;
                                  return f.status;
                                });
  EXPECT_EQ(s, seen.status);
  return seen;
}

TEST(PluginKitEntry, EachExceptionBecomesItsStatusAndMessage) {
  EXPECT_EQ(Guard([] { return WEFT_ERR_TIMEOUT; }), WEFT_ERR_TIMEOUT);  // no exception: as is
  const Failure oom = Caught(std::bad_alloc());
  EXPECT_EQ(oom.status, WEFT_ERR_OUT_OF_MEMORY);
  EXPECT_EQ(oom.message, "out of memory");
  const Failure sys = Caught(std::system_error(std::make_error_code(std::errc::broken_pipe), "w"));
  EXPECT_EQ(sys.status, WEFT_ERR_SYSTEM);
  EXPECT_NE(sys.message.find("w: "), std::string::npos) << sys.message;
  const Failure other = Caught(std::runtime_error("it broke"));
  EXPECT_EQ(other.status, WEFT_ERR_INTERNAL);
  EXPECT_EQ(other.message, "it broke");
  const Failure odd = Caught(42);
  EXPECT_EQ(odd.status, WEFT_ERR_INTERNAL);
  EXPECT_EQ(odd.message, "unknown exception");
}

TEST(PluginKitEntry, APluginClassifiesItsLibrarysExceptions) {
  Failure seen;
  const weft_status_t s = Guard([]() -> weft_status_t { throw std::logic_error("bad pair"); },
                                [&](const Failure& f) {
                                  seen = f;
                                  return f.status;
                                },
                                [] { return ClassifyCurrentException(WEFT_ERR_BACKEND, "Lib: "); });
  EXPECT_EQ(s, WEFT_ERR_BACKEND);
  EXPECT_EQ(seen.message, "Lib: bad pair");
}

TEST(PluginKitEntry, AFailingReportStillGivesTheStatus) {
  const weft_status_t s = Guard([]() -> weft_status_t { throw std::bad_alloc(); },
                                [](const Failure&) -> weft_status_t { throw 1; });
  EXPECT_EQ(s, WEFT_ERR_OUT_OF_MEMORY);
  bool ran = false;
  GuardVoid([&] {
    ran = true;
    throw std::runtime_error("dropped");
  });
  EXPECT_TRUE(ran);
}

int calls = 0;
weft_status_t Throws(int32_t a, const char* b) {
  ++calls;
  if (a < 0) throw std::runtime_error(b);
  return a == 0 ? WEFT_OK : WEFT_ERR_INVALID_ARGUMENT;
}

TEST(PluginKitEntry, EntryKeepsTheSignatureAndCatches) {
  using Fn = weft_status_t (*)(int32_t, const char*);
  constexpr Fn fn = &Entry<Throws>::Call;
  static_assert(noexcept(Entry<Throws>::Call(0, "")));
  calls = 0;
  EXPECT_EQ(fn(0, "x"), WEFT_OK);
  EXPECT_EQ(fn(1, "x"), WEFT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(fn(-1, "x"), WEFT_ERR_INTERNAL);
  EXPECT_EQ(calls, 3);
}

TEST(PluginKitDeadline, NegativeIsNoneZeroIsDueNow) {
  const Deadline none = Deadline::FromTimeoutMs(-1);
  EXPECT_TRUE(none.none());
  EXPECT_FALSE(none.passed());
  EXPECT_EQ(none.when(), Clock::time_point::max());
  EXPECT_EQ(none.RemainingMs(), -1);
  EXPECT_EQ(none.Remaining(milliseconds(1), milliseconds(77)), milliseconds(77));
  const Deadline now = Deadline::FromTimeoutMs(0);
  EXPECT_FALSE(now.none());
  EXPECT_TRUE(now.passed());
  EXPECT_EQ(now.RemainingMs(), 0);
  EXPECT_EQ(now.Remaining(milliseconds(1), milliseconds(77)), milliseconds(1));
}

TEST(PluginKitDeadline, RemainingCountsDownAndHugeTimeoutsSaturate) {
  const auto before = Clock::now();
  const Deadline d = Deadline::FromTimeoutMs(10000);
  EXPECT_GE(d.when(), before + milliseconds(10000));
  EXPECT_LE(d.RemainingMs(), 10000);
  EXPECT_GT(d.RemainingMs(), 9000);
  EXPECT_EQ(d.Remaining(milliseconds(1), milliseconds(500)), milliseconds(500));
  const Deadline huge = Deadline::FromTimeoutMs(INT64_MAX);
  EXPECT_FALSE(huge.none());
  EXPECT_FALSE(huge.passed());  // an overflow would have put it in the past
  EXPECT_GT(huge.when(), Clock::now() + std::chrono::hours(24 * 365));
}

TEST(PluginKitOpArgs, OlderAndAbsentArgsGetDefaults) {
  const weft_bk_op_t none = ReadOpArgs(nullptr, 250);
  EXPECT_EQ(none.timeout_ms, 250);
  EXPECT_EQ(none.device.device_type, kDLCPU);
  EXPECT_EQ(none.seq, 0u);
  EXPECT_EQ(none.struct_size, sizeof(weft_bk_op_t));
  // A 1.0 host's struct ends at seq: what lies after it is not read.
  weft_bk_op_t v10;
  std::memset(&v10, 0xab, sizeof(v10));
  v10.struct_size = WEFT_BK_OP_V1_0_SIZE;
  v10.device = DLDevice{kDLCUDAHost, 3};
  v10.timeout_ms = 7;
  v10.seq = 9;
  const weft_bk_op_t read = ReadOpArgs(&v10, 250);
  EXPECT_EQ(read.timeout_ms, 7);
  EXPECT_EQ(read.seq, 9u);
  EXPECT_EQ(read.device.device_id, 3);
  EXPECT_EQ(read.flags, 0u);
  EXPECT_EQ(read.struct_size, sizeof(weft_bk_op_t));
  weft_bk_op_t full = v10;
  full.struct_size = sizeof(full);
  full.flags = WEFT_BK_OP_UNVERIFIED_SIZE;
  EXPECT_EQ(ReadOpArgs(&full, 250).flags, WEFT_BK_OP_UNVERIFIED_SIZE);
}

TEST(PluginKitOpArgs, HostMemoryItemsAndBuffers) {
  EXPECT_TRUE(IsHostMemory(nullptr));
  weft_bk_op_t a = ReadOpArgs(nullptr, -1);
  EXPECT_TRUE(IsHostMemory(&a));
  a.device = DLDevice{kDLCUDAHost, 0};
  EXPECT_TRUE(IsHostMemory(&a));
  a.device = DLDevice{kDLCUDA, 0};
  EXPECT_FALSE(IsHostMemory(&a));

  uint64_t item = 0;
  EXPECT_TRUE(ItemBytes(DLDataType{kDLFloat, 32, 0}, &item));
  EXPECT_EQ(item, 4u);
  EXPECT_TRUE(ItemBytes(DLDataType{kDLFloat, 16, 4}, &item));
  EXPECT_EQ(item, 8u);
  EXPECT_FALSE(ItemBytes(DLDataType{kDLInt, 12, 1}, &item));
  EXPECT_FALSE(ItemBytes(DLDataType{kDLInt, 0, 1}, &item));

  uint64_t bytes = 0;
  int x = 0;
  EXPECT_EQ(CheckBuffer(&x, 3, 8, &bytes), BufferCheck::kOk);
  EXPECT_EQ(bytes, 24u);
  EXPECT_EQ(CheckBuffer(nullptr, 0, 8, &bytes), BufferCheck::kOk);  // empty: NULL is fine
  EXPECT_EQ(CheckBuffer(nullptr, 1, 8, &bytes), BufferCheck::kNull);
  EXPECT_EQ(CheckBuffer(&x, (UINT64_MAX / 8) + 1, 8, &bytes), BufferCheck::kOverflow);
}

}  // namespace
}  // namespace weft::plugin_kit
