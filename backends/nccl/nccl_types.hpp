// NCCL's values and structures the plugin uses, with NCCL's own numbers and layouts (nccl.h,
// 2.18 and later), in a namespace: nccl_abi.hpp gives them NCCL's C names, and
// tests/backends/nccl/abi_test.cpp compares them with the real header.
#pragma once

#include <cstddef>

namespace weft::nccl {

using Result = int;    // enum ncclResult_t
using DataType = int;  // enum ncclDataType_t
using RedOp = int;     // enum ncclRedOp_t

inline constexpr Result kSuccess = 0, kUnhandledCudaError = 1, kSystemError = 2, kInternalError = 3,
                        kInvalidArgument = 4, kInvalidUsage = 5, kRemoteError = 6, kInProgress = 7;
inline constexpr DataType kInt8 = 0, kUint8 = 1, kInt32 = 2, kUint32 = 3, kInt64 = 4, kUint64 = 5,
                          kFloat16 = 6, kFloat32 = 7, kFloat64 = 8, kBfloat16 = 9, kFloat8e4m3 = 10,
                          kFloat8e5m2 = 11;
inline constexpr RedOp kSum = 0, kProd = 1, kMax = 2, kMin = 3, kAvg = 4;
inline constexpr unsigned kConfigMagic = 0xcafebeef;
inline constexpr int kConfigUndefInt = static_cast<int>(0x80000000u);  // NCCL_CONFIG_UNDEF_INT
inline constexpr int kSplitNoColor = -1;
inline constexpr unsigned kConfigVersion = 21800;  // NCCL_VERSION(2, 18, 0)

struct UniqueId {
  char internal[128];
};

// ncclConfig_t as NCCL 2.18 declared it (later versions append fields): `size` and `version`
// (kConfigVersion) tell a newer NCCL how much the caller filled, as for a program built
// against 2.18's header.
struct Config {
  size_t size;
  unsigned int magic;
  unsigned int version;
  int blocking;
  int cgaClusterSize;
  int minCTAs;
  int maxCTAs;
  const char* netName;
  int splitShare;
};

// NCCL_CONFIG_INITIALIZER for this layout: every field NCCL's default, but `blocking`.
constexpr Config MakeConfig(bool blocking) {
  return Config{sizeof(Config),  kConfigMagic,    kConfigVersion, blocking ? 1 : 0, kConfigUndefInt,
                kConfigUndefInt, kConfigUndefInt, nullptr,        kConfigUndefInt};
}

// NCCL_VERSION(major, minor, patch) for 2.9 and later.
constexpr int Version(int major, int minor, int patch) {
  return major * 10000 + minor * 100 + patch;
}

}  // namespace weft::nccl
