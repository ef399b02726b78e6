// The CUDA device operations (device/cuda/) through the registry, as libweft reaches them: Copy,
// Fill and Reduce on random strided regions in device memory (padded, mirrored, repeated cells,
// unaligned items) against independent formulas and the per-element reference of the host
// kernels' tests, bit for bit. In CI the library is the host build on the fake CUDA runtime
// (WEFT_PLUGIN_PATH, WEFT_CUDART_LIBRARY point at lib/fakes); on a GPU machine
// (scripts/gpu-check.sh) the same test runs the nvcc build's kernels on the GPU.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "backends/nccl/cuda_api.hpp"
#include "device/ops.hpp"
#include "tests/device/host/reduce_operands.hpp"

namespace weft::device::host::test {
namespace {

using backends::nccl_plugin::CudaApi;

// The fakes unless the caller chose (the GPU check sets both): before anything reads them.
const bool kFakesByDefault = [] {
  setenv("WEFT_PLUGIN_PATH", WEFT_FAKES_DIR, 0);
  setenv("WEFT_CUDART_LIBRARY", WEFT_FAKE_CUDART, 0);
  return true;
}();

// The runtime, a stream, and device mirrors of host operands.
class Device {
 public:
  Device() {
    std::string why;
    api_ = CudaApi::Load(&why);
    if (!api_ || !api_->DeviceVisible(&why)) {
      why_ = why;
      return;
    }
    api_->StreamCreateWithFlags(&stream_, weft::cuda::kStreamNonBlocking);
  }
  ~Device() {
    for (void* p : allocations_) api_->Free(p);
    if (stream_) api_->StreamDestroy(stream_);
  }
  bool ok() const { return stream_ != nullptr; }
  const std::string& why() const { return why_; }
  Target target() const { return Target{{kDLCUDA, 0}, stream_}; }

  // A device copy of `o.mem`; `at(o)` rebases the operand's region onto it.
  char* Upload(const std::vector<char>& host) {
    void* p = nullptr;
    EXPECT_EQ(api_->Malloc(&p, host.size() + 1), weft::cuda::kSuccess);
    allocations_.push_back(p);
    api_->MemcpyAsync(p, host.data(), host.size(), weft::cuda::kMemcpyHostToDevice, stream_);
    EXPECT_EQ(api_->StreamSynchronize(stream_), weft::cuda::kSuccess);  // `host` may go now
    return static_cast<char*>(p);
  }
  std::vector<char> Download(const char* dev, size_t bytes) {
    std::vector<char> out(bytes);
    api_->MemcpyAsync(out.data(), dev, bytes, weft::cuda::kMemcpyDeviceToHost, stream_);
    EXPECT_EQ(api_->StreamSynchronize(stream_), weft::cuda::kSuccess);
    return out;
  }

