// One rank of a fault test (tests/runtime/fault_test.cpp starts several of these itself).
// It uses only the public C ABI, joins the world from the WEFT_* environment, runs one
// scenario and reports what it saw on descriptor kReportFd (report.hpp).
//
//   fault_worker loop <timeout_ms> <numel>  allreduce float32 until one fails; hold; abort
//   fault_worker badarg <bad_rank>          one allreduce in which bad_rank's recv is short
//   fault_worker create                     only weft_context_create (and destroy)
//   fault_worker stress <iterations>        small allreduces and barriers, values checked
//   fault_worker pending                    destroy while rank 0's all-reduce work is pending
//   fault_worker silent <timeout_ms> <rank> one all-reduce that <rank> never joins ("op"), one
//                                           more call ("after"); hold; destroy without an abort
//   fault_worker rules <odd_rank>           weft_rules_attach twice ("attach", "again") with
//                                           <odd_rank> (-1: none) registering one more operator;
//                                           a registration after ("late"); hold; destroy
//   fault_worker sweep <timeout_ms>         all-reduce, all-gather and all-to-all of 4 KiB to
//                                           4 MiB, values checked, until one fails; one more
//                                           call ("after"); hold; destroy without an abort
//   fault_worker streamwait <timeout_ms> <numel>
//                                           nccl on the fakes: allreduces of CUDA-tagged buffers
//                                           and waits on the stream, not in Weft ("ready"); one
//                                           of numel/2 that the fake fails (FAKE_NCCL_FAIL_BYTES)
//                                           and a wait on the stream ("waiting"); one more call
//                                           ("op"); hold; abort
//
// "hold": after reporting the failure the worker waits until the driver writes to (or closes)
// its stdin, so that no survivor's teardown disturbs another survivor's failure report.
// Exit status: 0 when the scenario ran its course, 1 when a value check failed, 2 on usage.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "backends/nccl/cuda_api.hpp"
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

// The all-reduce the looping scenarios repeat: numel float32 holding rank + 1, summed, so every
// rank knows the result; with the scenario's deadline.
struct SumRound {
  std::vector<float> send, recv;
  Tensor1D in, out;
  weft_call_options_t opts = WEFT_CALL_OPTIONS_INIT;
  float expected;
  SumRound(int32_t rank, int32_t size, int64_t numel, int64_t timeout_ms)
      : send(numel, static_cast<float>(rank + 1)),
        recv(numel, 0.0f),
        in(send.data(), numel, kFloat32),
        out(recv.data(), numel, kFloat32),
        expected(static_cast<float>(size) * static_cast<float>(size + 1) / 2.0f) {
    opts.timeout_ms = timeout_ms;
  }
  weft_status_t Run(weft_context_t* ctx) {
    return weft_allreduce(ctx, nullptr, 0, &in.t, &out.t, WEFT_REDUCE_SUM, nullptr, &opts, nullptr);
  }
  bool Right() const { return recv.front() == expected && recv.back() == expected; }
};

int Loop(int64_t timeout_ms, int64_t numel) {
  int32_t rank = 0, size = 1;
  weft_context_t* ctx = Join(&rank, &size);
  if (!ctx) return 0;
  SumRound round(rank, size, numel, timeout_ms);
  const int64_t give_up = MonotonicNs() + 60'000'000'000;  // the driver kills long before
  for (int i = 0;; ++i) {
    const int64_t t0 = MonotonicNs();
    const weft_status_t s = round.Run(ctx);
    if (s != WEFT_OK || MonotonicNs() > give_up) {
      Send(Describe("op", ctx, rank, s, t0));
      break;
    }
    if (!round.Right()) {
      Send(Describe("check", ctx, rank, -1, t0));
      return 1;
    }
    if (i == 2) Send(Describe("ready", ctx, rank, s, t0));
  }
  HoldThenTearDown(ctx, rank);
  return 0;
}

// cudaStreamSynchronize(NULL) of the runtime the plugin uses (WEFT_CUDART_LIBRARY: the fake
// one), as a framework waits for its stream; false when it cannot be called.
bool WaitOnTheStream() {
  static const weft::backends::nccl_plugin::CudaApi* const cuda = [] {
    std::string why;
    return weft::backends::nccl_plugin::CudaApi::Load(&why).release();  // kept to the end
  }();
  return cuda != nullptr && cuda->StreamSynchronize(nullptr) == 0;
}

