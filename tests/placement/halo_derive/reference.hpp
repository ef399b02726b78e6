// A brute-force reference for window derivation (SPEC §4.5), written from the index maps alone:
// enumerate every output, the input rows it reads and its anchor row; an output belongs to the
// piece owning its anchor; a piece's window is the hull of what its outputs read. Independent
// of placement/halo/derive (no closed forms for the output split or the windows).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace weft_test::derive_ref {

// Kind values equal WEFT_WINDOW_*.
inline constexpr int32_t kConv = 0, kPool = 1, kConvTranspose = 2, kNearest = 3, kLinear = 4,
                         kAttention = 5, kLinearAligned = 6;

struct Op {
  int32_t kind = kConv;
  int64_t kernel = 1, stride = 1, dilation = 1, pad_lo = 0, pad_hi = 0, out_extent = 0;
};

struct Range {
  int64_t begin = 0, end = 0;
  bool operator==(const Range&) const = default;
};

struct Expected {
  bool valid = false;  // false: the operator has no output rows on this extent
  int64_t out_extent = 0;
  std::vector<int64_t> owner;  // per output: the piece owning it
  std::vector<int64_t> out_sizes;
  std::vector<Range> windows;
};

inline std::string Describe(int64_t n, const std::vector<Range>& owned, const Op& op) {
  std::string s = "N=" + std::to_string(n) + " kind=" + std::to_string(op.kind) +
                  " k=" + std::to_string(op.kernel) + " s=" + std::to_string(op.stride) +
                  " d=" + std::to_string(op.dilation) + " pad=" + std::to_string(op.pad_lo) + "+" +
                  std::to_string(op.pad_hi) + " out=" + std::to_string(op.out_extent) + " pieces";
  for (const Range& r : owned)
    s += " [" + std::to_string(r.begin) + "," + std::to_string(r.end) + ")";
  return s;
}

// Largest q >= 0 with q·den <= num (num >= 0), by counting.
inline int64_t CountingFloor(int64_t num, int64_t den) {
  int64_t q = 0;
  while ((q + 1) * den <= num) ++q;
  return q;
}

inline int64_t OutExtent(int64_t n, const Op& op) {
  const int64_t span = op.dilation * (op.kernel - 1);
  switch (op.kind) {
    case kConv:
    case kPool: {  // outputs whose whole receptive field lies in [-pad_lo, n + pad_hi)
      int64_t count = 0;
      while (op.stride * count - op.pad_lo + span <= n - 1 + op.pad_hi) ++count;
      return count;
    }
    case kConvTranspose:
      return (n - 1) * op.stride - 2 * op.pad_lo + span + 1 + op.pad_hi;
    case kNearest:
    case kLinear:
    case kLinearAligned:
      return op.out_extent;
    default:
      return n;
  }
}

// The anchor row of output j, per the ownership rules documented in derive.hpp.
inline int64_t Anchor(int64_t n, int64_t n_out, const Op& op, int64_t j) {
  const int64_t centre = op.dilation * (op.kernel - 1) / 2;
  switch (op.kind) {
    case kConv:
    case kPool:
      return std::clamp(op.stride * j - op.pad_lo + centre, int64_t{0}, n - 1);
    case kConvTranspose: {  // the row whose scattered centre is nearest to j, ties upward
      int64_t best = 0;
      for (int64_t i = 1; i < n; ++i)
        if (std::abs(op.stride * i - op.pad_lo + centre - j) <=
            std::abs(op.stride * best - op.pad_lo + centre - j))
          best = i;
      return best;
    }
    case kNearest:
      return CountingFloor(j * n, n_out);
    case kLinear:  // the row holding the output's centre (j + ½)·n/n_out
      return CountingFloor((2 * j + 1) * n, 2 * n_out);
    case kLinearAligned:  // σ = j·(n−1)/(n_out−1), rounded half up
      return n_out == 1 ? 0 : CountingFloor(2 * j * (n - 1) + n_out - 1, 2 * (n_out - 1));
    default:
      return j;
  }
}

// Widens the hull `lo`/`hi` (inclusive) of output j's reads by `row`.
struct Hulls {
  std::vector<int64_t> lo, hi;
  explicit Hulls(int64_t n_out) : lo(size_t(n_out), INT64_MAX), hi(size_t(n_out), INT64_MIN) {}
  void Add(int64_t j, int64_t row) {
    lo[size_t(j)] = std::min(lo[size_t(j)], row);
    hi[size_t(j)] = std::max(hi[size_t(j)], row);
  }
};

