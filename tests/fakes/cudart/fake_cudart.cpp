// A fake CUDA runtime for machines without a GPU: "device" memory is host memory the fake
// keeps a table of, a stream is an ordered queue of host work run by a thread of its own, an
// event marks a position in a stream's queue. It implements the declarations of
// device/cuda/cuda_abi.hpp with the runtime's semantics, so that the NCCL plugin and the
// device operations run unchanged against it (and the fake NCCL enqueues its operations with
// cudaLaunchHostFunc, as a host-side library would on the real runtime).
//
// Copies with pageable host memory keep the runtime's rule: they return only once the stream
// has run them (the runtime stages them itself), while page-locked memory (cudaMallocHost)
// copies as asynchronously as device memory does.
//
// Devices: one, or none where CUDA_VISIBLE_DEVICES is empty or "-1" (as the real runtime
// reads it); FAKE_CUDA_DEVICES=N sets the count.
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "device/cuda/cuda_abi.hpp"

using namespace weft::cuda;  // NOLINT: the runtime's values

struct CUstream_st {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::function<void()>> queue;
  uint64_t enqueued = 0, completed = 0;
  bool stop = false;
  std::thread worker;

  CUstream_st() : worker([this] { Run(); }) {}
  ~CUstream_st() { Retire(); }

  // cudaStreamDestroy: the queued work runs to the end, then the thread stops. The object
  // stays (see Graveyard): events recorded on the stream stay valid after it, as on the real
  // runtime, and work still handed to it runs at once on the caller's thread.
  void Retire() {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (stop) return;
      stop = true;
    }
    cv.notify_all();
    worker.join();
  }

  uint64_t Enqueue(std::function<void()> work) {
    std::unique_lock<std::mutex> lock(mu);
    if (stop) {
      const uint64_t ticket = ++enqueued;
      lock.unlock();
      work();
      lock.lock();
      ++completed;
      cv.notify_all();
      return ticket;
    }
    queue.push_back(std::move(work));
    cv.notify_all();
    return ++enqueued;
  }
  void WaitFor(uint64_t ticket) {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return completed >= ticket; });
  }
  bool Reached(uint64_t ticket) {
    std::lock_guard<std::mutex> lock(mu);
    return completed >= ticket;
  }

 private:
  // Runs the queue in order; work already queued still runs when the stream is destroyed
  // (cudaStreamDestroy returns at once and the device finishes the stream's work).
  void Run() {
    std::unique_lock<std::mutex> lock(mu);
    while (true) {
      cv.wait(lock, [&] { return stop || !queue.empty(); });
      if (queue.empty()) return;
      std::function<void()> work = std::move(queue.front());
      queue.pop_front();
      lock.unlock();
      work();
      lock.lock();
      ++completed;
      cv.notify_all();
    }
  }
};

struct CUevent_st {
  std::mutex mu;
  cudaStream_t stream = nullptr;  // null: never recorded (complete)
  uint64_t ticket = 0;
};

