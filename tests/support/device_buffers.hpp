// Plans, halos, collectives and checkpoints on device buffers: with WEFT_TEST_DEVICE_BUFFERS=1 the
// suites' buffers are tagged kDLCUDA and come from the CUDA runtime the NCCL plugin uses, as
// managed memory (cudaMallocManaged): the device reads and writes them, and the suites fill and
// check them on the host after waiting for the device work (SyncDevice). On a GPU that is the real
// runtime's memory; in CI it is the fake runtime's, whose allocations the fake NCCL and the
// device operations' host build check every pointer against (FAKE_CUDA_CHECK_POINTERS=1), so
// a host pointer passed to the device fails there as it would fault on a GPU.
#pragma once

#include <dlpack/dlpack.h>

#include <cstddef>
#include <memory>
#include <vector>

namespace weft::test {

// Whether this launch tags its buffers as CUDA memory.
bool DeviceBuffers();
// kDLCUDA device 0 when DeviceBuffers(), else the CPU.
DLDevice BufferDevice();
// Waits for the work enqueued on the legacy default stream (where device work without a stream
// of its own goes); nothing on host buffers.
void SyncDevice();

// Managed memory from the runtime when DeviceBuffers(), else operator new; throws on failure.
void* AllocateBuffer(size_t bytes);
void FreeBuffer(void* p) noexcept;

// An allocator of test buffers the device can use in the device launches.
template <class T>
struct BufferAllocator {
  using value_type = T;
  BufferAllocator() = default;
  template <class U>
  BufferAllocator(const BufferAllocator<U>&) noexcept {}  // NOLINT: rebinding
  T* allocate(size_t n) { return static_cast<T*>(AllocateBuffer(n * sizeof(T))); }
  void deallocate(T* p, size_t) noexcept { FreeBuffer(p); }
  template <class U>
  bool operator==(const BufferAllocator<U>&) const noexcept {
    return true;  // stateless: one kind of memory per process
  }
};

template <class T>
using Buffer = std::vector<T, BufferAllocator<T>>;

}  // namespace weft::test
