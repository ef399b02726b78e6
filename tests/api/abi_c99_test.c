/* A C99 program that calls every function of <weft/weft.h> with valid arguments and checks
 * the results (SPEC §6.1, §10). It is built with -std=c99 -pedantic -Werror, so it also proves
 * that the headers, their macros and initializers are plain C99; and it links like a user's
 * program, through the exported WEFT_1.0 symbols of libweft.so.1 only.
 *
 * Expected values come from SPEC §2.1/§2.2 worked by hand, not from the library. */
#include <stdio.h>
#include <string.h>

#include <weft/weft.h>

static int g_failures = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      ++g_failures;                                                            \
    }                                                                          \
  } while (0)

#define CHECK_OK(call)                                                                             \
  do {                                                                                             \
    weft_status_t status_ = (call);                                                                \
    if (status_ != WEFT_OK) {                                                                      \
      fprintf(stderr, "%s:%d: %s returned %d (%s): %s\n", __FILE__, __LINE__, #call, (int)status_, \
              weft_status_string(status_), weft_last_error());                                     \
      ++g_failures;                                                                                \
    }                                                                                              \
  } while (0)

static int starts_with(const char* s, const char* prefix) {
  return s != NULL && strncmp(s, prefix, strlen(prefix)) == 0;
}

static void check_versions(void) {
  CHECK(weft_abi_version() == ((1u << 16) | 0u));
  CHECK(weft_abi_version() == (((uint32_t)WEFT_VERSION_MAJOR << 16) | WEFT_VERSION_MINOR));
  CHECK(starts_with(weft_version_string(), "1.0.0"));
  CHECK(starts_with(weft_status_string(WEFT_OK), "WEFT_OK"));
  CHECK(starts_with(weft_status_string(WEFT_ERR_TIMEOUT), "WEFT_ERR_TIMEOUT"));
  /* Nothing failed on this thread yet. */
  CHECK(weft_last_error() != NULL && weft_last_error()[0] == '\0');
}

/* The option macros are C99 initializers with the right struct_size. */
static void check_macros(void) {
  weft_call_options_t call = WEFT_CALL_OPTIONS_INIT;
  weft_mesh_options_t mesh = WEFT_MESH_OPTIONS_INIT;
  weft_placement_t r = WEFT_PLACEMENT_REPLICATE, s = WEFT_PLACEMENT_SHARD(3),
                   p = WEFT_PLACEMENT_PARTIAL(WEFT_REDUCE_PROD);
  DLDataType b = WEFT_DLPACK_BOOL;
  CHECK(call.struct_size == sizeof(weft_call_options_t) && call.timeout_ms == 0);
  CHECK(mesh.struct_size == sizeof(weft_mesh_options_t) && mesh.dim_names == NULL);
  CHECK(r.kind == WEFT_REPLICATE && s.kind == WEFT_SHARD && s.dim == 3);
  CHECK(p.kind == WEFT_PARTIAL && p.reduce_op == WEFT_REDUCE_PROD && p.reserved == 0);
  CHECK(b.code == WEFT_DLPACK_BOOL_CODE && b.bits == 8 && b.lanes == 1);
}

static int text_equals(size_t needed, const char* buf, const char* want) {
  return needed == strlen(want) + 1 && strcmp(buf, want) == 0;
}

/* Mesh [2, 3] over default ranks 0..5: rank 4 sits at (1, 1). */
static void check_mesh_queries(const weft_mesh_t* mesh) {
  int32_t ndim = 0, contains = -1, rank = -1, group[3] = {-1, -1, -1};
  int64_t shape[2] = {0, 0}, size = 0, coord[2] = {-1, -1};
  const int64_t at[2] = {1, 2};
  CHECK_OK(weft_mesh_ndim(mesh, &ndim));
  CHECK(ndim == 2);
  CHECK_OK(weft_mesh_shape(mesh, shape));
  CHECK(shape[0] == 2 && shape[1] == 3);
  CHECK_OK(weft_mesh_size(mesh, &size));
  CHECK(size == 6);
  CHECK_OK(weft_mesh_coordinate(mesh, 4, coord));
  CHECK(coord[0] == 1 && coord[1] == 1);
  CHECK_OK(weft_mesh_contains(mesh, 5, &contains));
  CHECK(contains == 1);
  CHECK_OK(weft_mesh_contains(mesh, 6, &contains));
  CHECK(contains == 0);
  CHECK_OK(weft_mesh_rank_at(mesh, at, &rank));
  CHECK(rank == 5);
  CHECK_OK(weft_mesh_group(mesh, 1, 4, group, 3));
  CHECK(group[0] == 3 && group[1] == 4 && group[2] == 5);
  CHECK_OK(weft_mesh_group(mesh, 0, 4, group, 3));
  CHECK(group[0] == 1 && group[1] == 4 && group[2] == 5); /* only 2 entries are written */
}