namespace {

thread_local cudaError_t last_error = kSuccess;
thread_local int current_device = 0;

cudaError_t Fail(cudaError_t e) {
  last_error = e;
  return e;
}

int DeviceCount() {
  if (const char* n = std::getenv("FAKE_CUDA_DEVICES")) return std::atoi(n);
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  if (visible && (visible[0] == '\0' || std::strcmp(visible, "-1") == 0)) return 0;
  return 1;
}

cudaError_t CheckDevice() { return DeviceCount() > 0 ? kSuccess : Fail(kErrorNoDevice); }

// Allocations by base address, for cudaPointerGetAttributes (which must also answer for a
// pointer inside an allocation).
std::mutex alloc_mu;
struct Allocation {
  size_t bytes = 0;
  int type = kMemoryTypeDevice;
};
std::map<uintptr_t, Allocation>& Allocations() {
  static auto* m = new std::map<uintptr_t, Allocation>();  // outlives static destructors
  return *m;
}

// The allocation holding [p, p + bytes), or null.
const Allocation* Holding(uintptr_t p, size_t bytes) {
  auto it = Allocations().upper_bound(p);
  if (it == Allocations().begin()) return nullptr;
  --it;
  return p + bytes <= it->first + it->second.bytes ? &it->second : nullptr;
}

cudaError_t Allocate(void** ptr, size_t bytes, int type) {
  if (!ptr) return Fail(kErrorInvalidValue);
  if (cudaError_t e = CheckDevice()) return e;
  // 256-byte alignment, as cudaMalloc guarantees; at least one byte so the base is unique.
  void* p = std::aligned_alloc(256, (bytes + 255) / 256 * 256 + 256);
  if (!p) return Fail(kErrorMemoryAllocation);
  std::lock_guard<std::mutex> lock(alloc_mu);
  Allocations()[reinterpret_cast<uintptr_t>(p)] = Allocation{bytes, type};
  *ptr = p;
  return kSuccess;
}

// FAKE_CUDA_CHECK_POINTERS=1: a pointer of no allocation is host memory, never a device
// buffer in disguise (fakeCudaIsDeviceRange).
bool CheckPointers() {
  static const bool check = [] {
    const char* v = std::getenv("FAKE_CUDA_CHECK_POINTERS");
    return v && std::strcmp(v, "1") == 0;
  }();
  return check;
}

// cudaFree frees device and managed memory, cudaFreeHost page-locked memory: each refuses
// the other's, as the real runtime does.
cudaError_t Release(void* ptr, int freer) {
  if (!ptr) return kSuccess;
  {
    std::lock_guard<std::mutex> lock(alloc_mu);
    auto it = Allocations().find(reinterpret_cast<uintptr_t>(ptr));
    if (it == Allocations().end() ||
        (it->second.type == kMemoryTypeHost) != (freer == kMemoryTypeHost))
      return Fail(kErrorInvalidValue);
    Allocations().erase(it);
  }
  std::free(ptr);
  return kSuccess;
}

// Whether `p` is pageable host memory: memory of no allocation of the fake. Without
// FAKE_CUDA_CHECK_POINTERS a test's host buffers may stand for device memory, so only a copy
// whose kind names the host side says so then.
bool Pageable(const void* p, bool named_host) {
  if (!named_host && !CheckPointers()) return false;
  std::lock_guard<std::mutex> lock(alloc_mu);
  return Holding(reinterpret_cast<uintptr_t>(p), 1) == nullptr;
}

// The real runtime stages a copy to or from pageable memory itself: it synchronises the
// stream first and returns once the pageable side is done with (for a copy to the host, once
// the copy has completed). Here such a copy returns when it has run, which keeps both rules:
// a caller that enqueues one behind a kernel waiting for a peer blocks, as on a GPU.
bool CopyBlocks(void* dst, const void* src, int kind) {
  const bool src_host = kind == kMemcpyHostToDevice || kind == kMemcpyHostToHost;
  const bool dst_host = kind == kMemcpyDeviceToHost || kind == kMemcpyHostToHost;
  const bool by_address = kind == kMemcpyDefault;
  return ((src_host || by_address) && Pageable(src, src_host)) ||
         ((dst_host || by_address) && Pageable(dst, dst_host));
}

// Destroyed streams, kept for the events recorded on them (reachable: not a leak to LSan).
std::mutex graveyard_mu;
std::vector<cudaStream_t>& Graveyard() {
  static auto* g = new std::vector<cudaStream_t>();
  return *g;
}

// The legacy default stream (stream 0): created on first use, never destroyed.
cudaStream_t Resolve(cudaStream_t s) {
  static auto* legacy = new CUstream_st();
  return s ? s : legacy;
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) cudaError_t cudaGetDeviceCount(int* count) {
  if (!count) return Fail(kErrorInvalidValue);
  *count = DeviceCount();
  return *count > 0 ? kSuccess : Fail(kErrorNoDevice);
}

__attribute__((visibility("default"))) cudaError_t cudaSetDevice(int device) {
  if (device < 0 || device >= DeviceCount()) return Fail(kErrorInvalidDevice);
  current_device = device;
  return kSuccess;
}

__attribute__((visibility("default"))) cudaError_t cudaGetDevice(int* device) {
  if (!device) return Fail(kErrorInvalidValue);
  if (cudaError_t e = CheckDevice()) return e;
  *device = current_device;
  return kSuccess;
}

__attribute__((visibility("default"))) cudaError_t cudaRuntimeGetVersion(int* v) {
  if (!v) return Fail(kErrorInvalidValue);
  *v = 13000;
  return kSuccess;
}

__attribute__((visibility("default"))) cudaError_t cudaDriverGetVersion(int* v) {
  if (!v) return Fail(kErrorInvalidValue);
  *v = DeviceCount() > 0 ? 13000 : 0;
  return kSuccess;
}

__attribute__((visibility("default"))) const char* cudaGetErrorString(cudaError_t e) {
  switch (e) {
    case kSuccess:
      return "no error";
    case kErrorInvalidValue:
      return "invalid argument";
    case kErrorMemoryAllocation:
      return "out of memory";
    case kErrorNoDevice:
      return "no CUDA-capable device is detected";
    case kErrorInvalidDevice:
      return "invalid device ordinal";
    case kErrorInvalidResourceHandle:
      return "invalid resource handle";
    case kErrorNotReady:
      return "device not ready";
    default:
      return "unknown error";
  }
}

__attribute__((visibility("default"))) cudaError_t cudaGetLastError() {
  const cudaError_t e = last_error;
  last_error = kSuccess;
  return e;
}

__attribute__((visibility("default"))) cudaError_t cudaPeekAtLastError() { return last_error; }

__attribute__((visibility("default"))) cudaError_t cudaMalloc(void** ptr, size_t bytes) {
  return Allocate(ptr, bytes, kMemoryTypeDevice);
}

// Managed memory is host memory on the fake as on the real runtime's host side; it is kept
// apart only for cudaPointerGetAttributes.
__attribute__((visibility("default"))) cudaError_t cudaMallocManaged(void** ptr, size_t bytes,
                                                                     unsigned) {
  return Allocate(ptr, bytes, kMemoryTypeManaged);
}

// Page-locked host memory: host memory the copy engines reach without the runtime's own
// staging, so copies to and from it are as asynchronous as device-to-device ones.
__attribute__((visibility("default"))) cudaError_t cudaMallocHost(void** ptr, size_t bytes) {
  return Allocate(ptr, bytes, kMemoryTypeHost);
}

__attribute__((visibility("default"))) cudaError_t cudaFree(void* ptr) {
  return Release(ptr, kMemoryTypeDevice);
}

__attribute__((visibility("default"))) cudaError_t cudaFreeHost(void* ptr) {
  return Release(ptr, kMemoryTypeHost);
}

__attribute__((visibility("default"))) cudaError_t cudaPointerGetAttributes(
    cudaPointerAttributes* attr, const void* ptr) {
  if (!attr) return Fail(kErrorInvalidValue);
  *attr = {};
  const auto p = reinterpret_cast<uintptr_t>(ptr);
  std::lock_guard<std::mutex> lock(alloc_mu);
  if (const Allocation* a = Holding(p, 1)) {
    attr->type = a->type;
    attr->device = 0;
    attr->devicePointer = const_cast<void*>(ptr);
    if (a->type != kMemoryTypeDevice) attr->hostPointer = const_cast<void*>(ptr);
  } else {
    attr->type = kMemoryTypeUnregistered;
    attr->device = -2;
    attr->hostPointer = const_cast<void*>(ptr);
  }
  return kSuccess;
}

// Not a runtime name: what the fake NCCL and the device operations' host build ask before
// touching "device" memory. With FAKE_CUDA_CHECK_POINTERS=1, 1 only where [ptr, ptr + bytes)
// lies in one cudaMalloc/cudaMallocManaged allocation (zero bytes: anywhere): a host pointer
// tagged as CUDA memory, which the real device would fault on, fails where the fake would
// have read it. Page-locked memory fails too: the plugin hands NCCL device scratch, never its
// bounce buffers. Unset: always 1 (launches whose "device" buffers are host memory).
__attribute__((visibility("default"))) int fakeCudaIsDeviceRange(const void* ptr, size_t bytes) {
  if (!CheckPointers() || bytes == 0) return 1;
  std::lock_guard<std::mutex> lock(alloc_mu);
  const Allocation* a = Holding(reinterpret_cast<uintptr_t>(ptr), bytes);
  return a != nullptr && a->type != kMemoryTypeHost;
}

__attribute__((visibility("default"))) cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s,
                                                                             unsigned) {
  if (!s) return Fail(kErrorInvalidValue);
  if (cudaError_t e = CheckDevice()) return e;
  *s = new CUstream_st();  // owned by the caller's handle until cudaStreamDestroy
  return kSuccess;
}

