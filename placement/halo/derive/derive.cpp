#include "placement/halo/derive/derive.hpp"

#include <algorithm>
#include <numeric>
#include <string>

namespace weft::placement::halo {
namespace {

std::string Str(int64_t v) { return std::to_string(v); }

// Floor and ceiling of a / b for b > 0 (C++ division truncates toward zero).
int64_t FloorDiv(int64_t a, int64_t b) { return a / b - (a % b != 0 && a < 0); }
int64_t CeilDiv(int64_t a, int64_t b) { return a / b + (a % b != 0 && a > 0); }

// acc += v and acc *= v; false when the result does not fit in int64.
bool AddTo(int64_t& acc, int64_t v) { return !__builtin_add_overflow(acc, v, &acc); }
bool MulBy(int64_t& acc, int64_t v) { return !__builtin_mul_overflow(acc, v, &acc); }

// "op->" or "op." names fields; the operator as a whole is "op".
std::string WholeName(std::string_view prefix) {
  if (prefix.ends_with("->")) prefix.remove_suffix(2);
  if (prefix.ends_with(".")) prefix.remove_suffix(1);
  return std::string(prefix);
}

std::string Describe(const WindowOp& op) {
  std::string s = WindowKindName(op.kind);
  switch (op.kind) {
    case WindowKind::kInterpNearest:
    case WindowKind::kInterpLinear:
    case WindowKind::kInterpLinearAligned:
      return s + " (out_extent " + Str(op.out_extent) + ")";
    case WindowKind::kNeighborhoodAttention:
      return s + " (kernel " + Str(op.kernel) + ")";
    default:
      return s + " (kernel " + Str(op.kernel) + ", stride " + Str(op.stride) + ", dilation " +
             Str(op.dilation) + ", pad_lo " + Str(op.pad_lo) + ", pad_hi " + Str(op.pad_hi) + ")";
  }
}

class Checker {
 public:
  Checker(const WindowOp& op, std::string_view prefix) : op_(op), prefix_(prefix) {}

  Status AtLeast(const char* field, int64_t value, int64_t min) const {
    if (value >= min) return Status::Ok();
    return InvalidArgument(Name(field) + " is " + Str(value) + " but must be >= " + Str(min));
  }
  // A field the operator does not take must keep its default (see WindowOp).
  Status Unused(const char* field, int64_t value, int64_t default_value) const {
    if (value == default_value) return Status::Ok();
    return InvalidArgument(Name(field) + " is " + Str(value) + " but " + WindowKindName(op_.kind) +
                           " does not take it (leave it " + Str(default_value) + ")");
  }
  std::string Name(const char* field) const { return std::string(prefix_) + field; }

 private:
  const WindowOp& op_;
  std::string_view prefix_;
};

Status CheckParams(const WindowOp& op, int64_t n, std::string_view prefix) {
  const Checker c(op, prefix);
  switch (op.kind) {
    case WindowKind::kConv:
    case WindowKind::kPool:
    case WindowKind::kConvTranspose:
      WEFT_RETURN_IF_ERROR(c.AtLeast("kernel", op.kernel, 1));
      WEFT_RETURN_IF_ERROR(c.AtLeast("stride", op.stride, 1));
      WEFT_RETURN_IF_ERROR(c.AtLeast("dilation", op.dilation, 1));
      WEFT_RETURN_IF_ERROR(c.AtLeast("pad_lo", op.pad_lo, 0));
      return c.AtLeast("pad_hi", op.pad_hi, 0);
    case WindowKind::kInterpNearest:
    case WindowKind::kInterpLinear:
    case WindowKind::kInterpLinearAligned:
      WEFT_RETURN_IF_ERROR(c.AtLeast("out_extent", op.out_extent, 1));
      WEFT_RETURN_IF_ERROR(c.Unused("kernel", op.kernel, 1));
      break;
    case WindowKind::kNeighborhoodAttention:
      WEFT_RETURN_IF_ERROR(c.AtLeast("kernel", op.kernel, 1));
      if (op.kernel % 2 == 0)
        return InvalidArgument(c.Name("kernel") + " is " + Str(op.kernel) +
                               " but neighborhood_attention needs an odd kernel");
      if (op.kernel > n)
        return InvalidArgument(c.Name("kernel") + " is " + Str(op.kernel) +
                               " but neighborhood_attention needs kernel <= the extent " + Str(n));
      break;
    default:
      return InvalidArgument(c.Name("kind") + " is " + Str(static_cast<int32_t>(op.kind)) +
                             " but must be 0 (conv) .. " + Str(kNumWindowKinds - 1) +
                             " (interp_linear_aligned)");
  }
  WEFT_RETURN_IF_ERROR(c.Unused("stride", op.stride, 1));
  WEFT_RETURN_IF_ERROR(c.Unused("dilation", op.dilation, 1));
  WEFT_RETURN_IF_ERROR(c.Unused("pad_lo", op.pad_lo, 0));
  return c.Unused("pad_hi", op.pad_hi, 0);
}

Status CheckPieces(int64_t n, std::span<const RowRange> owned) {
  if (n < 1)
    return InvalidArgument("extent is " + Str(n) +
                           " but a windowed operator needs at least one input row");
  int64_t next = 0;  // where the next nonempty piece must start
  for (size_t p = 0; p < owned.size(); ++p) {
    const RowRange r = owned[p];
    const std::string name =
        "owned[" + Str(int64_t(p)) + "] = [" + Str(r.begin) + ", " + Str(r.end) + ")";
    if (r.begin > r.end) return InvalidArgument(name + " has begin > end");
    if (r.begin == r.end) continue;
    if (r.begin != next || r.end > n)
      return InvalidArgument(name + " but the nonempty pieces must tile [0, " + Str(n) +
                             ") in order and the one before ends at " + Str(next));
    next = r.end;
  }
  if (next != n)
    return InvalidArgument("owned covers [0, " + Str(next) + ") but the extent is " + Str(n));
  return Status::Ok();
}

// One operator's index map over an extent of n rows (parameters already checked).
class IndexMap {
 public:
  static Result<IndexMap> Create(const WindowOp& op, int64_t n, std::string_view prefix);