static void check_mesh_names(const weft_mesh_t* mesh) {
  int32_t dim = -1;
  char name[8];
  char text[128];
  size_t needed = 0;
  CHECK_OK(weft_mesh_dim_index(mesh, "tp", &dim));
  CHECK(dim == 1);
  CHECK_OK(weft_mesh_dim_name(mesh, 1, NULL, 0, &needed)); /* a size query */
  CHECK(needed == 3);
  CHECK_OK(weft_mesh_dim_name(mesh, 1, name, sizeof name, &needed));
  CHECK(text_equals(needed, name, "tp"));
  CHECK_OK(weft_mesh_describe(mesh, text, sizeof text, &needed));
  CHECK(starts_with(text, "mesh [2, 3] (dp, tp) ranks 0..5") && strlen(text) + 1 == needed);
}

/* Slices and flattening keep the ranks of the parent (SPEC §2.1). */
static void check_mesh_derived(const weft_mesh_t* mesh) {
  const int32_t keep_tp[1] = {1};
  const char* const keep_dp[1] = {"dp"};
  weft_mesh_t *row = NULL, *column = NULL, *flat = NULL;
  int64_t coord[1] = {-1}, size = 0;
  int32_t dim = -1, equal = -1;
  CHECK_OK(weft_mesh_slice(mesh, 1, keep_tp, 4, &row));
  CHECK_OK(weft_mesh_coordinate(row, 5, coord));
  CHECK(coord[0] == 2);
  CHECK_OK(weft_mesh_slice_by_names(mesh, 1, keep_dp, 4, &column));
  CHECK_OK(weft_mesh_coordinate(column, 1, coord));
  CHECK(coord[0] == 0);
  CHECK_OK(weft_mesh_flatten(mesh, 0, 2, "world", &flat));
  CHECK_OK(weft_mesh_size(flat, &size));
  CHECK(size == 6);
  CHECK_OK(weft_mesh_dim_index(flat, "world", &dim));
  CHECK(dim == 0);
  CHECK_OK(weft_mesh_equal(row, column, &equal));
  CHECK(equal == 0);
  CHECK_OK(weft_mesh_destroy(row));
  CHECK_OK(weft_mesh_destroy(column));
  CHECK_OK(weft_mesh_destroy(flat));
}

/* The same ranks under other names is the same mesh; other ranks are not. */
static void check_mesh_equality(const weft_mesh_t* mesh) {
  const int64_t shape[2] = {2, 3};
  const int32_t same[6] = {0, 1, 2, 3, 4, 5}, other[6] = {5, 4, 3, 2, 1, 0};
  weft_mesh_t *a = NULL, *b = NULL;
  int32_t equal = -1;
  CHECK_OK(weft_mesh_create(NULL, 2, shape, same, &a));
  CHECK_OK(weft_mesh_create(NULL, 2, shape, other, &b));
  CHECK_OK(weft_mesh_equal(mesh, a, &equal));
  CHECK(equal == 1);
  CHECK_OK(weft_mesh_equal(mesh, b, &equal));
  CHECK(equal == 0);
  CHECK_OK(weft_mesh_destroy(a));
  CHECK_OK(weft_mesh_destroy(b));
}

/* float32 [5, 7] as [S(0), S(1)] on [2, 3]: dim 0 chunks 3, 2; dim 1 chunks 3, 3, 1. */
static void check_layout_queries(const weft_layout_t* layout) {
  int32_t ndim = 0;
  int64_t global[2] = {0, 0}, shape[2] = {-1, -1}, offset[2] = {-1, -1};
  int64_t sizes[3] = {0, 0, 0}, count = 0;
  DLDataType dtype = {0, 0, 0};
  weft_placement_t placements[2];
  char text[512];
  size_t needed = 0;
  CHECK_OK(weft_layout_ndim(layout, &ndim));
  CHECK(ndim == 2);
  CHECK_OK(weft_layout_global_shape(layout, global));
  CHECK(global[0] == 5 && global[1] == 7);
  CHECK_OK(weft_layout_dtype(layout, &dtype));
  CHECK(dtype.code == kDLFloat && dtype.bits == 32 && dtype.lanes == 1);
  CHECK_OK(weft_layout_placements(layout, placements));
  CHECK(placements[0].kind == WEFT_SHARD && placements[0].dim == 0);
  CHECK(placements[1].kind == WEFT_SHARD && placements[1].dim == 1);
  CHECK_OK(weft_layout_local_shape(layout, 5, shape, offset)); /* (1, 2) */
  CHECK(shape[0] == 2 && offset[0] == 3 && shape[1] == 1 && offset[1] == 6);
  CHECK_OK(weft_layout_local_shape(layout, 6, shape, NULL)); /* outside the mesh */
  CHECK(shape[0] == 0 && shape[1] == 0);
  CHECK_OK(weft_layout_split_sizes(layout, 1, NULL, 0, &count));
  CHECK(count == 3);
  CHECK_OK(weft_layout_split_sizes(layout, 1, sizes, 3, &count));
  CHECK(sizes[0] == 3 && sizes[1] == 3 && sizes[2] == 1);
  CHECK_OK(weft_layout_describe(layout, NULL, 0, &needed));
  CHECK(needed > 1 && needed <= sizeof text);
  CHECK_OK(weft_layout_describe(layout, text, sizeof text, &needed));
  CHECK(starts_with(text, "float32") && strstr(text, "mesh [2, 3]") != NULL);
  CHECK(strlen(text) + 1 == needed);
}