__attribute__((visibility("default"))) cudaError_t cudaStreamCreate(cudaStream_t* s) {
  return cudaStreamCreateWithFlags(s, 0);
}

__attribute__((visibility("default"))) cudaError_t cudaStreamDestroy(cudaStream_t s) {
  if (!s) return Fail(kErrorInvalidResourceHandle);
  s->Retire();  // runs what is queued first
  std::lock_guard<std::mutex> lock(graveyard_mu);
  Graveyard().push_back(s);
  return kSuccess;
}

__attribute__((visibility("default"))) cudaError_t cudaStreamSynchronize(cudaStream_t s) {
  cudaStream_t st = Resolve(s);
  uint64_t ticket;
  {
    std::lock_guard<std::mutex> lock(st->mu);
    ticket = st->enqueued;
  }
  st->WaitFor(ticket);
  return kSuccess;
}

__attribute__((visibility("default"))) cudaError_t cudaStreamQuery(cudaStream_t s) {
  cudaStream_t st = Resolve(s);
  std::lock_guard<std::mutex> lock(st->mu);
  return st->completed >= st->enqueued ? kSuccess : kErrorNotReady;
}

// Stream-ordered allocation: the memory is usable by work queued on the stream after the call
// (here at once, which is a valid ordering); freeing waits for the work queued before it.
__attribute__((visibility("default"))) cudaError_t cudaMallocAsync(void** ptr, size_t bytes,
                                                                   cudaStream_t) {
  return cudaMalloc(ptr, bytes);
}

