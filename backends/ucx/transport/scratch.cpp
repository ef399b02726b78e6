#include "backends/ucx/transport/scratch.hpp"
#include "backends/ucx/tuning_table.hpp"

#include <algorithm>
#include <cstdlib>
#include <new>

namespace weft::backends::ucx_plugin {
namespace {

// Buffers a communicator keeps (tuning_table.hpp says why).
constexpr size_t kCached = kScratchCached;
constexpr size_t kAlign = 64;

}  // namespace

void ScratchBuffer::Free::operator()(char* p) const { std::free(p); }

std::shared_ptr<ScratchBuffer> AcquireScratch(Comm& c, uint64_t bytes) {
  return AcquireFrom(c.scratch, bytes);
}

std::shared_ptr<ScratchBuffer> AcquireFrom(std::vector<std::shared_ptr<ScratchBuffer>>& cache,
                                           uint64_t bytes) {
  bytes = std::max<uint64_t>(bytes, kAlign);
  std::shared_ptr<ScratchBuffer>* smallest_free = nullptr;
  for (auto& b : cache) {
    if (b.use_count() != 1) continue;  // a collective or a UCX request still uses it
    if (b->capacity >= bytes) return b;
    if (smallest_free == nullptr || b->capacity < (*smallest_free)->capacity) smallest_free = &b;
  }
  const uint64_t rounded = (bytes + kAlign - 1) / kAlign * kAlign;
  auto fresh = std::make_shared<ScratchBuffer>();
  fresh->data.reset(static_cast<char*>(std::aligned_alloc(kAlign, rounded)));
  if (!fresh->data) throw std::bad_alloc();
  fresh->capacity = rounded;
  if (smallest_free != nullptr)
    *smallest_free = fresh;
  else if (cache.size() < kCached)
    cache.push_back(fresh);
  return fresh;
}

}  // namespace weft::backends::ucx_plugin