/* An explicit split: rows 1, 4 instead of the chunk rule's 3, 2. One equal to the chunk rule is
 * the same layout as the chunk layout (SPEC §2.3). */
static void check_ragged(const weft_mesh_t* mesh, const weft_layout_t* chunked) {
  const int64_t global[2] = {5, 7}, rows[2] = {1, 4}, chunk_rows[2] = {3, 2};
  const int64_t* const ragged_sizes[2] = {rows, NULL};
  const int64_t* const chunk_sizes[2] = {chunk_rows, NULL};
  const int64_t counts[2] = {2, 0};
  const weft_placement_t placements[2] = {WEFT_PLACEMENT_SHARD(0), WEFT_PLACEMENT_SHARD(1)};
  const DLDataType f32 = {kDLFloat, 32, 1};
  weft_layout_t *ragged = NULL, *same = NULL;
  int64_t shape[2] = {-1, -1}, offset[2] = {-1, -1};
  int32_t equal = -1;
  CHECK_OK(
      weft_layout_create_ragged(mesh, 2, global, f32, placements, ragged_sizes, counts, &ragged));
  CHECK_OK(weft_layout_local_shape(ragged, 4, shape, offset)); /* (1, 1) */
  CHECK(shape[0] == 4 && offset[0] == 1 && shape[1] == 3 && offset[1] == 3);
  CHECK_OK(weft_layout_create_ragged(mesh, 2, global, f32, placements, chunk_sizes, counts, &same));
  CHECK_OK(weft_layout_equal(chunked, same, &equal));
  CHECK(equal == 1);
  CHECK_OK(weft_layout_equal(chunked, ragged, &equal));
  CHECK(equal == 0);
  CHECK_OK(weft_layout_destroy(ragged));
  CHECK_OK(weft_layout_destroy(same));
}

/* Bool Partial(max) (logical or) on a 1-D tensor: every rank holds the whole tensor. */
static void check_bool_partial(const weft_mesh_t* mesh) {
  const int64_t global[1] = {4};
  const weft_placement_t placements[2] = {WEFT_PLACEMENT_PARTIAL(WEFT_REDUCE_MAX),
                                          WEFT_PLACEMENT_REPLICATE};
  const DLDataType b = WEFT_DLPACK_BOOL;
  weft_layout_t* layout = NULL;
  int64_t shape[1] = {-1}, offset[1] = {-1};
  CHECK_OK(weft_layout_create(mesh, 1, global, b, placements, &layout));
  CHECK_OK(weft_layout_local_shape(layout, 3, shape, offset));
  CHECK(shape[0] == 4 && offset[0] == 0);
  CHECK_OK(weft_layout_destroy(layout));
}

/* ---- the runtime, on a world of one rank with the self backend -------------------------- */

static DLTensor vector_of(float* data, int64_t* shape) {
  DLTensor t;
  t.data = data;
  t.device.device_type = kDLCPU;
  t.device.device_id = 0;
  t.ndim = 1;
  t.dtype.code = kDLFloat;
  t.dtype.bits = 32;
  t.dtype.lanes = 1;
  t.shape = shape;
  t.strides = NULL;
  t.byte_offset = 0;
  return t;
}

static void clear(float* y) {
  int i;
  for (i = 0; i < 4; ++i) y[i] = -1.0f;
}

/* Over a group of one, every collective hands the input back. */
static int equals_x(const float* y) {
  return y[0] == 1.0f && y[1] == 2.0f && y[2] == 3.0f && y[3] == 4.0f;
}

static void check_context_queries(const weft_context_t* ctx) {
  int32_t rank = -1, size = -1, failed = 7;
  weft_status_t sticky = WEFT_ERR_INTERNAL;
  char name[16];
  size_t needed = 0;
  CHECK_OK(weft_context_rank(ctx, &rank));
  CHECK_OK(weft_context_world_size(ctx, &size));
  CHECK(rank == 0 && size == 1);
  CHECK_OK(weft_context_backend_name(ctx, name, sizeof name, &needed));
  CHECK(text_equals(needed, name, "self"));
  CHECK_OK(weft_context_error(ctx, &sticky, &failed, NULL, 0, &needed));
  CHECK(sticky == WEFT_OK && failed == -1 && needed == 1);
}

