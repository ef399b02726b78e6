// One rank of a fault test (tests/runtime/fault_test.cpp starts several of these itself).
// It uses only the public C ABI, joins the world from the WEFT_* environment, runs one
// scenario and reports what it saw on descriptor kReportFd (report.hpp).
//
//   fault_worker loop <timeout_ms> <numel>  allreduce float32 until one fails; hold; abort
//   fault_worker badarg <bad_rank>          one allreduce in which bad_rank's recv is short
//   fault_worker create                     only weft_context_create (and destroy)
//   fault_worker stress <iterations>        small allreduces and barriers, values checked
//   fault_worker pending                    destroy while rank 0's all-reduce work is pending
//
// "hold": after reporting the failure the worker waits until the driver writes to (or closes)
// its stdin, so that no survivor's teardown disturbs another survivor's failure report.
// Exit status: 0 when the scenario ran its course, 1 when a value check failed, 2 on usage.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "tests/runtime/report.hpp"
#include "weft/weft.h"

namespace weft::test {
namespace {

void Send(const Report& r) {
  const std::string line = FormatReport(r);
  // One write per line: the pipe is this worker's own, and lines are far below PIPE_BUF.
  if (::write(kReportFd, line.data(), line.size()) != static_cast<ssize_t>(line.size()))
    std::perror("fault_worker: report");
}

// A report of `kind` for a call that returned `status`, with the context's sticky error.
Report Describe(const char* kind, weft_context_t* ctx, int32_t rank, weft_status_t status,
                int64_t t0) {
  Report r;
  r.kind = kind;
  r.rank = rank;
  r.status = status;
  r.t0_ns = t0;
  r.t1_ns = MonotonicNs();
  char buf[1024] = {};
  size_t needed = 0;
  if (ctx &&
      weft_context_error(ctx, &r.ctx_status, &r.failed_rank, buf, sizeof buf, &needed) == WEFT_OK) {
    r.message = buf;
  }
  if (r.message.empty() && status != WEFT_OK) r.message = weft_last_error();
  return r;
}

struct Tensor1D {
  int64_t shape[1];
  DLTensor t;
  Tensor1D(void* data, int64_t numel, DLDataType dtype)
      : shape{numel}, t{data, {kDLCPU, 0}, 1, dtype, shape, nullptr, 0} {}
};

constexpr DLDataType kFloat32{kDLFloat, 32, 1};
constexpr DLDataType kInt64{kDLInt, 64, 1};

// 1024 float32 ones to send and room to receive as many, as tensors.
struct Floats {
  static constexpr int64_t kNumel = 1024;
  std::vector<float> send = std::vector<float>(kNumel, 1.0f);
  std::vector<float> recv = std::vector<float>(kNumel, 0.0f);
  Tensor1D in{send.data(), kNumel, kFloat32};
  Tensor1D out{recv.data(), kNumel, kFloat32};
};

// The world from the environment, or nullptr after reporting why not.
weft_context_t* Join(int32_t* rank, int32_t* size) {
  weft_context_t* ctx = nullptr;
  const int64_t t0 = MonotonicNs();
  const weft_status_t s = weft_context_create(nullptr, &ctx);
  const char* env_rank = std::getenv("WEFT_RANK");
  *rank = env_rank ? std::atoi(env_rank) : -1;
  if (s == WEFT_OK) {
    weft_context_rank(ctx, rank);
    weft_context_world_size(ctx, size);
  }
  Send(Describe("create", nullptr, *rank, s, t0));
  return s == WEFT_OK ? ctx : nullptr;
}

void HoldThenTearDown(weft_context_t* ctx, int32_t rank) {
  char byte = 0;
  (void)::read(STDIN_FILENO, &byte, 1);  // data or EOF: either releases the hold
  const int64_t t0 = MonotonicNs();
  weft_status_t s = weft_context_abort(ctx);
  const weft_status_t d = weft_context_destroy(ctx);
  if (s == WEFT_OK) s = d;
  Send(Describe("destroy", nullptr, rank, s, t0));
}

int Loop(int64_t timeout_ms, int64_t numel) {
  int32_t rank = 0, size = 1;
  weft_context_t* ctx = Join(&rank, &size);
  if (!ctx) return 0;
  std::vector<float> send(numel, static_cast<float>(rank + 1)), recv(numel, 0.0f);
  Tensor1D in(send.data(), numel, kFloat32), out(recv.data(), numel, kFloat32);
  weft_call_options_t opts = WEFT_CALL_OPTIONS_INIT;
  opts.timeout_ms = timeout_ms;
  const float expected = static_cast<float>(size) * static_cast<float>(size + 1) / 2.0f;
  const int64_t give_up = MonotonicNs() + 60'000'000'000;  // the driver kills long before
  for (int i = 0;; ++i) {
    const int64_t t0 = MonotonicNs();
    const weft_status_t s =
        weft_allreduce(ctx, nullptr, 0, &in.t, &out.t, WEFT_REDUCE_SUM, nullptr, &opts, nullptr);
    if (s != WEFT_OK || MonotonicNs() > give_up) {
      Send(Describe("op", ctx, rank, s, t0));
      break;
    }
    if (recv[0] != expected || recv[numel - 1] != expected) {
      Send(Describe("check", ctx, rank, -1, t0));
      return 1;
    }
    if (i == 2) Send(Describe("ready", ctx, rank, s, t0));
  }
  HoldThenTearDown(ctx, rank);
  return 0;
}

int BadArgument(int32_t bad_rank) {
  int32_t rank = 0, size = 1;
  weft_context_t* ctx = Join(&rank, &size);
  if (!ctx) return 0;
  Floats f;
  int64_t t0 = MonotonicNs();
  weft_status_t s = weft_allreduce(ctx, nullptr, 0, &f.in.t, &f.out.t, WEFT_REDUCE_SUM, nullptr,
                                   nullptr, nullptr);
  Send(Describe("ready", ctx, rank, s, t0));
  if (s == WEFT_OK) {
    if (rank == bad_rank) {
      // Let the peers block in the matching call first: they must be woken, not just refused.
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      f.out.shape[0] = Floats::kNumel - 1;  // one element short of send
    }
    t0 = MonotonicNs();
    s = weft_allreduce(ctx, nullptr, 0, &f.in.t, &f.out.t, WEFT_REDUCE_SUM, nullptr, nullptr,
                       nullptr);
    Send(Describe("op", ctx, rank, s, t0));
  }
  HoldThenTearDown(ctx, rank);
  return 0;
}

int CreateOnly() {
  int32_t rank = 0, size = 1;
  weft_context_t* ctx = Join(&rank, &size);
  if (ctx) {
    const int64_t t0 = MonotonicNs();
    Send(Describe("destroy", nullptr, rank, weft_context_destroy(ctx), t0));
  }
  return 0;
}

// Rank 0 leaves an all-reduce pending that no other rank joins (work, no deadline of its own),
// then every rank destroys its context (the context's deadline from WEFT_TIMEOUT_MS). Rank 0
// then waits for the work, which must have failed, and releases it.
int Pending() {
  int32_t rank = 0, size = 1;
  weft_context_t* ctx = Join(&rank, &size);
  if (!ctx) return 0;
  Floats f;
  weft_work_t* work = nullptr;
  int64_t t0 = MonotonicNs();
  weft_status_t s = WEFT_OK;
  if (rank == 0) {
    weft_call_options_t opts = WEFT_CALL_OPTIONS_INIT;
    opts.timeout_ms = -1;
    s = weft_allreduce(ctx, nullptr, 0, &f.in.t, &f.out.t, WEFT_REDUCE_SUM, nullptr, &opts, &work);
  }
  Send(Describe("posted", ctx, rank, s, t0));
  t0 = MonotonicNs();
  Send(Describe("destroy", nullptr, rank, weft_context_destroy(ctx), t0));
  if (work != nullptr) {
    t0 = MonotonicNs();
    s = weft_work_wait(work, 5000);
    Send(Describe("work", nullptr, rank, s, t0));
    weft_work_release(work);
  }
  return 0;
}

// x[j] = 1000 rank + i + j on every rank; sums and maxima have closed forms in (i, j, size).
int Stress(int iterations) {
  int32_t rank = 0, size = 1;
  weft_context_t* ctx = Join(&rank, &size);
  if (!ctx) return 0;
  constexpr int64_t kNumel = 16;
  std::vector<int64_t> send(kNumel), recv(kNumel);
  Tensor1D in(send.data(), kNumel, kInt64), out(recv.data(), kNumel, kInt64);
  const int64_t t_start = MonotonicNs();
  for (int i = 0; i < iterations; ++i) {
    for (int64_t j = 0; j < kNumel; ++j) send[j] = 1000 * rank + i + j;
    const bool sum = i % 2 == 0;
    const int64_t t0 = MonotonicNs();
    weft_status_t s =
        weft_allreduce(ctx, nullptr, 0, &in.t, &out.t, sum ? WEFT_REDUCE_SUM : WEFT_REDUCE_MAX,
                       nullptr, nullptr, nullptr);
    if (s == WEFT_OK) s = weft_barrier(ctx, nullptr, 0, nullptr, nullptr, nullptr);
    if (s != WEFT_OK) {
      Send(Describe("op", ctx, rank, s, t0));
      return 0;
    }
    for (int64_t j = 0; j < kNumel; ++j) {
      const int64_t want = sum ? 1000 * int64_t{size} * (size - 1) / 2 + size * (i + j)
                               : 1000 * int64_t{size - 1} + i + j;
      if (recv[j] != want) {
        Report r = Describe("check", ctx, rank, -1, t0);
        r.message = "iteration " + std::to_string(i) + " element " + std::to_string(j) + ": got " +
                    std::to_string(recv[j]) + ", want " + std::to_string(want);
        Send(r);
        return 1;
      }
    }
  }
  Send(Describe("check", ctx, rank, WEFT_OK, t_start));
  const int64_t t0 = MonotonicNs();
  Send(Describe("destroy", nullptr, rank, weft_context_destroy(ctx), t0));
  return 0;
}

}  // namespace
}  // namespace weft::test

int main(int argc, char** argv) {
  using namespace weft::test;
  const std::string scenario = argc > 1 ? argv[1] : "";
  if (scenario == "loop" && argc == 4) return Loop(std::atoll(argv[2]), std::atoll(argv[3]));
  if (scenario == "badarg" && argc == 3) return BadArgument(std::atoi(argv[2]));
  if (scenario == "create" && argc == 2) return CreateOnly();
  if (scenario == "pending" && argc == 2) return Pending();
  if (scenario == "stress" && argc == 3) return Stress(std::atoi(argv[2]));
  std::fprintf(stderr,
               "usage: fault_worker loop|badarg|create|stress|pending ARGS (see the source)\n");
  return 2;
}
