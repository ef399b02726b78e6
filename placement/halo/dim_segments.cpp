#include "placement/halo/dim_segments.hpp"

#include <algorithm>

namespace weft::placement::halo {
namespace {

// Appends dst rows [dst, dst + len) reading [src, src + src_len) with `step`, split where the
// source rows change piece (a mirrored run is split so that each part keeps its mapping).
void AddMapped(int64_t dst, int64_t len, int64_t src, int8_t step, const PieceTable& t,
               std::vector<DimSeg>& out) {
  if (len <= 0) return;
  if (step == 0) {
    out.push_back({dst, len, false, src, 0, t.Find(src), false});
    return;
  }
  const int64_t src_end = src + len;
  for (int64_t s = src; s < src_end;) {
    const int64_t piece = t.Find(s);
    const auto k =
        static_cast<size_t>(std::find(t.index.begin(), t.index.end(), piece) - t.index.begin());
    const int64_t e = std::min(src_end, t.end[k]);
    // Source rows [s, e): forward they sit at dst + (s - src); mirrored at the far end.
    const int64_t d = step > 0 ? dst + (s - src) : dst + (src_end - e);
    out.push_back({d, e - s, false, s, step, piece, false});
    s = e;
  }
}

// Rows beyond one edge: g rows below 0 (low) or above N-1 (high), mapped by `rule`.
void AddBeyond(int64_t dst, int64_t len, bool low, int64_t n, Boundary rule, const PieceTable& t,
               std::vector<DimSeg>& out) {
  if (len <= 0) return;
  if (rule == Boundary::kConstant) {
    out.push_back({dst, len, true, 0, 1, 0, false});
    return;
  }
  // Window rows [dst, dst + len) with dst + len <= 0 (low) or dst >= n (high).
  const int64_t last = dst + len - 1;
  switch (rule) {
    case Boundary::kReflect:  // x[-g] = x[g]; x[n-1+g] = x[n-1-g]
      if (low)
        AddMapped(dst, len, -last, -1, t, out);
      else
        AddMapped(dst, len, 2 * (n - 1) - last, -1, t, out);
      return;
    case Boundary::kSymmetric:  // x[-g] = x[g-1]; x[n-1+g] = x[n-g]
      if (low)
        AddMapped(dst, len, -last - 1, -1, t, out);
      else
        AddMapped(dst, len, 2 * n - 1 - last, -1, t, out);
      return;
    case Boundary::kReplicate:
      AddMapped(dst, len, low ? 0 : n - 1, 0, t, out);
      return;
    case Boundary::kPeriodic:  // x[-g] = x[n-g]; x[n-1+g] = x[g-1]
      AddMapped(dst, len, low ? dst + n : dst - n, 1, t, out);
      return;
    default:  // kNone: Geometry rejected windows that reach outside
      return;
  }
}

}  // namespace

std::vector<DimSeg> Segments(int64_t begin, int64_t end, int64_t a, int64_t b, int64_t n,
                             Boundary lo, Boundary hi, const PieceTable& t) {
  std::vector<DimSeg> out;
  if (end <= begin) return out;
  AddBeyond(begin, std::min(end, int64_t{0}) - begin, true, n, lo, t, out);
  // Inside the domain: identity, split at piece edges and at the receiver's own range.
  const int64_t in_lo = std::max(begin, int64_t{0}), in_hi = std::min(end, n);
  const size_t first = out.size();
  AddMapped(in_lo, in_hi - in_lo, in_lo, 1, t, out);
  for (size_t i = first; i < out.size(); ++i)
    out[i].owned = out[i].dst >= a && out[i].dst + out[i].len <= b;
  const int64_t hi_lo = std::max(begin, n);
  AddBeyond(hi_lo, end - hi_lo, false, n, hi, t, out);
  return out;
}

}  // namespace weft::placement::halo
