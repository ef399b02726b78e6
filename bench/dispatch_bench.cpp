// Weft's own dispatch overhead per collective call: an 8-byte tensor on the self backend in a
// world of one process, so that no byte crosses a wire and the time is what the C ABI,
// argument checks, communicator lookup, scheduling and work handling cost. Target: <= 2 us
// per call. Blocking calls and work-handle calls (create + wait + release) are each reported
// as a ratio of a plain 8-byte memcpy measured in the same run.
//
//   dispatch_bench                            # full run
//   dispatch_bench --benchmark_min_time=0.01  # smoke run
#include <benchmark/benchmark.h>
#include <weft/weft.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "bench/ratio_reporter.hpp"
#include "bench/self_world.hpp"

namespace {

constexpr int64_t kCount = 2;  // two float32: 8 bytes
constexpr DLDataType kFloat32 = {kDLFloat, 32, 1};

void Check(weft_status_t s, const char* what) { weft::bench::CheckOk(s, what); }

// One context for the whole run: created on first use, explicitly a world of one on the self
// backend whatever the environment says.
struct World {
  weft_context_t* ctx = nullptr;
  float send[kCount] = {1.0f, 2.0f}, recv[kCount] = {};
  int64_t shape[1] = {kCount};
  DLTensor in{send, {kDLCPU, 0}, 1, kFloat32, shape, nullptr, 0};
  DLTensor out{recv, {kDLCPU, 0}, 1, kFloat32, shape, nullptr, 0};

  World() { ctx = weft::bench::CreateSelfWorld(); }
  ~World() { weft_context_destroy(ctx); }
};

World& W() {
  static World w;
  return w;
}

enum class Call { kAllreduce, kAllgather, kBroadcast, kBarrier };

weft_status_t Issue(Call call, weft_work_t** work) {
  World& w = W();
  switch (call) {
    case Call::kAllreduce:
      return weft_allreduce(w.ctx, nullptr, 0, &w.in, &w.out, WEFT_REDUCE_SUM, nullptr, nullptr,
                            work);
    case Call::kAllgather:
      return weft_allgather(w.ctx, nullptr, 0, &w.in, &w.out, nullptr, nullptr, work);
    case Call::kBroadcast:
      return weft_broadcast(w.ctx, nullptr, 0, &w.out, 0, nullptr, nullptr, work);
    case Call::kBarrier:
      return weft_barrier(w.ctx, nullptr, 0, nullptr, nullptr, work);
  }
  return WEFT_ERR_INVALID_ARGUMENT;
}

void Blocking(benchmark::State& state, Call call) {
  Issue(call, nullptr);  // first use creates the communicator: not part of the steady state
  for (auto _ : state) Check(Issue(call, nullptr), "blocking call");
  benchmark::DoNotOptimize(W().recv);
}

void WithWork(benchmark::State& state, Call call) {
  Issue(call, nullptr);
  for (auto _ : state) {
    weft_work_t* work = nullptr;
    Check(Issue(call, &work), "call with work");
    Check(weft_work_wait(work, -1), "weft_work_wait");
    weft_work_release(work);
  }
  benchmark::DoNotOptimize(W().recv);
}

// The work path by parts (wall ns per call, as counters): the issuing call, which hands the
// operation to the context's worker thread; the wait, which covers the worker's wake-up, the
// operation and the wake-up of this thread; and the release.
void BM_AllreduceWorkParts(benchmark::State& state) {
  using Clock = std::chrono::steady_clock;
  Issue(Call::kAllreduce, nullptr);
  Clock::duration issue{}, wait{}, release{};
  for (auto _ : state) {
    weft_work_t* work = nullptr;
    const auto t0 = Clock::now();
    Check(Issue(Call::kAllreduce, &work), "call with work");
    const auto t1 = Clock::now();
    Check(weft_work_wait(work, -1), "weft_work_wait");
    const auto t2 = Clock::now();
    weft_work_release(work);
    const auto t3 = Clock::now();
    issue += t1 - t0, wait += t2 - t1, release += t3 - t2;
  }
  const auto per_call = [&](Clock::duration d) {
    return benchmark::Counter(std::chrono::duration<double, std::nano>(d).count() /
                              static_cast<double>(state.iterations()));
  };
  state.counters["issue_ns"] = per_call(issue);
  state.counters["wait_ns"] = per_call(wait);
  state.counters["release_ns"] = per_call(release);
}

void BM_ReferenceMemcpy8(benchmark::State& state) {
  World& w = W();
  for (auto _ : state) {
    benchmark::DoNotOptimize(w.send);
    std::memcpy(w.recv, w.send, sizeof(w.send));
    benchmark::ClobberMemory();
  }
}

void BM_Allreduce(benchmark::State& state) { Blocking(state, Call::kAllreduce); }
void BM_Allgather(benchmark::State& state) { Blocking(state, Call::kAllgather); }
void BM_Broadcast(benchmark::State& state) { Blocking(state, Call::kBroadcast); }
void BM_Barrier(benchmark::State& state) { Blocking(state, Call::kBarrier); }
void BM_AllreduceWork(benchmark::State& state) { WithWork(state, Call::kAllreduce); }
void BM_AllgatherWork(benchmark::State& state) { WithWork(state, Call::kAllgather); }
void BM_BroadcastWork(benchmark::State& state) { WithWork(state, Call::kBroadcast); }
void BM_BarrierWork(benchmark::State& state) { WithWork(state, Call::kBarrier); }

BENCHMARK(BM_ReferenceMemcpy8);
BENCHMARK(BM_Allreduce);
BENCHMARK(BM_Allgather);
BENCHMARK(BM_Broadcast);
BENCHMARK(BM_Barrier);
BENCHMARK(BM_AllreduceWork);
BENCHMARK(BM_AllgatherWork);
BENCHMARK(BM_BroadcastWork);
BENCHMARK(BM_BarrierWork);
BENCHMARK(BM_AllreduceWorkParts);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const char* name :
       {"BM_Allreduce", "BM_Allgather", "BM_Broadcast", "BM_Barrier", "BM_AllreduceWork",
        "BM_AllgatherWork", "BM_BroadcastWork", "BM_BarrierWork"}) {
    pairs.emplace_back(name, "BM_ReferenceMemcpy8");
  }
  weft::bench::RatioReporter reporter(std::move(pairs));
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