static void check_collectives(weft_context_t* ctx) {
  float x[4] = {1, 2, 3, 4}, y[4];
  int64_t shape[1] = {4};
  const int64_t counts[1] = {4};
  DLTensor tx = vector_of(x, shape), ty = vector_of(y, shape);
  clear(y);
  CHECK_OK(weft_allreduce(ctx, NULL, 0, &tx, &ty, WEFT_REDUCE_SUM, NULL, NULL, NULL));
  CHECK(equals_x(y));
  clear(y);
  CHECK_OK(weft_allgather(ctx, NULL, 0, &tx, &ty, NULL, NULL, NULL));
  CHECK(equals_x(y));
  clear(y);
  CHECK_OK(weft_allgatherv(ctx, NULL, 0, &tx, &ty, counts, NULL, NULL, NULL, NULL));
  CHECK(equals_x(y));
  clear(y);
  CHECK_OK(weft_reduce_scatter(ctx, NULL, 0, &tx, &ty, WEFT_REDUCE_MAX, NULL, NULL, NULL));
  CHECK(equals_x(y));
  clear(y);
  CHECK_OK(
      weft_reduce_scatterv(ctx, NULL, 0, &tx, &ty, counts, WEFT_REDUCE_PROD, NULL, NULL, NULL));
  CHECK(equals_x(y));
  clear(y);
  CHECK_OK(weft_alltoall(ctx, NULL, 0, &tx, &ty, NULL, NULL, NULL));
  CHECK(equals_x(y));
  clear(y);
  CHECK_OK(weft_alltoallv(ctx, NULL, 0, &tx, counts, NULL, &ty, counts, NULL, NULL, NULL, NULL));
  CHECK(equals_x(y));
  CHECK_OK(weft_broadcast(ctx, NULL, 0, &tx, 0, NULL, NULL, NULL));
  CHECK(equals_x(x));
  CHECK_OK(weft_barrier(ctx, NULL, 0, NULL, NULL, NULL));
}

/* Asynchronous work, point-to-point with oneself, and a mesh over the context. */
static void check_work_and_mesh(weft_context_t* ctx) {
  float x[4] = {1, 2, 3, 4}, y[4];
  int64_t shape[1] = {4};
  const int64_t one[1] = {1};
  DLTensor tx = vector_of(x, shape), ty = vector_of(y, shape);
  weft_call_options_t opts = WEFT_CALL_OPTIONS_INIT;
  weft_work_t *recv = NULL, *send = NULL;
  weft_mesh_t* mesh = NULL;
  int32_t done = 0;
  clear(y);
  CHECK_OK(weft_recv(ctx, NULL, 0, &ty, 0, 42, NULL, NULL, &recv));
  CHECK_OK(weft_send(ctx, NULL, 0, &tx, 0, 42, NULL, NULL, &send));
  CHECK(recv != NULL && send != NULL);
  CHECK_OK(weft_work_wait(send, -1));
  CHECK_OK(weft_work_wait(recv, -1));
  CHECK_OK(weft_work_test(recv, &done));
  CHECK(done == 1 && equals_x(y));
  CHECK_OK(weft_work_release(send));
  CHECK_OK(weft_work_release(recv));

  opts.timeout_ms = 10000;
  clear(y);
  CHECK_OK(weft_mesh_create(ctx, 1, one, NULL, &mesh));
  CHECK_OK(weft_allreduce(ctx, mesh, 0, &tx, &ty, WEFT_REDUCE_MIN, NULL, &opts, NULL));
  CHECK(equals_x(y));
  CHECK_OK(weft_mesh_destroy(mesh));
}

/* Redistribute on a one-rank mesh: [S0] -> [R] of 2x2 float32 is a copy (SPEC §3); the
 * plan reports its numbers and describes itself, and the one-shot call gives the same. */
