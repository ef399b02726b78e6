/* Multi-rank demo: every rank joins the world (launched by weftrun, mpirun, srun or torchrun),
 * builds a 2-D mesh, all-reduces a vector over the whole world and over each mesh dim, checks
 * every element against the closed form, and prints what it did.
 *
 *   weftrun -n 4 build/release/examples/allreduce_demo
 */
#include <stdio.h>
#include <stdlib.h>

#include "weft/weft.h"

#define CHECK(call)                                                 \
  do {                                                              \
    weft_status_t s_ = (call);                                      \
    if (s_ != WEFT_OK) {                                            \
      fprintf(stderr, "%s failed: %s\n", #call, weft_last_error()); \
      return 1;                                                     \
    }                                                               \
  } while (0)

enum { kCount = 1 << 20 };

static DLTensor Vector(float* data, int64_t* shape) {
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

int main(void) {
  weft_context_t* ctx = NULL;
  int32_t rank = 0, size = 1;
  char backend[32];
  size_t needed = 0;
  CHECK(weft_context_create(NULL, &ctx));
  CHECK(weft_context_rank(ctx, &rank));
  CHECK(weft_context_world_size(ctx, &size));
  CHECK(weft_context_backend_name(ctx, backend, sizeof(backend), &needed));

  float* x = malloc(sizeof(float) * kCount);
  float* y = malloc(sizeof(float) * kCount);
  int64_t shape[1] = {kCount};
  DLTensor tx = Vector(x, shape), ty = Vector(y, shape);
  for (int64_t i = 0; i < kCount; ++i) x[i] = (float)(rank + 1) * (float)(i % 1000);

  CHECK(weft_allreduce(ctx, NULL, 0, &tx, &ty, WEFT_REDUCE_SUM, NULL, NULL, NULL));
  const float ranks_sum = (float)size * (float)(size + 1) / 2.0f;
  int64_t wrong = 0;
  for (int64_t i = 0; i < kCount; ++i) wrong += y[i] != ranks_sum * (float)(i % 1000);
  printf("world all-reduce of %d floats over %d ranks (%s): %lld wrong\n", kCount, size, backend,
         (long long)wrong);

  /* The same over the rows and the columns of a 2-D mesh (2 x size/2 when size is even). */
  const int64_t rows = size % 2 == 0 ? 2 : 1, mesh_shape[2] = {rows, size / rows};
  weft_mesh_t* mesh = NULL;
  CHECK(weft_mesh_create(ctx, 2, mesh_shape, NULL, &mesh));
  for (int32_t dim = 0; dim < 2; ++dim) {
    int32_t group[64];
    float group_sum = 0;
    CHECK(weft_mesh_group(mesh, dim, rank, group, 64));
    for (int64_t g = 0; g < mesh_shape[dim]; ++g) group_sum += (float)(group[g] + 1);
    CHECK(weft_allreduce(ctx, mesh, dim, &tx, &ty, WEFT_REDUCE_SUM, NULL, NULL, NULL));
    int64_t bad = 0;
    for (int64_t i = 0; i < kCount; ++i) bad += y[i] != group_sum * (float)(i % 1000);
    printf("mesh dim %d all-reduce over group of %lld: %lld wrong\n", dim,
           (long long)mesh_shape[dim], (long long)bad);
    wrong += bad;
  }
  CHECK(weft_mesh_destroy(mesh));
  free(x);
  free(y);
  CHECK(weft_context_destroy(ctx));
  return wrong == 0 ? 0 : 1;
}