// Device buffers complete when enqueued (SPEC §6.2): a failed link then shows as a stream that
// never passes the all-reduce, with every process alive (the store sees nothing). After three
// good rounds ("ready") every rank enqueues an all-reduce of half the elements, which the fake
// NCCL fails as a broken link (FAKE_NCCL_FAIL_BYTES, set by the driver to its size), says so
// ("waiting") and waits on the stream, not in Weft. Only the plugin's watchdog can end that
// wait, by aborting the communicators; the next call then reports the failure ("op").
// skip_last: no link fails, but the last rank never joins that all-reduce (it reports
// "waiting" and holds); the others' streams wait for it until the all-reduce's deadline
// (timeout_ms), when the watchdog aborts the communicators (WEFT_NCCL_DEVICE_TIMEOUTS).
int StreamWait(int64_t timeout_ms, int64_t numel, bool skip_last) {
  int32_t rank = 0, size = 1;
  weft_context_t* ctx = Join(&rank, &size);
  if (!ctx) return 0;
  SumRound round(rank, size, numel, timeout_ms);
  // The fakes' device memory is host memory.
  round.in.t.device = round.out.t.device = DLDevice{kDLCUDA, 0};
  for (int i = 0; i < 3; ++i) {
    const int64_t t0 = MonotonicNs();
    const weft_status_t s = round.Run(ctx);
    if (s != WEFT_OK || !WaitOnTheStream() || !round.Right()) {
      Send(Describe("check", ctx, rank, s == WEFT_OK ? -1 : s, t0));
      return 1;
    }
  }
  Send(Describe("ready", ctx, rank, WEFT_OK, MonotonicNs()));
  round.in.shape[0] = round.out.shape[0] = numel / 2;
  int64_t t0 = MonotonicNs();
  if (skip_last && rank == size - 1) {
    Send(Describe("waiting", ctx, rank, WEFT_OK, t0));
    HoldThenTearDown(ctx, rank);
    return 0;
  }
  weft_status_t s = round.Run(ctx);
  Send(Describe("waiting", ctx, rank, s, t0));
  if (s == WEFT_OK && !WaitOnTheStream()) {
    Send(Describe("sync", ctx, rank, -1, t0));
    return 1;
  }
  t0 = MonotonicNs();
  s = round.Run(ctx);
  Send(Describe("op", ctx, rank, s, t0));
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

int RulesAttach(int32_t odd_rank) {
  int32_t rank = 0, size = 1;
  weft_context_t* ctx = Join(&rank, &size);
  if (!ctx) return 0;
  weft_rules_t* rules = nullptr;
  if (weft_rules_create(&rules) != WEFT_OK) return 1;
  if (rank == odd_rank && weft_rules_register_einsum(rules, "extra", "ij->j", nullptr) != WEFT_OK)
    return 1;
  for (const char* kind : {"attach", "again"}) {
    const int64_t t0 = MonotonicNs();
    Send(Describe(kind, nullptr, rank, weft_rules_attach(rules, ctx), t0));
  }
  const int64_t t0 = MonotonicNs();
  Send(Describe("late", nullptr, rank, weft_rules_register_einsum(rules, "late", "i->i", nullptr),
                t0));
  weft_rules_destroy(rules);
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

// Every rank but `silent` calls an all-reduce with a `timeout_ms` deadline, which the silent
// rank never joins, and one more call; the silent one only holds. Then each destroys its
// context when released, without an abort: a timeout poisons the context, so the later call
// fails at once and destroy does not wait for the peers again.
int Silent(int64_t timeout_ms, int32_t silent) {
  int32_t rank = 0, size = 1;
  weft_context_t* ctx = Join(&rank, &size);
  if (!ctx) return 0;
  Send(Describe("ready", ctx, rank, WEFT_OK, MonotonicNs()));
  Floats f;
  constexpr float kMine = -7.0f;  // the caller's own values after the failed call
  if (rank != silent) {
    weft_call_options_t opts = WEFT_CALL_OPTIONS_INIT;
    opts.timeout_ms = timeout_ms;
    int64_t t0 = MonotonicNs();
    weft_status_t s = weft_allreduce(ctx, nullptr, 0, &f.in.t, &f.out.t, WEFT_REDUCE_SUM, nullptr,
                                     &opts, nullptr);
    Send(Describe("op", ctx, rank, s, t0));
    std::fill(f.recv.begin(), f.recv.end(), kMine);
    t0 = MonotonicNs();
    s = weft_barrier(ctx, nullptr, 0, nullptr, &opts, nullptr);
    Send(Describe("after", ctx, rank, s, t0));
  }
  char byte = 0;
  (void)::read(STDIN_FILENO, &byte, 1);  // the driver's release
  const int64_t t0 = MonotonicNs();
  Send(Describe("destroy", nullptr, rank, weft_context_destroy(ctx), t0));
  // Once the context is gone nothing of it runs any more: a call that failed must not have
  // written into its buffers after it returned (the NCCL plugin's copies out of staging).
  if (rank != silent) {
    const bool mine = std::all_of(f.recv.begin(), f.recv.end(), [](float v) { return v == kMine; });
    Send(Describe("buffers", nullptr, rank, mine ? WEFT_OK : WEFT_ERR_INTERNAL, t0));
  }
  return 0;
}

// The sweep's sizes (bytes of each rank's send buffer) and operations.
constexpr int64_t kSweepMinBytes = 4 << 10, kSweepMaxBytes = 4 << 20;
enum class SweepOp { kAllreduce, kAllgather, kAlltoall };
constexpr const char* kSweepOpNames[] = {"allreduce", "allgather", "alltoall"};

// Buffers for every call of the sweep, allocated once for the largest (so that the values
// stay put in memory for the process's life, whatever a failed call left behind).
struct SweepBuffers {
  int32_t rank, size;
  std::vector<float> reduce_in, gather_in, a2a_in, out;
  SweepBuffers(int32_t r, int32_t n)
      : rank(r),
        size(n),
        reduce_in(kSweepMaxBytes / 4),
        gather_in(kSweepMaxBytes / 4),
        a2a_in(kSweepMaxBytes / 4),
        out(size_t{kSweepMaxBytes / 4} * n) {
    // Element-dependent values, so that a block in the wrong place is seen.
    for (size_t j = 0; j < reduce_in.size(); ++j) {
      reduce_in[j] = static_cast<float>(r + 1 + j % 13);
      gather_in[j] = static_cast<float>(1000 * (r + 1) + j % 13);
    }
  }
  // The all-to-all's block for rank d at element j: from rank s it is 1000 s + 10 d + j % 7.
  static float Block(int32_t s, int32_t d, size_t j) {
    return static_cast<float>(1000 * s + 10 * d + static_cast<int64_t>(j % 7));
  }
};

// Describes in *why the first element of b.out[0, count) that differs from want(j), if any.
// Returns WEFT_OK: the call itself succeeded.
template <typename Want>
weft_status_t CheckOut(const SweepBuffers& b, const char* op, int64_t bytes, size_t count,
                       Want want, std::string* why) {
  for (size_t j = 0; j < count; ++j)
    if (b.out[j] != want(j)) {
      *why = std::string(op) + " of " + std::to_string(bytes) + " bytes: element " +
             std::to_string(j) + " is " + std::to_string(b.out[j]) + ", want " +
             std::to_string(want(j));
      break;
    }
  return WEFT_OK;
}

// One call of the sweep: its status; *why says what is wrong when it succeeded with wrong
// values.
weft_status_t SweepCall(weft_context_t* ctx, SweepBuffers& b, SweepOp op, int64_t bytes,
                        const weft_call_options_t* opts, std::string* why) {
  const int64_t numel = bytes / 4, n = b.size;
  const size_t count = static_cast<size_t>(numel);
  weft_status_t s = WEFT_OK;
  if (op == SweepOp::kAllreduce) {
    Tensor1D in(b.reduce_in.data(), numel, kFloat32), out(b.out.data(), numel, kFloat32);
    s = weft_allreduce(ctx, nullptr, 0, &in.t, &out.t, WEFT_REDUCE_SUM, nullptr, opts, nullptr);
    if (s != WEFT_OK) return s;
    return CheckOut(
        b, "allreduce", bytes, count,
        [n](size_t j) {
          return static_cast<float>(n * (n + 1) / 2 + n * static_cast<int64_t>(j % 13));
        },
        why);
  }
  if (op == SweepOp::kAllgather) {
    Tensor1D in(b.gather_in.data(), numel, kFloat32), out(b.out.data(), numel * n, kFloat32);
    s = weft_allgather(ctx, nullptr, 0, &in.t, &out.t, nullptr, opts, nullptr);
    if (s != WEFT_OK) return s;
    return CheckOut(
        b, "allgather", bytes, count * n,
        [count](size_t j) {
          return static_cast<float>(1000 * static_cast<int64_t>(j / count + 1) + (j % count) % 13);
        },
        why);
  }
  const int64_t block = numel / n;
  for (int64_t d = 0; d < n; ++d)
    for (int64_t j = 0; j < block; ++j)
      b.a2a_in[d * block + j] = SweepBuffers::Block(b.rank, static_cast<int32_t>(d), j);
  Tensor1D in(b.a2a_in.data(), block * n, kFloat32), out(b.out.data(), block * n, kFloat32);
  s = weft_alltoall(ctx, nullptr, 0, &in.t, &out.t, nullptr, opts, nullptr);
  if (s != WEFT_OK) return s;
  const int32_t me = b.rank;
  return CheckOut(
      b, "alltoall", bytes, static_cast<size_t>(block * n),
      [block, me](size_t j) {
        return SweepBuffers::Block(static_cast<int32_t>(j / block), me, j % block);
      },
      why);
}

// Sweeps until a call fails (the driver stops or kills a peer meanwhile); "ready" after the
// first whole sweep, "op" for the failed call (its operation and size appended to the
// message), "after" for one more call (the context's sticky error, at once), then destroy
// without an abort once released.
int Sweep(int64_t timeout_ms) {
  int32_t rank = 0, size = 1;
  weft_context_t* ctx = Join(&rank, &size);
  if (!ctx) return 0;
  SweepBuffers b(rank, size);
  weft_call_options_t opts = WEFT_CALL_OPTIONS_INIT;
  opts.timeout_ms = timeout_ms;
  const int64_t give_up = MonotonicNs() + 60'000'000'000;  // the driver kills long before
  bool failed = false;
  for (int pass = 0; !failed; ++pass) {
    const int64_t pass_t0 = MonotonicNs();
    for (int o = 0; o < 3 && !failed; ++o)
      for (int64_t bytes = kSweepMinBytes; bytes <= kSweepMaxBytes && !failed; bytes *= 4) {
        const int64_t t0 = MonotonicNs();
        std::string why;
        weft_status_t s = SweepCall(ctx, b, static_cast<SweepOp>(o), bytes, &opts, &why);
        if (s == WEFT_OK && MonotonicNs() > give_up) s = WEFT_ERR_INTERNAL;
        if (s == WEFT_OK && why.empty()) continue;
        failed = true;
        if (!why.empty()) {  // wrong values
          Report r = Describe("check", ctx, rank, s, t0);
          r.status = -1;
          r.message = why;
          Send(r);
          return 1;
        }
        Report r = Describe("op", ctx, rank, s, t0);
        r.message +=
            " [" + std::string(kSweepOpNames[o]) + " of " + std::to_string(bytes) + " bytes]";
        Send(r);
      }
    if (pass == 0 && !failed) Send(Describe("ready", ctx, rank, WEFT_OK, pass_t0));
  }
  // A failed context fails every later call at once with its sticky error.
  int64_t t0 = MonotonicNs();
  std::string ignored;
  Send(Describe("after", ctx, rank,
                SweepCall(ctx, b, SweepOp::kAllreduce, kSweepMinBytes, &opts, &ignored), t0));
  char byte = 0;
  (void)::read(STDIN_FILENO, &byte, 1);  // the driver's release
  t0 = MonotonicNs();
  Send(Describe("destroy", nullptr, rank, weft_context_destroy(ctx), t0));
  return 0;
}

}  // namespace
}  // namespace weft::test

