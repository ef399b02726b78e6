#include "tools/collbench/halo_case.hpp"

#include <cstring>

#include "tools/collbench/weft_runner.hpp"

namespace weft::collbench {
namespace {

constexpr DLDataType kFloat32 = {kDLFloat, 32, 1};
constexpr uint32_t kPoisonBits = 0xa5a5a5a5u;  // never a MovedBits value

// A bijection of the global index onto 32-bit patterns (odd multiplier): a cell filled from
// the wrong place, however close, is caught bit-exact.
uint32_t MovedBits(int64_t g) {
  const uint32_t b = static_cast<uint32_t>(g) * 2654435761u + 12345u;
  return b == kPoisonBits ? 0u : b;
}

float FromBits(uint32_t bits) {
  float f = 0;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

uint32_t ToBits(float f) {
  uint32_t bits = 0;
  std::memcpy(&bits, &f, sizeof(bits));
  return bits;
}

std::string LastError(const std::string& what) { return what + ": " + weft_last_error(); }

std::string Dims(const std::vector<int64_t>& v) {
  std::string s;
  for (const int64_t x : v) s += (s.empty() ? "" : "x") + std::to_string(x);
  return s;
}

}  // namespace

HaloCase::~HaloCase() {
  weft_plan_destroy(plan_);
  weft_layout_destroy(layout_);
  weft_mesh_destroy(mesh_);
}

bool HaloCase::Init(weft_context_t* ctx, const HaloPattern& p, const HaloGeometry& g, int32_t rank,
                    std::string* error) {
  pattern_ = &p;
  depth_ = g.depth;
  global_dims_ = g.GlobalShape(p);
  local_dims_ = g.local;
  padded_dims_ = g.PaddedShape(p);
  global_ = To3(global_dims_, 1), local_shape_ = To3(local_dims_, 1);
  padded_shape_ = To3(padded_dims_, 1);
  const size_t off = 3 - g.local.size();
  int64_t r = rank;
  for (size_t k = p.windowed.size(); k-- > 0;) {
    const size_t d = off + static_cast<size_t>(p.windowed[k]);
    const int64_t coord = r % g.mesh_shape[k];
    r /= g.mesh_shape[k];
    windowed_[d] = true;
    origin_[d] = coord * local_shape_[d] - depth_;  // the model: an even split
    interior_lo_[d] = depth_;
  }
  if (!MakePlan(ctx, g, error) || !CheckPlan(error)) return false;
  // In place, the local block lives inside the padded one.
  const int64_t local_numel = local_shape_[0] * local_shape_[1] * local_shape_[2];
  local_.assign(static_cast<size_t>(p.inplace ? 1 : local_numel), 0.0f);
  padded_.assign(static_cast<size_t>(padded_shape_[0] * padded_shape_[1] * padded_shape_[2]), 0.0f);
  local_t_ = DLTensor{local_.data(), {kDLCPU, 0}, p.ndim, kFloat32, local_dims_.data(), nullptr, 0};
  padded_t_ =
      DLTensor{padded_.data(), {kDLCPU, 0}, p.ndim, kFloat32, padded_dims_.data(), nullptr, 0};
  return true;
}

bool HaloCase::MakePlan(weft_context_t* ctx, const HaloGeometry& g, std::string* error) {
  const HaloPattern& p = *pattern_;
  std::vector<weft_placement_t> placements;
  std::vector<weft_halo_dim_t> dims;
  for (const int32_t d : p.windowed) {
    placements.push_back(WEFT_PLACEMENT_SHARD(d));
    // Periodic on both sides: every rank has two neighbours per windowed dim.
    dims.push_back({d, WEFT_BOUNDARY_PERIODIC, WEFT_BOUNDARY_PERIODIC, 0, depth_, depth_, depth_,
                    depth_, nullptr});
  }
  if (weft_mesh_create(ctx, static_cast<int32_t>(g.mesh_shape.size()), g.mesh_shape.data(), nullptr,
                       &mesh_) != WEFT_OK) {
    *error = LastError("weft_mesh_create");
    return false;
  }
  if (weft_layout_create(mesh_, p.ndim, global_dims_.data(), kFloat32, placements.data(),
                         &layout_) != WEFT_OK) {
    *error = LastError("weft_layout_create");
    return false;
  }
  weft_halo_desc_t desc = WEFT_HALO_DESC_INIT;
  desc.ndims = static_cast<int32_t>(dims.size());
  desc.dims = dims.data();
  desc.stencil = p.star ? WEFT_STENCIL_STAR : WEFT_STENCIL_BOX;
  // The transport the raw reference mirrors, so that both move the same bytes (AUTO sends a
  // box's corners straight from their owners where only one mesh dim has more than one rank).
  desc.transport = p.star ? WEFT_HALO_TRANSPORT_NEIGHBOR : WEFT_HALO_TRANSPORT_PHASES;
  if (weft_halo_plan_create(layout_, &desc, nullptr, &plan_) != WEFT_OK) {
    *error = LastError("weft_halo_plan_create " + p.name);
    return false;
  }
  return true;
}

// The plan's padded block must be the model's (its shape and origin), and its stats give the
// bytes the row's bandwidth counts.
bool HaloCase::CheckPlan(std::string* error) {
  const size_t nd = global_dims_.size(), off = 3 - nd;
  std::vector<int64_t> shape(nd), origin(nd), model(nd);
  if (weft_halo_padded_shape(plan_, -1, shape.data(), origin.data()) != WEFT_OK) {
    *error = LastError("weft_halo_padded_shape");
    return false;
  }
  for (size_t d = 0; d < nd; ++d) model[d] = origin_[off + d];
  if (shape != padded_dims_ || origin != model) {
    *error = pattern_->name + ": weft_halo_padded_shape gives " + Dims(shape) + " at " +
             Dims(origin) + ", the model " + Dims(padded_dims_) + " at " + Dims(model);
    return false;
  }
  weft_plan_stats_t stats = WEFT_PLAN_STATS_INIT;
  if (weft_plan_stats(plan_, &stats) != WEFT_OK) {
    *error = LastError("weft_plan_stats");
    return false;
  }
  recv_bytes_ = stats.recv_bytes;
  return true;
}

template <class F>
void HaloCase::ForEachPadded(F&& f) const {
  const auto wrap = [](int64_t v, int64_t n) { return ((v % n) + n) % n; };
  Dims3 i{0, 0, 0};
  for (i[0] = 0; i[0] < padded_shape_[0]; ++i[0]) {
    for (i[1] = 0; i[1] < padded_shape_[1]; ++i[1]) {
      for (i[2] = 0; i[2] < padded_shape_[2]; ++i[2]) {
        int outside = 0;
        int64_t flat = 0;
        for (int d = 0; d < 3; ++d) {
          const int64_t in_local = i[d] - interior_lo_[d];
          outside += windowed_[d] && (in_local < 0 || in_local >= local_shape_[d]) ? 1 : 0;
          flat = flat * global_[d] + wrap(origin_[d] + i[d], global_[d]);
        }
        f(Offset(padded_shape_, i), flat, outside);
      }
    }
  }
}

void HaloCase::Fill() {
  const float poison = FromBits(kPoisonBits);
  std::fill(padded_.begin(), padded_.end(), poison);
  if (pattern_->inplace) {
    ForEachPadded([&](int64_t at, int64_t flat, int outside) {
      if (outside == 0) padded_[static_cast<size_t>(at)] = FromBits(MovedBits(flat));
    });
    return;
  }
  Dims3 i{0, 0, 0};
  for (i[0] = 0; i[0] < local_shape_[0]; ++i[0]) {
    for (i[1] = 0; i[1] < local_shape_[1]; ++i[1]) {
      for (i[2] = 0; i[2] < local_shape_[2]; ++i[2]) {
        int64_t flat = 0;
        for (int d = 0; d < 3; ++d) flat = flat * global_[d] + origin_[d] + interior_lo_[d] + i[d];
        local_[static_cast<size_t>(Offset(local_shape_, i))] = FromBits(MovedBits(flat));
      }
    }
  }
}

weft_status_t HaloCase::Run() {
  if (pattern_->inplace) {
    return weft_halo_exchange_inplace(plan_, &padded_t_, nullptr, nullptr, nullptr);
  }
  return weft_halo_exchange(plan_, &local_t_, &padded_t_, nullptr, nullptr, nullptr);
}

int64_t HaloCase::CountWrong(Corners corners) const {
  int64_t wrong = 0;
  ForEachPadded([&](int64_t at, int64_t flat, int outside) {
    const float got = padded_[static_cast<size_t>(at)];
    if (pattern_->star && outside >= 2) {
      if (corners == Corners::kZero) wrong += got != 0.0f ? 1 : 0;
      if (corners == Corners::kPoison) wrong += ToBits(got) != kPoisonBits ? 1 : 0;
      return;
    }
    wrong += ToBits(got) != MovedBits(flat) ? 1 : 0;
  });
  return wrong;
}

std::string HaloCase::Describe() const { return PlanText(plan_); }

}  // namespace weft::collbench