static void check_redistribute(weft_context_t* ctx) {
  float x[4] = {1, 2, 3, 4}, y[4];
  int64_t shape[2] = {2, 2};
  const int64_t one[1] = {1};
  const weft_placement_t s0 = WEFT_PLACEMENT_SHARD(0), r = WEFT_PLACEMENT_REPLICATE;
  const DLDataType f32 = {kDLFloat, 32, 1};
  DLTensor tx = vector_of(x, shape), ty = vector_of(y, shape);
  weft_mesh_t* mesh = NULL;
  weft_layout_t *src = NULL, *dst = NULL;
  weft_plan_t* plan = NULL;
  weft_plan_options_t popts = WEFT_PLAN_OPTIONS_INIT;
  weft_plan_stats_t stats = WEFT_PLAN_STATS_INIT;
  size_t needed = 0;
  char text[512];
  tx.ndim = ty.ndim = 2;
  CHECK(popts.struct_size == sizeof(weft_plan_options_t) && popts.rank == -1 &&
        popts.extra_bytes_cap == -1);
  CHECK_OK(weft_mesh_create(ctx, 1, one, NULL, &mesh));
  CHECK_OK(weft_layout_create(mesh, 2, shape, f32, &s0, &src));
  CHECK_OK(weft_layout_create(mesh, 2, shape, f32, &r, &dst));
  CHECK_OK(weft_redistribute_plan_create(src, dst, &popts, &plan));
  CHECK_OK(weft_plan_stats(plan, &stats));
  CHECK(stats.steps == 0 && stats.send_bytes == 0 && stats.recv_bytes == 0);
  CHECK_OK(weft_plan_describe(plan, text, sizeof(text), &needed));
  CHECK(needed > 1 && needed == strlen(text) + 1);
  clear(y);
  CHECK_OK(weft_plan_execute(plan, &tx, &ty, NULL, NULL, NULL));
  CHECK(equals_x(y));
  clear(y);
  CHECK_OK(weft_redistribute(src, &tx, dst, &ty, NULL, NULL, NULL));
  CHECK(equals_x(y));
  CHECK_OK(weft_plan_destroy(plan));
  /* Batched: the same pair twice, one plan, one execution for both tensors. */
  {
    float x2[4] = {1, 2, 3, 4}, y2[4];
    DLTensor tx2 = vector_of(x2, shape), ty2 = vector_of(y2, shape);
    const weft_layout_t* srcs[2];
    const weft_layout_t* dsts[2];
    const DLTensor* ins[2];
    DLTensor* outs[2];
    tx2.ndim = ty2.ndim = 2;
    srcs[0] = srcs[1] = src;
    dsts[0] = dsts[1] = dst;
    ins[0] = &tx;
    ins[1] = &tx2;
    outs[0] = &ty;
    outs[1] = &ty2;
    CHECK_OK(weft_redistribute_plan_create_n(2, srcs, dsts, &popts, &plan));
    clear(y);
    clear(y2);
    CHECK_OK(weft_plan_execute_n(plan, 2, ins, outs, NULL, NULL, NULL));
    CHECK(equals_x(y) && equals_x(y2));
    CHECK_OK(weft_plan_destroy(plan));
  }
  CHECK_OK(weft_layout_destroy(src));
  CHECK_OK(weft_layout_destroy(dst));
  CHECK_OK(weft_mesh_destroy(mesh));
}

/* Halo on a one-rank mesh (SPEC §4): a periodic window of one row each side wraps the tensor
 * around; the in-place form fills only the ghost cells; accumulate is the adjoint (each edge
 * row also receives its wrapped copy); the derived window of a 3-wide convolution is [-1, 5). */
static void check_halo(weft_context_t* ctx) {
  float x[4] = {1, 2, 3, 4}, p[6], g[4];
  int64_t shape[1] = {4}, pshape[1] = {0}, origin[1] = {0}, windows[2] = {0, 0}, sizes[1] = {0};
  int64_t n_out = 0;
  const int64_t one[1] = {1};
  const weft_placement_t s0 = WEFT_PLACEMENT_SHARD(0);
  const DLDataType f32 = {kDLFloat, 32, 1};
  DLTensor tx = vector_of(x, shape), tp, tg = vector_of(g, shape);
  weft_mesh_t* mesh = NULL;
  weft_layout_t* layout = NULL;
  weft_plan_t* plan = NULL;
  weft_halo_dim_t dim;
  weft_halo_desc_t desc = WEFT_HALO_DESC_INIT;
  weft_window_op_t op = WEFT_WINDOW_OP_INIT;
  weft_plan_stats_t stats = WEFT_PLAN_STATS_INIT;
  memset(&dim, 0, sizeof(dim));
  dim.boundary_lo = dim.boundary_hi = WEFT_BOUNDARY_PERIODIC;
  dim.lo = dim.hi = dim.pad_lo = dim.pad_hi = 1;
  desc.ndims = 1;
  desc.dims = &dim;
  CHECK_OK(weft_mesh_create(ctx, 1, one, NULL, &mesh));
  CHECK_OK(weft_layout_create(mesh, 1, shape, f32, &s0, &layout));
  CHECK_OK(weft_halo_plan_create(layout, &desc, NULL, &plan));
  CHECK_OK(weft_halo_padded_shape(plan, -1, pshape, origin));
  CHECK(pshape[0] == 6 && origin[0] == -1);
  tp = vector_of(p, pshape);
  memset(p, 0, sizeof(p));
  CHECK_OK(weft_halo_exchange(plan, &tx, &tp, NULL, NULL, NULL));
  CHECK(p[0] == 4 && p[1] == 1 && p[4] == 4 && p[5] == 1);
  p[0] = p[5] = 0;
  CHECK_OK(weft_halo_exchange_inplace(plan, &tp, NULL, NULL, NULL));
  CHECK(p[0] == 4 && p[5] == 1);
  CHECK_OK(weft_halo_accumulate(plan, &tp, &tg, 0, NULL, NULL, NULL));
  CHECK(g[0] == 2 && g[1] == 2 && g[2] == 3 && g[3] == 8);
  CHECK_OK(weft_plan_stats(plan, &stats));
  CHECK(stats.send_bytes == 0 && stats.recv_bytes == 0);
  CHECK_OK(weft_plan_destroy(plan));
  op.kernel = 3;
  op.pad_lo = op.pad_hi = 1;
  CHECK_OK(weft_halo_derive_windows(layout, 0, &op, windows, 1, sizes, &n_out));
  CHECK(windows[0] == -1 && windows[1] == 5 && sizes[0] == 4 && n_out == 4);
  CHECK_OK(weft_layout_destroy(layout));
  CHECK_OK(weft_mesh_destroy(mesh));
}

