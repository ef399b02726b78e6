// ReduceInto(sum) over 1 MiB of float32, float16 and int32, next to a plain memcpy of the
// same 1 MiB measured in the same run (STYLE: benchmarks report against a reference).
// GB/s counts the 1 MiB destination once per iteration for both; the reduce also reads a
// second 1 MiB input. Each reduce row carries `memcpy_GB/s`, measured just before it, and
// `x_memcpy`, its own rate as a fraction of that; both use this thread's CPU time, so that
// other processes on a shared machine skew the ratio less than wall time would.
#include <benchmark/benchmark.h>

#include <time.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "device/host/reduce/reduce.hpp"

namespace {

using weft::DType;
constexpr uint64_t kBytes = uint64_t{1} << 20;
double ThreadSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double GBps(uint64_t bytes, double seconds) { return static_cast<double>(bytes) / seconds / 1e9; }

// Best of 5 rounds of 64 copies: the memcpy rate on these buffers, warm in cache.
double MemcpyGBps(void* dst, const void* src) {
  double best = 0;
  for (int round = 0; round < 5; ++round) {
    const double start = ThreadSeconds();
    for (int i = 0; i < 64; ++i) {
      std::memcpy(dst, src, kBytes);
      benchmark::ClobberMemory();
    }
    const double rate = GBps(64 * kBytes, ThreadSeconds() - start);
    best = rate > best ? rate : best;
  }
  return best;
}

void BM_Memcpy(benchmark::State& state) {
  std::vector<unsigned char> src(kBytes, 1), dst(kBytes, 0);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), kBytes);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kBytes));
}
BENCHMARK(BM_Memcpy);

void BM_ReduceIntoSum(benchmark::State& state, DType t) {
  const uint64_t count = kBytes / static_cast<uint64_t>(weft::ItemSize(t));
  // Zero bytes are +0 (or 0) in every type: the sums stay ordinary numbers, no slow paths.
  std::vector<unsigned char> inout(kBytes, 0), in(kBytes, 0);
  const double memcpy_gbps = MemcpyGBps(inout.data(), in.data());
  const double start = ThreadSeconds();
  for (auto _ : state) {
    const weft::Status s =
        weft::device::host::ReduceInto(t, weft::ReduceOp::kSum, inout.data(), in.data(), count);
    if (!s.ok()) state.SkipWithError(s.message().c_str());
    benchmark::ClobberMemory();
  }
  const double gbps = GBps(state.iterations() * kBytes, ThreadSeconds() - start);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kBytes));
  state.counters["memcpy_GB/s"] = memcpy_gbps;
  state.counters["x_memcpy"] = gbps / memcpy_gbps;
}
BENCHMARK_CAPTURE(BM_ReduceIntoSum, float32, DType{weft::kCodeFloat, 32, 1});
BENCHMARK_CAPTURE(BM_ReduceIntoSum, float16, DType{weft::kCodeFloat, 16, 1});
BENCHMARK_CAPTURE(BM_ReduceIntoSum, int32, DType{weft::kCodeInt, 32, 1});
BENCHMARK_CAPTURE(BM_ReduceIntoSum, bfloat16, DType{weft::kCodeBfloat, 16, 1});
BENCHMARK_CAPTURE(BM_ReduceIntoSum, float64, DType{weft::kCodeFloat, 64, 1});

}  // namespace

BENCHMARK_MAIN();
