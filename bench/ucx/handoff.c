// A model of the ring all-reduce's two phases on 2 ranks, with the kernel's cross-memory copy
// (process_vm_readv / _writev) as the UCX plugin does them: where the reduced slices end up
// cached decides what the next call pays (backends/ucx/coll/allreduce.cpp).
//
//   cc -O2 -march=native -o handoff bench/ucx/handoff.c
//   ./handoff [BYTES] [ITERS] [MODE] [CONSUME]
//
// BYTES (default 1 MiB) is the vector; each rank owns one half. Per iteration, both ranks:
//   reduce-scatter: read the peer's input half that this rank owns into out[mine], then
//                   out[mine] += in[mine];
//   all-gather:     MODE read (default): read the peer's reduced half into out[theirs];
//                   MODE push: write out[mine] into the peer's out[mine];
//   consume:        CONSUME 1: sum the whole of out, as a program using the result would.
// Prints, per rank, the median ns per KiB of a half of each step. The two processes are
// pinned to CPUs 0 and 1; where the host placed those vCPUs (one L3 or two) changes the
// figures 3x, so run bench/openmpi/line_latency before and after.
#define _GNU_SOURCE
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct {
  _Atomic long arrived[2];
  pid_t pid[2];
  char* in[2];
  char* out[2];
} Shared;

static Shared* shared;

static double Now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

// Both ranks at the same point; yields while waiting (the two may share a CPU).
static void Barrier(int me, long* generation) {
  ++*generation;
  atomic_store(&shared->arrived[me], *generation);
  while (atomic_load(&shared->arrived[1 - me]) < *generation) sched_yield();
}

static int Compare(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

static double Median(double* v, int n) {
  qsort(v, (size_t)n, sizeof(double), Compare);
  return v[n / 2];
}

// One cross-memory copy of `bytes`: this process's `local` from (or to) the peer's `remote`.
static int Copy(int write, pid_t peer, char* local, char* remote, size_t bytes) {
  struct iovec l = {local, bytes}, r = {remote, bytes};
  const ssize_t n =
      write ? process_vm_writev(peer, &l, 1, &r, 1, 0) : process_vm_readv(peer, &l, 1, &r, 1, 0);
  if (n == (ssize_t)bytes) return 0;
  perror(write ? "process_vm_writev" : "process_vm_readv");
  return 1;
}

// What one rank runs with: the run's arguments and its buffers.
typedef struct {
  size_t bytes, half;
  int iters, push, consume, me, peer;
  float *in, *out;
  double* t[4];  // ns per KiB of a half: reduce-scatter read, reduce, all-gather, consume
  long generation;
} Run;

// Forks the peer, pins each process to its CPU and fills this rank's buffers.
static int Setup(Run* r) {
  shared = mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) return 1;
  const pid_t child = fork();
  if (child < 0) return 1;
  r->me = child == 0 ? 1 : 0, r->peer = 1 - r->me;
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  CPU_SET(r->me, &cpus);
  sched_setaffinity(0, sizeof cpus, &cpus);  // best effort: one CPU is fine too
  r->half = r->bytes / 2;
  r->in = malloc(r->bytes);
  r->out = malloc(r->bytes);
  if (r->in == NULL || r->out == NULL) return 1;
  for (int k = 0; k < 4; ++k)
    if ((r->t[k] = malloc((size_t)r->iters * sizeof(double))) == NULL) return 1;
  for (size_t i = 0; i < r->bytes / sizeof(float); ++i)
    r->in[i] = (float)(i % 1000) + r->me, r->out[i] = 0;
  shared->pid[r->me] = getpid();
  shared->in[r->me] = (char*)r->in;
  shared->out[r->me] = (char*)r->out;
  r->generation = 0;
  Barrier(r->me, &r->generation);
  return 0;
}

static volatile float sink;

// One all-reduce: both phases, then the consumer if asked; records the four step times.
static int Iteration(Run* r, int it) {
  const int me = r->me, peer = r->peer;
  const size_t half = r->half;
  float* mine = (float*)((char*)r->out + me * half);
  const float* own_in = (const float*)((char*)r->in + me * half);
  Barrier(me, &r->generation);
  const double a = Now();
  if (Copy(0, shared->pid[peer], (char*)mine, shared->in[peer] + me * half, half)) return 1;
  const double b = Now();
  for (size_t i = 0; i < half / sizeof(float); ++i) mine[i] += own_in[i];
  const double c = Now();
  Barrier(me, &r->generation);
  const double d = Now();
  const int failed =
      r->push ? Copy(1, shared->pid[peer], (char*)mine, shared->out[peer] + me * half, half)
              : Copy(0, shared->pid[peer], (char*)r->out + peer * half,
                     shared->out[peer] + peer * half, half);
  if (failed) return 1;
  const double e = Now();
  if (r->push) Barrier(me, &r->generation);  // the peer's half has been written into ours
  const double f = Now();
  if (r->consume) {
    float s[16] = {0};  // independent sums: memory-bound, as a vectorized consumer is
    for (size_t i = 0; i < r->bytes / sizeof(float); i += 16)
      for (int k = 0; k < 16; ++k) s[k] += r->out[i + k];
    for (int k = 0; k < 16; ++k) sink += s[k];
  }
  const double g = Now();
  const double kib = half / 1024.0;
  r->t[0][it] = (b - a) / kib, r->t[1][it] = (c - b) / kib, r->t[2][it] = (e - d) / kib;
  r->t[3][it] = (g - f) / kib;
  return 0;
}

// Prints the medians, rank 0 first, and reaps the child.
static void Report(Run* r) {
  const double rs = Median(r->t[0], r->iters), red = Median(r->t[1], r->iters),
               ag = Median(r->t[2], r->iters), use = Median(r->t[3], r->iters);
  Barrier(r->me, &r->generation);
  if (r->me == 1) Barrier(r->me, &r->generation);  // rank 0 prints first
  printf(
      "rank %d (%s%s): ns/KiB  reduce-scatter read %.0f  reduce %.0f  all-gather %s %.0f"
      "  consume %.0f  total %.0f\n",
      r->me, r->push ? "push" : "read", r->consume ? ", consumed" : "", rs, red,
      r->push ? "write" : "read", ag, use, rs + red + ag + use);
  fflush(stdout);
  if (r->me == 0) {
    Barrier(r->me, &r->generation);
    wait(NULL);
  }
}

int main(int argc, char** argv) {
  Run r = {0};
  r.bytes = argc > 1 ? strtoull(argv[1], NULL, 0) : (1u << 20);
  r.iters = argc > 2 ? atoi(argv[2]) : 300;
  r.push = argc > 3 && strcmp(argv[3], "push") == 0;
  r.consume = argc > 4 && atoi(argv[4]) != 0;
  if (r.bytes < 8192 || r.bytes % 8 != 0 || r.iters < 1) {
    fprintf(stderr, "usage: %s [BYTES >= 8192, a multiple of 8] [ITERS] [read|push] [0|1]\n",
            argv[0]);
    return 2;
  }
  if (Setup(&r)) return 1;
  for (int it = 0; it < r.iters; ++it)
    if (Iteration(&r, it)) return 1;
  Report(&r);
  return 0;
}