inline Hulls Reads(int64_t n, int64_t n_out, const Op& op) {
  Hulls h(n_out);
  for (int64_t j = 0; j < n_out; ++j) {
    switch (op.kind) {
      case kConv:
      case kPool:
        for (int64_t t = 0; t < op.kernel; ++t)
          h.Add(j, op.stride * j - op.pad_lo + t * op.dilation);
        break;
      case kNearest:
        h.Add(j, CountingFloor(j * n, n_out));
        break;
      case kLinear: {  // σ = max(((2j+1)·n − n_out) / (2·n_out), 0)
        const int64_t num = (2 * j + 1) * n - n_out;
        const int64_t low = num < 0 ? 0 : CountingFloor(num, 2 * n_out);
        h.Add(j, low);
        h.Add(j, std::min(low + 1, n - 1));
        break;
      }
      case kLinearAligned: {  // rows ⌊σ⌋ and ⌊σ⌋ + 1 (clamped)
        const int64_t low = n_out == 1 ? 0 : CountingFloor(j * (n - 1), n_out - 1);
        h.Add(j, low);
        h.Add(j, std::min(low + 1, n - 1));
        break;
      }
      case kAttention: {
        const int64_t start = std::min(std::max(j - op.kernel / 2, int64_t{0}), n - op.kernel);
        for (int64_t t = 0; t < op.kernel; ++t) h.Add(j, start + t);
        break;
      }
      default:
        break;
    }
  }
  if (op.kind == kConvTranspose)  // input i scatters into s·i − p + t·d
    for (int64_t i = 0; i < n; ++i)
      for (int64_t t = 0; t < op.kernel; ++t) {
        const int64_t j = op.stride * i - op.pad_lo + t * op.dilation;
        if (j >= 0 && j < n_out) h.Add(j, i);
      }
  return h;
}

inline Expected Reference(int64_t n, const std::vector<Range>& owned, const Op& op) {
  Expected e;
  e.out_extent = OutExtent(n, op);
  if (n < 1 || e.out_extent < 1) return e;
  e.valid = true;
  const Hulls reads = Reads(n, e.out_extent, op);
  std::vector<Range> hull(owned.size(), Range{INT64_MAX, INT64_MIN});
  e.out_sizes.assign(owned.size(), 0);
  for (int64_t j = 0; j < e.out_extent; ++j) {
    const int64_t a = Anchor(n, e.out_extent, op, j);
    int64_t p = 0;
    while (!(owned[size_t(p)].begin <= a && a < owned[size_t(p)].end)) ++p;
    e.owner.push_back(p);
    ++e.out_sizes[size_t(p)];
    if (reads.lo[size_t(j)] <= reads.hi[size_t(j)]) {
      hull[size_t(p)].begin = std::min(hull[size_t(p)].begin, reads.lo[size_t(j)]);
      hull[size_t(p)].end = std::max(hull[size_t(p)].end, reads.hi[size_t(j)] + 1);
    }
  }
  for (size_t p = 0; p < owned.size(); ++p) {
    const int64_t start = std::clamp(owned[p].begin, int64_t{0}, n);
    e.windows.push_back(hull[p].begin < hull[p].end ? hull[p] : Range{start, start});
  }
  return e;
}

// Pieces from sizes: a nonempty piece starts where the ones before it end, an empty one sits at
// the extent (SPEC §2.2).
inline std::vector<Range> FromSizes(const std::vector<int64_t>& sizes) {
  int64_t n = 0;
  for (int64_t s : sizes) n += s;
  std::vector<Range> owned;
  int64_t next = 0;
  for (int64_t s : sizes) {
    owned.push_back(s == 0 ? Range{n, n} : Range{next, next + s});
    next += s;
  }
  return owned;
}

// torch.chunk: c = ceil(n/k), piece r has max(0, min(n, c(r+1)) − c·r) rows (SPEC §2.2).
inline std::vector<int64_t> ChunkSizes(int64_t n, int64_t k) {
  const int64_t c = (n + k - 1) / k;
  std::vector<int64_t> sizes;
  for (int64_t r = 0; r < k; ++r)
    sizes.push_back(std::max<int64_t>(0, std::min(n, c * (r + 1)) - c * r));
  return sizes;
}

// Splits of n to test: even ones, torch.chunk ones (uneven, trailing empties), and ragged ones
// with empty and one-row pieces anywhere (deterministic for a given rng).
inline std::vector<std::vector<int64_t>> Splits(int64_t n, std::mt19937& rng) {
  std::vector<std::vector<int64_t>> out;
  for (int64_t k : {int64_t{2}, int64_t{3}})
    if (n % k == 0) out.push_back(std::vector<int64_t>(size_t(k), n / k));
  out.push_back({n});
  for (int64_t k : {int64_t{3}, int64_t{4}}) out.push_back(ChunkSizes(n, k));
  for (int round = 0; round < 2; ++round) {
    std::vector<int64_t> sizes;
    int64_t left = n;
    const int64_t pieces = 2 + int64_t(rng() % 6);
    for (int64_t p = 0; p + 1 < pieces; ++p) {
      const uint32_t pick = rng() % 4;  // empty, one row, or a random share
      const int64_t s = pick == 0 ? 0 : pick == 1 ? 1 : int64_t(rng() % uint32_t(left + 1));
      sizes.push_back(std::min(s, left));
      left -= sizes.back();
    }
    sizes.push_back(left);
    if (round == 1) std::shuffle(sizes.begin(), sizes.end(), rng);
    out.push_back(sizes);
  }
  return out;
}

}  // namespace weft_test::derive_ref
