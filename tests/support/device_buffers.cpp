#include "tests/support/device_buffers.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

namespace weft::test {

bool DeviceBuffers() {
  static const bool on = [] {
    const char* v = std::getenv("WEFT_TEST_DEVICE_BUFFERS");
    return v && std::strcmp(v, "1") == 0;
  }();
  return on;
}

DLDevice BufferDevice() { return DeviceBuffers() ? DLDevice{kDLCUDA, 0} : DLDevice{kDLCPU, 0}; }

void SyncDevice() {
  if (!DeviceBuffers()) return;
  // The runtime the NCCL plugin and the device operations use (the fake one in CI).
  using Sync = int (*)();
  static const Sync sync = [] {
    const char* lib = std::getenv("WEFT_CUDART_LIBRARY");
    void* h = dlopen(lib ? lib : "libcudart.so.13", RTLD_NOW | RTLD_GLOBAL);
    if (!h) throw std::runtime_error(std::string("SyncDevice: ") + dlerror());
    return reinterpret_cast<Sync>(dlsym(h, "cudaDeviceSynchronize"));
  }();
  if (!sync || sync() != 0) throw std::runtime_error("SyncDevice: cudaDeviceSynchronize failed");
}

}  // namespace weft::test
