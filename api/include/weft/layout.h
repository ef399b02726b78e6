/* Weft C ABI: tensor layouts (SPEC §2.2, §2.3).
 *
 * A layout is (mesh, global shape, dtype, one placement per mesh dim, optional explicit
 * splits). Shard(d) splits tensor dim d into contiguous pieces in coordinate order: by default
 * exactly as torch.chunk (c = ceil(n/k); short pieces trail and may be empty), or by explicit
 * sizes. Several mesh dims sharding one tensor dim nest left to right (mesh dim 0 outermost).
 * An empty piece's offset is the global extent. Layouts are immutable, never communicate and
 * keep what they need of their mesh (the mesh handle may be destroyed first).
 * Every function here is thread-safe and never blocks.
 */
#ifndef WEFT_LAYOUT_H_
#define WEFT_LAYOUT_H_

#include "weft/mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Creates a layout with chunk splits.
 * ndim: 0..WEFT_MAX_TENSOR_NDIM tensor dims; global_shape: ndim extents >= 0 (may be NULL when
 * ndim is 0). dtype: any whole-byte single-lane DLPack type. placements: one per mesh dim.
 * Rejected (WEFT_ERR_INVALID_ARGUMENT): a shard dim out of range; a negative extent;
 * Partial(avg) on integer or bool; Partial(sum|prod) on bool; Partial(max|min) on complex;
 * Partial on a dtype without reduction kernels; Partial on several mesh dims with different
 * ops, except sum with avg; unknown kinds or ops; a non-zero reserved field. */
WEFT_API weft_status_t weft_layout_create(const weft_mesh_t* mesh, int32_t ndim,
                                          const int64_t* global_shape, DLDataType dtype,
                                          const weft_placement_t* placements,
                                          weft_layout_t** layout);

/* weft_layout_create with explicit (ragged) splits. split_sizes may be NULL (all chunk), else
 * it holds ndim entries: NULL for the chunk rule on that dim, or split_counts[d] piece sizes
 * (>= 0, summing to global_shape[d]). The pieces of dim d are indexed by the row-major
 * combination of the coordinates of the mesh dims that shard d, so split_counts[d] must be
 * the product of their extents (1, with sizes {n}, for a dim no mesh dim shards). An explicit
 * split equal to the chunk split gives the same layout as the chunk split. Copied. */
WEFT_API weft_status_t weft_layout_create_ragged(const weft_mesh_t* mesh, int32_t ndim,
                                                 const int64_t* global_shape, DLDataType dtype,
                                                 const weft_placement_t* placements,
                                                 const int64_t* const* split_sizes,
                                                 const int64_t* split_counts,
                                                 weft_layout_t** layout);

/* The local block of world rank `rank` (>= 0): its shape and global offset per tensor dim,
 * computed without communication in time independent of the world size. A rank outside the
 * mesh gets extents 0 and offsets equal to the global shape; an empty piece's offset is the
 * global extent. shape receives ndim values; offset may be NULL. */
WEFT_API weft_status_t weft_layout_local_shape(const weft_layout_t* layout, int32_t rank,
                                               int64_t* shape, int64_t* offset);

/* Releases the handle; plans made from it stay valid. NULL is accepted; a destroyed or foreign
 * layout gives WEFT_ERR_INVALID_ARGUMENT. A call another thread is in with the layout finishes
 * first (weft/types.h). */
WEFT_API weft_status_t weft_layout_destroy(weft_layout_t* layout);

WEFT_API weft_status_t weft_layout_ndim(const weft_layout_t* layout, int32_t* ndim);
WEFT_API weft_status_t weft_layout_global_shape(const weft_layout_t* layout, int64_t* shape);
WEFT_API weft_status_t weft_layout_dtype(const weft_layout_t* layout, DLDataType* dtype);
/* Writes one placement per mesh dim. */
WEFT_API weft_status_t weft_layout_placements(const weft_layout_t* layout,
                                              weft_placement_t* placements);
/* The resolved piece sizes of tensor dim `dim` (chunk or explicit). *count is always set to the
 * number of pieces; sizes (len entries) is written only when len >= *count. */
WEFT_API weft_status_t weft_layout_split_sizes(const weft_layout_t* layout, int32_t dim,
                                               int64_t* sizes, int64_t len, int64_t* count);
/* *equal = 1 if the layouts are equal: equal meshes, global shapes, dtypes, placements and
 * resolved piece sizes. Mesh dim names do not count. */
WEFT_API weft_status_t weft_layout_equal(const weft_layout_t* a, const weft_layout_t* b,
                                         int32_t* equal);
/* A multi-line description (dtype, shape, mesh, placements, the pieces of each sharded dim),
 * as text (buf, len, needed). */
WEFT_API weft_status_t weft_layout_describe(const weft_layout_t* layout, char* buf, size_t len,
                                            size_t* needed);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_LAYOUT_H_ */
