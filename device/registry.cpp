// Which implementation serves which device type. The host's is built in; others register.
#include <array>
#include <atomic>
#include <cstring>
#include <string>

#include "device/device_plugin.hpp"
#include "device/host/host_ops.hpp"
#include "device/ops.hpp"

namespace weft::device {
namespace {

// DLPack's device types are small positive numbers (kDLCUDAManaged = 13 in 0.6; later versions
// add a few more): room for all of them.
constexpr int32_t kTypes = 32;

std::array<std::atomic<Ops*>, kTypes>& Registered() {
  static std::array<std::atomic<Ops*>, kTypes> table{};
  return table;
}

bool IsHost(int32_t type) { return type == kDLCPU || type == kDLCUDAHost; }
bool IsCuda(int32_t type) { return type == kDLCUDA || type == kDLCUDAManaged; }

}  // namespace

const char* DeviceTypeName(int32_t type) {
  switch (type) {
    case kDLCPU:
      return "CPU";
    case kDLCUDA:
      return "CUDA";
    case kDLCUDAHost:
      return "CUDA host";
    case kDLOpenCL:
      return "OpenCL";
    case kDLVulkan:
      return "Vulkan";
    case kDLMetal:
      return "Metal";
    case kDLVPI:
      return "VPI";
    case kDLROCM:
      return "ROCm";
    case kDLROCMHost:
      return "ROCm host";
    case kDLExtDev:
      return "ExtDev";
    case kDLCUDAManaged:
      return "CUDA managed";
    default:
      return "unknown";
  }
}

Result<Ops*> OpsFor(DLDevice device) {
  // A caller's DLDevice may hold any number, not only DLDeviceType's enumerators: read it as
  // the int it is in memory.
  int32_t type = 0;
  static_assert(sizeof(device.device_type) == sizeof(type));
  std::memcpy(&type, &device.device_type, sizeof(type));
  if (IsHost(type)) return &host::HostOps::Get();
  if (type > 0 && type < kTypes)
    if (Ops* ops = Registered()[static_cast<size_t>(type)].load(std::memory_order_acquire))
      return ops;
  const std::string what = std::string(DeviceTypeName(type)) + " memory (device_type " +
                           std::to_string(type) + ", device_id " +
                           std::to_string(device.device_id) + ")";
  if (IsCuda(type)) {
    // The CUDA operations live in libweft-device-cuda.so (device_plugin.hpp): opened once, on
    // the first use of CUDA memory.
    static const Status loaded = LoadDeviceOps("cuda");
    if (loaded.ok()) {
      if (Ops* ops = Registered()[static_cast<size_t>(type)].load(std::memory_order_acquire))
        return ops;
    }
    return Status(Code::kNotAvailable,
                  "device operations for " + what + " are not available: " + loaded.message());
  }
  return Unsupported("Weft has no device operations for " + what +
                     ": it works on CPU and CUDA host memory, and on CUDA memory with the NCCL "
                     "backend");
}

Status RegisterOps(int32_t t, Ops* ops) {
  if (IsHost(t))
    return InvalidArgument("RegisterOps: type " + std::to_string(t) + " (" + DeviceTypeName(t) +
                           ") is host memory, served by the built-in host operations");
  if (t <= 0 || t >= kTypes)
    return InvalidArgument("RegisterOps: type " + std::to_string(t) + " is outside [1, " +
                           std::to_string(kTypes - 1) + "]");
  Registered()[static_cast<size_t>(t)].store(ops, std::memory_order_release);
  return Status::Ok();
}

}  // namespace weft::device