/* After an abort every call fails with WEFT_ERR_ABORTED and the context reports it. */
static void check_abort(weft_context_t* ctx) {
  weft_status_t sticky = WEFT_OK;
  int32_t failed = -7;
  size_t needed = 0;
  CHECK_OK(weft_context_abort(ctx));
  CHECK(weft_barrier(ctx, NULL, 0, NULL, NULL, NULL) == WEFT_ERR_ABORTED);
  CHECK_OK(weft_context_error(ctx, &sticky, &failed, NULL, 0, &needed));
  CHECK(sticky == WEFT_ERR_ABORTED && needed > 1);
}

/* A checkpoint of one [2,3] float32 tensor: saved (blocking, then asynchronously over it),
 * listed, and loaded back. */
static void check_checkpoint(weft_context_t* ctx) {
  const int64_t one[1] = {1}, shape[2] = {2, 3};
  const weft_placement_t r[1] = {WEFT_PLACEMENT_REPLICATE};
  const DLDataType f32 = {kDLFloat, 32, 1};
  float x[6] = {0, 1, 2, 3, 4, 5}, y[6] = {0};
  int64_t tshape[2] = {2, 3}, pieces[1] = {0}, count = 0;
  DLTensor in, out;
  const DLTensor* ins[1];
  DLTensor* outs[1];
  const char* names[1] = {"w"};
  const weft_layout_t* layouts[1];
  weft_mesh_t* mesh = NULL;
  weft_layout_t* layout = NULL;
  weft_checkpoint_t* ckpt = NULL;
  weft_work_t* work = NULL;
  weft_checkpoint_save_options_t sopts = WEFT_CHECKPOINT_SAVE_OPTIONS_INIT;
  weft_checkpoint_load_options_t lopts = WEFT_CHECKPOINT_LOAD_OPTIONS_INIT;
  weft_checkpoint_tensor_info_t info = WEFT_CHECKPOINT_TENSOR_INFO_INIT;
  int32_t n = 0, index = -1;
  size_t needed = 0;
  char name[8];
  CHECK_OK(weft_mesh_create(ctx, 1, one, NULL, &mesh));
  CHECK_OK(weft_layout_create(mesh, 2, shape, f32, r, &layout));
  if (layout == NULL) return;
  memset(&in, 0, sizeof(in));
  in.data = x;
  in.device.device_type = kDLCPU;
  in.ndim = 2;
  in.dtype = f32;
  in.shape = tshape;
  out = in;
  out.data = y;
  ins[0] = &in;
  outs[0] = &out;
  layouts[0] = layout;
  sopts.overwrite = 1;
  CHECK_OK(weft_checkpoint_save(ctx, "abi_c99_ckpt", 1, names, layouts, ins, &sopts, NULL));
  CHECK_OK(weft_checkpoint_save(ctx, "abi_c99_ckpt", 1, names, layouts, ins, &sopts, &work));
  CHECK_OK(weft_work_wait(work, -1));
  CHECK_OK(weft_work_release(work));
  CHECK_OK(weft_checkpoint_open("abi_c99_ckpt", &ckpt));
  CHECK_OK(weft_checkpoint_num_tensors(ckpt, &n));
  CHECK(n == 1);
  CHECK_OK(weft_checkpoint_find(ckpt, "w", &index));
  CHECK(index == 0);
  CHECK_OK(weft_checkpoint_tensor_name(ckpt, 0, name, sizeof(name), &needed));
  CHECK(text_equals(needed, name, "w"));
  CHECK_OK(weft_checkpoint_tensor_info(ckpt, 0, &info));
  CHECK(info.ndim == 2 && info.shape[0] == 2 && info.shape[1] == 3 && info.num_boxes == 1 &&
        info.nbytes == 24 && info.mesh_ndim == 1 && info.placements[0].kind == WEFT_REPLICATE);
  CHECK_OK(weft_checkpoint_tensor_pieces(ckpt, 0, 1, pieces, 1, &count));
  CHECK(count == 1 && pieces[0] == 3);
  CHECK_OK(weft_checkpoint_close(ckpt));
  lopts.verify = 1;
  CHECK_OK(weft_checkpoint_load(ctx, "abi_c99_ckpt", 1, names, layouts, outs, &lopts));
  CHECK(memcmp(x, y, sizeof(x)) == 0);
  CHECK_OK(weft_layout_destroy(layout));
  CHECK_OK(weft_mesh_destroy(mesh));
}