int main(int argc, char** argv) {
  using namespace weft::test;
  using Args = char**;
  // scenario, its argument count, and how it runs on argv[2...]
  struct Scenario {
    const char* name;
    int args;
    int (*run)(Args);
  };
  static constexpr Scenario kScenarios[] = {
      {"loop", 2, [](Args a) { return Loop(std::atoll(a[2]), std::atoll(a[3])); }},
      {"badarg", 1, [](Args a) { return BadArgument(std::atoi(a[2])); }},
      {"create", 0, [](Args) { return CreateOnly(); }},
      {"rules", 1, [](Args a) { return RulesAttach(std::atoi(a[2])); }},
      {"pending", 0, [](Args) { return Pending(); }},
      {"stress", 1, [](Args a) { return Stress(std::atoi(a[2])); }},
      {"sweep", 1, [](Args a) { return Sweep(std::atoll(a[2])); }},
      {"silent", 2, [](Args a) { return Silent(std::atoll(a[2]), std::atoi(a[3])); }},
      {"streamwait", 2,
       [](Args a) { return StreamWait(std::atoll(a[2]), std::atoll(a[3]), false); }},
      {"streamskip", 2,
       [](Args a) { return StreamWait(std::atoll(a[2]), std::atoll(a[3]), true); }},
  };
  const std::string scenario = argc > 1 ? argv[1] : "";
  for (const Scenario& s : kScenarios)
    if (scenario == s.name && argc == s.args + 2) return s.run(argv);
  std::fprintf(stderr,
               "usage: fault_worker loop|badarg|create|rules|stress|pending|silent|sweep|"
               "streamwait ARGS (see the source)\n");
  return 2;
}
