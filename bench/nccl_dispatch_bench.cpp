// What Weft adds to an NCCL call on the host: an 8-byte all-reduce of device buffers in a world
// of one process, enqueued on a stream without waiting (SPEC §6.2: complete when enqueued),
// through weft_allreduce and through ncclAllReduce on the same buffers and stream. The stream is
// drained every kDrain calls with the clock stopped, so both sides enqueue onto the same short
// queue. The difference is Weft's dispatch plus the plugin's path (issue 24's target: at most
// 3 us over NCCL at 8 bytes); the ratio is printed after the table.
//
// In CI (and by default) it runs on the fake NCCL and the fake CUDA runtime; on a GPU
// (scripts/gpu-check.sh) WEFT_NCCL_LIBRARY, WEFT_CUDART_LIBRARY and WEFT_PLUGIN_PATH choose the
// real libraries.
//
//   nccl_dispatch_bench                            # full run
//   nccl_dispatch_bench --benchmark_min_time=0.01  # smoke run
#include <benchmark/benchmark.h>
#include <weft/weft.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>

#include "backends/nccl/cuda_api.hpp"
#include "backends/nccl/nccl_api.hpp"
#include "bench/ratio_reporter.hpp"
#include "bench/self_world.hpp"

namespace {

using weft::backends::nccl_plugin::CudaApi;
using weft::backends::nccl_plugin::NcclApi;

constexpr int64_t kCount = 2;  // two float32: 8 bytes
constexpr DLDataType kFloat32 = {kDLFloat, 32, 1};
constexpr int kDrain = 256;

// The fakes unless the caller chose, before anything reads the variables.
const bool kFakesByDefault = [] {
  setenv("WEFT_NCCL_LIBRARY", WEFT_FAKE_NCCL, 0);
  setenv("WEFT_CUDART_LIBRARY", WEFT_FAKE_CUDART, 0);
  setenv("WEFT_PLUGIN_PATH", WEFT_FAKES_DIR, 0);
  return true;
}();

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "nccl_dispatch_bench: %s\n", what.c_str());
  std::exit(1);
}

// A world of one on the nccl backend, NCCL's own communicator of one, device buffers, a stream.
struct World {
  weft_context_t* ctx = nullptr;
  std::unique_ptr<CudaApi> cuda;
  std::unique_ptr<NcclApi> nccl;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  void* send = nullptr;
  void* recv = nullptr;
  int64_t shape[1] = {kCount};
  DLTensor in{}, out{};

  World() {
    weft_context_options_t opts = WEFT_CONTEXT_OPTIONS_INIT;
    opts.rank = 0;
    opts.world_size = 1;
    opts.backend = "nccl";
    weft::bench::CheckOk(weft_context_create(&opts, &ctx), "weft_context_create (nccl)");
    std::string why;
    cuda = CudaApi::Load(&why);
    if (!cuda) Die(why);
    nccl = NcclApi::Load(&why);
    if (!nccl) Die(why);
    if (cuda->StreamCreateWithFlags(&stream, weft::cuda::kStreamNonBlocking) != 0 ||
        cuda->Malloc(&send, 64) != 0 || cuda->Malloc(&recv, 64) != 0)
      Die("the CUDA runtime refused a stream or 64 bytes");
    ncclUniqueId id;
    if (nccl->GetUniqueId(&id) != 0 || nccl->CommInitRankConfig(&comm, 1, id, 0, nullptr) != 0)
      Die("ncclCommInitRank of one rank failed");
    in = DLTensor{send, {kDLCUDA, 0}, 1, kFloat32, shape, nullptr, 0};
    out = DLTensor{recv, {kDLCUDA, 0}, 1, kFloat32, shape, nullptr, 0};
  }
  ~World() {
    cuda->StreamSynchronize(stream);
    weft_context_destroy(ctx);
    nccl->CommDestroy(comm);
    cuda->Free(send);
    cuda->Free(recv);
    cuda->StreamDestroy(stream);
  }
  void Drain(benchmark::State& state) {
    state.PauseTiming();
    cuda->StreamSynchronize(stream);
    state.ResumeTiming();
  }
};

World& W() {
  static World w;
  return w;
}

void BM_WeftAllreduceEnqueue(benchmark::State& state) {
  World& w = W();
  int n = 0;
  for (auto _ : state) {
    const weft_status_t s = weft_allreduce(w.ctx, nullptr, 0, &w.in, &w.out, WEFT_REDUCE_SUM,
                                           w.stream, nullptr, nullptr);
    if (s != WEFT_OK) state.SkipWithError(weft_last_error());
    if (++n % kDrain == 0) w.Drain(state);
  }
  w.cuda->StreamSynchronize(w.stream);
}
BENCHMARK(BM_WeftAllreduceEnqueue);

void BM_NcclAllreduceEnqueue(benchmark::State& state) {
  World& w = W();
  int n = 0;
  for (auto _ : state) {
    if (w.nccl->AllReduce(w.send, w.recv, kCount, weft::nccl::kFloat32, weft::nccl::kSum, w.comm,
                          w.stream) != 0)
      state.SkipWithError("ncclAllReduce failed");
    if (++n % kDrain == 0) w.Drain(state);
  }
  w.cuda->StreamSynchronize(w.stream);
}
BENCHMARK(BM_NcclAllreduceEnqueue);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  weft::bench::RatioReporter reporter({std::make_pair(std::string("BM_WeftAllreduceEnqueue"),
                                                      std::string("BM_NcclAllreduceEnqueue"))});
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