  int64_t out_extent() const { return n_out_; }
  // The input row whose owner owns output j; non-decreasing in j, within [0, n).
  int64_t Anchor(int64_t j) const;
  // The first output whose anchor is >= row (n_out if none).
  int64_t FirstAnchoredAt(int64_t row) const;
  // Hull of the input rows outputs j0..j1 read (j0 <= j1); begin >= end when they read none.
  RowRange Reads(int64_t j0, int64_t j1) const;

 private:
  IndexMap(const WindowOp& op, int64_t n) : op_(op), n_(n) {}
  Status ComputeOutExtent(std::string_view prefix);
  // Transposed conv: the lowest / highest input reaching any of outputs j0..j1, or -1.
  bool Reaches(int64_t i, int64_t j0, int64_t j1) const;
  int64_t LowestReaching(int64_t j0, int64_t j1, int64_t lo, int64_t hi) const;
  int64_t HighestReaching(int64_t j0, int64_t j1, int64_t lo, int64_t hi) const;
  // Linear interpolation: ⌊σ(j)⌋.
  int64_t LinearLow(int64_t j) const;

  WindowOp op_;
  int64_t n_;
  int64_t n_out_ = 0;
  int64_t span_ = 0;    // d(k−1): the kernel's reach
  int64_t centre_ = 0;  // ⌊d(k−1)/2⌋
};

Result<IndexMap> IndexMap::Create(const WindowOp& op, int64_t n, std::string_view prefix) {
  IndexMap m(op, n);
  WEFT_RETURN_IF_ERROR(m.ComputeOutExtent(prefix));
  return m;
}

Status IndexMap::ComputeOutExtent(std::string_view prefix) {
  const std::string overflow = WholeName(prefix) + " = " + Describe(op_) + " on an extent of " +
                               Str(n_) + " overflows 64-bit row indices";
  const WindowOp& o = op_;
  switch (o.kind) {
    case WindowKind::kConv:
    case WindowKind::kPool: {
      int64_t padded = n_;
      span_ = o.kernel - 1;
      if (!MulBy(span_, o.dilation) || !AddTo(padded, o.pad_lo) || !AddTo(padded, o.pad_hi))
        return InvalidArgument(overflow);
      if (padded - span_ - 1 < 0)
        return InvalidArgument(
            WholeName(prefix) + " = " + Describe(o) + " gives no output rows: " +
            "its dilated kernel spans dilation*(kernel-1)+1 = " + Str(span_ + 1) +
            " rows but extent + pad_lo + pad_hi = " + Str(padded));
      n_out_ = (padded - span_ - 1) / o.stride + 1;
      break;
    }
    case WindowKind::kConvTranspose: {
      // (N−1)s + d(k−1) + 1 + pad_hi − 2p; the anchor also adds p + s to an output index.
      int64_t full = n_ - 1, twice_p = o.pad_lo;
      span_ = o.kernel - 1;
      if (!MulBy(span_, o.dilation) || !MulBy(full, o.stride) || !AddTo(full, span_) ||
          !AddTo(full, 1) || !AddTo(full, o.pad_hi) || !MulBy(twice_p, 2))
        return InvalidArgument(overflow);
      if (int64_t slack = full; !AddTo(slack, o.stride)) return InvalidArgument(overflow);
      n_out_ = full - twice_p;
      if (n_out_ < 1)
        return InvalidArgument(WholeName(prefix) + " = " + Describe(o) + " gives no output rows" +
                               " on an extent of " + Str(n_) +
                               ": (extent-1)*stride + dilation*(kernel-1) + 1 + pad_hi - " +
                               "2*pad_lo = " + Str(n_out_));
      break;
    }
    case WindowKind::kInterpNearest:
    case WindowKind::kInterpLinear:
    case WindowKind::kInterpLinearAligned: {
      int64_t product = o.out_extent;  // (2·N_out)·N bounds every (2j+1)·N
      if (!MulBy(product, 2) || !MulBy(product, n_)) return InvalidArgument(overflow);
      n_out_ = o.out_extent;
      break;
    }
    case WindowKind::kNeighborhoodAttention:
      n_out_ = n_;
      break;
  }
  centre_ = span_ / 2;
  return Status::Ok();
}

int64_t IndexMap::Anchor(int64_t j) const {
  const WindowOp& o = op_;
  switch (o.kind) {
    case WindowKind::kConv:
    case WindowKind::kPool:
      return std::clamp(o.stride * j - o.pad_lo + centre_, int64_t{0}, n_ - 1);
    case WindowKind::kConvTranspose:
      return std::clamp(FloorDiv(j + o.pad_lo - centre_ + o.stride / 2, o.stride), int64_t{0},
                        n_ - 1);
    case WindowKind::kInterpNearest:
      return j * n_ / n_out_;
    case WindowKind::kInterpLinear:
      return (2 * j + 1) * n_ / (2 * n_out_);
    case WindowKind::kInterpLinearAligned:  // σ(j) rounded half up
      return n_out_ == 1 ? 0 : (2 * j * (n_ - 1) + n_out_ - 1) / (2 * (n_out_ - 1));
    case WindowKind::kNeighborhoodAttention:
      return j;
  }
  return 0;
}

int64_t IndexMap::FirstAnchoredAt(int64_t row) const {
  int64_t lo = 0, hi = n_out_;  // the answer lies in [lo, hi]
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (Anchor(mid) >= row)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

int64_t IndexMap::LinearLow(int64_t j) const {
  // σ(j) = max((j + ½)·N/N_out − ½, 0) = max(((2j+1)·N − N_out) / (2·N_out), 0).
  return std::max(FloorDiv((2 * j + 1) * n_ - n_out_, 2 * n_out_), int64_t{0});
}

RowRange IndexMap::Reads(int64_t j0, int64_t j1) const {
  const WindowOp& o = op_;
  switch (o.kind) {
    case WindowKind::kConv:
    case WindowKind::kPool:
      return {o.stride * j0 - o.pad_lo, o.stride * j1 - o.pad_lo + span_ + 1};
    case WindowKind::kConvTranspose: {
      const int64_t lo = std::max(CeilDiv(j0 + o.pad_lo - span_, o.stride), int64_t{0});
      const int64_t hi = std::min(FloorDiv(j1 + o.pad_lo, o.stride), n_ - 1);
      if (lo > hi) return {0, 0};
      const int64_t first = LowestReaching(j0, j1, lo, hi);
      if (first < 0) return {0, 0};
      return {first, HighestReaching(j0, j1, lo, hi) + 1};
    }
    case WindowKind::kInterpNearest:
      return {j0 * n_ / n_out_, j1 * n_ / n_out_ + 1};
    case WindowKind::kInterpLinear:
      return {LinearLow(j0), std::min(LinearLow(j1) + 1, n_ - 1) + 1};
    case WindowKind::kInterpLinearAligned: {
      // σ(j) = j·(N−1)/(N_out−1): rows ⌊σ⌋ and ⌊σ⌋+1 (clamped to N−1).
      const auto low = [&](int64_t j) { return n_out_ == 1 ? 0 : j * (n_ - 1) / (n_out_ - 1); };
      return {low(j0), std::min(low(j1) + 1, n_ - 1) + 1};
    }
    case WindowKind::kNeighborhoodAttention: {
      const auto start = [&](int64_t i) {
        return std::min(std::max(i - o.kernel / 2, int64_t{0}), n_ - o.kernel);
      };
      return {start(j0), start(j1) + o.kernel};
    }
  }
  return {0, 0};
}

// Input i scatters into outputs s·i − p + t·d, t in [0, k): does one land in [j0, j1]? That
// asks for a multiple of d in [j0 + p − s·i, j1 + p − s·i] ∩ [0, d(k−1)].
bool IndexMap::Reaches(int64_t i, int64_t j0, int64_t j1) const {
  const int64_t base = op_.pad_lo - op_.stride * i;
  const int64_t lo = std::max(j0 + base, int64_t{0}), hi = std::min(j1 + base, span_);
  return lo <= hi && CeilDiv(lo, op_.dilation) * op_.dilation <= hi;
}

// Over candidates [lo, hi] (each within reach of the interval's hull) the answer is found in
// O(d / gcd(s, d)) steps. As i grows the interval slides down by s: while its top is >= d(k−1)
// the multiple d(k−1) is in it, once its bottom is <= 0 zero is in it, and in between
// whether it holds a multiple of d depends on (j0 + p − s·i) mod d alone, which repeats with
// period d / gcd(s, d). So a scan of one period either hits or proves the middle stretch empty,
// and the answer is then where the always-hit stretch begins.
int64_t IndexMap::LowestReaching(int64_t j0, int64_t j1, int64_t lo, int64_t hi) const {
  const int64_t period = op_.dilation / std::gcd(op_.stride, op_.dilation);
  for (int64_t i = lo; i <= hi && i - lo <= period; ++i)
    if (Reaches(i, j0, j1)) return i;
  const int64_t bottom_in = std::max(CeilDiv(j0 + op_.pad_lo, op_.stride), lo);
  return bottom_in <= hi ? bottom_in : -1;
}

int64_t IndexMap::HighestReaching(int64_t j0, int64_t j1, int64_t lo, int64_t hi) const {
  const int64_t period = op_.dilation / std::gcd(op_.stride, op_.dilation);
  for (int64_t i = hi; i >= lo && hi - i <= period; --i)
    if (Reaches(i, j0, j1)) return i;
  const int64_t top_in = std::min(FloorDiv(j1 + op_.pad_lo - span_, op_.stride), hi);
  return top_in >= lo ? top_in : -1;
}

}  // namespace

const char* WindowKindName(WindowKind kind) {
  switch (kind) {
    case WindowKind::kConv:
      return "conv";
    case WindowKind::kPool:
      return "pool";
    case WindowKind::kConvTranspose:
      return "conv_transpose";
    case WindowKind::kInterpNearest:
      return "interp_nearest";
    case WindowKind::kInterpLinear:
      return "interp_linear";
    case WindowKind::kNeighborhoodAttention:
      return "neighborhood_attention";
    case WindowKind::kInterpLinearAligned:
      return "interp_linear_aligned";
  }
  return "?";
}

Result<DerivedWindows> DeriveWindows(int64_t extent, std::span<const RowRange> owned,
                                     const WindowOp& op, std::string_view op_name) {
  WEFT_RETURN_IF_ERROR(CheckPieces(extent, owned));
  WEFT_RETURN_IF_ERROR(CheckParams(op, extent, op_name));
  WEFT_ASSIGN_OR_RETURN(const IndexMap map, IndexMap::Create(op, extent, op_name));
  DerivedWindows out;
  out.out_extent = map.out_extent();
  out.out_sizes.reserve(owned.size());
  out.windows.reserve(owned.size());
  for (const RowRange r : owned) {
    const int64_t start = std::clamp(r.begin, int64_t{0}, extent);
    // Pieces tile the rows and anchors are monotone: a piece owns the outputs anchored in it.
    const int64_t j0 = r.begin < r.end ? map.FirstAnchoredAt(r.begin) : 0;
    const int64_t j1 = r.begin < r.end ? map.FirstAnchoredAt(r.end) : 0;  // exclusive
    RowRange window{start, start};
    if (j0 < j1) {
      const RowRange reads = map.Reads(j0, j1 - 1);
      if (reads.begin < reads.end) window = reads;
    }
    out.out_sizes.push_back(j1 - j0);
    out.windows.push_back(window);
  }
  return out;
}

}  // namespace weft::placement::halo