__attribute__((visibility("default"))) cudaError_t cudaFreeAsync(void* ptr, cudaStream_t s) {
  if (!ptr) return kSuccess;
  {
    std::lock_guard<std::mutex> lock(alloc_mu);
    if (Allocations().count(reinterpret_cast<uintptr_t>(ptr)) == 0) return Fail(kErrorInvalidValue);
  }
  Resolve(s)->Enqueue([ptr] { cudaFree(ptr); });
  return kSuccess;
}

__attribute__((visibility("default"))) cudaError_t cudaDeviceSynchronize() {
  return cudaStreamSynchronize(nullptr);
}

__attribute__((visibility("default"))) cudaError_t cudaLaunchHostFunc(cudaStream_t s,
                                                                      cudaHostFn_t fn, void* data) {
  if (!fn) return Fail(kErrorInvalidValue);
  Resolve(s)->Enqueue([fn, data] { fn(data); });
  return kSuccess;
}

__attribute__((visibility("default"))) cudaError_t cudaMemcpyAsync(void* dst, const void* src,
                                                                   size_t bytes, int kind,
                                                                   cudaStream_t s) {
  if ((bytes > 0 && (!dst || !src)) || kind < kMemcpyHostToHost || kind > kMemcpyDefault)
    return Fail(kErrorInvalidValue);
  cudaStream_t st = Resolve(s);
  const uint64_t ticket = st->Enqueue([=] { std::memmove(dst, src, bytes); });
  if (bytes > 0 && CopyBlocks(dst, src, kind)) st->WaitFor(ticket);
  return kSuccess;
}

