/* The Open MPI side of the comparison in bench/openmpi/compare.sh: collbench's rows
 * (tools/collbench/README.md) through MPI, with collbench's conventions, so that the two
 * tables can be read side by side:
 *  - size per op: allreduce the buffer; allgather the gathered output; reduce_scatter
 *    (MPI_Reduce_scatter_block) the full input; alltoall one rank's send buffer; rounded down
 *    to whole float32 elements per rank (rows with none are skipped); count = size / 4;
 *  - sizes from -b to -e, each the previous times -f (rounded down, at least + 1);
 *  - buffers allocated once per size and written before timing, so that no page is first
 *    touched inside the timed region;
 *  - each of -w + -n iterations starts after MPI_Barrier and is timed with MPI_Wtime on every
 *    rank; the -n timed ones are reduced with MAX over ranks, and time_us is their median;
 *  - algbw = size / time (GB/s, 10^9 bytes), busbw = algbw * 2(n-1)/n for allreduce and
 *    (n-1)/n for the others;
 *  - one extra run on refilled and poisoned buffers is checked against a closed form; wrong =
 *    output elements that differ, summed over ranks. A row with wrong > 0 makes the exit
 *    status 1, as in collbench.
 *
 *   mpicc -O2 -o mpi_collbench mpi_collbench.c
 *   mpirun -n 2 ./mpi_collbench -b 256K -e 64M -f 4 -n 20 -w 5 -op allgather,allreduce
 *
 * Rank 0 prints a '#' header, then one whitespace-separated line per row:
 *   op size count time_us algbw busbw wrong */
#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { kAllgather, kReduceScatter, kAllreduce, kAlltoall } Op;

static const char* const kOpNames[] = {"allgather", "reduce_scatter", "allreduce", "alltoall"};

typedef struct {
  long long min_bytes, max_bytes;
  double factor;
  int iters, warmup;
  Op ops[16];
  int nops;
} Options;

typedef struct {
  long long block;      /* elements per rank: the MPI count argument */
  long long send_elems; /* of this rank's send buffer */
  long long recv_elems; /* of this rank's receive buffer */
  long long count;      /* elements of the row's size */
} Geometry;

/* Inputs. Reductions: small integers, so that float32 sums are exact in any order (up to
 * 8 * 13 per rank). Data movement: (rank, index) encoded as an integer below 2^24, exact in
 * float32, so that a block from the wrong rank or offset is seen. */
static float ReduceInput(int rank, long long i) { return (float)((rank % 8 + 1) * (i % 13 + 1)); }
static float MoveInput(int rank, long long i) { return (float)((rank % 256) * 65536 + i % 65536); }

static int Fail(int me, const char* what) {
  if (me == 0) fprintf(stderr, "mpi_collbench: %s\n", what);
  MPI_Abort(MPI_COMM_WORLD, 2);
  return 2;
}

static int ParseBytes(const char* s, long long* out) {
  char* end = NULL;
  long long v = strtoll(s, &end, 10);
  if (end == s || v < 1) return 0;
  if (*end == 'K' || *end == 'k')
    v <<= 10, ++end;
  else if (*end == 'M' || *end == 'm')
    v <<= 20, ++end;
  else if (*end == 'G' || *end == 'g')
    v <<= 30, ++end;
  *out = v;
  return *end == '\0';
}

static int ParseOps(char* list, Options* o) {
  o->nops = 0;
  for (char* name = strtok(list, ","); name != NULL; name = strtok(NULL, ",")) {
    int found = -1;
    for (int k = 0; k < 4; ++k) {
      if (strcmp(name, kOpNames[k]) == 0) found = k;
    }
    if (found < 0 || o->nops == 16) return 0;
    o->ops[o->nops++] = (Op)found;
  }
  return o->nops > 0;
}

static int ParseOptions(int argc, char** argv, Options* o) {
  o->min_bytes = 8, o->max_bytes = 64LL << 20, o->factor = 2, o->iters = 20, o->warmup = 5;
  o->ops[0] = kAllreduce, o->nops = 1;
  for (int i = 1; i < argc; i += 2) {
    if (i + 1 >= argc) return 0;
    const char* k = argv[i];
    char* v = argv[i + 1];
    char* end = NULL;
    int ok = 1;
    if (strcmp(k, "-b") == 0)
      ok = ParseBytes(v, &o->min_bytes);
    else if (strcmp(k, "-e") == 0)
      ok = ParseBytes(v, &o->max_bytes);
    else if (strcmp(k, "-f") == 0)
      o->factor = strtod(v, &end), ok = *end == '\0' && o->factor > 1;
    else if (strcmp(k, "-n") == 0)
      o->iters = (int)strtol(v, &end, 10), ok = *end == '\0';
    else if (strcmp(k, "-w") == 0)
      o->warmup = (int)strtol(v, &end, 10), ok = *end == '\0';
    else if (strcmp(k, "-op") == 0 || strcmp(k, "--ops") == 0)
      ok = ParseOps(v, o);
    else
      ok = 0;
    if (!ok) return 0;
  }
  return o->iters >= 1 && o->warmup >= 0 && o->min_bytes <= o->max_bytes;
}

static Geometry MakeGeometry(Op op, long long bytes, int n) {
  Geometry g;
  const long long units = bytes / 4;
  g.block = op == kAllreduce ? units : units / n;
  g.count = op == kAllreduce ? units : g.block * n;
  g.send_elems = op == kAllgather ? g.block : g.count;
  g.recv_elems = op == kReduceScatter ? g.block : g.count;
  return g;
}

