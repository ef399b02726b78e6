// The NCCL backend's library tables: the fakes load through them and a one-rank all-reduce
// runs through the resolved pointers; what is missing (a library, a symbol, a device) is named;
// and on this machine's real libraries, where installed, the tables resolve and say whether a
// device is visible.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "backends/nccl/cuda_api.hpp"
#include "backends/nccl/nccl_api.hpp"

namespace weft::backends::nccl_plugin {
namespace {

// Sets (or with nullptr unsets) a variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    had_ = std::getenv(name) != nullptr;
    if (value)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (had_)
      ::setenv(name_, old_.c_str(), 1);
    else
      ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

TEST(NcclApi, FakesLoadAndAnAllReduceRunsThroughTheTables) {
  ScopedEnv nccl("WEFT_NCCL_LIBRARY", WEFT_FAKE_NCCL),
      cudart("WEFT_CUDART_LIBRARY", WEFT_FAKE_CUDART);
  std::string why;
  auto cuda = CudaApi::Load(&why);
  ASSERT_TRUE(cuda) << why;
  auto api = NcclApi::Load(&why);
  ASSERT_TRUE(api) << why;
  EXPECT_EQ(api->version, nccl::Version(2, 28, 0));
  EXPECT_NE(api->AlltoAll, nullptr);
  ASSERT_TRUE(cuda->DeviceVisible(&why)) << why;

  ncclUniqueId id;
  ASSERT_EQ(api->GetUniqueId(&id), nccl::kSuccess);
  weft_nccl_config_t config = nccl::MakeConfig(true);
  ncclComm_t comm = nullptr;
  ASSERT_EQ(api->CommInitRankConfig(&comm, 1, id, 0, &config), nccl::kSuccess);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cuda->StreamCreateWithFlags(&stream, cuda::kStreamNonBlocking), cuda::kSuccess);
  const std::vector<double> host = {1.5, -2.25, 3.0};
  void* dev = nullptr;
  ASSERT_EQ(cuda->Malloc(&dev, sizeof(double) * host.size()), cuda::kSuccess);
  ASSERT_EQ(cuda->MemcpyAsync(dev, host.data(), sizeof(double) * host.size(),
                              cuda::kMemcpyHostToDevice, stream),
            cuda::kSuccess);
  ASSERT_EQ(api->AllReduce(dev, dev, host.size(), nccl::kFloat64, nccl::kMax, comm, stream),
            nccl::kSuccess);
  std::vector<double> back(host.size());
  ASSERT_EQ(cuda->MemcpyAsync(back.data(), dev, sizeof(double) * host.size(),
                              cuda::kMemcpyDeviceToHost, stream),
            cuda::kSuccess);
  cudaEvent_t done = nullptr;
  ASSERT_EQ(cuda->EventCreateWithFlags(&done, cuda::kEventDisableTiming), cuda::kSuccess);
  ASSERT_EQ(cuda->EventRecord(done, stream), cuda::kSuccess);
  ASSERT_EQ(cuda->EventSynchronize(done), cuda::kSuccess);
  EXPECT_EQ(cuda->EventQuery(done), cuda::kSuccess);
  EXPECT_EQ(back, host);  // one rank: the reduction is the identity
  ncclResult_t state = nccl::kInProgress;
  ASSERT_EQ(api->CommGetAsyncError(comm, &state), nccl::kSuccess);
  EXPECT_EQ(state, nccl::kSuccess);
  EXPECT_EQ(api->CommDestroy(comm), nccl::kSuccess);
  EXPECT_EQ(cuda->EventDestroy(done), cuda::kSuccess);
  EXPECT_EQ(cuda->StreamDestroy(stream), cuda::kSuccess);
  EXPECT_EQ(cuda->Free(dev), cuda::kSuccess);
}

TEST(NcclApi, NoVisibleDeviceIsSaidWithTheRuntimesReason) {
  ScopedEnv cudart("WEFT_CUDART_LIBRARY", WEFT_FAKE_CUDART), visible("CUDA_VISIBLE_DEVICES", "");
  std::string why;
  auto cuda = CudaApi::Load(&why);
  ASSERT_TRUE(cuda) << why;
  EXPECT_FALSE(cuda->DeviceVisible(&why));
  EXPECT_EQ(why,
            "no CUDA device is visible to this process (cudaGetDeviceCount: no CUDA-capable "
            "device is detected (100))");
}

TEST(NcclApi, AMissingLibraryOrSymbolIsNamed) {
  {
    ScopedEnv nccl("WEFT_NCCL_LIBRARY", "/nonexistent/libnccl.so.2");
    std::string why;
    EXPECT_FALSE(NcclApi::Load(&why));
    EXPECT_EQ(why.rfind("NCCL cannot be opened (WEFT_NCCL_LIBRARY): /nonexistent/libnccl.so.2", 0),
              0u)
        << why;
  }
  {
    // The fake runtime is a library, but no NCCL.
    ScopedEnv nccl("WEFT_NCCL_LIBRARY", WEFT_FAKE_CUDART);
    std::string why;
    EXPECT_FALSE(NcclApi::Load(&why));
    EXPECT_NE(why.find("is not an NCCL this plugin can use: it lacks ncclGetVersion, "
                       "ncclGetErrorString"),
              std::string::npos)
        << why;
  }
  {
    // (Not the fake NCCL: dlsym finds the runtime through its dependency on the fake one.)
    ScopedEnv cudart("WEFT_CUDART_LIBRARY", "libm.so.6");
    std::string why;
    EXPECT_FALSE(CudaApi::Load(&why));
    EXPECT_NE(why.find("is not a CUDA runtime this plugin can use: it lacks cudaGetDeviceCount"),
              std::string::npos)
        << why;
  }
}

// The machine's own libraries, with the default names: every machine of this project has the
// CUDA toolkit with NCCL (no GPU but the lent one). Either branch asserts what it must.
TEST(NcclApi, TheRealLibrariesResolveWhereInstalled) {
  ScopedEnv nccl("WEFT_NCCL_LIBRARY", nullptr), cudart("WEFT_CUDART_LIBRARY", nullptr);
  std::string why;
  if (auto cuda = CudaApi::Load(&why)) {
    if (!cuda->DeviceVisible(&why)) {
      EXPECT_EQ(why.rfind("no CUDA device is visible to this process (cudaGetDeviceCount: ", 0), 0u)
          << why;
    }
  } else {
    EXPECT_EQ(why.rfind("the CUDA runtime cannot be opened (WEFT_CUDART_LIBRARY): ", 0), 0u) << why;
  }
  if (auto api = NcclApi::Load(&why)) {
    EXPECT_GE(api->version, nccl::Version(2, 18, 0));
    EXPECT_STREQ(api->GetErrorString(nccl::kRemoteError),
                 "remote process exited or there was a network error");
  } else {
    EXPECT_EQ(why.rfind("NCCL cannot be opened (WEFT_NCCL_LIBRARY): ", 0), 0u) << why;
  }
}

// On a machine with a GPU (scripts/gpu-check.sh runs this there), the real libraries through
// the tables: one rank's all-reduce, all-gather and broadcast on device memory against the
// values put there. Where no device is visible the runtime must say so, in the table's words.
TEST(NcclApi, OneRankCollectivesOnARealDeviceWhereThereIsOne) {
  ScopedEnv nccl("WEFT_NCCL_LIBRARY", nullptr), cudart("WEFT_CUDART_LIBRARY", nullptr);
  std::string why;
  auto cuda = CudaApi::Load(&why);
  auto api = cuda ? NcclApi::Load(&why) : nullptr;
  if (!cuda || !api || !cuda->DeviceVisible(&why)) {
    EXPECT_NE(why.find(!cuda || !api ? "cannot be opened" : "no CUDA device is visible"),
              std::string::npos)
        << why;
    std::printf("%s\n", why.c_str());  // scripts/gpu-check.sh reports it
    return;
  }
  ASSERT_EQ(cuda->SetDevice(0), cuda::kSuccess);
  ncclUniqueId id;
  ASSERT_EQ(api->GetUniqueId(&id), nccl::kSuccess);
  ncclComm_t comm = nullptr;
  weft_nccl_config_t config = nccl::MakeConfig(true);
  const ncclResult_t init = api->CommInitRankConfig(&comm, 1, id, 0, &config);
  ASSERT_EQ(init, nccl::kSuccess) << api->Describe("ncclCommInitRankConfig", init);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cuda->StreamCreateWithFlags(&stream, cuda::kStreamNonBlocking), cuda::kSuccess);
  const size_t n = 1 << 20;
  std::vector<float> host(n);
  for (size_t i = 0; i < n; ++i) host[i] = static_cast<float>(i % 1000) - 500.0f;
  void *a = nullptr, *b = nullptr;
  ASSERT_EQ(cuda->Malloc(&a, n * sizeof(float)), cuda::kSuccess);
  ASSERT_EQ(cuda->Malloc(&b, n * sizeof(float)), cuda::kSuccess);
  ASSERT_EQ(cuda->MemcpyAsync(a, host.data(), n * sizeof(float), cuda::kMemcpyHostToDevice, stream),
            cuda::kSuccess);
  ASSERT_EQ(api->AllReduce(a, b, n, nccl::kFloat32, nccl::kSum, comm, stream), nccl::kSuccess);
  ASSERT_EQ(api->AllGather(b, a, n, nccl::kFloat32, comm, stream), nccl::kSuccess);
  ASSERT_EQ(api->Broadcast(a, b, n, nccl::kFloat32, 0, comm, stream), nccl::kSuccess);
  std::vector<float> back(n, -1);
  ASSERT_EQ(cuda->MemcpyAsync(back.data(), b, n * sizeof(float), cuda::kMemcpyDeviceToHost, stream),
            cuda::kSuccess);
  ASSERT_EQ(cuda->StreamSynchronize(stream), cuda::kSuccess);
  EXPECT_EQ(back, host);  // one rank: every one of them is the identity
  ncclResult_t state = nccl::kInProgress;
  ASSERT_EQ(api->CommGetAsyncError(comm, &state), nccl::kSuccess);
  EXPECT_EQ(state, nccl::kSuccess);
  EXPECT_EQ(api->CommFinalize(comm), nccl::kSuccess);
  EXPECT_EQ(api->CommDestroy(comm), nccl::kSuccess);
  EXPECT_EQ(cuda->Free(a), cuda::kSuccess);
  EXPECT_EQ(cuda->Free(b), cuda::kSuccess);
  EXPECT_EQ(cuda->StreamDestroy(stream), cuda::kSuccess);
}

}  // namespace
}  // namespace weft::backends::nccl_plugin
