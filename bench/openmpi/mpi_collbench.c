/* The reference side of the Open MPI comparison (bench/openmpi/compare.sh): the same rows as
 * collbench (tools/collbench/README.md) through MPI, with the same conventions — size per op
 * (allreduce: the buffer; allgather: the gathered output; reduce_scatter: the full input;
 * alltoall: one rank's send buffer), float32 sum, a barrier before every iteration, the
 * per-iteration time reduced with MAX over ranks, the median over iterations, busbw factors
 * 2(n-1)/n (allreduce) and (n-1)/n (the others), buffers allocated and touched once per size
 * and checked once against a closed form.
 *
 *   mpicc -O2 -o mpi_collbench mpi_collbench.c
 *   mpirun -n 2 ./mpi_collbench -b 256K -e 64M -f 4 -n 20 -w 5 -op allgather,allreduce
 *
 * Output (rank 0): one line per row, "op size count time_us algbw busbw wrong". */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long long ParseSize(const char* s) {
  char* end = NULL;
  long long v = strtoll(s, &end, 10);
  if (*end == 'K' || *end == 'k') v <<= 10;
  if (*end == 'M' || *end == 'm') v <<= 20;
  if (*end == 'G' || *end == 'g') v <<= 30;
  return v;
}

static int CompareDouble(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* Rank r's input element i: small integers, so float32 sums are exact. */
static float Value(int r, long long i) { return (float)((r + 1) * ((i % 13) + 1)); }

typedef struct {
  const char* name;
  double factor; /* busbw = algbw * factor (n filled in later) */
} Op;

static long long Run(const char* op, long long size, int n, int me, int iters, int warmup,
                     double* median_us) {
  /* element counts per convention */
  long long count, send_elems, recv_elems;
  if (!strcmp(op, "allreduce")) {
    count = size / 4;
    send_elems = recv_elems = count;
  } else if (!strcmp(op, "allgather")) {
    count = size / 4 / n;
    send_elems = count;
    recv_elems = count * n;
  } else if (!strcmp(op, "reduce_scatter")) {
    count = size / 4 / n;
    send_elems = count * n;
    recv_elems = count;
  } else { /* alltoall */
    count = size / 4 / n;
    send_elems = recv_elems = count * n;
  }
  if (count == 0) return -1;
  float* send = malloc((size_t)send_elems * 4);
  float* recv = malloc((size_t)recv_elems * 4);
  for (long long i = 0; i < send_elems; ++i) send[i] = Value(me, i);
  memset(recv, 0, (size_t)recv_elems * 4);
  double* t = malloc(sizeof(double) * (size_t)iters);
  for (int it = -warmup; it <= iters; ++it) {
    if (it == iters) memset(recv, 0xff, (size_t)recv_elems * 4); /* the checked run */
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    if (!strcmp(op, "allreduce"))
      MPI_Allreduce(send, recv, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    else if (!strcmp(op, "allgather"))
      MPI_Allgather(send, (int)count, MPI_FLOAT, recv, (int)count, MPI_FLOAT, MPI_COMM_WORLD);
    else if (!strcmp(op, "reduce_scatter"))
      MPI_Reduce_scatter_block(send, recv, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    else
      MPI_Alltoall(send, (int)count, MPI_FLOAT, recv, (int)count, MPI_FLOAT, MPI_COMM_WORLD);
    double dt = MPI_Wtime() - t0, worst = 0;
    MPI_Allreduce(&dt, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (it >= 0 && it < iters) t[it] = worst;
  }
  long long wrong = 0;
  const double ranksum = (double)n * (n + 1) / 2;
  for (long long i = 0; i < recv_elems; ++i) {
    double want;
    if (!strcmp(op, "allreduce"))
      want = ranksum * ((i % 13) + 1);
    else if (!strcmp(op, "reduce_scatter"))
      want = ranksum * (((me * count + i) % 13) + 1);
    else if (!strcmp(op, "allgather"))
      want = Value((int)(i / count), i % count);
    else /* alltoall: block s of recv is block me of rank s's send */
      want = Value((int)(i / count), me * count + i % count);
    if (recv[i] != (float)want) ++wrong;
  }
  long long total_wrong = 0;
  MPI_Allreduce(&wrong, &total_wrong, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  qsort(t, (size_t)iters, sizeof(double), CompareDouble);
  *median_us = 1e6 * (iters % 2 ? t[iters / 2] : 0.5 * (t[iters / 2 - 1] + t[iters / 2]));
  free(t);
  free(send);
  free(recv);
  return total_wrong;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int n = 0, me = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  long long lo = 8, hi = 64 << 20;
  double factor = 2;
  int iters = 20, warmup = 5;
  char ops[256] = "allreduce";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "-b")) lo = ParseSize(argv[i + 1]);
    else if (!strcmp(argv[i], "-e")) hi = ParseSize(argv[i + 1]);
    else if (!strcmp(argv[i], "-f")) factor = atof(argv[i + 1]);
    else if (!strcmp(argv[i], "-n")) iters = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "-w")) warmup = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "-op")) snprintf(ops, sizeof(ops), "%s", argv[i + 1]);
  }
  if (iters < 1 || factor <= 1 || lo < 1) {
    if (me == 0) fprintf(stderr, "bad arguments\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (me == 0) printf("# op size count time_us algbw_GBps busbw_GBps wrong (ranks %d)\n", n);
  for (char* op = strtok(ops, ","); op != NULL; op = strtok(NULL, ",")) {
    const double bus = !strcmp(op, "allreduce") ? 2.0 * (n - 1) / n : (double)(n - 1) / n;
    for (long long size = lo; size <= hi; size = (long long)(size * factor)) {
      double us = 0;
      const long long wrong = Run(op, size, n, me, iters, warmup, &us);
      if (wrong < 0) continue;
      const double algbw = size / us / 1e3;
      if (me == 0)
        printf("%s %lld %lld %.2f %.3f %.3f %lld\n", op, size,
               !strcmp(op, "allreduce") ? size / 4 : size / 4 / n, us, algbw, algbw * bus, wrong);
      fflush(stdout);
    }
  }
  MPI_Finalize();
  return 0;
}
