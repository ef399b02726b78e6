/* Weft C ABI: device meshes (SPEC §2.1).
 *
 * A mesh is an N-D array of world ranks. A rank's coordinate is its row-major position; the
 * group of mesh dim i for a rank is every mesh rank sharing its coordinates on the other dims,
 * ordered by coordinate i. Meshes are immutable, local (creating one never communicates) and
 * cheap: a mesh over default ranks costs O(ndim) memory whatever its size.
 * Every function here is thread-safe and never blocks.
 */
#ifndef WEFT_MESH_H_
#define WEFT_MESH_H_

#include "weft/types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct weft_mesh_options {
  uint32_t struct_size;
  uint32_t reserved;
  /* NULL, or one name per mesh dim (NULL or "" = unnamed). Names must be distinct; they are
   * copied. Names never take part in equality. */
  const char* const* dim_names;
} weft_mesh_options_t;

#define WEFT_MESH_OPTIONS_INIT \
  { sizeof(weft_mesh_options_t), 0, NULL }

/* Creates a mesh of `ndim` (1..WEFT_MAX_MESH_NDIM) dims with extents `shape` (each >= 1).
 * ctx: the context whose world ranks the mesh holds, or NULL for an abstract mesh (planning,
 *   sizing and tests; any size up to 2^31-1 ranks, with no processes behind it).
 * ranks: NULL for 0..n-1 row-major, else n distinct world ranks in row-major order (below the
 *   world size when ctx is given). Copied.
 * Errors: WEFT_ERR_INVALID_ARGUMENT naming the argument. Destroy with weft_mesh_destroy. */
WEFT_API weft_status_t weft_mesh_create(weft_context_t* ctx, int32_t ndim, const int64_t* shape,
                                        const int32_t* ranks, weft_mesh_t** mesh);

/* weft_mesh_create with options (dim names). opts may be NULL. */
WEFT_API weft_status_t weft_mesh_create_ex(weft_context_t* ctx, int32_t ndim, const int64_t* shape,
                                           const int32_t* ranks, const weft_mesh_options_t* opts,
                                           weft_mesh_t** mesh);

/* Releases the handle. Layouts made from it stay valid. NULL is accepted; a destroyed or
 * foreign mesh gives WEFT_ERR_INVALID_ARGUMENT. A call another thread is in with the mesh
 * finishes first (weft/types.h). */
WEFT_API weft_status_t weft_mesh_destroy(weft_mesh_t* mesh);

WEFT_API weft_status_t weft_mesh_ndim(const weft_mesh_t* mesh, int32_t* ndim);
/* Writes ndim extents into shape. */
WEFT_API weft_status_t weft_mesh_shape(const weft_mesh_t* mesh, int64_t* shape);
/* Number of ranks (product of the extents). */
WEFT_API weft_status_t weft_mesh_size(const weft_mesh_t* mesh, int64_t* size);

/* Writes ndim coordinates of `rank` into coord. A rank not in the mesh is
 * WEFT_ERR_INVALID_ARGUMENT; use weft_mesh_contains to ask without an error. */
WEFT_API weft_status_t weft_mesh_coordinate(const weft_mesh_t* mesh, int32_t rank, int64_t* coord);
/* *contains = 1 if `rank` is in the mesh, else 0. */
WEFT_API weft_status_t weft_mesh_contains(const weft_mesh_t* mesh, int32_t rank, int32_t* contains);
/* The world rank at `coord` (ndim entries, each in range). */
WEFT_API weft_status_t weft_mesh_rank_at(const weft_mesh_t* mesh, const int64_t* coord,
                                         int32_t* rank);
/* The group of mesh dim `dim` through `rank`: shape[dim] ranks ordered by coordinate `dim`,
 * written into ranks, which holds `len` entries (len >= shape[dim]). */
WEFT_API weft_status_t weft_mesh_group(const weft_mesh_t* mesh, int32_t dim, int32_t rank,
                                       int32_t* ranks, int64_t len);

/* The sub-mesh over `dims` (nkeep ascending dim indices) that holds `rank`: the ranks sharing
 * rank's coordinates on every other dim. Dim names are kept. O(ndim) for default ranks. */
WEFT_API weft_status_t weft_mesh_slice(const weft_mesh_t* mesh, int32_t nkeep, const int32_t* dims,
                                       int32_t rank, weft_mesh_t** out);
/* weft_mesh_slice naming the kept dims (in any order; they are kept in mesh order). */
WEFT_API weft_status_t weft_mesh_slice_by_names(const weft_mesh_t* mesh, int32_t nkeep,
                                                const char* const* names, int32_t rank,
                                                weft_mesh_t** out);
/* Merges the `count` consecutive dims starting at `first` into one (row-major), named `name`
 * (NULL or "" = unnamed). The ranks and their order are unchanged. */
WEFT_API weft_status_t weft_mesh_flatten(const weft_mesh_t* mesh, int32_t first, int32_t count,
                                         const char* name, weft_mesh_t** out);

/* Index of the dim called `name`; WEFT_ERR_INVALID_ARGUMENT if there is none. */
WEFT_API weft_status_t weft_mesh_dim_index(const weft_mesh_t* mesh, const char* name, int32_t* dim);
/* The name of `dim` ("" if unnamed), as text (buf, len, needed). */
WEFT_API weft_status_t weft_mesh_dim_name(const weft_mesh_t* mesh, int32_t dim, char* buf,
                                          size_t len, size_t* needed);
/* *equal = 1 if both meshes have the same context, shape and ranks (names do not count). */
WEFT_API weft_status_t weft_mesh_equal(const weft_mesh_t* a, const weft_mesh_t* b, int32_t* equal);
/* A one-line description ("mesh [2, 4] (dp, tp) ranks 0..7"), as text. */
WEFT_API weft_status_t weft_mesh_describe(const weft_mesh_t* mesh, char* buf, size_t len,
                                          size_t* needed);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_MESH_H_ */
