// Device operations that live in a library of their own (device/README.md): the CUDA
// implementation needs nvcc and the CUDA runtime, which libweft must not link (it runs on
// machines without either), so libweft-device-cuda.so carries it and the registry opens it
// with the one plugin loader (common/plugin_loader.hpp) the first time CUDA memory is used.
//
// Unlike the backend and rule plugins this is no public ABI: both sides are built from the same
// tree, so the table hands over a C++ Ops object. The version guards against a stale library
// left on WEFT_PLUGIN_PATH.
#pragma once

#include <cstdint>

#include "device/ops.hpp"

namespace weft::device {

inline constexpr uint32_t kDeviceOpsAbiMajor = 2;  // 2: ToHost, FromHost, Synchronize
inline constexpr uint32_t kDeviceOpsAbiMinor = 0;

struct DeviceOpsTable {
  uint32_t struct_size;
  uint32_t abi_version;  // kDeviceOpsAbiMajor << 16 | kDeviceOpsAbiMinor
  const char* name;      // "cuda"
  int32_t device_type;   // the DLDeviceType whose memory `ops` serves
  int32_t reserved;
  Ops* ops;           // static storage
  const char* build;  // what the operations run on: "CUDA kernels", "host loops (fake runtime)"
};

// Opens libweft-device-<name>.so (WEFT_PLUGIN_PATH, then next to libweft) and registers its
// operations; kNotAvailable with the loader's reasons when it cannot.
Status LoadDeviceOps(const char* name);

}  // namespace weft::device

// The entry symbol such a library exports.
extern "C" const weft::device::DeviceOpsTable* weft_device_ops_v2(void);
