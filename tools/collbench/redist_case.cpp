#include "tools/collbench/redist_case.hpp"

#include <cmath>
#include <cstring>

#include "tools/collbench/weft_runner.hpp"

namespace weft::collbench {
namespace {

constexpr DLDataType kFloat32 = {kDLFloat, 32, 1};
constexpr uint32_t kPoisonBits = 0xa5a5a5a5u;  // never a MovedBits value at a checked index

// Data movement must be bit-exact: a bijection of the global index onto 32-bit patterns (odd
// multiplier), so that any misplaced element is caught, whatever float it decodes to.
uint32_t MovedBits(int64_t g) {
  const uint32_t b = static_cast<uint32_t>(g) * 2654435761u + 12345u;
  return b == kPoisonBits ? 0u : b;
}

// Reduced values: small integers, so every order of summation is exact in float32.
float ReducedValue(int64_t g) { return static_cast<float>(g % 4093); }

// The term partial index p of `count` contributes at g, under `op`: the terms reduce exactly
// to ReducedValue(g).
float Term(int op, int64_t g, int64_t p, int64_t count) {
  const float v = ReducedValue(g);
  switch (op) {
    case WEFT_REDUCE_MAX:
      return p == g % count ? v : v - 1.0f - static_cast<float>(p);
    case WEFT_REDUCE_MIN:
      return p == g % count ? v : v + 1.0f + static_cast<float>(p);
    case WEFT_REDUCE_PROD:
      return p == 0 ? v : 1.0f;
    default: {  // sum, and avg as the sum of count terms over count
      const float scale = op == WEFT_REDUCE_AVG ? static_cast<float>(count) : 1.0f;
      const auto other = [&](int64_t q) { return static_cast<float>((g + q) % 7); };
      if (p != 0) return other(p);
      float rest = 0;
      for (int64_t q = 1; q < count; ++q) rest += other(q);
      return v * scale - rest;
    }
  }
}

bool HasPartial(const std::vector<weft_placement_t>& ps) {
  for (const auto& p : ps) {
    if (p.kind == WEFT_PARTIAL) return true;
  }
  return false;
}

std::string LastError(const char* what) { return std::string(what) + ": " + weft_last_error(); }

}  // namespace

std::vector<int64_t> RedistCase::GlobalShape(int64_t bytes) {
  const int64_t elements = bytes / 4;
  int64_t cols = 1;
  while ((cols * 2) * (cols * 2) <= elements) cols *= 2;
  return {elements / cols, cols};
}

RedistCase::~RedistCase() {
  if (device_) {
    device_->Sync();
    device_->Free(src_.device);
    device_->Free(dst_.device);
  }
  weft_plan_destroy(plan_);
  weft_layout_destroy(src_layout_);
  weft_layout_destroy(dst_layout_);
  weft_mesh_destroy(mesh_);
}

bool RedistCase::MakeBlock(const weft_layout_t* layout, Block* b, std::string* error) {
  if (weft_layout_local_shape(layout, rank_, b->shape, b->offset) != WEFT_OK) {
    *error = LastError("weft_layout_local_shape");
    return false;
  }
  b->data.assign(static_cast<size_t>(b->shape[0] * b->shape[1]), 0.0f);
  b->tensor = DLTensor{b->data.data(), {kDLCPU, 0}, 2, kFloat32, b->shape, nullptr, 0};
  if (device_) {
    b->device = static_cast<float*>(device_->Allocate(b->data.size() * sizeof(float)));
    b->tensor.data = b->device;
    b->tensor.device = DLDevice{kDLCUDA, 0};
  }
  return true;
}

bool RedistCase::Init(weft_context_t* ctx, const Pattern& p, int64_t bytes, int32_t rank,
                      int32_t nranks, DeviceMemory* device, std::string* error) {
  device_ = device;
  pattern_ = &p;
  rank_ = rank;
  shape_ = GlobalShape(bytes);
  const std::vector<int64_t> mesh_shape = PatternMeshShape(p, nranks);
  if (weft_mesh_create(ctx, p.mesh_ndim, mesh_shape.data(), nullptr, &mesh_) != WEFT_OK) {
    *error = LastError("weft_mesh_create");
    return false;
  }
  if (weft_layout_create(mesh_, 2, shape_.data(), kFloat32, p.src.data(), &src_layout_) !=
          WEFT_OK ||
      weft_layout_create(mesh_, 2, shape_.data(), kFloat32, p.dst.data(), &dst_layout_) !=
          WEFT_OK) {
    *error = LastError("weft_layout_create");
    return false;
  }
  if (weft_redistribute_plan_create(src_layout_, dst_layout_, nullptr, &plan_) != WEFT_OK) {
    *error = LastError("weft_redistribute_plan_create");
    return false;
  }
  return MakeBlock(src_layout_, &src_, error) && MakeBlock(dst_layout_, &dst_, error);
}

void RedistCase::PartialRole(int* op, int64_t* index, int64_t* count) const {
  int64_t coord[2] = {0, 0}, shape[2] = {1, 1};
  weft_mesh_coordinate(mesh_, rank_, coord);
  weft_mesh_shape(mesh_, shape);
  *op = WEFT_REDUCE_SUM, *index = 0, *count = 1;
  for (size_t d = 0; d < pattern_->src.size(); ++d) {
    if (pattern_->src[d].kind != WEFT_PARTIAL) continue;
    // Mixed sum/avg is allowed by the spec, but collbench's patterns use one op.
    *op = pattern_->src[d].reduce_op;
    *index = *index * shape[d] + coord[d];
    *count *= shape[d];
  }
}

void RedistCase::Fill() {
  std::memset(dst_.data.data(), 0xa5, dst_.data.size() * sizeof(float));
  const bool partial = HasPartial(pattern_->src);
  int op = 0;
  int64_t index = 0, count = 1;
  if (partial) PartialRole(&op, &index, &count);
  for (int64_t i = 0; i < src_.shape[0]; ++i) {
    for (int64_t j = 0; j < src_.shape[1]; ++j) {
      const int64_t g = (src_.offset[0] + i) * shape_[1] + src_.offset[1] + j;
      float& out = src_.data[static_cast<size_t>(i * src_.shape[1] + j)];
      if (partial) {
        out = Term(op, g, index, count);
      } else {
        const uint32_t bits = MovedBits(g);
        std::memcpy(&out, &bits, sizeof(bits));
      }
    }
  }
  if (device_) {
    device_->Upload(src_.device, src_.data.data(), src_.data.size() * sizeof(float));
    device_->Upload(dst_.device, dst_.data.data(), dst_.data.size() * sizeof(float));
  }
}

weft_status_t RedistCase::Run() {
  const weft_status_t s =
      weft_plan_execute(plan_, &src_.tensor, &dst_.tensor, nullptr, nullptr, nullptr);
  if (device_ && s == WEFT_OK) device_->Sync();
  return s;
}

int64_t RedistCase::CountWrong() {
  if (HasPartial(pattern_->dst)) return -1;
  if (device_) device_->Download(dst_.data.data(), dst_.device, dst_.data.size() * sizeof(float));
  const bool reduced = HasPartial(pattern_->src);
  int64_t wrong = 0;
  for (int64_t i = 0; i < dst_.shape[0]; ++i) {
    for (int64_t j = 0; j < dst_.shape[1]; ++j) {
      const int64_t g = (dst_.offset[0] + i) * shape_[1] + dst_.offset[1] + j;
      const float got = dst_.data[static_cast<size_t>(i * dst_.shape[1] + j)];
      if (reduced) {
        wrong += got != ReducedValue(g);
      } else {
        uint32_t bits = 0;
        std::memcpy(&bits, &got, sizeof(bits));
        wrong += bits != MovedBits(g);
      }
    }
  }
  return wrong;
}

std::string RedistCase::Describe() const { return PlanText(plan_); }

}  // namespace weft::collbench
