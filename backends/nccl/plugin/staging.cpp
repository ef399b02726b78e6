#include "backends/nccl/plugin/staging.hpp"

#include <algorithm>
#include <cstring>

namespace weft::backends::nccl_plugin {

void Staging::Add(const void* p, uint64_t bytes, bool in, bool out) {
  if (!host_ || bytes == 0) return;
  regions_.push_back({static_cast<const char*>(p), bytes, in, out});
}

weft_status_t Staging::Begin(cudaStream_t stream) {
  if (!host_ || regions_.empty()) return WEFT_OK;
  std::sort(regions_.begin(), regions_.end(),
            [](const Region& a, const Region& b) { return a.p < b.p; });
  // Overlapping regions form one block of scratch; blocks start 256-byte aligned (NCCL's and
  // the copy engines' preference).
  uint64_t total = 0;
  const char* block_start = nullptr;
  const char* block_end = nullptr;
  uint64_t block_offset = 0;
  for (Region& r : regions_) {
    if (block_end == nullptr || r.p >= block_end) {
      total = (total + 255) / 256 * 256;
      block_start = r.p;
      block_offset = total;
      block_end = r.p + r.bytes;
      total += r.bytes;
    } else if (r.p + r.bytes > block_end) {
      total += static_cast<uint64_t>(r.p + r.bytes - block_end);
      block_end = r.p + r.bytes;
    }
    r.offset = block_offset + static_cast<uint64_t>(r.p - block_start);
  }
  if (weft_status_t s = comm_.Acquire(total, &lease_); s != WEFT_OK) return s;
  if (weft_status_t s = comm_.AcquirePinned(total, &bounce_); s != WEFT_OK) return s;
  // The inputs are read now, at the call, as a copy from pageable memory would read them.
  for (const Region& r : regions_)
    if (r.in) std::memcpy(bounce_.get() + r.offset, r.p, r.bytes);
  return Copy(stream, true);
}

void* Staging::Dev(const void* p) const {
  if (!host_) return const_cast<void*>(p);
  const char* c = static_cast<const char*>(p);
  for (const Region& r : regions_)
    if (c >= r.p && c < r.p + r.bytes) return lease_.get() + r.offset + (c - r.p);
  return const_cast<void*>(p);  // not staged: device memory, or nothing NCCL reads
}

weft_status_t Staging::End(cudaStream_t stream) { return Copy(stream, false); }

std::function<weft_status_t()> Staging::Deliver() const {
  std::vector<Region> out;
  for (const Region& r : regions_)
    if (r.out) out.push_back(r);
  if (out.empty()) return {};
  // The bounce block stays leased to the completion until its host work has run.
  return [out = std::move(out), bounce = bounce_.get()] {
    for (const Region& r : out) std::memcpy(const_cast<char*>(r.p), bounce + r.offset, r.bytes);
    return WEFT_OK;
  };
}

std::vector<Lease> Staging::TakeLeases() {
  std::vector<Lease> leases = std::move(held_);
  if (lease_.get()) leases.push_back(std::move(lease_));
  if (bounce_.get()) leases.push_back(std::move(bounce_));
  return leases;
}

weft_status_t Staging::Copy(cudaStream_t stream, bool in) {
  const CudaApi& cuda = comm_.state().cuda();
  for (const Region& r : regions_) {
    if (in ? !r.in : !r.out) continue;
    char* dev = lease_.get() + r.offset;
    char* host = bounce_.get() + r.offset;
    const cudaError_t e =
        in ? cuda.MemcpyAsync(dev, host, r.bytes, cuda::kMemcpyHostToDevice, stream)
           : cuda.MemcpyAsync(host, dev, r.bytes, cuda::kMemcpyDeviceToHost, stream);
    if (e != cuda::kSuccess) {
      cuda.GetLastError();
      return comm_.state().Fail(WEFT_ERR_BACKEND, cuda.Describe("cudaMemcpyAsync", e));
    }
  }
  return WEFT_OK;
}

}  // namespace weft::backends::nccl_plugin