static void check_runtime(void) {
  weft_context_options_t opts = WEFT_CONTEXT_OPTIONS_INIT;
  weft_context_t* ctx = NULL;
  opts.rank = 0;
  opts.world_size = 1;
  opts.backend = "self";
  opts.timeout_ms = 20000; /* a call that should not wait fails instead of hanging */
  CHECK_OK(weft_context_create(&opts, &ctx));
  if (ctx == NULL) return;
  check_context_queries(ctx);
  check_collectives(ctx);
  check_work_and_mesh(ctx);
  check_redistribute(ctx);
  check_halo(ctx);
  check_checkpoint(ctx);
  check_abort(ctx);
  CHECK_OK(weft_context_destroy(ctx));
}

/* A failed call reports the function and argument; a later success leaves the message. */
static void check_last_error(void) {
  weft_mesh_t* mesh = NULL;
  const int64_t shape[1] = {0};
  CHECK(weft_mesh_create(NULL, 1, shape, NULL, &mesh) == WEFT_ERR_INVALID_ARGUMENT);
  CHECK(mesh == NULL);
  CHECK(starts_with(weft_last_error(), "weft_mesh_create: shape[0]"));
  CHECK(weft_mesh_destroy(NULL) == WEFT_OK);
  CHECK(weft_layout_destroy(NULL) == WEFT_OK);
  CHECK(starts_with(weft_last_error(), "weft_mesh_create: shape[0]"));
}

