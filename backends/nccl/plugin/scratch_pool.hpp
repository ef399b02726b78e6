// Scratch blocks a communicator reuses across operations: device memory that NCCL reads and
// writes for host buffers, and page-locked host memory that bounces those buffers' bytes, so
// that every copy between host and device is asynchronous (the runtime makes a copy to or from
// pageable memory wait for the stream, which a peer that never comes would hold forever). A
// block goes back to its pool when its lease is dropped and is freed with the pool.
#pragma once

#include <cstddef>
#include <map>
#include <mutex>
#include <vector>

#include "backends/nccl/plugin/state.hpp"

namespace weft::backends::nccl_plugin {

class ScratchPool;

// A block from a pool, back to the pool when dropped.
class Lease {
 public:
  Lease() = default;
  Lease(ScratchPool* pool, char* p, size_t n) : pool_(pool), ptr_(p), size_(n) {}
  Lease(Lease&& o) noexcept { *this = std::move(o); }
  Lease& operator=(Lease&& o) noexcept;
  ~Lease();
  char* get() const { return ptr_; }
  size_t size() const { return size_; }

 private:
  ScratchPool* pool_ = nullptr;
  char* ptr_ = nullptr;
  size_t size_ = 0;
};

class ScratchPool {
 public:
  enum class Kind { kDevice, kPinnedHost };
  ScratchPool(State& s, Kind k) : state_(s), kind_(k) {}
  // Frees every block: the owner first lets the streams pass what used them.
  ~ScratchPool();
  ScratchPool(const ScratchPool&) = delete;
  ScratchPool& operator=(const ScratchPool&) = delete;

  // At least `bytes` (a fresh allocation when the pool has no block that fits).
  weft_status_t Acquire(size_t bytes, Lease* out);
  void Release(char* p, size_t bytes);

 private:
  State& state_;
  Kind kind_;
  std::mutex mu_;
  std::multimap<size_t, char*> free_;
  std::vector<char*> all_;
};

}  // namespace weft::backends::nccl_plugin
