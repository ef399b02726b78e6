#include "common/fnv1a.hpp"
#include "placement/planner/placement_code.hpp"
#include "placement/planner/state.hpp"

namespace weft::placement::planner {
namespace {

// Placements of a state whose every split is the chunk rule, 6 bits per mesh dim (R 0, S(d)
// 1 + d, P(op) 1 + kMaxTensorDims + op): a key that identifies them exactly. Nullopt when a
// split is explicit or the dims do not fit.
std::optional<uint64_t> ChunkKey(const std::vector<Placement>& ps,
                                 const std::vector<SplitChoice>& splits) {
  static_assert(1 + kMaxTensorDims + kNumReduceOps <= 64);
  if (ps.size() > 10) return std::nullopt;
  for (const SplitChoice& c : splits)
    if (c) return std::nullopt;
  uint64_t key = 0;
  for (const Placement& p : ps) {
    uint64_t code = 0;
    if (const auto* sh = std::get_if<Shard>(&p)) code = 1 + static_cast<uint64_t>(sh->dim);
    if (const auto* pa = std::get_if<Partial>(&p))
      code = 1 + kMaxTensorDims + static_cast<uint64_t>(pa->op);
    key = key << 6 | code;
  }
  return key;
}

}  // namespace

StateCache::Tensor& StateCache::Of(const MeshPtr& mesh, const std::vector<int64_t>& shape,
                                   DType dtype) {
  // Bounded by clearing when full: the engine keeps asking about the same few tensors.
  if (size_ >= kMaxEntries) {
    tensors_.clear();
    size_ = 0;
  }
  Fnv1a h;
  h.Int(static_cast<int64_t>(reinterpret_cast<uintptr_t>(mesh.get())));
  h.Ints(shape).Int(dtype.code).Int(dtype.bits).Int(dtype.lanes);
  auto& bucket = tensors_[h.value()];
  for (const auto& t : bucket)
    if (t->mesh == mesh && t->shape == shape && t->dtype == dtype) return *t;
  bucket.push_back(
      std::make_unique<Tensor>(Tensor{mesh, SampleCoords(*mesh), shape, dtype, {}, {}}));
  return *bucket.back();
}

std::shared_ptr<const StateInfo> StateCache::Get(Tensor& t, const std::vector<Placement>& ps,
                                                 const std::vector<SplitChoice>& splits,
                                                 std::span<const Coord> samples) {
  if (const std::optional<uint64_t> key = ChunkKey(ps, splits)) {
    auto [it, inserted] = t.chunk.try_emplace(*key);
    if (inserted) {
      auto layout = Layout::Create({t.mesh, t.shape, t.dtype, ps, splits});
      it->second = layout.ok() ? MakeStateInfo(*layout, samples) : nullptr;
      ++size_;
    }
    return it->second;
  }
  Fnv1a h;
  for (const Placement& p : ps) h.Int(EncodePlacement(p));
  for (const SplitChoice& c : splits) {
    h.Int(c ? static_cast<int64_t>(c->size()) : -1);
    if (c) h.Ints(*c);
  }
  auto& bucket = t.states[h.value()];
  for (const Entry& e : bucket)
    if (e.placements == ps && e.splits == splits) return e.info;
  // Invalid combinations are kept too (a null info), so that they are not built again.
  auto layout = Layout::Create({t.mesh, t.shape, t.dtype, ps, splits});
  bucket.push_back({ps, splits, layout.ok() ? MakeStateInfo(*layout, samples) : nullptr});
  ++size_;
  return bucket.back().info;
}

}  // namespace weft::placement::planner
