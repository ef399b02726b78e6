#include "tools/collbench/conv_case.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>

#include "tools/collbench/halo_pattern.hpp"
#include "tools/collbench/weft_runner.hpp"

namespace weft::collbench {
namespace {

constexpr DLDataType kF32{kDLFloat, 32, 1};

int64_t ISqrt(int64_t v) {
  auto r = static_cast<int64_t>(std::sqrt(static_cast<double>(v)));
  while (r * r > v) --r;
  while ((r + 1) * (r + 1) <= v) ++r;
  return r;
}

// The closed forms the checks compare with: small integers, exact in float sums.
float Image(int64_t i, int64_t j, int64_t c) {
  return static_cast<float>((i * 131 + j * 7 + c * 3) % 1000) - 500.0f;
}
float Grad(int64_t rank, int64_t pi, int64_t pj, int64_t c) {
  return static_cast<float>(((rank + 1) * 13 + pi * 5 + pj * 3 + c) % 17);
}

DLTensor View(float* data, std::array<int64_t, 4>& shape, const Dims3& d) {
  shape = {1, d[0], d[1], d[2]};
  return DLTensor{data, {kDLCPU, 0}, 4, kF32, shape.data(), nullptr, 0};
}

}  // namespace

ConvCase::~ConvCase() {
  weft_plan_destroy(plan_);
  weft_layout_destroy(layout_);
  weft_mesh_destroy(mesh_handle_);
}

bool ConvCase::Init(weft_context_t* ctx, int64_t bytes, int32_t rank, int32_t nranks,
                    std::string* error) {
  ctx_ = ctx;
  rank_ = rank;
  const std::vector<int64_t> mesh = NearCubeShape(nranks, 2);
  mesh_[0] = mesh[0], mesh_[1] = mesh[1];
  coord_[0] = rank / mesh_[1], coord_[1] = rank % mesh_[1];
  // Rows : columns = 2 : 3 overall (the demo's 1024x1536), about `bytes` per rank.
  const int64_t e = std::max<int64_t>(1, bytes / (4 * channels_));
  const int64_t h = std::max<int64_t>(1, ISqrt(e * 2 * mesh_[1] / (3 * mesh_[0])));
  const int64_t w = std::max<int64_t>(1, e / h);
  global_ = {h * mesh_[0], w * mesh_[1], channels_};
  local_shape_ = {h, w, channels_};
  offset_ = {coord_[0] * h, coord_[1] * w, 0};
  padded_shape_ = {h + 2, w + 2, channels_};
  if (!MakePlan(ctx, error)) return false;
  const auto n = [](const Dims3& d) { return static_cast<size_t>(d[0] * d[1] * d[2]); };
  x_.assign(n(local_shape_), 0);
  gx_.assign(n(local_shape_), 0);
  padded_.assign(n(padded_shape_), 0);
  gpad_.assign(n(padded_shape_), 0);
  staging_send_.resize(static_cast<size_t>(2 * std::max(h + 2, w) * channels_));
  staging_recv_.resize(staging_send_.size());
  // The reference's faces, in padded coordinates.
  const Box3 row_lo{{1, 1, 0}, {1, w, channels_}}, row_hi{{h, 1, 0}, {1, w, channels_}};
  const Box3 col_lo{{0, 1, 0}, {h + 2, 1, channels_}}, col_hi{{0, w, 0}, {h + 2, 1, channels_}};
  if (coord_[0] > 0)
    rows_.push_back({RankAt(coord_[0] - 1, coord_[1]), row_lo, {{0, 1, 0}, row_lo.n}});
  if (coord_[0] + 1 < mesh_[0])
    rows_.push_back({RankAt(coord_[0] + 1, coord_[1]), row_hi, {{h + 1, 1, 0}, row_hi.n}});
  if (coord_[1] > 0)
    cols_.push_back({RankAt(coord_[0], coord_[1] - 1), col_lo, {{0, 0, 0}, col_lo.n}});
  if (coord_[1] + 1 < mesh_[1])
    cols_.push_back({RankAt(coord_[0], coord_[1] + 1), col_hi, {{0, w + 1, 0}, col_hi.n}});
  for (const auto* phase : {&rows_, &cols_})
    for (const Face& f : *phase) raw_recv_ += f.recv.numel() * 4, ++raw_messages_;
  return true;
}

bool ConvCase::MakePlan(weft_context_t* ctx, std::string* error) {
  const auto fail = [&](const char* what, weft_status_t s) {
    *error = WeftError(what, s);
    return false;
  };
  weft_status_t s = weft_mesh_create(ctx, 2, mesh_, nullptr, &mesh_handle_);
  if (s != WEFT_OK) return fail("weft_mesh_create", s);
  const int64_t image[4] = {1, global_[0], global_[1], global_[2]};
  const weft_placement_t split[2] = {WEFT_PLACEMENT_SHARD(1), WEFT_PLACEMENT_SHARD(2)};
  if ((s = weft_layout_create(mesh_handle_, 4, image, kF32, split, &layout_)) != WEFT_OK)
    return fail("weft_layout_create", s);
  const int64_t wshape[4] = {channels_, channels_, 3, 3};
  const weft_placement_t repl[2] = {WEFT_PLACEMENT_REPLICATE, WEFT_PLACEMENT_REPLICATE};
  weft_layout_t* weight = nullptr;
  if ((s = weft_layout_create(mesh_handle_, 4, wshape, kF32, repl, &weight)) != WEFT_OK)
    return fail("weft_layout_create (weight)", s);
  weft_rules_t* rules = nullptr;
  weft_strategy_t* st = nullptr;
  s = weft_rules_create(&rules);
  const int64_t pad = 1;
  weft_attr_t attrs[2];
  std::memset(attrs, 0, sizeof attrs);
  attrs[0] = {sizeof(weft_attr_t), "padding", WEFT_ATTR_INTS, 0, 0, 0, &pad, 1, nullptr, {}, 0};
  attrs[1] = {
      sizeof(weft_attr_t), "channels_last", WEFT_ATTR_BOOL, 0, 1, 0, nullptr, 0, nullptr, {}, 0};
  const weft_layout_t* inputs[2] = {layout_, weight};
  if (s == WEFT_OK) s = weft_rules_propagate(rules, "conv2d", 2, inputs, attrs, 2, &st);
  weft_halo_desc_t desc = WEFT_HALO_DESC_INIT;
  if (s == WEFT_OK) s = weft_strategy_input_halo(st, 0, &desc);
  // The descriptor points into the strategy: the plan copies it before both go.
  if (s == WEFT_OK) s = weft_halo_plan_create(layout_, &desc, nullptr, &plan_);
  weft_strategy_destroy(st);
  weft_rules_destroy(rules);
  weft_layout_destroy(weight);
  if (s != WEFT_OK) return fail("the conv2d rule's halo plan", s);
  weft_plan_stats_t stats = WEFT_PLAN_STATS_INIT;
  if ((s = weft_plan_stats(plan_, &stats)) != WEFT_OK) return fail("weft_plan_stats", s);
  recv_bytes_ = stats.recv_bytes;
  int64_t shape[4], origin[4];
  if ((s = weft_halo_padded_shape(plan_, -1, shape, origin)) != WEFT_OK)
    return fail("weft_halo_padded_shape", s);
  if (shape[1] != padded_shape_[0] || shape[2] != padded_shape_[1] || origin[1] != offset_[0] - 1 ||
      origin[2] != offset_[1] - 1) {
    *error = "the conv2d rule's window differs from a one-row halo around the block";
    return false;
  }
  return true;
}

void ConvCase::Fill() {
  for (int64_t i = 0; i < local_shape_[0]; ++i)
    for (int64_t j = 0; j < local_shape_[1]; ++j)
      for (int64_t c = 0; c < channels_; ++c)
        x_[static_cast<size_t>(Offset(local_shape_, {i, j, c}))] =
            Image(offset_[0] + i, offset_[1] + j, c);
  for (int64_t i = 0; i < padded_shape_[0]; ++i)
    for (int64_t j = 0; j < padded_shape_[1]; ++j)
      for (int64_t c = 0; c < channels_; ++c)
        gpad_[static_cast<size_t>(Offset(padded_shape_, {i, j, c}))] = Grad(rank_, i, j, c);
  std::fill(padded_.begin(), padded_.end(), std::numeric_limits<float>::quiet_NaN());
  std::fill(gx_.begin(), gx_.end(), std::numeric_limits<float>::quiet_NaN());
}

weft_status_t ConvCase::Forward(bool raw) {
  if (!raw) {
    std::array<int64_t, 4> s0{}, s1{};
    DLTensor local = View(x_.data(), s0, local_shape_),
             padded = View(padded_.data(), s1, padded_shape_);
    return weft_halo_exchange(plan_, &local, &padded, nullptr, nullptr, nullptr);
  }
  return Exchange(rows_, false) == WEFT_OK ? Exchange(cols_, false) : WEFT_ERR_INTERNAL;
}

weft_status_t ConvCase::Backward(bool raw) {
  if (!raw) {
    std::array<int64_t, 4> s0{}, s1{};
    DLTensor padded = View(gpad_.data(), s0, padded_shape_),
             local = View(gx_.data(), s1, local_shape_);
    return weft_halo_accumulate(plan_, &padded, &local, 0, nullptr, nullptr, nullptr);
  }
  return Exchange(cols_, true) == WEFT_OK ? Exchange(rows_, true) : WEFT_ERR_INTERNAL;
}

// One phase of the reference. Forward: every face's `send` rows go to its peer, which receives
// them into its `recv` rows (the row phase sends from the local block and copies the interior
// meanwhile; the column phase packs). Adjoint: the other way round, each received face added
// into the rows it was read from (into the working copy of the padded gradient for the column
// phase, into the local gradient for the row phase).
weft_status_t ConvCase::Exchange(const std::vector<Face>& faces, bool adjoint) {
  const bool rows = &faces == &rows_;
  const Dims3 shift{1, 1, 0};  // padded -> local coordinates
  const auto minus = [](const Dims3& a, const Dims3& b) {
    return Dims3{a[0] - b[0], a[1] - b[1], a[2] - b[2]};
  };
  std::vector<weft_work_t*> works;
  weft_status_t first = WEFT_OK;
  const auto post = [&](bool send, float* data, int64_t count, int32_t peer) {
    DLTensor t{data, {kDLCPU, 0}, 1, kF32, &count, nullptr, 0};
    weft_work_t* work = nullptr;
    const int64_t tag = rows ? 1 : 2;
    const weft_status_t s =
        send ? weft_send(ctx_, nullptr, 0, &t, peer, tag, nullptr, nullptr, &work)
             : weft_recv(ctx_, nullptr, 0, &t, peer, tag, nullptr, nullptr, &work);
    if (s != WEFT_OK && first == WEFT_OK) first = s;
    if (s == WEFT_OK) works.push_back(work);
  };
  if (adjoint && !rows) padded_ = gpad_;  // the working copy the column phase adds into
  float* recv_at = staging_recv_.data();
  for (const Face& f : faces) {  // receives first
    const int64_t count = f.recv.numel();
    const bool direct = rows && !adjoint;
    post(false, direct ? padded_.data() + Offset(padded_shape_, f.recv.lo) : recv_at, count,
         f.peer);
    if (!direct) recv_at += count;
  }
  float* send_at = staging_send_.data();
  for (const Face& f : faces) {
    const Box3& box = adjoint ? f.recv : f.send;
    const int64_t count = box.numel();
    if (rows) {  // one contiguous run: the local block's row forward, a ghost row backward
      float* src = adjoint ? padded_.data() + Offset(padded_shape_, box.lo)
                           : x_.data() + Offset(local_shape_, minus(box.lo, shift));
      post(true, src, count, f.peer);
    } else {
      CopyBox(padded_.data(), padded_shape_, box.lo, send_at, box.n, {0, 0, 0}, box.n);
      post(true, send_at, count, f.peer);
      send_at += count;
    }
  }
  if (rows && !adjoint) {  // the interior and the zero padding at the image's edges
    CopyBox(x_.data(), local_shape_, {0, 0, 0}, padded_.data(), padded_shape_, shift, local_shape_);
    const int64_t h = local_shape_[0], w = local_shape_[1];
    if (coord_[0] == 0) ZeroBox(padded_.data(), padded_shape_, {{0, 0, 0}, {1, w + 2, channels_}});
    if (coord_[0] + 1 == mesh_[0])
      ZeroBox(padded_.data(), padded_shape_, {{h + 1, 0, 0}, {1, w + 2, channels_}});
    if (coord_[1] == 0) ZeroBox(padded_.data(), padded_shape_, {{0, 0, 0}, {h + 2, 1, channels_}});
    if (coord_[1] + 1 == mesh_[1])
      ZeroBox(padded_.data(), padded_shape_, {{0, w + 1, 0}, {h + 2, 1, channels_}});
  }
  if (rows && adjoint)  // the gradient's own cells, before the neighbours' rows add in
    CopyBox(padded_.data(), padded_shape_, shift, gx_.data(), local_shape_, {0, 0, 0},
            local_shape_);
  for (weft_work_t* work : works) {
    const weft_status_t s = weft_work_wait(work, -1);
    if (s != WEFT_OK && first == WEFT_OK) first = s;
    weft_work_release(work);
  }
  if (rows && !adjoint) return first;
  const float* from = staging_recv_.data();
  for (const Face& f : faces) {
    const Box3& into = adjoint ? f.send : f.recv;
    float* dst = rows ? gx_.data() : padded_.data();
    const Dims3& shape = rows ? local_shape_ : padded_shape_;
    const Dims3 lo = rows ? minus(into.lo, shift) : into.lo;
    for (int64_t i = 0; i < into.n[0]; ++i)
      for (int64_t j = 0; j < into.n[1]; ++j) {
        float* run = dst + Offset(shape, {lo[0] + i, lo[1] + j, 0});
        for (int64_t c = 0; c < into.n[2]; ++c) run[c] = adjoint ? run[c] + *from++ : *from++;
      }
  }
  return first;
}

int64_t ConvCase::CountWrongForward() const {
  int64_t wrong = 0;
  for (int64_t i = 0; i < padded_shape_[0]; ++i)
    for (int64_t j = 0; j < padded_shape_[1]; ++j)
      for (int64_t c = 0; c < channels_; ++c) {
        const int64_t gi = offset_[0] - 1 + i, gj = offset_[1] - 1 + j;
        const bool inside = gi >= 0 && gi < global_[0] && gj >= 0 && gj < global_[1];
        const float want = inside ? Image(gi, gj, c) : 0.0f;
        wrong += padded_[static_cast<size_t>(Offset(padded_shape_, {i, j, c}))] != want;
      }
  return wrong;
}

int64_t ConvCase::CountWrongBackward() const {
  int64_t wrong = 0;
  const int64_t h = local_shape_[0], w = local_shape_[1];
  for (int64_t i = 0; i < h; ++i)
    for (int64_t j = 0; j < w; ++j)
      for (int64_t c = 0; c < channels_; ++c) {
        const int64_t gi = offset_[0] + i, gj = offset_[1] + j;
        float want = 0;  // every rank whose window [off - 1, off + n + 1) holds (gi, gj)
        for (int64_t r = coord_[0] - 1; r <= coord_[0] + 1; ++r)
          for (int64_t q = coord_[1] - 1; q <= coord_[1] + 1; ++q) {
            if (r < 0 || r >= mesh_[0] || q < 0 || q >= mesh_[1]) continue;
            const int64_t pi = gi - (r * h - 1), pj = gj - (q * w - 1);
            if (pi >= 0 && pi < h + 2 && pj >= 0 && pj < w + 2)
              want += Grad(RankAt(r, q), pi, pj, c);
          }
        wrong += gx_[static_cast<size_t>(Offset(local_shape_, {i, j, c}))] != want;
      }
  return wrong;
}

std::string ConvCase::shape() const {
  return std::to_string(global_[0]) + "x" + std::to_string(global_[1]) + "x" +
         std::to_string(global_[2]);
}

std::string ConvCase::local() const {
  return std::to_string(local_shape_[0]) + "x" + std::to_string(local_shape_[1]) + "x" +
         std::to_string(local_shape_[2]);
}

int64_t ConvCase::block_bytes() const { return local_shape_[0] * local_shape_[1] * channels_ * 4; }

std::string ConvCase::plan() const { return PlanText(plan_); }

}  // namespace weft::collbench