static void Fill(Op op, const Geometry* g, int me, float* send, float* recv) {
  for (long long i = 0; i < g->send_elems; ++i) {
    send[i] = op == kAllgather || op == kAlltoall ? MoveInput(me, i) : ReduceInput(me, i);
  }
  memset(recv, 0xff, (size_t)g->recv_elems * sizeof(float)); /* a NaN pattern: poisoned */
}

static void RunOp(Op op, const Geometry* g, const float* send, float* recv) {
  const int c = (int)g->block;
  switch (op) {
    case kAllgather:
      MPI_Allgather(send, c, MPI_FLOAT, recv, c, MPI_FLOAT, MPI_COMM_WORLD);
      break;
    case kReduceScatter:
      MPI_Reduce_scatter_block(send, recv, c, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      break;
    case kAllreduce:
      MPI_Allreduce(send, recv, c, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      break;
    case kAlltoall:
      MPI_Alltoall(send, c, MPI_FLOAT, recv, c, MPI_FLOAT, MPI_COMM_WORLD);
      break;
  }
}

/* Output elements of this rank that differ from the op's definition. */
static long long CountWrong(Op op, const Geometry* g, int me, int n, const float* recv) {
  double rank_sum = 0; /* sum over ranks of ReduceInput's rank factor */
  for (int r = 0; r < n; ++r) rank_sum += r % 8 + 1;
  long long wrong = 0;
  for (long long i = 0; i < g->recv_elems; ++i) {
    float want = 0;
    switch (op) {
      case kAllreduce:
        want = (float)(rank_sum * (double)(i % 13 + 1));
        break;
      case kReduceScatter: /* this rank's block of the full reduced vector */
        want = (float)(rank_sum * (double)((me * g->block + i) % 13 + 1));
        break;
      case kAllgather: /* block s is rank s's input */
        want = MoveInput((int)(i / g->block), i % g->block);
        break;
      case kAlltoall: /* block s is block `me` of rank s's input */
        want = MoveInput((int)(i / g->block), me * g->block + i % g->block);
        break;
    }
    wrong += recv[i] != want;
  }
  return wrong;
}

static int CompareDouble(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* The median with interpolation between the middle two, as collbench's Quantile(0.5). */
static double Median(double* v, int len) {
  qsort(v, (size_t)len, sizeof(double), CompareDouble);
  return len % 2 ? v[len / 2] : 0.5 * (v[len / 2 - 1] + v[len / 2]);
}

/* Measures one row; returns its wrong count summed over ranks, and the median time. */
static long long Measure(Op op, const Geometry* g, const Options* o, int me, int n,
                         double* median_s) {
  float* send = malloc((size_t)g->send_elems * sizeof(float));
  float* recv = malloc((size_t)g->recv_elems * sizeof(float));
  double* t = malloc((size_t)o->iters * sizeof(double));
  if (send == NULL || recv == NULL || t == NULL) Fail(me, "out of memory");
  Fill(op, g, me, send, recv);
  for (int i = 0; i < o->warmup + o->iters; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    RunOp(op, g, send, recv);
    const double dt = MPI_Wtime() - t0;
    if (i >= o->warmup) t[i - o->warmup] = dt;
  }
  MPI_Allreduce(MPI_IN_PLACE, t, o->iters, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  *median_s = Median(t, o->iters);

  Fill(op, g, me, send, recv);
  RunOp(op, g, send, recv);
  long long wrong = CountWrong(op, g, me, n, recv);
  MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  free(t);
  free(recv);
  free(send);
  return wrong;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int n = 0, me = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  Options o;
  if (!ParseOptions(argc, argv, &o)) {
    return Fail(me,
                "usage: mpi_collbench [-b BYTES] [-e BYTES] [-f FACTOR] [-n ITERS] [-w ITERS] "
                "[-op allgather,reduce_scatter,allreduce,alltoall]");
  }
  if (me == 0) {
    printf("# ranks %d, float32 sum, time_us: median over %d iterations of the max over ranks\n", n,
           o.iters);
    printf("# op size count time_us algbw busbw wrong\n");
    fflush(stdout);
  }
  int bad_rows = 0;
  for (int k = 0; k < o.nops; ++k) {
    const Op op = o.ops[k];
    const double bus = op == kAllreduce ? 2.0 * (n - 1) / n : (double)(n - 1) / n;
    for (long long bytes = o.min_bytes; bytes <= o.max_bytes;) {
      const Geometry g = MakeGeometry(op, bytes, n);
      const long long next = (long long)((double)bytes * o.factor);
      bytes = next > bytes ? next : bytes + 1;
      if (g.block == 0) continue;
      if (g.block > INT_MAX) Fail(me, "a block over INT_MAX elements");
      double seconds = 0;
      const long long wrong = Measure(op, &g, &o, me, n, &seconds);
      bad_rows += wrong > 0;
      if (me != 0) continue;
      const long long size = g.count * 4;
      const double algbw = seconds > 0 ? (double)size / seconds / 1e9 : 0;
      printf("%s %lld %lld %.2f %.3f %.3f %lld\n", kOpNames[op], size, g.count, seconds * 1e6,
             algbw, algbw * bus, wrong);
      fflush(stdout);
    }
  }
  MPI_Finalize();
  return bad_rows > 0 ? 1 : 0;
}
