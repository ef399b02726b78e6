// Our declarations of NCCL's and the CUDA runtime's ABI (backends/nccl/*_types.hpp) against
// the real headers, where the build found them (compile-time checks: a difference fails the
// build). Without the headers the values are still exercised against the fakes (api_test).
#include <gtest/gtest.h>

#include <cstddef>

#include "backends/nccl/nccl_types.hpp"
#include "device/cuda/cuda_types.hpp"

#ifdef WEFT_HAVE_REAL_NCCL_H
#include <driver_types.h>
#include <nccl.h>

namespace weft::nccl {
static_assert(kSuccess == ncclSuccess && kUnhandledCudaError == ncclUnhandledCudaError &&
              kSystemError == ncclSystemError && kInternalError == ncclInternalError &&
              kInvalidArgument == ncclInvalidArgument && kInvalidUsage == ncclInvalidUsage &&
              kRemoteError == ncclRemoteError && kInProgress == ncclInProgress);
static_assert(kInt8 == ncclInt8 && kUint8 == ncclUint8 && kInt32 == ncclInt32 &&
              kUint32 == ncclUint32 && kInt64 == ncclInt64 && kUint64 == ncclUint64 &&
              kFloat16 == ncclFloat16 && kFloat32 == ncclFloat32 && kFloat64 == ncclFloat64 &&
              kBfloat16 == ncclBfloat16);
static_assert(kSum == ncclSum && kProd == ncclProd && kMax == ncclMax && kMin == ncclMin &&
              kAvg == ncclAvg);
static_assert(kConfigUndefInt == NCCL_CONFIG_UNDEF_INT && kSplitNoColor == NCCL_SPLIT_NOCOLOR);
static_assert(kConfigVersion == NCCL_VERSION(2, 18, 0));
static_assert(Version(2, 28, 9) == NCCL_VERSION(2, 28, 9));
static_assert(sizeof(UniqueId) == sizeof(ncclUniqueId));
// Our Config is the front of ncclConfig_t, field for field.
static_assert(offsetof(Config, magic) == offsetof(ncclConfig_t, magic) &&
              offsetof(Config, version) == offsetof(ncclConfig_t, version) &&
              offsetof(Config, blocking) == offsetof(ncclConfig_t, blocking) &&
              offsetof(Config, maxCTAs) == offsetof(ncclConfig_t, maxCTAs) &&
              offsetof(Config, netName) == offsetof(ncclConfig_t, netName) &&
              offsetof(Config, splitShare) == offsetof(ncclConfig_t, splitShare) &&
              sizeof(Config) <= sizeof(ncclConfig_t));
}  // namespace weft::nccl

namespace weft::cuda {
static_assert(kSuccess == cudaSuccess && kErrorInvalidValue == cudaErrorInvalidValue &&
              kErrorMemoryAllocation == cudaErrorMemoryAllocation &&
              kErrorInsufficientDriver == cudaErrorInsufficientDriver &&
              kErrorNoDevice == cudaErrorNoDevice &&
              kErrorInvalidDevice == cudaErrorInvalidDevice &&
              kErrorInvalidResourceHandle == cudaErrorInvalidResourceHandle &&
              kErrorNotReady == cudaErrorNotReady);
static_assert(kMemoryTypeUnregistered == cudaMemoryTypeUnregistered &&
              kMemoryTypeHost == cudaMemoryTypeHost && kMemoryTypeDevice == cudaMemoryTypeDevice &&
              kMemoryTypeManaged == cudaMemoryTypeManaged);
static_assert(kMemcpyHostToHost == cudaMemcpyHostToHost &&
              kMemcpyHostToDevice == cudaMemcpyHostToDevice &&
              kMemcpyDeviceToHost == cudaMemcpyDeviceToHost &&
              kMemcpyDeviceToDevice == cudaMemcpyDeviceToDevice &&
              kMemcpyDefault == cudaMemcpyDefault);
static_assert(kStreamNonBlocking == cudaStreamNonBlocking &&
              kEventDisableTiming == cudaEventDisableTiming);
static_assert(sizeof(PointerAttributes) == sizeof(cudaPointerAttributes) &&
              offsetof(PointerAttributes, device) == offsetof(cudaPointerAttributes, device) &&
              offsetof(PointerAttributes, devicePointer) ==
                  offsetof(cudaPointerAttributes, devicePointer));
}  // namespace weft::cuda
#endif

namespace {

TEST(NcclAbi, DeclarationsMatchTheRealHeadersWhereBuilt) {
#ifdef WEFT_HAVE_REAL_NCCL_H
  // The static_asserts above ran; here what only run time shows: the header's own version,
  // and that MakeConfig's defaults are NCCL_CONFIG_INITIALIZER's (blocking and the version
  // aside: ours names the layout it fills).
  EXPECT_GE(NCCL_VERSION_CODE, weft::nccl::Version(2, 18, 0));
  const ncclConfig_t real = NCCL_CONFIG_INITIALIZER;
  const weft::nccl::Config ours = weft::nccl::MakeConfig(false);
  EXPECT_EQ(ours.magic, real.magic);
  EXPECT_EQ(ours.cgaClusterSize, real.cgaClusterSize);
  EXPECT_EQ(ours.minCTAs, real.minCTAs);
  EXPECT_EQ(ours.maxCTAs, real.maxCTAs);
  EXPECT_EQ(ours.netName, real.netName);
  EXPECT_EQ(ours.splitShare, real.splitShare);
  EXPECT_EQ(ours.blocking, 0);
  EXPECT_EQ(weft::nccl::MakeConfig(true).blocking, 1);
#else
  // No header on this machine: the layouts at least are what NCCL documents.
  EXPECT_EQ(sizeof(weft::nccl::UniqueId), 128u);
#endif
  EXPECT_EQ(offsetof(weft::nccl::Config, splitShare), 40u);  // x86-64 and aarch64 alike
}

}  // namespace
