// OpsFor: host memory gets the host operations, CUDA memory a clear kNotAvailable while no
// implementation registers (libweft-device-cuda.so not found), other devices kUnsupported;
// RegisterOps installs and removes one.
#include <gtest/gtest.h>

#include <cstring>

#include "device/host/host_ops.hpp"
#include "device/ops.hpp"
#include "tests/device/fake_device_ops.hpp"

namespace weft::device::test {
namespace {

// A DLDevice as a C caller may fill it, with any number as its type.
DLDevice Raw(int32_t type, int32_t id) {
  DLDevice d{kDLCPU, id};
  std::memcpy(&d.device_type, &type, sizeof(type));
  return d;
}

TEST(OpsFor, HostMemoryGetsTheHostOperations) {
  for (const DLDevice d : {DLDevice{kDLCPU, 0}, DLDevice{kDLCUDAHost, 0}, DLDevice{kDLCPU, 3}}) {
    auto ops = OpsFor(d);
    ASSERT_TRUE(ops.ok()) << ops.status().message();
    EXPECT_EQ(*ops, &host::HostOps::Get());
    EXPECT_STREQ((*ops)->name(), "host");
  }
}

TEST(OpsFor, CudaMemoryIsNotAvailableWithoutAnImplementation) {
  for (const DLDevice d : {DLDevice{kDLCUDA, 1}, DLDevice{kDLCUDAManaged, 0}}) {
    auto ops = OpsFor(d);
    ASSERT_FALSE(ops.ok());
    EXPECT_EQ(ops.status().code(), Code::kNotAvailable);
    const std::string& m = ops.status().message();
    EXPECT_NE(m.find("CUDA"), std::string::npos) << m;
    EXPECT_NE(m.find("device_type " + std::to_string(d.device_type)), std::string::npos) << m;
    // The library the CUDA operations come in, and where it was looked for.
    EXPECT_NE(m.find("libweft-device-cuda.so"), std::string::npos) << m;
  }
  EXPECT_NE(OpsFor({kDLCUDA, 1}).status().message().find("device_id 1"), std::string::npos);
}

TEST(OpsFor, OtherDevicesAreUnsupported) {
  for (const int32_t type : {int32_t{kDLOpenCL}, int32_t{kDLVulkan}, int32_t{kDLROCM}, 0, -1, 99}) {
    auto ops = OpsFor(Raw(type, 0));
    ASSERT_FALSE(ops.ok()) << type;
    EXPECT_EQ(ops.status().code(), Code::kUnsupported) << type;
    EXPECT_NE(ops.status().message().find("device_type " + std::to_string(type)), std::string::npos)
        << ops.status().message();
  }
}

TEST(RegisterOps, InstallsAndRemovesAnImplementation) {
  FakeDeviceOps fake(Target{{kDLCUDA, 0}, nullptr});
  {
    ScopedRegistration reg(kDLCUDA, &fake);
    ASSERT_TRUE(reg.ok());
    auto ops = OpsFor({kDLCUDA, 2});
    ASSERT_TRUE(ops.ok());
    EXPECT_EQ(*ops, &fake);
    EXPECT_EQ(OpsFor({kDLROCM, 0}).status().code(), Code::kUnsupported);  // only that type
  }
  EXPECT_EQ(OpsFor({kDLCUDA, 2}).status().code(), Code::kNotAvailable);
}

TEST(RegisterOps, RefusesHostTypesAndOutOfRangeTypes) {
  FakeDeviceOps fake(Target{});
  for (const int32_t type : {int32_t{kDLCPU}, int32_t{kDLCUDAHost}, 0, 32, -3}) {
    const Status s = RegisterOps(type, &fake);
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << type;
    EXPECT_NE(s.message().find("type " + std::to_string(type)), std::string::npos) << s.message();
  }
  EXPECT_EQ(*OpsFor({kDLCPU, 0}), &host::HostOps::Get());
}

}  // namespace
}  // namespace weft::device::test