 private:
  std::unique_ptr<CudaApi> api_;
  cudaStream_t stream_ = nullptr;
  std::string why_;
  std::vector<void*> allocations_;
};

Device& TheDevice() {
  static Device d;
  return d;
}

Ops& HostOpsFor() { return *OpsFor(DLDevice{kDLCPU, 0}).value(); }

Ops& CudaOps() {
  auto ops = OpsFor(DLDevice{kDLCUDA, 0});
  EXPECT_TRUE(ops.ok()) << ops.status().message();
  return *ops.value();
}

#define NEEDS_DEVICE()                                                \
  if (!TheDevice().ok()) {                                            \
    FAIL() << "no CUDA device (real or fake): " << TheDevice().why(); \
  }

// Operand `o` with its memory at `dev` instead of o.mem.
Region At(Operand& o, char* dev) {
  return Region{dev + o.skew + o.origin * o.item, o.stride.data()};
}

TEST(CudaOps, LoadsThroughTheRegistry) {
  NEEDS_DEVICE();
  EXPECT_STREQ(CudaOps().name(), "cuda");
  EXPECT_EQ(OpsFor(DLDevice{kDLCUDAManaged, 0}).value(), &CudaOps());
}

TEST(CudaOps, CopyRandomRegionsMatchTheFormula) {
  NEEDS_DEVICE();
  Device& d = TheDevice();
  std::mt19937_64 g(7);
  for (int n = 0; n < 300; ++n) {
    const TestShape s = RandomShape(g, 4, 5);
    const int64_t item = std::vector<int64_t>{1, 2, 4, 8, 12, 16, 3}[n % 7];
    const bool compact = n % 3 == 0;
    Operand dst = Place(s, item, false, compact, g);
    Operand src = Place(s, item, !compact && n % 2 == 1, compact, g);
    std::vector<char> want = dst.mem;
    for (int64_t i = 0; i < s.Volume(); ++i)
      std::memcpy(want.data() + CellByte(dst, s, i), src.mem.data() + CellByte(src, s, i),
                  static_cast<size_t>(item));
    char* dd = d.Upload(dst.mem);
    char* sd = d.Upload(src.mem);
    const Status st = CudaOps().Copy(d.target(), At(dst, dd), At(src, sd), s.view(), item);
    ASSERT_TRUE(st.ok()) << st.message();
    ASSERT_EQ(d.Download(dd, want.size()), want) << "case " << n << ", ndim " << s.ndim;
  }
}

TEST(CudaOps, FillRandomRegionsMatchTheFormula) {
  NEEDS_DEVICE();
  Device& d = TheDevice();
  std::mt19937_64 g(11);
  for (int n = 0; n < 200; ++n) {
    const TestShape s = RandomShape(g, 4, 5);
    const int64_t item = std::vector<int64_t>{1, 2, 4, 8, 16, 32, 5}[n % 7];
    Operand dst = Place(s, item, false, n % 3 == 0, g);
    std::vector<char> element(static_cast<size_t>(item));
    for (char& c : element) c = static_cast<char>(n % 5 == 0 ? 0 : Pick(g, 0, 255));
    std::vector<char> want = dst.mem;
    for (int64_t i = 0; i < s.Volume(); ++i)
      std::memcpy(want.data() + CellByte(dst, s, i), element.data(), element.size());
    char* dd = d.Upload(dst.mem);
    const Status st = CudaOps().Fill(d.target(), At(dst, dd), s.view(), element.data(), item);
    ASSERT_TRUE(st.ok()) << st.message();
    ASSERT_EQ(d.Download(dd, want.size()), want) << "case " << n;
  }
}

class CudaReduce : public testing::TestWithParam<OpCase> {};

// inout may repeat cells: its contributions must arrive in row-major order, as on the host.
TEST_P(CudaReduce, RandomRegionsMatchSequentialReference) {
  NEEDS_DEVICE();
  Device& d = TheDevice();
  const OpCase c = GetParam();
  std::mt19937_64 g(static_cast<uint64_t>(c.t.code) * 131 + c.t.bits * 7 +
                    static_cast<uint64_t>(c.op));
  for (int n = 0; n < 30; ++n) {
    const TestShape s = RandomShape(g, 4, 5);
    const bool compact = n % 4 == 0;
    Operand io = PlaceElements(s, c.t, !compact && n % 2 == 1, compact, g);
    Operand in = PlaceElements(s, c.t, !compact, compact, g);
    const std::vector<char> want = ReferenceReduce(c, io, in, s);
    char* iod = d.Upload(io.mem);
    char* ind = d.Upload(in.mem);
    const Status st = CudaOps().Reduce(d.target(), c.t, c.op, At(io, iod), At(in, ind), s.view());
    ASSERT_TRUE(st.ok()) << st.message();
    ASSERT_TRUE(SameElements(c.t, d.Download(iod, want.size()), want))
        << CaseName(c) << " case " << n;
  }
}

INSTANTIATE_TEST_SUITE_P(EveryDtypeAndOp, CudaReduce, testing::ValuesIn(AllElementCases()),
                         [](const auto& info) { return CaseName(info.param); });

// Host <-> device transfers on the caller's stream: a strided device region packed on the
// device, sent to the host, back to the device and unpacked elsewhere arrives intact once the
// stream is synchronised (what checkpoints of device buffers do).
TEST(CudaOps, TransfersToAndFromTheHostOnTheStream) {
  NEEDS_DEVICE();
  Device& d = TheDevice();
  std::vector<char> host(4096);
  for (size_t i = 0; i < host.size(); ++i) host[i] = static_cast<char>(i * 13 + 5);
  char* dev = d.Upload(std::vector<char>(host.size(), 0));
  ASSERT_TRUE(CudaOps().FromHost(d.target(), dev, host.data(), host.size()).ok());
  std::vector<char> back(host.size(), 0);
  ASSERT_TRUE(CudaOps().ToHost(d.target(), back.data(), dev, back.size()).ok());
  ASSERT_TRUE(CudaOps().Synchronize(d.target()).ok());
  EXPECT_EQ(back, host);
  // Ordered after a kernel on the same stream: every other 8-byte cell of the first half.
  char* packed = d.Upload(std::vector<char>(host.size() / 2, 0));
  int64_t extent = 256, dst_stride = 1, src_stride = 2;
  const Status st = CudaOps().Copy(d.target(), Region{packed, &dst_stride},
                                   ConstRegion{dev, &src_stride}, Shape{1, &extent}, 8);
  ASSERT_TRUE(st.ok()) << st.message();
  std::vector<char> got(host.size() / 2, 0);
  ASSERT_TRUE(CudaOps().ToHost(d.target(), got.data(), packed, got.size()).ok());
  ASSERT_TRUE(CudaOps().Synchronize(d.target()).ok());
  for (int64_t i = 0; i < extent; ++i)
    ASSERT_EQ(std::memcmp(got.data() + i * 8, host.data() + i * 16, 8), 0) << "cell " << i;
  EXPECT_EQ(CudaOps().ToHost(d.target(), nullptr, dev, 8).code(), Code::kInvalidArgument);
  EXPECT_EQ(CudaOps().FromHost(d.target(), dev, nullptr, 8).code(), Code::kInvalidArgument);
}

TEST(CudaOps, BadArgumentsAndAvgAreClearErrors) {
  NEEDS_DEVICE();
  Device& d = TheDevice();
  int64_t extent = 4, stride = 1;
  const Shape s{1, &extent};
  EXPECT_EQ(CudaOps().Copy(d.target(), Region{nullptr, &stride}, ConstRegion{}, s, 4).code(),
            Code::kInvalidArgument);
  const Shape bad{kMaxDims + 1, &extent};
  EXPECT_EQ(CudaOps().Fill(d.target(), Region{}, bad, "x", 1).code(), Code::kInvalidArgument);
  EXPECT_EQ(CudaOps().Reduce(d.target(), kF32, ReduceOp::kAvg, Region{}, ConstRegion{}, s).code(),
            Code::kInvalidArgument);
  const Status w = CudaOps().Widen(d.target(), kI32, nullptr, nullptr, 4);
  EXPECT_EQ(w.code(), Code::kInvalidArgument);
  EXPECT_NE(w.message().find("no avg for int32"), std::string::npos) << w.message();
  EXPECT_EQ(CudaOps().Narrow(d.target(), kF32, nullptr, nullptr, 4, 0).code(),
            Code::kInvalidArgument);
}

// avg's widening and narrowing on the device give the host implementation's bits (its own
// tests check it against an independent decoding), special values and every divisor class
// included.
TEST(CudaOps, AvgWidenAndNarrowMatchTheHost) {
  NEEDS_DEVICE();
  Device& d = TheDevice();
  std::mt19937_64 g(3);
  for (const DType t : {kF16, kBF16, kF32, kF64, kC64, kC128}) {
    const uint64_t count = 1000;
    const std::vector<unsigned char> v = RandomElements(t, count, g);
    const std::vector<char> in(v.begin(), v.end());
    const size_t acc_bytes = count * (t.code == kCodeComplex ? 16 : 8);
    std::vector<char> host_acc(acc_bytes), host_out(in.size());
    ASSERT_TRUE(HostOpsFor().Widen(Target{}, t, in.data(), host_acc.data(), count).ok());
    char* din = d.Upload(in);
    char* dacc = d.Upload(std::vector<char>(acc_bytes));
    char* dout = d.Upload(std::vector<char>(in.size()));
    ASSERT_TRUE(CudaOps().Widen(d.target(), t, din, dacc, count).ok());
    EXPECT_EQ(d.Download(dacc, acc_bytes), host_acc) << DTypeName(t) << " widened";
    for (int64_t divisor : {int64_t{1}, int64_t{3}, int64_t{7}, int64_t{1} << 20}) {
      ASSERT_TRUE(
          HostOpsFor().Narrow(Target{}, t, host_acc.data(), host_out.data(), count, divisor).ok());
      ASSERT_TRUE(CudaOps().Narrow(d.target(), t, dacc, dout, count, divisor).ok());
      EXPECT_TRUE(SameElements(t, d.Download(dout, in.size()), host_out))
          << DTypeName(t) << " / " << divisor;
    }
  }
}

}  // namespace
}  // namespace weft::device::host::test
