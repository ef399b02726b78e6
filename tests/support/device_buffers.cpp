#include "tests/support/device_buffers.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

namespace weft::test {
namespace {

// The runtime the NCCL plugin and the device operations use (the fake one in CI).
void* Symbol(const char* name) {
  static void* const lib = [] {
    const char* path = std::getenv("WEFT_CUDART_LIBRARY");
    void* h = dlopen(path ? path : "libcudart.so.13", RTLD_NOW | RTLD_GLOBAL);
    if (!h) throw std::runtime_error(std::string("device buffers: ") + dlerror());
    return h;
  }();
  void* s = dlsym(lib, name);
  if (!s) throw std::runtime_error(std::string("device buffers: no ") + name);
  return s;
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
  using Sync = int (*)();
  static const auto sync = reinterpret_cast<Sync>(Symbol("cudaDeviceSynchronize"));
  if (sync() != 0) throw std::runtime_error("SyncDevice: cudaDeviceSynchronize failed");
}

void* AllocateBuffer(size_t bytes) {
  if (!DeviceBuffers()) return ::operator new(bytes);
  using Alloc = int (*)(void**, size_t, unsigned);
  static const auto alloc = reinterpret_cast<Alloc>(Symbol("cudaMallocManaged"));
  void* p = nullptr;
  // One byte at least: a zero-size allocation may give a null pointer.
  if (alloc(&p, bytes ? bytes : 1, kAttachGlobal) != 0 || !p) throw std::bad_alloc();
  return p;
}

void FreeBuffer(void* p) noexcept {
  if (!p) return;
  if (!DeviceBuffers()) return ::operator delete(p);
  using Free = int (*)(void*);
  static const auto free_fn = reinterpret_cast<Free>(Symbol("cudaFree"));
  // Work still queued on the buffer finishes first, as the suites' RAII owners assume.
  SyncDevice();
  free_fn(p);
}

}  // namespace weft::test
