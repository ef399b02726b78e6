// The windows windowed operators read (SPEC §4.5): from an operator's index map, the output rows
// each piece of a sharded dim owns and the input window it must read to compute them. Pure
// arithmetic on replicated metadata, so every rank derives the same table without talking.
//
// Output ownership. Every operator gives output j an *anchor* input row, non-decreasing in j,
// and j belongs to the piece that owns its anchor. Pieces own contiguous input ranges in piece
// order, so each piece owns a contiguous run of outputs and the runs follow piece order (the
// output split; a piece can own none). The anchors (c = ⌊d(k−1)/2⌋, clamp to [0, N−1]):
//  - conv, pool: the centre of the receptive field, clamp(s·j − p_lo + c) (SPEC §4.5);
//  - transposed conv: the input row whose scattered centre s·i − p + c is nearest to j (ties
//    to the higher row), clamp(⌊(j + p − c + ⌊s/2⌋)/s⌋) — for stride 1 and "same" padding the
//    output split equals the input split;
//  - nearest interpolation: the row it reads, ⌊j·N/N_out⌋, so nearest never needs a halo;
//  - linear interpolation: the row holding the output's centre, ⌊(j + ½)·N/N_out⌋ — for an
//    integer factor m, piece [a, b) owns exactly outputs [m·a, m·b);
//  - linear interpolation with align_corners: σ(j) = j·(N−1)/(N_out−1) rounded half up;
//  - neighbourhood attention: j itself (the output split equals the input split).
//
// Windows are exact: the hull of the input rows the piece's outputs read (rows < 0 or >= N are
// padding, and stay within [−p_lo, N + p_hi)). A transposed conv reads input i for output j when
// j = s·i − p + t·d for some t in [0, k); outputs that no input reaches read nothing, so its
// window can be narrower than SPEC §4.5's bound, and is empty when none of its outputs is reached.
// A piece whose window is empty gets [a, a), a being its start (an empty piece's offset clamped
// to [0, N]).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "common/result.hpp"

namespace weft::placement::halo {

// Values equal to the C ABI's WEFT_WINDOW_*.
enum class WindowKind : int32_t {
  kConv = 0,
  kPool = 1,
  kConvTranspose = 2,
  kInterpNearest = 3,
  kInterpLinear = 4,
  kNeighborhoodAttention = 5,
  kInterpLinearAligned = 6,  // linear interpolation with align_corners
};
inline constexpr int32_t kNumWindowKinds = 7;

// An operator along one dim. Fields an operator does not take must keep these defaults
// (out_extent excepted: only interpolation reads it, the others ignore it), so that a later
// version can give them a meaning without changing what old callers get.
struct WindowOp {
  WindowKind kind = WindowKind::kConv;
  int64_t kernel = 1;
  int64_t stride = 1;
  int64_t dilation = 1;
  // conv, pool: zero padding below row 0 / above row N−1. Transposed conv: pad_lo is its
  // padding p (cropped from both ends of the output), pad_hi its output_padding.
  int64_t pad_lo = 0;
  int64_t pad_hi = 0;
  int64_t out_extent = 0;  // interpolation: N_out (>= 1)
};

// A half-open row range [begin, end).
struct RowRange {
  int64_t begin = 0;
  int64_t end = 0;
};

struct DerivedWindows {
  int64_t out_extent = 0;          // N_out
  std::vector<int64_t> out_sizes;  // output rows per piece, in piece order; they sum to N_out
  std::vector<RowRange> windows;   // input window per piece, in piece order
};

const char* WindowKindName(WindowKind kind);

// `owned` holds every piece of the dim in piece order: the nonempty ones must tile [0, extent)
// in order; an empty one (begin == end) may sit anywhere (SPEC §2.2 puts it at the extent).
// Errors (InvalidArgument) name the field as `op_name` + field ("op->kernel is 0 ..."): a bad
// parameter, an output extent that would be < 1 or overflow int64, extent < 1, bad pieces.
Result<DerivedWindows> DeriveWindows(int64_t extent, std::span<const RowRange> owned,
                                     const WindowOp& op, std::string_view op_name = "op.");

}  // namespace weft::placement::halo
