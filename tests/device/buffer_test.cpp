// Buffer owns one allocation on its device; Workspace grows to the largest request, keeps its
// memory across requests, moves to another device when asked, and passes allocation errors on.
#include <gtest/gtest.h>

#include <cstring>

#include "device/buffer.hpp"
#include "device/queue.hpp"
#include "tests/device/fake_device_ops.hpp"

namespace weft::device::test {
namespace {

const Target kFake{{kDLExtDev, 0}, reinterpret_cast<Stream>(0x10)};

TEST(Buffer, OwnsOneAllocationAndFreesItOnce) {
  FakeDeviceOps fake(kFake);
  {
    auto b = Buffer::Allocate(fake, kFake, 100);
    ASSERT_TRUE(b.ok());
    EXPECT_EQ(b->size(), 100u);
    EXPECT_EQ(b->target().device.device_type, kDLExtDev);
    std::memset(b->data(), 1, 100);  // it is real memory
    Buffer moved = std::move(*b);
    EXPECT_EQ(b->data(), nullptr);
    EXPECT_EQ(b->size(), 0u);
    EXPECT_EQ(moved.size(), 100u);
    Buffer other;
    other = std::move(moved);
    EXPECT_EQ(fake.frees, 0);
    other.Reset();
    EXPECT_EQ(fake.frees, 1);
    other.Reset();
  }
  EXPECT_EQ(fake.allocs, 1);
  EXPECT_EQ(fake.frees, 1);
  EXPECT_EQ(fake.live_bytes, 0);
  EXPECT_EQ(fake.wrong_target, 0);
}

TEST(Buffer, ZeroBytesAllocateNothing) {
  FakeDeviceOps fake(kFake);
  auto b = Buffer::Allocate(fake, kFake, 0);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->data(), nullptr);
  EXPECT_EQ(fake.allocs, 0);
}

TEST(Workspace, GrowsToTheLargestRequestAndNeverShrinks) {
  FakeDeviceOps fake(kFake);
  {
    Workspace ws;
    auto p0 = ws.Reserve(fake, kFake, 0);
    ASSERT_TRUE(p0.ok());
    EXPECT_EQ(*p0, nullptr);  // nothing asked for yet: nothing allocated
    EXPECT_EQ(fake.allocs, 0);
    auto p1 = ws.Reserve(fake, kFake, 1000);
    ASSERT_TRUE(p1.ok());
    std::memset(*p1, 7, 1000);
    auto p2 = ws.Reserve(fake, kFake, 10);  // fits: the same memory
    ASSERT_TRUE(p2.ok());
    EXPECT_EQ(*p2, *p1);
    EXPECT_EQ(ws.capacity(), 1000u);
    auto p3 = ws.Reserve(fake, kFake, 0);
    EXPECT_EQ(*p3, *p1);
    auto p4 = ws.Reserve(fake, kFake, 4000);  // grows: old freed first, then the new
    ASSERT_TRUE(p4.ok());
    EXPECT_EQ(ws.capacity(), 4000u);
    EXPECT_EQ(fake.allocs, 2);
    EXPECT_EQ(fake.frees, 1);
    EXPECT_EQ(fake.live_bytes, 4000);
  }
  EXPECT_EQ(fake.frees, 2);
  EXPECT_EQ(fake.live_bytes, 0);
  EXPECT_EQ(fake.wrong_target, 0);
}

TEST(Workspace, MovesToTheDeviceItIsAskedFor) {
  FakeDeviceOps fake(kFake);
  Workspace ws;
  const Queue host(**OpsFor({kDLCPU, 0}), Target{});
  auto h = host.Reserve(ws, 64);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(ws.device().device_type, kDLCPU);
  auto d = ws.Reserve(fake, kFake, 16);  // smaller, but on another device
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(ws.device().device_type, kDLExtDev);
  EXPECT_EQ(fake.allocs, 1);
  EXPECT_EQ(ws.capacity(), 16u);
}

// Memory reused on another stream waits for the old stream's work first, then belongs to the
// new stream (its frees go there).
TEST(Workspace, ReuseOnAnotherStreamWaitsForTheOldStream) {
  FakeDeviceOps fake(kFake);
  const Target other{kFake.device, reinterpret_cast<Stream>(0x20)};
  {
    Workspace ws;
    ASSERT_TRUE(ws.Reserve(fake, kFake, 100).ok());
    ASSERT_TRUE(ws.Reserve(fake, kFake, 50).ok());
    EXPECT_EQ(fake.syncs, 0);  // same stream: ordered there already
    auto p = ws.Reserve(fake, other, 80);
    ASSERT_TRUE(p.ok());
    EXPECT_EQ(fake.syncs, 1);  // on the old stream (kFake: not a wrong target)
    EXPECT_EQ(fake.wrong_target, 0);
    EXPECT_EQ(ws.stream(), other.stream);
    EXPECT_EQ(fake.allocs, 1);  // the same memory
  }
  EXPECT_EQ(fake.frees, 1);
  EXPECT_EQ(fake.wrong_target, 1);  // the free, on the new stream
}

TEST(Workspace, AllocationErrorsPropagateAndLeaveItEmpty) {
  FakeDeviceOps fake(kFake);
  fake.fail_allocations_from = 1 << 20;
  Workspace ws;
  ASSERT_TRUE(ws.Reserve(fake, kFake, 100).ok());
  auto big = ws.Reserve(fake, kFake, 1 << 20);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().code(), Code::kOutOfMemory);
  EXPECT_EQ(ws.capacity(), 0u);
  EXPECT_EQ(fake.live_bytes, 0);
  auto again = ws.Reserve(fake, kFake, 10);  // still usable
  ASSERT_TRUE(again.ok());
  EXPECT_NE(*again, nullptr);
}

TEST(Queue, ForUnsupportedDevicesFailsWithOpsForsError) {
  auto q = Queue::For({kDLCUDA, 0}, nullptr);
  ASSERT_FALSE(q.ok());
  EXPECT_EQ(q.status().code(), Code::kNotAvailable);
  auto h = Queue::For({kDLCPU, 0}, nullptr);
  ASSERT_TRUE(h.ok());
  auto b = h->Allocate(8);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->size(), 8u);
}

}  // namespace
}  // namespace weft::device::test
