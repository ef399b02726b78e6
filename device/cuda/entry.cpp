// libweft-device-cuda.so's entry (device/device_plugin.hpp).
#include "device/cuda/cuda_ops.hpp"
#include "device/cuda/launch.hpp"
#include "device/device_plugin.hpp"

extern "C" __attribute__((visibility("default"))) const weft::device::DeviceOpsTable*
weft_device_ops_v2(void) {
  using namespace weft::device;
  static const DeviceOpsTable table = {
      sizeof(DeviceOpsTable),
      (kDeviceOpsAbiMajor << 16) | kDeviceOpsAbiMinor,
      "cuda",
      kDLCUDA,
      0,
      &cuda::CudaOps::Get(),
      cuda::KernelBuild(),
  };
  return &table;
}
