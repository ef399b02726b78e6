#include "tools/collbench/halo_raw.hpp"

#include <utility>

namespace weft::collbench {
namespace {

constexpr int64_t kTagBase = 0x4a10;  // apart from the tags collbench's sendrecv uses (0)

Dims3 Minus(const Dims3& a, const Dims3& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }

// The world rank at mesh coordinate `coord` (row-major; the mesh holds ranks 0..n-1 in order).
int32_t RankAt(const std::vector<int64_t>& mesh_shape, const Dims3& coord) {
  int64_t r = 0;
  for (size_t i = 0; i < mesh_shape.size(); ++i) r = r * mesh_shape[i] + coord[i];
  return static_cast<int32_t>(r);
}

}  // namespace

RawHalo::RawHalo(weft_context_t* ctx, const HaloPattern& p, const HaloGeometry& g, int32_t rank)
    : ctx_(ctx), rank_(rank), inplace_(p.inplace) {
  local_shape_ = To3(g.local, 1);
  padded_shape_ = To3(g.PaddedShape(p), 1);
  const size_t off = 3 - g.local.size();
  for (const int32_t d : p.windowed) interior_lo_[off + static_cast<size_t>(d)] = g.depth;
  Dims3 coord{0, 0, 0};
  int64_t r = rank;
  for (size_t k = g.mesh_shape.size(); k-- > 0;) {
    coord[k] = r % g.mesh_shape[k];
    r /= g.mesh_shape[k];
  }
  phases_.resize(p.star ? 1 : p.windowed.size());
  for (size_t k = 0; k < p.windowed.size(); ++k) AddFaces(p, g, k, coord);
  if (p.star && !p.inplace) AddCorners(p, g);
}

void RawHalo::AddCorners(const HaloPattern& p, const HaloGeometry& g) {
  const size_t off = 3 - g.local.size(), nw = p.windowed.size();
  // Every combination of (low ghost, owned, high ghost) over the windowed dims with two or
  // more ghost parts; unwindowed dims whole.
  int64_t combos = 1;
  for (size_t j = 0; j < nw; ++j) combos *= 3;
  for (int64_t c = 0; c < combos; ++c) {
    Box3 b;
    for (size_t d = 0; d < g.local.size(); ++d) b.n[off + d] = g.local[d];
    int ghosts = 0;
    int64_t rest = c;
    for (size_t j = 0; j < nw; ++j, rest /= 3) {
      const size_t dj = off + static_cast<size_t>(p.windowed[j]);
      const int64_t part = rest % 3, n = local_shape_[dj];
      b.lo[dj] = part == 0 ? 0 : part == 1 ? g.depth : g.depth + n;
      b.n[dj] = part == 1 ? n : g.depth;
      ghosts += part != 1 ? 1 : 0;
    }
    if (ghosts >= 2) corners_.push_back(b);
  }
}

void RawHalo::AddFaces(const HaloPattern& p, const HaloGeometry& g, size_t k, const Dims3& coord) {
  const size_t off = 3 - g.local.size();
  const int64_t w = g.depth;
  Box3 base;
  for (size_t d = 0; d < g.local.size(); ++d) base.n[off + d] = g.local[d];
  for (size_t j = 0; j < p.windowed.size(); ++j) {
    const size_t dj = off + static_cast<size_t>(p.windowed[j]);
    // Box: the faces of later phases span the ghosts earlier phases filled (the corners
    // travel through two faces); star: owned rows only.
    const bool spans_ghosts = !p.star && j < k;
    base.lo[dj] = spans_ghosts ? 0 : w;
    base.n[dj] = spans_ghosts ? padded_shape_[dj] : local_shape_[dj];
  }
  const size_t dk = off + static_cast<size_t>(p.windowed[k]);
  const int64_t extent = g.mesh_shape[k], n = local_shape_[dk];
  Dims3 lower = coord, upper = coord;
  lower[k] = (coord[k] + extent - 1) % extent;
  upper[k] = (coord[k] + 1) % extent;
  const auto face = [&](int32_t peer, int64_t tag, int64_t lo) {
    Message m;
    m.peer = peer, m.tag = kTagBase + tag, m.box = base;
    m.box.lo[dk] = lo, m.box.n[dk] = w;
    return m;
  };
  const auto dir = static_cast<int64_t>(2 * k);
  Phase& phase = phases_[p.star ? 0 : k];
  const bool from_local = !inplace_ && (p.star || k == 0);  // out of place, the first phase
  const auto send = [&](Message m) {
    const Box3 src{from_local ? Minus(m.box.lo, interior_lo_) : m.box.lo, m.box.n};
    if (m.peer != rank_ && !IsContiguous(src, from_local ? local_shape_ : padded_shape_)) {
      m.staging.resize(static_cast<size_t>(m.box.numel()));
    }
    messages_ += m.peer != rank_ ? 1 : 0;
    phase.sends.push_back(std::move(m));
  };
  const auto recv = [&](Message m) {
    if (m.peer != rank_) {
      recv_bytes_ += m.box.numel() * static_cast<int64_t>(sizeof(float));
      if (!IsContiguous(m.box, padded_shape_)) m.staging.resize(static_cast<size_t>(m.box.numel()));
    }
    phase.recvs.push_back(std::move(m));
  };
  // Our first rows go to the lower neighbour's high ghost, our last to the upper's low ghost.
  send(face(RankAt(g.mesh_shape, lower), dir, w));
  send(face(RankAt(g.mesh_shape, upper), dir + 1, n));
  recv(face(RankAt(g.mesh_shape, upper), dir, w + n));
  recv(face(RankAt(g.mesh_shape, lower), dir + 1, 0));
  for (const auto* list : {&phase.sends, &phase.recvs}) {
    for (const Message& m : *list) packs_ = packs_ || !m.staging.empty();
  }
}

void RawHalo::CopySelf(const Message& send, const float* src, const Dims3& src_shape,
                       const Dims3& shift, Phase& phase, float* padded) {
  for (const Message& r : phase.recvs) {
    if (r.peer != rank_ || r.tag != send.tag) continue;
    CopyBox(src, src_shape, Minus(send.box.lo, shift), padded, padded_shape_, r.box.lo, r.box.n);
  }
}

weft_status_t RawHalo::RunPhase(size_t i, const float* local, float* padded) {
  Phase& phase = phases_[i];
  const bool from_local = i == 0 && !inplace_;
  weft_status_t first = WEFT_OK;
  works_.clear();
  const auto post = [&](bool send, const Message& m, float* data) {
    int64_t count = m.box.numel();
    DLTensor t{data, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, &count, nullptr, 0};
    weft_work_t* work = nullptr;
    const weft_status_t s =
        send ? weft_send(ctx_, nullptr, 0, &t, m.peer, m.tag, nullptr, nullptr, &work)
             : weft_recv(ctx_, nullptr, 0, &t, m.peer, m.tag, nullptr, nullptr, &work);
    if (s != WEFT_OK && first == WEFT_OK) first = s;
    if (s == WEFT_OK) works_.push_back(work);
  };
  for (Message& m : phase.recvs) {
    if (m.peer == rank_) continue;
    post(false, m, m.staging.empty() ? padded + Offset(padded_shape_, m.box.lo) : m.staging.data());
  }
  const float* src = from_local ? local : padded;
  const Dims3& shape = from_local ? local_shape_ : padded_shape_;
  const Dims3 shift = from_local ? interior_lo_ : Dims3{0, 0, 0};
  for (Message& m : phase.sends) {
    const Dims3 lo = Minus(m.box.lo, shift);
    if (m.peer == rank_) {
      CopySelf(m, src, shape, shift, phase, padded);
    } else if (m.staging.empty()) {
      post(true, m, const_cast<float*>(src + Offset(shape, lo)));
    } else {
      CopyBox(src, shape, lo, m.staging.data(), m.box.n, {0, 0, 0}, m.box.n);
      post(true, m, m.staging.data());
    }
  }
  if (from_local) {
    CopyBox(local, local_shape_, {0, 0, 0}, padded, padded_shape_, interior_lo_, local_shape_);
    for (const Box3& b : corners_) ZeroBox(padded, padded_shape_, b);
  }
  for (weft_work_t* work : works_) {
    const weft_status_t s = weft_work_wait(work, -1);
    if (s != WEFT_OK && first == WEFT_OK) first = s;
    weft_work_release(work);
  }
  for (const Message& m : phase.recvs) {
    if (m.peer == rank_ || m.staging.empty()) continue;
    CopyBox(m.staging.data(), m.box.n, {0, 0, 0}, padded, padded_shape_, m.box.lo, m.box.n);
  }
  return first;
}

weft_status_t RawHalo::Run(const float* local, float* padded) {
  for (size_t i = 0; i < phases_.size(); ++i) {
    if (const weft_status_t s = RunPhase(i, local, padded); s != WEFT_OK) return s;
  }
  return WEFT_OK;
}

}  // namespace weft::collbench
