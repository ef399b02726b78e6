/* layout_explain: shows which block of a tensor every rank of a mesh holds.
 *
 *   layout_explain [MESH [SHAPE [PLACEMENTS [SPLIT]]]]
 *     MESH        mesh extents, e.g. 2x2                         (default 2x2)
 *     SHAPE       global tensor extents, e.g. 5x8; "" for a scalar (default 5x8)
 *     PLACEMENTS  one per mesh dim: R, S<dim>, P or P<op> (Psum, Pavg, Pmax, Pmin, Pprod),
 *                 comma-separated, e.g. S0,S1                    (default S0,S1)
 *     SPLIT       an explicit (ragged) split of one tensor dim: DIM:SIZE,SIZE,...
 *                 e.g. 0:3,0,2 (sizes may be zero; they must sum to the extent)
 *
 * With no arguments it runs three demos: a 5x8 float32 tensor on a 2x2 mesh with [S0,S1];
 * nested [S0,S0] (5 rows -> 2,1,1,1 where a flat split over 4 gives 2,2,1,0); and a ragged
 * split with an empty piece, whose offset is the global extent.
 * Everything here is local metadata: an abstract mesh (no context) needs no processes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/weft.h>

#define MAX_SPLIT 4096
#define MAX_LISTED 64 /* ranks printed */

typedef struct explain_args {
  int32_t mesh_ndim;
  int64_t mesh[WEFT_MAX_MESH_NDIM];
  int32_t ndim;
  int64_t shape[WEFT_MAX_TENSOR_NDIM];
  weft_placement_t placements[WEFT_MAX_MESH_NDIM];
  int32_t nplacements;
  int32_t split_dim; /* -1: chunk splits only */
  int64_t split[MAX_SPLIT];
  int64_t split_count;
} explain_args;

/* Reports a failed call with Weft's message, which names the offending argument. */
static int failed(weft_status_t s, const char* call) {
  if (s == WEFT_OK) return 0;
  fprintf(stderr, "layout_explain: %s: %s\n  %s\n", call, weft_status_string(s), weft_last_error());
  return 1;
}

/* Parses "a<sep>b<sep>c" into at most `max` integers; -1 on malformed text. */
static int parse_ints(const char* text, char sep, int64_t* out, int max) {
  int n = 0;
  const char* p = text;
  if (*p == '\0') return 0;
  for (;;) {
    char* end = NULL;
    long long v = strtoll(p, &end, 10);
    if (end == p || n == max) return -1;
    out[n++] = (int64_t)v;
    if (*end == '\0') return n;
    if (*end != sep) return -1;
    p = end + 1;
  }
}

static int parse_op(const char* s, int32_t* op) {
  static const char* const names[] = {"sum", "avg", "max", "min", "prod"};
  int32_t i;
  if (*s == '\0') {
    *op = WEFT_REDUCE_SUM;
    return 0;
  }
  for (i = 0; i < 5; ++i)
    if (strcmp(s, names[i]) == 0) {
      *op = i;
      return 0;
    }
  return -1;
}

/* Parses "S0,R,Psum" into placements; -1 on malformed text. */
static int parse_placements(const char* text, weft_placement_t* out, int max) {
  char buf[256];
  char* tok;
  int n = 0;
  if (strlen(text) >= sizeof buf) return -1;
  strcpy(buf, text);
  for (tok = strtok(buf, ","); tok != NULL; tok = strtok(NULL, ",")) {
    weft_placement_t p = WEFT_PLACEMENT_REPLICATE;
    char* end = NULL;
    if (n == max) return -1;
    if (strcmp(tok, "R") == 0) {
      p.kind = WEFT_REPLICATE;
    } else if (tok[0] == 'S') {
      p.kind = WEFT_SHARD;
      p.dim = (int32_t)strtol(tok + 1, &end, 10);
      if (end == tok + 1 || *end != '\0') return -1;
    } else if (tok[0] == 'P') {
      p.kind = WEFT_PARTIAL;
      if (parse_op(tok + 1, &p.reduce_op) != 0) return -1;
    } else {
      return -1;
    }
    out[n++] = p;
  }
  return n;
}

static int parse_args(int argc, const char* const* argv, explain_args* a) {
  const char* mesh = argc > 1 ? argv[1] : "2x2";
  const char* shape = argc > 2 ? argv[2] : "5x8";
  const char* placements = argc > 3 ? argv[3] : "S0,S1";
  a->mesh_ndim = parse_ints(mesh, 'x', a->mesh, WEFT_MAX_MESH_NDIM);
  a->ndim = parse_ints(shape, 'x', a->shape, WEFT_MAX_TENSOR_NDIM);
  a->nplacements = parse_placements(placements, a->placements, WEFT_MAX_MESH_NDIM);
  a->split_dim = -1;
  if (argc > 4) {
    char* end = NULL;
    int count;
    a->split_dim = (int32_t)strtol(argv[4], &end, 10);
    if (end == argv[4] || *end != ':') return -1;
    count = parse_ints(end + 1, ',', a->split, MAX_SPLIT);
    if (count < 0 || a->split_dim < 0 || a->split_dim >= a->ndim) return -1;
    a->split_count = count;
  }
  if (a->mesh_ndim < 1 || a->ndim < 0 || a->nplacements < 0) return -1;
  if (a->nplacements != a->mesh_ndim) {
    fprintf(stderr, "layout_explain: %d placements for a mesh of %d dims\n", a->nplacements,
            a->mesh_ndim);
    return -1;
  }
  return 0;
}

