#include "tests/support/device_buffers.hpp"

#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

#include "backends/nccl/cuda_api.hpp"

namespace weft::test {
namespace {

using backends::nccl_plugin::CudaApi;

// The runtime the NCCL plugin and the device operations use (the fake one in CI), through
// their table; kept to the process's end (reachable), since buffers may be freed by static
// destructors.
const CudaApi& Runtime() {
  static const CudaApi* const api = [] {
    std::string why;
    std::unique_ptr<CudaApi> a = CudaApi::Load(&why);
    if (!a) throw std::runtime_error("device buffers: " + why);
    return a.release();
  }();
  return *api;
}

constexpr unsigned kAttachGlobal = 1;  // cudaMemAttachGlobal

}  // namespace

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
  if (Runtime().DeviceSynchronize() != 0)
    throw std::runtime_error("SyncDevice: cudaDeviceSynchronize failed");
}

void* AllocateBuffer(size_t bytes) {
  if (!DeviceBuffers()) return ::operator new(bytes);
  void* p = nullptr;
  // One byte at least: a zero-size allocation may give a null pointer.
  if (Runtime().MallocManaged(&p, bytes ? bytes : 1, kAttachGlobal) != 0 || !p)
    throw std::bad_alloc();
  return p;
}

void FreeBuffer(void* p) noexcept {
  if (!p) return;
  if (!DeviceBuffers()) return ::operator delete(p);
  // Work still queued on the buffer finishes first, as the suites' RAII owners assume.
  SyncDevice();
  Runtime().Free(p);
}

}  // namespace weft::test
