#include "backends/nccl/plugin/scratch_pool.hpp"

#include <string>

namespace weft::backends::nccl_plugin {

Lease& Lease::operator=(Lease&& o) noexcept {
  if (this != &o) {
    if (pool_ && ptr_) pool_->Release(ptr_, size_);
    pool_ = o.pool_;
    ptr_ = o.ptr_;
    size_ = o.size_;
    o.pool_ = nullptr;
    o.ptr_ = nullptr;
  }
  return *this;
}

Lease::~Lease() {
  if (pool_ && ptr_) pool_->Release(ptr_, size_);
}

ScratchPool::~ScratchPool() {
  const CudaApi& cuda = state_.cuda();
  for (char* p : all_) kind_ == Kind::kDevice ? cuda.Free(p) : cuda.FreeHost(p);
  cuda.GetLastError();
}

weft_status_t ScratchPool::Acquire(size_t bytes, Lease* out) {
  if (bytes == 0) bytes = 1;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = free_.lower_bound(bytes);
    // A block at most 4x the request: a small copy does not pin a large block.
    if (it != free_.end() && it->first / 4 <= bytes) {
      *out = Lease(this, it->second, it->first);
      free_.erase(it);
      return WEFT_OK;
    }
  }
  // Round up so that slightly different sizes share blocks.
  size_t size = 256;
  while (size < bytes) size *= 2;
  void* p = nullptr;
  const CudaApi& cuda = state_.cuda();
  const bool device = kind_ == Kind::kDevice;
  const cudaError_t e = device ? cuda.Malloc(&p, size) : cuda.MallocHost(&p, size);
  if (e != cuda::kSuccess) {
    cuda.GetLastError();
    return state_.Fail(WEFT_ERR_OUT_OF_MEMORY,
                       cuda.Describe(device ? "cudaMalloc" : "cudaMallocHost", e) + " for " +
                           std::to_string(size) + " bytes of staging");
  }
  std::lock_guard<std::mutex> lock(mu_);
  all_.push_back(static_cast<char*>(p));
  *out = Lease(this, static_cast<char*>(p), size);
  return WEFT_OK;
}

void ScratchPool::Release(char* p, size_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  free_.emplace(bytes, p);
}

}  // namespace weft::backends::nccl_plugin
