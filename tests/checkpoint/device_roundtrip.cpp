// Checkpoints of tensors in real device memory: blocks allocated with cudaMalloc and filled by
// copies from the host, saved on a stream of the caller's, loaded into other layouts in device
// memory (padded rows: strided) and in host memory, read back with the runtime's own copies and
// checked against the formula. The same test runs on the fake runtime in CI and on a GPU in
// scripts/gpu-check.sh (WEFT_CUDART_LIBRARY, WEFT_PLUGIN_PATH choose), on any backend: the
// collective steps of checkpoints move host memory only.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "backends/nccl/cuda_api.hpp"
#include "tests/checkpoint/harness.hpp"

namespace ckpt_test {
namespace {

using weft::backends::nccl_plugin::CudaApi;
using weft_test::TheWorld;

constexpr DLDataType kF32{kDLFloat, 32, 1}, kI64{kDLInt, 64, 1};

// The runtime and a non-blocking stream of the test's own.
struct Runtime {
  std::unique_ptr<CudaApi> api;
  cudaStream_t stream = nullptr;
  std::string why;
  Runtime() {
    api = CudaApi::Load(&why);
    if (api && api->DeviceVisible(&why))
      api->StreamCreateWithFlags(&stream, weft::cuda::kStreamNonBlocking);
  }
  ~Runtime() {
    if (stream) api->StreamDestroy(stream);
  }
};

Runtime& TheRuntime() {
  static Runtime r;
  return r;
}

// A block in device memory: the host Block describes it (shape, strides, bytes to upload and
// to download into); `tensor` points at the device copy.
struct DeviceBlock {
  Block host;
  void* dev = nullptr;
  DLTensor tensor{};
  DeviceBlock(const weft_layout_t* l, DLDataType dt, int64_t pad) {
    host = MakeBlock(l, dt, TheWorld().rank, pad);
    auto& rt = TheRuntime();
    EXPECT_EQ(rt.api->Malloc(&dev, host.bytes.size()), weft::cuda::kSuccess);
    tensor = host.tensor;
    tensor.data = dev;
    tensor.device = {kDLCUDA, 0};
  }
  ~DeviceBlock() { TheRuntime().api->Free(dev); }
  DeviceBlock(const DeviceBlock&) = delete;
  DeviceBlock& operator=(const DeviceBlock&) = delete;
  void Upload() {
    auto& rt = TheRuntime();
    rt.api->MemcpyAsync(dev, host.bytes.data(), host.bytes.size(), weft::cuda::kMemcpyHostToDevice,
                        rt.stream);
    EXPECT_EQ(rt.api->StreamSynchronize(rt.stream), weft::cuda::kSuccess);
  }
  void Download() {
    auto& rt = TheRuntime();
    rt.api->MemcpyAsync(host.bytes.data(), dev, host.bytes.size(), weft::cuda::kMemcpyDeviceToHost,
                        rt.stream);
    EXPECT_EQ(rt.api->StreamSynchronize(rt.stream), weft::cuda::kSuccess);
  }
};

TEST(DeviceRoundTrip, SaveFromDeviceLoadIntoDeviceAndHost) {
  ASSERT_NE(TheRuntime().stream, nullptr) << "no CUDA device (real or fake): " << TheRuntime().why;
  const int32_t w = TheWorld().size;
  weft_test::Mesh mesh({w});
  // Saved: a row-sharded float32 (padded rows), a replicated int64, a Partial(sum) float32.
  weft_test::Layout a(mesh, {13, 7}, kF32, {"S0"}), r(mesh, {5, 6}, kI64, {"R"}),
      p(mesh, {4, 3}, kF32, {"Ps"});
  DeviceBlock da(a.l, kF32, 3), dr(r.l, kI64, 0), dp(p.l, kF32, 1);
  Fill(da.host, kF32, 0, {13, 7});
  Fill(dr.host, kI64, 1, {5, 6});
  // The Partial's shares: value - 3 on rank 0, 3 on rank 1, zeros beyond (one rank: the value).
  if (w == 1)
    Fill(dp.host, kF32, 2, {4, 3});
  else
    FillPartial(dp.host, 2, {4, 3}, TheWorld().rank == 0 ? 0 : 1);
  if (TheWorld().rank >= 2) std::fill(dp.host.bytes.begin(), dp.host.bytes.end() - 1, 0);
  da.Upload();
  dr.Upload();
  dp.Upload();
  const std::string path = DataDir() + "/device_roundtrip";
  const char* names[] = {"a", "r", "p"};
  const weft_layout_t* ls[] = {a.l, r.l, p.l};
  const DLTensor* ts[] = {&da.tensor, &dr.tensor, &dp.tensor};
  weft_checkpoint_save_options_t so = WEFT_CHECKPOINT_SAVE_OPTIONS_INIT;
  so.overwrite = 1;
  so.stream = TheRuntime().stream;
  WEFT_OK_OR_FAIL(
      weft_checkpoint_save(TheWorld().ctx, path.c_str(), 3, names, ls, ts, &so, nullptr));

  // Into device memory in other layouts (columns sharded, padded rows), on the same stream.
  weft_test::Layout a1(mesh, {13, 7}, kF32, {"S1"}), r1(mesh, {5, 6}, kI64, {"S0"}),
      p1(mesh, {4, 3}, kF32, {"R"});
  DeviceBlock la(a1.l, kF32, 2), lr(r1.l, kI64, 1), lp(p1.l, kF32, 0);
  la.Upload();  // the marker bytes, so that the check sees the padding left untouched
  lr.Upload();
  lp.Upload();
  DLTensor* lt[] = {&la.tensor, &lr.tensor, &lp.tensor};
  const weft_layout_t* l1[] = {a1.l, r1.l, p1.l};
  weft_checkpoint_load_options_t lo = WEFT_CHECKPOINT_LOAD_OPTIONS_INIT;
  lo.stream = TheRuntime().stream;
  WEFT_OK_OR_FAIL(weft_checkpoint_load(TheWorld().ctx, path.c_str(), 3, names, l1, lt, &lo));
  la.Download();
  lr.Download();
  lp.Download();
  EXPECT_EQ(Mismatches(la.host, kF32, 0, {13, 7}), 0);
  EXPECT_EQ(Mismatches(lr.host, kI64, 1, {5, 6}), 0);
  EXPECT_EQ(Mismatches(lp.host, kF32, 2, {4, 3}), 0);

  // And into host memory, with the 16-byte options struct of callers built before `stream`.
  Block ha = MakeBlock(a1.l, kF32, TheWorld().rank);
  ha.tensor.device = {kDLCPU, 0};
  DLTensor* ht[] = {&ha.tensor};
  weft_checkpoint_load_options_t old = WEFT_CHECKPOINT_LOAD_OPTIONS_INIT;
  old.struct_size = 16;
  WEFT_OK_OR_FAIL(weft_checkpoint_load(TheWorld().ctx, path.c_str(), 1, names, l1, ht, &old));
  EXPECT_EQ(Mismatches(ha, kF32, 0, {13, 7}), 0);
}

}  // namespace
}  // namespace ckpt_test
