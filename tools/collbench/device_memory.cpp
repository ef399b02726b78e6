#include "tools/collbench/device_memory.hpp"

#include <stdexcept>

namespace weft::collbench {

std::unique_ptr<DeviceMemory> DeviceMemory::Open(int32_t rank, std::string* error) {
  auto m = std::make_unique<DeviceMemory>();
  m->api_ = backends::nccl_plugin::CudaApi::Load(error);
  if (!m->api_ || !m->api_->DeviceVisible(error)) return nullptr;
  int count = 0;
  m->api_->GetDeviceCount(&count);
  const int e = m->api_->SetDevice(count > 0 ? rank % count : 0);
  if (e != weft::cuda::kSuccess) {
    *error = m->api_->Describe("cudaSetDevice", e);
    return nullptr;
  }
  return m;
}

void DeviceMemory::Check(const char* call, int e) const {
  if (e != weft::cuda::kSuccess) {
    api_->GetLastError();
    throw std::runtime_error(api_->Describe(call, e));
  }
}

void* DeviceMemory::Allocate(size_t bytes) {
  void* p = nullptr;
  Check("cudaMalloc", api_->Malloc(&p, bytes ? bytes : 1));
  return p;
}

void DeviceMemory::Free(void* p) {
  if (p) api_->Free(p);
}

void DeviceMemory::Upload(void* dev, const void* host, size_t bytes) {
  if (bytes == 0) return;
  Check("cudaMemcpyAsync",
        api_->MemcpyAsync(dev, host, bytes, weft::cuda::kMemcpyHostToDevice, nullptr));
  Sync();
}

void DeviceMemory::Download(void* host, const void* dev, size_t bytes) {
  if (bytes == 0) return;
  Sync();  // what was enqueued before (the measured op) first
  Check("cudaMemcpyAsync",
        api_->MemcpyAsync(host, dev, bytes, weft::cuda::kMemcpyDeviceToHost, nullptr));
  Sync();
}

void DeviceMemory::Sync() { Check("cudaStreamSynchronize", api_->StreamSynchronize(nullptr)); }

}  // namespace weft::collbench