/* Rules: matmul of row-sharded A by replicated B keeps the rows, moves nothing. */
static void check_rules(void) {
  const int64_t extent = 4, a_shape[2] = {8, 6}, b_shape[2] = {6, 5};
  const weft_placement_t rows[1] = {WEFT_PLACEMENT_SHARD(0)};
  const weft_placement_t replicated[1] = {WEFT_PLACEMENT_REPLICATE};
  const DLDataType f32 = {kDLFloat, 32, 1};
  weft_mesh_t* mesh = NULL;
  weft_layout_t *a = NULL, *b = NULL, *out = NULL, *in0 = NULL;
  weft_rules_t* rules = NULL;
  weft_strategy_t *s = NULL, *s2 = NULL, *all[4] = {NULL, NULL, NULL, NULL};
  weft_attr_t attr;
  weft_einsum_options_t einsum;
  weft_placement_t placement;
  int32_t n = 0, count = 0, k;
  double cost = -1;
  char text[2048];
  size_t needed = 0;
  const weft_layout_t* inputs[2];
  memset(&attr, 0, sizeof attr);
  attr.struct_size = sizeof attr;
  attr.name = "note";
  attr.kind = WEFT_ATTR_STRING;
  attr.s = "unread by matmul";
  CHECK_OK(weft_mesh_create(NULL, 1, &extent, NULL, &mesh));
  CHECK_OK(weft_layout_create(mesh, 2, a_shape, f32, rows, &a));
  CHECK_OK(weft_layout_create(mesh, 2, b_shape, f32, replicated, &b));
  inputs[0] = a;
  inputs[1] = b;
  CHECK_OK(weft_rules_create(&rules));
  CHECK_OK(weft_rules_list_ops(rules, NULL, 0, &needed));
  CHECK(needed > 1 && needed <= sizeof text);
  CHECK_OK(weft_rules_list_ops(rules, text, sizeof text, &needed));
  CHECK(strstr(text, "matmul\n") != NULL && strstr(text, "add\n") != NULL);
  CHECK_OK(weft_rules_propagate(rules, "mm", 2, inputs, &attr, 1, &s));
  CHECK_OK(weft_strategy_num_inputs(s, &n));
  CHECK(n == 2);
  CHECK_OK(weft_strategy_num_outputs(s, &n));
  CHECK(n == 1);
  CHECK_OK(weft_strategy_cost(s, &cost));
  CHECK(cost == 0);
  CHECK_OK(weft_strategy_output_layout(s, 0, &out));
  CHECK_OK(weft_layout_placements(out, &placement));
  CHECK(placement.kind == WEFT_SHARD && placement.dim == 0);
  CHECK_OK(weft_strategy_input_layout(s, 0, &in0));
  CHECK_OK(weft_layout_placements(in0, &placement));
  CHECK(placement.kind == WEFT_SHARD && placement.dim == 0);
  {
    weft_halo_desc_t halo = WEFT_HALO_DESC_INIT;
    CHECK_OK(weft_strategy_input_halo(s, 0, &halo));
    CHECK(halo.ndims == 0); /* a matmul reads no windows */
  }
  CHECK_OK(weft_strategy_describe(s, text, sizeof text, &needed));
  CHECK(starts_with(text, "matmul: cost"));
  CHECK_OK(weft_rules_enumerate(rules, "matmul", 2, inputs, NULL, 0, all, 4, &count));
  CHECK(count >= 4);
  CHECK_OK(weft_strategy_cost(all[0], &cost));
  CHECK(cost == 0);
  for (k = 0; k < 4; ++k) CHECK_OK(weft_strategy_destroy(all[k]));
  CHECK(weft_rules_propagate(rules, "conv9d", 2, inputs, NULL, 0, &s) == WEFT_ERR_INVALID_ARGUMENT);
  memset(&einsum, 0, sizeof einsum);
  einsum.struct_size = sizeof einsum;
  einsum.unshardable = "k";
  CHECK_OK(weft_rules_register_einsum(rules, "my_mm", "mk,kn->mn", &einsum));
  CHECK(weft_rules_register_einsum(rules, "bad", "mk,k1->m", NULL) == WEFT_ERR_INVALID_ARGUMENT);
  CHECK(strstr(weft_last_error(), "column 5") != NULL);
  CHECK_OK(weft_rules_load_string(rules, "weft-rules 1\neinsum dot i,i->\n", "inline"));
  CHECK(weft_rules_load_string(rules, "weft-rules 1\nalias x\n", "inline") ==
        WEFT_ERR_INVALID_ARGUMENT);
  CHECK(strstr(weft_last_error(), "inline:2:1") != NULL);
  CHECK(weft_rules_load_plugin(rules, "no_such_rules_plugin") == WEFT_ERR_NOT_AVAILABLE);
  CHECK(weft_rules_load_file(rules, "/nonexistent/weft.rules") == WEFT_ERR_INVALID_ARGUMENT);
  CHECK(weft_rules_attach(rules, NULL) == WEFT_ERR_INVALID_ARGUMENT); /* a real one: tests/api */
  CHECK_OK(weft_rules_propagate(rules, "my_mm", 2, inputs, NULL, 0, &s2));
  CHECK_OK(weft_strategy_destroy(s2));
  CHECK_OK(weft_strategy_destroy(s));
  CHECK_OK(weft_rules_destroy(rules));
  CHECK_OK(weft_layout_destroy(in0));
  CHECK_OK(weft_layout_destroy(out));
  CHECK_OK(weft_layout_destroy(a));
  CHECK_OK(weft_layout_destroy(b));
  CHECK_OK(weft_mesh_destroy(mesh));
}

int main(void) {
  const int64_t shape[2] = {2, 3}, global[2] = {5, 7};
  const char* const names[2] = {"dp", "tp"};
  weft_mesh_options_t opts = WEFT_MESH_OPTIONS_INIT;
  const weft_placement_t placements[2] = {WEFT_PLACEMENT_SHARD(0), WEFT_PLACEMENT_SHARD(1)};
  const DLDataType f32 = {kDLFloat, 32, 1};
  weft_mesh_t* mesh = NULL;
  weft_layout_t* layout = NULL;

  check_versions();
  check_macros();
  opts.dim_names = names;
  CHECK_OK(weft_mesh_create_ex(NULL, 2, shape, NULL, &opts, &mesh));
  if (mesh == NULL) return 1;
  check_mesh_queries(mesh);
  check_mesh_names(mesh);
  check_mesh_derived(mesh);
  check_mesh_equality(mesh);
  CHECK_OK(weft_layout_create(mesh, 2, global, f32, placements, &layout));
  if (layout == NULL) return 1;
  CHECK_OK(weft_mesh_destroy(mesh)); /* the layout keeps what it needs of the mesh */
  check_layout_queries(layout);
  CHECK_OK(weft_mesh_create_ex(NULL, 2, shape, NULL, NULL, &mesh));
  check_ragged(mesh, layout);
  check_bool_partial(mesh);
  CHECK_OK(weft_layout_destroy(layout));
  CHECK_OK(weft_mesh_destroy(mesh));
  check_rules();
  check_runtime();
  check_last_error();

  if (g_failures != 0) {
    fprintf(stderr, "abi_c99_test: %d check(s) failed\n", g_failures);
    return 1;
  }
  printf("abi_c99_test: all checks passed\n");
  return 0;
}
