/* One-way latency of a cache line between CPU 0 and CPU 1 (or the first two CPUs this process
 * may run on): two threads, one pinned to each, hand a counter back and forth.
 *
 * Why compare.sh runs it: on the VMs this project is measured on, the host sometimes places
 * the two vCPUs near each other (a line crosses in 25-60 ns) and sometimes far apart (170-260
 * ns). Everything that moves freshly written data between the cores (pipes through shared
 * memory, a ring all-reduce's second half, reading what a peer just reduced) then costs
 * several times more, for Open MPI and Weft alike, and the placement can change between two
 * rounds. Printing it next to each round tells a reader which rounds ran in which placement.
 *
 * Usage: line_latency [ROUNDTRIPS]   prints "<ns>" (median of 5 runs) on stdout. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static _Alignas(64) atomic_long line;
static long trips = 100000;
static int cpus[2];

static void pin(int cpu) {
  cpu_set_t s;
  CPU_ZERO(&s);
  CPU_SET(cpu, &s);
  pthread_setaffinity_np(pthread_self(), sizeof(s), &s);
}

static void* echo(void* arg) {
  (void)arg;
  pin(cpus[1]);
  for (long i = 0; i < trips; ++i) {
    while (atomic_load_explicit(&line, memory_order_acquire) != 2 * i + 1) {
    }
    atomic_store_explicit(&line, 2 * i + 2, memory_order_release);
  }
  return NULL;
}

static double once(void) {
  atomic_store(&line, 0);
  pthread_t t;
  if (pthread_create(&t, NULL, echo, NULL) != 0) exit(1);
  pin(cpus[0]);
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  for (long i = 0; i < trips; ++i) {
    atomic_store_explicit(&line, 2 * i + 1, memory_order_release);
    while (atomic_load_explicit(&line, memory_order_acquire) != 2 * i + 2) {
    }
  }
  clock_gettime(CLOCK_MONOTONIC, &b);
  pthread_join(t, NULL);
  return ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / trips / 2;
}

static int cmp(const void* x, const void* y) {
  const double a = *(const double*)x, b = *(const double*)y;
  return (a > b) - (a < b);
}

int main(int argc, char** argv) {
  if (argc > 1) trips = atol(argv[1]);
  cpu_set_t s;
  sched_getaffinity(0, sizeof(s), &s);
  int n = 0;
  for (int c = 0; c < CPU_SETSIZE && n < 2; ++c)
    if (CPU_ISSET(c, &s)) cpus[n++] = c;
  if (n < 2 || trips < 1) {
    puts("-"); /* one CPU: nothing crosses */
    return 0;
  }
  double v[5];
  for (int i = 0; i < 5; ++i) v[i] = once();
  qsort(v, 5, sizeof(v[0]), cmp);
  printf("%.0f\n", v[2]);
  return 0;
}
