// A contiguous single-copy read into strided memory, two ways: the kernel's copy straight into
// the runs (one local iovec per run, as process_vm_readv takes them), or the whole message into
// a scratch buffer first and the runs copied out in user space. Decides kUnpackRunsUpTo in
// backends/ucx/transport/cma.hpp.
//
//   cc -O2 -o short_runs bench/ucx/short_runs.c
//   ./short_runs RUN STRIDE BYTES [ITERS]
//
// BYTES (a multiple of RUN) land as BYTES / RUN runs of RUN bytes, one every STRIDE bytes. The
// source is this process's own memory (process_vm_readv with our pid goes the same way through
// the kernel as a peer's read); the scratch is read in pieces of 128 KiB, as the plugin's is.
// Prints the fastest of ITERS (default 200) for each way, in microseconds.
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

enum { kBatch = 1024, kPiece = 128 << 10 };

static double NowUs(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static void Check(ssize_t got, size_t want) {
  if (got != (ssize_t)want) {
    perror("process_vm_readv");
    exit(1);
  }
}

// The kernel's copy: up to kBatch local iovecs (one per run) against one remote one per call.
static void Iovecs(pid_t pid, const char* src, char* dst, size_t run, size_t stride, size_t rows) {
  static struct iovec local[kBatch];
  for (size_t done = 0; done < rows;) {
    const size_t n = rows - done < kBatch ? rows - done : kBatch;
    for (size_t i = 0; i < n; ++i) {
      local[i].iov_base = dst + (done + i) * stride;
      local[i].iov_len = run;
    }
    struct iovec remote = {(void*)(src + done * run), n * run};
    Check(process_vm_readv(pid, local, n, &remote, 1, 0), n * run);
    done += n;
  }
}

// Through the scratch: 128 KiB pieces, each copied out run by run (a piece may end mid-run).
static void Scratch(pid_t pid, const char* src, char* dst, size_t run, size_t stride, size_t bytes,
                    char* scratch) {
  size_t row = 0, used = 0;
  for (size_t done = 0; done < bytes;) {
    const size_t n = bytes - done < kPiece ? bytes - done : kPiece;
    struct iovec local = {scratch, n}, remote = {(void*)(src + done), n};
    Check(process_vm_readv(pid, &local, 1, &remote, 1, 0), n);
    for (size_t at = 0; at < n;) {
      const size_t len = n - at < run - used ? n - at : run - used;
      memcpy(dst + row * stride + used, scratch + at, len);
      at += len;
      if ((used += len) == run) used = 0, ++row;
    }
    done += n;
  }
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s RUN STRIDE BYTES [ITERS]\n", argv[0]);
    return 2;
  }
  const size_t run = strtoull(argv[1], NULL, 10), stride = strtoull(argv[2], NULL, 10);
  const size_t bytes = strtoull(argv[3], NULL, 10);
  const int iters = argc > 4 ? atoi(argv[4]) : 200;
  if (run == 0 || stride < run || bytes % run != 0 || iters < 1) {
    fprintf(stderr, "need 0 < RUN <= STRIDE, BYTES a multiple of RUN, ITERS >= 1\n");
    return 2;
  }
  const size_t rows = bytes / run;
  char* src = aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
  char* dst = aligned_alloc(4096, (rows * stride + 4095) / 4096 * 4096);
  char* scratch = aligned_alloc(4096, kPiece);
  if (!src || !dst || !scratch) return 1;
  memset(src, 1, bytes);
  memset(dst, 2, rows * stride);
  memset(scratch, 3, kPiece);
  const pid_t pid = getpid();
  double best[2] = {1e30, 1e30};
  for (int it = 0; it < iters; ++it)
    for (int way = 0; way < 2; ++way) {  // alternated, so that both see the same moments
      const double t0 = NowUs();
      if (way == 0)
        Iovecs(pid, src, dst, run, stride, rows);
      else
        Scratch(pid, src, dst, run, stride, bytes, scratch);
      const double t = NowUs() - t0;
      if (t < best[way]) best[way] = t;
    }
  printf("runs of %zu every %zu, %zu bytes: iovecs %.1f us, scratch and unpack %.1f us\n", run,
         stride, bytes, best[0], best[1]);
  return 0;
}
