/* Weft C ABI: the windows windowed operators read (SPEC §4.5), for halo plans in explicit mode.
 *
 * Given a layout and one of its tensor dims, an operator's index map gives every rank the
 * half-open input window it reads and the output rows it owns. The output rows split like the
 * input (one piece per piece of the dim, in piece order), so the results plug straight into
 * weft_halo_dim_t.windows (explicit mode, pad_lo/pad_hi from the operator) and into
 * weft_layout_create_ragged for the output layout. Exact for any stride, even kernels,
 * uneven and ragged splits; a rank that owns no outputs gets an empty window.
 */
#ifndef WEFT_HALO_WINDOWS_H_
#define WEFT_HALO_WINDOWS_H_

#include "weft/layout.h"

#ifdef __cplusplus
extern "C" {
#endif

/* CONV: kernel k, stride s, dilation d, padding pad_lo/pad_hi; N_out =
 *   floor((N + pad_lo + pad_hi - d(k-1) - 1) / s) + 1; output j belongs to the owner of input row
 *   clamp(s j - pad_lo + floor(d(k-1)/2), 0, N-1); outputs j0..j1 read
 *   [s j0 - pad_lo, s j1 - pad_lo + d(k-1) + 1).
 * POOL: as CONV (kernel, stride, dilation, padding of the pooling window).
 * CONV_TRANSPOSE: kernel, stride, dilation, padding p = pad_lo (pad_hi: extra rows added at the
 *   high end of the output, i.e. output_padding); N_out = (N-1)s - 2p + d(k-1) + 1 + pad_hi;
 *   input i scatters into outputs s i - p + t d (taps t = 0..k-1), so through tap t outputs
 *   j0..j1 read R_t = [ceil((j0 + p - t d)/s), floor((j1 + p - t d)/s)] ∩ [0, N), and the
 *   window is [least, greatest + 1) of the union of the R_t (empty when all are): exactly the
 *   rows read. With d = 1 the R_t overlap and this is [ceil((j0 + p - (k-1))/s),
 *   floor((j1 + p)/s) + 1) ∩ [0, N); with d > 1 that hull may hold rows no tap reaches.
 * INTERP_NEAREST / INTERP_LINEAR: out_extent = N_out; linear output j reads rows floor(σ) and
 *   floor(σ)+1 (clamped to N-1) with σ(j) = max((j + ½) N / N_out - ½, 0); nearest reads
 *   floor(j N / N_out).
 * INTERP_LINEAR_ALIGNED (align_corners): σ(j) = j (N-1) / (N_out-1) (0 when N_out = 1); output j
 *   reads rows floor(σ) and floor(σ)+1 (clamped to N-1) and belongs to the owner of row
 *   floor(σ + ½).
 * NEIGHBORHOOD_ATTENTION: odd kernel k <= N; query i reads [start(i), start(i) + k) with
 *   start(i) = min(max(i - floor(k/2), 0), N - k); the output split equals the input split. */
#define WEFT_WINDOW_CONV 0
#define WEFT_WINDOW_POOL 1
#define WEFT_WINDOW_CONV_TRANSPOSE 2
#define WEFT_WINDOW_INTERP_NEAREST 3
#define WEFT_WINDOW_INTERP_LINEAR 4
#define WEFT_WINDOW_NEIGHBORHOOD_ATTENTION 5
#define WEFT_WINDOW_INTERP_LINEAR_ALIGNED 6

typedef struct weft_window_op {
  uint32_t struct_size;
  int32_t kind; /* WEFT_WINDOW_* */
  int64_t kernel, stride, dilation;
  int64_t pad_lo, pad_hi;
  int64_t out_extent; /* interpolation: N_out (>= 1); ignored by the others */
} weft_window_op_t;

#define WEFT_WINDOW_OP_INIT \
  { sizeof(weft_window_op_t), WEFT_WINDOW_CONV, 1, 1, 1, 0, 0, 0 }

/* For tensor dim `dim` of `layout` and operator `op`:
 *  - windows (may be NULL): 2 × (mesh size) values, begin and end of the input window of the
 *    rank at each row-major mesh position (global input rows; negative / >= N into the padding);
 *  - out_sizes (may be NULL): npieces values, the output rows of each piece of the dim in piece
 *    order (npieces must equal the dim's piece count: the product of the extents of the mesh
 *    dims that shard it, 1 when it is not sharded);
 *  - out_extent (may be NULL): N_out.
 * Errors: WEFT_ERR_INVALID_ARGUMENT naming the field (kernel, stride, dilation < 1, negative
 * padding, no output rows, an even attention kernel, npieces mismatch, ...). */
WEFT_API weft_status_t weft_halo_derive_windows(const weft_layout_t* layout, int32_t dim,
                                                const weft_window_op_t* op, int64_t* windows,
                                                int32_t npieces, int64_t* out_sizes,
                                                int64_t* out_extent);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_HALO_WINDOWS_H_ */