static void print_list(const char* label, const int64_t* v, int32_t n) {
  int32_t i;
  printf("%s[", label);
  for (i = 0; i < n; ++i) printf(i ? ", %lld" : "%lld", (long long)v[i]);
  printf("]");
}

/* One line per rank, in row-major coordinate order; big meshes show their first ranks. */
static int print_ranks(const weft_mesh_t* mesh, const weft_layout_t* layout, int32_t ndim) {
  int32_t mesh_ndim, rank, d;
  int64_t size, i, coord[WEFT_MAX_MESH_NDIM], extent[WEFT_MAX_MESH_NDIM];
  int64_t shape[WEFT_MAX_TENSOR_NDIM], offset[WEFT_MAX_TENSOR_NDIM];
  if (failed(weft_mesh_ndim(mesh, &mesh_ndim), "weft_mesh_ndim") ||
      failed(weft_mesh_shape(mesh, extent), "weft_mesh_shape") ||
      failed(weft_mesh_size(mesh, &size), "weft_mesh_size"))
    return 1;
  for (i = 0; i < size && i < MAX_LISTED; ++i) {
    int64_t rest = i;
    for (d = mesh_ndim - 1; d >= 0; --d) {
      coord[d] = rest % extent[d];
      rest /= extent[d];
    }
    if (failed(weft_mesh_rank_at(mesh, coord, &rank), "weft_mesh_rank_at") ||
        failed(weft_layout_local_shape(layout, rank, shape, offset), "weft_layout_local_shape"))
      return 1;
    printf("  rank %3d  ", (int)rank);
    print_list("coord ", coord, mesh_ndim);
    print_list("  local shape ", shape, ndim);
    print_list("  global offset ", offset, ndim);
    printf("\n");
  }
  if (size > MAX_LISTED) printf("  ... (%lld ranks in all)\n", (long long)size);
  return 0;
}

static int print_description(const weft_layout_t* layout) {
  size_t needed = 0;
  char* text;
  int rc;
  if (failed(weft_layout_describe(layout, NULL, 0, &needed), "weft_layout_describe")) return 1;
  text = (char*)malloc(needed);
  if (text == NULL) {
    fprintf(stderr, "layout_explain: out of memory\n");
    return 1;
  }
  rc = failed(weft_layout_describe(layout, text, needed, &needed), "weft_layout_describe");
  if (rc == 0) printf("%s\n", text);
  free(text);
  return rc;
}

static int create_layout(const weft_mesh_t* mesh, const explain_args* a, weft_layout_t** layout) {
  const DLDataType float32 = {kDLFloat, 32, 1};
  const int64_t* sizes[WEFT_MAX_TENSOR_NDIM] = {NULL}; /* NULL: chunk split on that dim */
  int64_t counts[WEFT_MAX_TENSOR_NDIM] = {0};
  if (a->split_dim < 0)
    return failed(weft_layout_create(mesh, a->ndim, a->shape, float32, a->placements, layout),
                  "weft_layout_create");
  sizes[a->split_dim] = a->split;
  counts[a->split_dim] = a->split_count;
  return failed(weft_layout_create_ragged(mesh, a->ndim, a->shape, float32, a->placements, sizes,
                                          counts, layout),
                "weft_layout_create_ragged");
}

/* Builds the mesh and layout of `a`, prints them, and releases them. */
static int explain(const explain_args* a) {
  weft_mesh_t* mesh = NULL;
  weft_layout_t* layout = NULL;
  int rc;
  if (failed(weft_mesh_create(NULL, a->mesh_ndim, a->mesh, NULL, &mesh), "weft_mesh_create"))
    return 1;
  rc = create_layout(mesh, a, &layout);
  if (rc == 0) rc = print_description(layout);
  if (rc == 0) rc = print_ranks(mesh, layout, a->ndim);
  if (rc == 0) printf("\n");
  /* Destroy never fails on a valid handle (or NULL), but an example checks every call. */
  rc |= failed(weft_layout_destroy(layout), "weft_layout_destroy");
  rc |= failed(weft_mesh_destroy(mesh), "weft_mesh_destroy");
  return rc;
}

static int demo(int argc, const char* const* argv) {
  explain_args a;
  if (parse_args(argc, argv, &a) != 0) return 2;
  return explain(&a);
}

int main(int argc, char** argv) {
  if (argc > 5 || (argc > 1 && strcmp(argv[1], "--help") == 0)) {
    fprintf(stderr, "usage: %s [MESH [SHAPE [PLACEMENTS [DIM:SIZES]]]]  e.g. 2x2 5x8 S0,S0\n",
            argv[0]);
    return 2;
  }
  if (argc > 1) {
    const int rc = demo(argc, (const char* const*)argv);
    if (rc == 2) fprintf(stderr, "layout_explain: cannot parse the arguments (see --help)\n");
    return rc;
  } else {
    const char* flat[] = {"", "2x2", "5x8", "S0,S1"};
    const char* nested[] = {"", "2x2", "5", "S0,S0"};
    const char* ragged[] = {"", "4", "8x3", "S0", "0:3,0,4,1"};
    printf("== a 5x8 tensor on a 2x2 mesh, rows over mesh dim 0, columns over mesh dim 1\n");
    if (demo(4, flat) != 0) return 1;
    printf("== nested [S0,S0]: mesh dim 1 re-splits mesh dim 0's rows (flat over 4: 2,2,1,0)\n");
    if (demo(4, nested) != 0) return 1;
    printf("== a ragged split 3,0,4,1: the empty piece's offset is the extent, 8\n");
    return demo(5, ragged);
  }
}