__attribute__((visibility("default"))) cudaError_t cudaMemcpy(void* dst, const void* src,
                                                              size_t bytes, int kind) {
  if (cudaError_t e = cudaMemcpyAsync(dst, src, bytes, kind, nullptr)) return e;
  return cudaStreamSynchronize(nullptr);
}

__attribute__((visibility("default"))) cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch,
                                                                     const void* src, size_t spitch,
                                                                     size_t width, size_t height,
                                                                     int kind, cudaStream_t s) {
  if (width > dpitch || width > spitch || (width * height > 0 && (!dst || !src)) ||
      kind < kMemcpyHostToHost || kind > kMemcpyDefault)
    return Fail(kErrorInvalidValue);
  cudaStream_t st = Resolve(s);
  const uint64_t ticket = st->Enqueue([=] {
    for (size_t r = 0; r < height; ++r)
      std::memmove(static_cast<char*>(dst) + r * dpitch, static_cast<const char*>(src) + r * spitch,
                   width);
  });
  if (width * height > 0 && CopyBlocks(dst, src, kind)) st->WaitFor(ticket);
  return kSuccess;
}

__attribute__((visibility("default"))) cudaError_t cudaMemsetAsync(void* dst, int value,
                                                                   size_t bytes, cudaStream_t s) {
  if (bytes > 0 && !dst) return Fail(kErrorInvalidValue);
  Resolve(s)->Enqueue([=] { std::memset(dst, value, bytes); });
  return kSuccess;
}

__attribute__((visibility("default"))) cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e,
                                                                            unsigned) {
  if (!e) return Fail(kErrorInvalidValue);
  *e = new CUevent_st();  // owned by the caller's handle until cudaEventDestroy
  return kSuccess;
}

__attribute__((visibility("default"))) cudaError_t cudaEventCreate(cudaEvent_t* e) {
  return cudaEventCreateWithFlags(e, 0);
}

__attribute__((visibility("default"))) cudaError_t cudaEventDestroy(cudaEvent_t e) {
  if (!e) return Fail(kErrorInvalidResourceHandle);
  delete e;
  return kSuccess;
}

__attribute__((visibility("default"))) cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
  if (!e) return Fail(kErrorInvalidResourceHandle);
  cudaStream_t st = Resolve(s);
  std::lock_guard<std::mutex> lock(e->mu);
  std::lock_guard<std::mutex> slock(st->mu);
  e->stream = st;
  e->ticket = st->enqueued;
  return kSuccess;
}

__attribute__((visibility("default"))) cudaError_t cudaEventQuery(cudaEvent_t e) {
  if (!e) return Fail(kErrorInvalidResourceHandle);
  std::lock_guard<std::mutex> lock(e->mu);
  return !e->stream || e->stream->Reached(e->ticket) ? kSuccess : kErrorNotReady;
}

__attribute__((visibility("default"))) cudaError_t cudaEventSynchronize(cudaEvent_t e) {
  if (!e) return Fail(kErrorInvalidResourceHandle);
  cudaStream_t st;
  uint64_t ticket;
  {
    std::lock_guard<std::mutex> lock(e->mu);
    st = e->stream;
    ticket = e->ticket;
  }
  if (st) st->WaitFor(ticket);
  return kSuccess;
}

__attribute__((visibility("default"))) cudaError_t cudaStreamWaitEvent(cudaStream_t s,
                                                                       cudaEvent_t e, unsigned) {
  if (!e) return Fail(kErrorInvalidResourceHandle);
  cudaStream_t other;
  uint64_t ticket;
  {
    std::lock_guard<std::mutex> lock(e->mu);
    other = e->stream;
    ticket = e->ticket;
  }
  cudaStream_t st = Resolve(s);
  if (other && other != st) st->Enqueue([other, ticket] { other->WaitFor(ticket); });
  return kSuccess;
}

}  // extern "C"
