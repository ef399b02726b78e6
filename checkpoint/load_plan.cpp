#include "checkpoint/load_plan.hpp"

#include <algorithm>
#include <array>

#include "placement/limits.hpp"

namespace weft::checkpoint {

std::vector<Run> RunsOf(const Box& box, const Box& region, int64_t item, uint64_t base) {
  std::vector<Run> runs;
  const int32_t nd = box.ndim;
  if (region.Empty()) return runs;
  // Strides of the box in bytes, and the first dim from which the region spans whole rows:
  // everything from `k` on is one run per position of the dims before it.
  std::array<int64_t, placement::kMaxTensorDims> stride{};
  int64_t s = item;
  for (int32_t d = nd - 1; d >= 0; --d) {
    stride[d] = s;
    s *= box.shape[d];
  }
  int32_t k = nd;
  while (k > 0 && region.shape[k - 1] == box.shape[k - 1]) --k;
  // The run spans dim k-1 partially (or everything, when k == 0).
  const int32_t inner = k > 0 ? k - 1 : 0;
  const int64_t run_bytes = nd == 0 ? item : region.shape[inner] * stride[inner];
  std::array<int64_t, placement::kMaxTensorDims> at{};
  while (true) {
    uint64_t off = base;
    for (int32_t d = 0; d < nd; ++d) {
      const int64_t idx = (d < inner ? at[d] : 0) + region.offset[d] - box.offset[d];
      off += static_cast<uint64_t>(idx * stride[d]);
    }
    if (!runs.empty() && runs.back().offset + runs.back().nbytes == off)
      runs.back().nbytes += static_cast<uint64_t>(run_bytes);
    else
      runs.push_back({off, static_cast<uint64_t>(run_bytes)});
    int32_t d = inner - 1;
    for (; d >= 0; --d) {
      if (++at[d] < region.shape[d]) break;
      at[d] = 0;
    }
    if (d < 0) break;
  }
  return runs;
}

std::vector<BoxRead> PlanReads(const IndexTensor& t, const Box& block) {
  std::vector<BoxRead> out;
  const int64_t item = ItemSize(t.dtype);
  for (int64_t b : BoxesTouching(t, block)) {
    const IndexBox& ib = t.boxes[b];
    BoxRead r;
    r.box = b;
    r.region = placement::planner::Intersect(ib.box, block);
    if (r.region.Empty()) continue;
    r.whole = r.region.Volume() == ib.box.Volume();
    r.runs = RunsOf(ib.box, r.region, item, ib.byte_offset);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace weft::checkpoint
