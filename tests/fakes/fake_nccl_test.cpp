// The fake NCCL and CUDA runtime between real processes (forked ranks, a unique id made before
// the fork as a launcher would pass it): every collective against values each rank computes
// from a formula of the rank and index, groups, non-blocking initialisation, split, and the
// failures the plugin must handle (a dead peer, sizes that disagree, no device).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

#include "backends/nccl/nccl_abi.hpp"
#include "device/cuda/cuda_abi.hpp"

extern "C" {
cudaError_t cudaGetDeviceCount(int*);
cudaError_t cudaMalloc(void**, size_t);
cudaError_t cudaMallocManaged(void**, size_t, unsigned);
cudaError_t cudaFree(void*);
cudaError_t cudaMallocHost(void**, size_t);
cudaError_t cudaFreeHost(void*);
cudaError_t cudaMemcpyAsync(void*, const void*, size_t, int, cudaStream_t);
cudaError_t cudaLaunchHostFunc(cudaStream_t, cudaHostFn_t, void*);
cudaError_t cudaMemcpy(void*, const void*, size_t, int);
cudaError_t cudaStreamCreate(cudaStream_t*);
cudaError_t cudaStreamDestroy(cudaStream_t);
cudaError_t cudaStreamSynchronize(cudaStream_t);
cudaError_t cudaStreamQuery(cudaStream_t);
cudaError_t cudaPointerGetAttributes(cudaPointerAttributes*, const void*);
ncclResult_t ncclGetUniqueId(ncclUniqueId*);
ncclResult_t ncclCommInitRank(ncclComm_t*, int, ncclUniqueId, int);
ncclResult_t ncclCommInitRankConfig(ncclComm_t*, int, ncclUniqueId, int, weft_nccl_config_t*);
ncclResult_t ncclCommGetAsyncError(ncclComm_t, ncclResult_t*);
ncclResult_t ncclCommSplit(ncclComm_t, int, int, ncclComm_t*, weft_nccl_config_t*);
ncclResult_t ncclCommCount(ncclComm_t, int*);
ncclResult_t ncclCommUserRank(ncclComm_t, int*);
ncclResult_t ncclCommDestroy(ncclComm_t);
ncclResult_t ncclCommAbort(ncclComm_t);
ncclResult_t ncclCommFinalize(ncclComm_t);
ncclResult_t ncclAllReduce(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t,
                           cudaStream_t);
ncclResult_t ncclReduce(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, int, ncclComm_t,
                        cudaStream_t);
ncclResult_t ncclBroadcast(const void*, void*, size_t, ncclDataType_t, int, ncclComm_t,
                           cudaStream_t);
ncclResult_t ncclAllGather(const void*, void*, size_t, ncclDataType_t, ncclComm_t, cudaStream_t);
ncclResult_t ncclReduceScatter(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t,
                               cudaStream_t);
ncclResult_t ncclAlltoAll(const void*, void*, size_t, ncclDataType_t, ncclComm_t, cudaStream_t);
ncclResult_t ncclSend(const void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
ncclResult_t ncclRecv(void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
ncclResult_t ncclGroupStart();
ncclResult_t ncclGroupEnd();
const char* ncclGetLastError(ncclComm_t);
}

namespace {

namespace nccl = weft::nccl;
namespace cuda = weft::cuda;

// A failed check in a rank: say where, and the rank's exit status says it failed.
#define RANK_CHECK(cond)                                                           \
  do {                                                                             \
    if (!(cond)) {                                                                 \
      std::fprintf(stderr, "rank check failed at line %d: %s\n", __LINE__, #cond); \
      return 1;                                                                    \
    }                                                                              \
  } while (0)

using RankFn = std::function<int(int rank, int n, const ncclUniqueId& id)>;

// Forks n ranks running fn; true when every one exited 0 (or 7: a rank that dies on purpose).
bool RunRanks(int n, const RankFn& fn) {
  ncclUniqueId id;
  if (ncclGetUniqueId(&id) != nccl::kSuccess) return false;
  std::vector<pid_t> pids;
  for (int r = 0; r < n; ++r) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      std::fflush(stderr);
      ::_exit(fn(r, n, id));
    }
    pids.push_back(pid);
  }
  bool ok = true;
  for (pid_t pid : pids) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    ok = ok && WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 7);
  }
  ::rmdir(id.internal + 4);  // left behind where initialisation failed on purpose
  return ok;
}

// Device buffers with the given host contents, and back.
template <typename T>
T* ToDevice(const std::vector<T>& host) {
  void* p = nullptr;
  if (cudaMalloc(&p, host.size() * sizeof(T) + 1) != cuda::kSuccess) return nullptr;
  cudaMemcpy(p, host.data(), host.size() * sizeof(T), cuda::kMemcpyHostToDevice);
  return static_cast<T*>(p);
}
template <typename T>
std::vector<T> ToHost(const T* dev, size_t n) {
  std::vector<T> out(n);
  cudaMemcpy(out.data(), dev, n * sizeof(T), cuda::kMemcpyDeviceToHost);
  return out;
}

float Value(int rank, size_t i) { return static_cast<float>(rank * 1000 + static_cast<int>(i)); }

// One rank's communicator, stream and buffers for the collectives below.
struct Rig {
  int rank = 0, n = 1;
  ncclComm_t comm = nullptr;
  cudaStream_t s = nullptr;
  size_t count = 1000;
  float* send = nullptr;   // Value(rank, i)
  float* recv = nullptr;   // n * count
  float* chunk = nullptr;  // count

  int Reductions();
  int Gathers();
  int Rooted();
  int AllToAll();
  int Ring();
  int Types();
};

int Rig::Reductions() {
  std::vector<float> got;
  // All-reduce, sum and max.
  RANK_CHECK(ncclAllReduce(send, recv, count, nccl::kFloat32, nccl::kSum, comm, s) == 0);
  RANK_CHECK(cudaStreamSynchronize(s) == cuda::kSuccess);
  got = ToHost(recv, count);
  for (size_t i = 0; i < count; ++i) {
    float want = 0;
    for (int r = 0; r < n; ++r) want += Value(r, i);
    RANK_CHECK(got[i] == want);
  }
  RANK_CHECK(ncclAllReduce(send, recv, count, nccl::kFloat32, nccl::kMax, comm, s) == 0);
  cudaStreamSynchronize(s);
  got = ToHost(recv, count);
  for (size_t i = 0; i < count; ++i) RANK_CHECK(got[i] == Value(n - 1, i));
  return 0;
}

int Rig::Gathers() {
  std::vector<float> got;
  // All-gather.
  RANK_CHECK(ncclAllGather(send, recv, count, nccl::kFloat32, comm, s) == 0);
  cudaStreamSynchronize(s);
  got = ToHost(recv, count * static_cast<size_t>(n));
  for (int r = 0; r < n; ++r)
    for (size_t i = 0; i < count; ++i)
      RANK_CHECK(got[static_cast<size_t>(r) * count + i] == Value(r, i));
  // Reduce-scatter of the gathered block: chunk r of every rank's input is the same, n copies.
  float* gathered = recv;
  RANK_CHECK(ncclReduceScatter(gathered, chunk, count, nccl::kFloat32, nccl::kSum, comm, s) == 0);
  cudaStreamSynchronize(s);
  got = ToHost(chunk, count);
  for (size_t i = 0; i < count; ++i) RANK_CHECK(got[i] == static_cast<float>(n) * Value(rank, i));
  return 0;
}

int Rig::Rooted() {
  std::vector<float> got;
  // Broadcast from the last rank, reduce to rank 0.
  RANK_CHECK(ncclBroadcast(send, chunk, count, nccl::kFloat32, n - 1, comm, s) == 0);
  cudaStreamSynchronize(s);
  got = ToHost(chunk, count);
  for (size_t i = 0; i < count; ++i) RANK_CHECK(got[i] == Value(n - 1, i));
  RANK_CHECK(ncclReduce(send, chunk, count, nccl::kFloat32, nccl::kMin, 0, comm, s) == 0);
  cudaStreamSynchronize(s);
  if (rank == 0) {
    got = ToHost(chunk, count);
    for (size_t i = 0; i < count; ++i) RANK_CHECK(got[i] == Value(0, i));
  }
  return 0;
}

int Rig::AllToAll() {
  // All-to-all: block p of rank r's input goes to rank p's block r.
  std::vector<float> blocks(count * static_cast<size_t>(n));
  for (size_t k = 0; k < blocks.size(); ++k) blocks[k] = Value(rank, k);
  float* a2a_in = ToDevice(blocks);
  RANK_CHECK(ncclAlltoAll(a2a_in, recv, count, nccl::kFloat32, comm, s) == 0);
  cudaStreamSynchronize(s);
  std::vector<float> got = ToHost(recv, count * static_cast<size_t>(n));
  for (int r = 0; r < n; ++r)
    for (size_t i = 0; i < count; ++i)
      RANK_CHECK(got[static_cast<size_t>(r) * count + i] ==
                 Value(r, static_cast<size_t>(rank) * count + i));
  cudaFree(a2a_in);
  return 0;
}

int Rig::Ring() {
  // A ring of sends and receives in one group: without the group it would deadlock when a
  // send waits for its receiver.
  const int next = (rank + 1) % n, prev = (rank + n - 1) % n;
  RANK_CHECK(ncclGroupStart() == 0);
  RANK_CHECK(ncclSend(send, count, nccl::kFloat32, next, comm, s) == 0);
  RANK_CHECK(ncclRecv(chunk, count, nccl::kFloat32, prev, comm, s) == 0);
  RANK_CHECK(ncclGroupEnd() == 0);
  cudaStreamSynchronize(s);
  std::vector<float> got = ToHost(chunk, count);
  for (size_t i = 0; i < count; ++i) RANK_CHECK(got[i] == Value(prev, i));
  return 0;
}

int Rig::Types() {
  // Integer average and bfloat16 sums of small integers (exact).
  std::vector<int32_t> ints(count);
  for (size_t i = 0; i < count; ++i) ints[i] = rank * 7 + static_cast<int32_t>(i);
  int32_t* idev = ToDevice(ints);
  RANK_CHECK(ncclAllReduce(idev, idev, count, nccl::kInt32, nccl::kAvg, comm, s) == 0);
  cudaStreamSynchronize(s);
  std::vector<int32_t> igot = ToHost(idev, count);
  for (size_t i = 0; i < count; ++i) {
    int32_t sum = 0;
    for (int r = 0; r < n; ++r) sum += r * 7 + static_cast<int32_t>(i);
    RANK_CHECK(igot[i] == sum / n);
  }
  std::vector<uint16_t> bf(count, 0x3f80);  // 1.0
  uint16_t* bdev = ToDevice(bf);
  RANK_CHECK(ncclAllReduce(bdev, bdev, count, nccl::kBfloat16, nccl::kSum, comm, s) == 0);
  cudaStreamSynchronize(s);
  const uint16_t want_bf[] = {0, 0x3f80, 0x4000, 0x4040, 0x4080};  // 1, 2, 3, 4
  for (uint16_t v : ToHost(bdev, count)) RANK_CHECK(v == want_bf[n]);
  cudaFree(idev);
  cudaFree(bdev);
  return 0;
}

int Collectives(int rank, int n, const ncclUniqueId& id) {
  Rig g;
  g.rank = rank;
  g.n = n;
  RANK_CHECK(ncclCommInitRank(&g.comm, n, id, rank) == nccl::kSuccess);
  RANK_CHECK(cudaStreamCreate(&g.s) == cuda::kSuccess);
  std::vector<float> mine(g.count);
  for (size_t i = 0; i < g.count; ++i) mine[i] = Value(rank, i);
  g.send = ToDevice(mine);
  g.recv = ToDevice(std::vector<float>(g.count * static_cast<size_t>(n), -1));
  g.chunk = ToDevice(std::vector<float>(g.count, -1));
  cudaPointerAttributes attr;
  RANK_CHECK(cudaPointerGetAttributes(&attr, g.send + 10) == cuda::kSuccess &&
             attr.type == cuda::kMemoryTypeDevice);
  for (int (Rig::*check)() :
       {&Rig::Reductions, &Rig::Gathers, &Rig::Rooted, &Rig::AllToAll, &Rig::Ring, &Rig::Types})
    if (int failed = (g.*check)()) return failed;
  RANK_CHECK(ncclCommFinalize(g.comm) == nccl::kSuccess);
  RANK_CHECK(ncclCommDestroy(g.comm) == nccl::kSuccess);
  cudaStreamDestroy(g.s);
  for (float* p : {g.send, g.recv, g.chunk}) RANK_CHECK(cudaFree(p) == cuda::kSuccess);
  return 0;
}

TEST(FakeNccl, CollectivesMatchTheFormulaOnTwoThreeAndFourRanks) {
  for (int n : {2, 3, 4}) EXPECT_TRUE(RunRanks(n, Collectives)) << n << " ranks";
}

TEST(FakeNccl, OneRankRunsEveryCollectiveLocally) { EXPECT_TRUE(RunRanks(1, Collectives)); }

// Non-blocking initialisation and split: ncclInProgress until connected; children by parity,
// ordered by a key that reverses the ranks.
int InitAndSplit(int rank, int n, const ncclUniqueId& id) {
  weft_nccl_config_t config = nccl::MakeConfig(false);
  ncclComm_t comm = nullptr;
  const ncclResult_t r = ncclCommInitRankConfig(&comm, n, id, rank, &config);
  RANK_CHECK(r == nccl::kInProgress || r == nccl::kSuccess);
  ncclResult_t state = nccl::kInProgress;
  for (int i = 0; i < 2000 && state == nccl::kInProgress; ++i) {
    ncclCommGetAsyncError(comm, &state);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  RANK_CHECK(state == nccl::kSuccess);
  ncclComm_t child = nullptr;
  RANK_CHECK(ncclCommSplit(comm, rank % 2, n - rank, &child, nullptr) == nccl::kSuccess);
  int size = 0, me = -1;
  ncclCommCount(child, &size);
  ncclCommUserRank(child, &me);
  const int same = (n - rank % 2 + 1) / 2;  // ranks of my parity
  RANK_CHECK(size == same);
  int higher = 0;  // ranks of my parity above me come first (smaller key)
  for (int p = rank + 2; p < n; p += 2) ++higher;
  RANK_CHECK(me == higher);
  std::vector<int64_t> v(10, rank);
  int64_t* d = ToDevice(v);
  RANK_CHECK(ncclAllReduce(d, d, 10, nccl::kInt64, nccl::kSum, child, nullptr) == 0);
  cudaStreamSynchronize(nullptr);
  int64_t want = 0;
  for (int p = rank % 2; p < n; p += 2) want += p;
  for (int64_t x : ToHost(d, 10)) RANK_CHECK(x == want);
  ncclComm_t none = nullptr;
  RANK_CHECK(ncclCommSplit(comm, rank == 0 ? 0 : nccl::kSplitNoColor, 0, &none, nullptr) == 0);
  RANK_CHECK((rank == 0) == (none != nullptr));
  if (none) ncclCommDestroy(none);
  ncclCommDestroy(child);
  ncclCommDestroy(comm);
  cudaFree(d);
  return 0;
}

TEST(FakeNccl, NonBlockingInitAndSplitByParity) {
  for (int n : {2, 3, 4}) EXPECT_TRUE(RunRanks(n, InitAndSplit)) << n << " ranks";
}

// Rank 1 dies after initialising: rank 0's all-reduce reports ncclRemoteError through the
// asynchronous error, its stream stays blocked (as a kernel would spin), and the abort frees it.
int DeadPeer(int rank, int n, const ncclUniqueId& id) {
  ncclComm_t comm = nullptr;
  RANK_CHECK(ncclCommInitRank(&comm, n, id, rank) == nccl::kSuccess);
  if (rank == 1) ::_exit(7);
  cudaStream_t s = nullptr;
  cudaStreamCreate(&s);
  std::vector<float> v(100, 1);
  float* d = ToDevice(v);
  RANK_CHECK(ncclAllReduce(d, d, 100, nccl::kFloat32, nccl::kSum, comm, s) == nccl::kSuccess);
  ncclResult_t state = nccl::kSuccess;
  for (int i = 0; i < 2000 && state == nccl::kSuccess; ++i) {
    ncclCommGetAsyncError(comm, &state);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  RANK_CHECK(state == nccl::kRemoteError);
  RANK_CHECK(cudaStreamQuery(s) == cuda::kErrorNotReady);
  RANK_CHECK(ncclCommAbort(comm) == nccl::kSuccess);
  RANK_CHECK(cudaStreamSynchronize(s) == cuda::kSuccess);
  cudaStreamDestroy(s);
  cudaFree(d);
  return 0;
}

TEST(FakeNccl, DeadPeerGivesRemoteErrorAndAbortFreesTheStream) {
  EXPECT_TRUE(RunRanks(2, DeadPeer));
  EXPECT_TRUE(RunRanks(3, DeadPeer));
}

// A receive of another size than the send: ncclInvalidUsage, never a truncation.
int SizeMismatch(int rank, int n, const ncclUniqueId& id) {
  ncclComm_t comm = nullptr;
  RANK_CHECK(ncclCommInitRank(&comm, n, id, rank) == nccl::kSuccess);
  std::vector<float> v(16, 1);
  float* d = ToDevice(v);
  ncclResult_t state = nccl::kSuccess;
  auto await = [&](ncclResult_t want) {
    for (int i = 0; i < 4000 && state != want; ++i) {
      ncclCommGetAsyncError(comm, &state);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return state == want;
  };
  if (rank == 0) {
    // Sends 4 floats, then waits on a receive that only rank 1's abort ends: the abort is not
    // allowed to come before rank 1 has seen the length.
    ncclSend(d, 4, nccl::kFloat32, 1, comm, nullptr);
    ncclRecv(d, 1, nccl::kFloat32, 1, comm, nullptr);
    RANK_CHECK(await(nccl::kRemoteError));
  } else {
    ncclRecv(d, 8, nccl::kFloat32, 0, comm, nullptr);
    RANK_CHECK(await(nccl::kInvalidUsage));
  }
  ncclCommAbort(comm);
  cudaStreamSynchronize(nullptr);
  return 0;
}

TEST(FakeNccl, SizesThatDisagreeAreInvalidUsage) { EXPECT_TRUE(RunRanks(2, SizeMismatch)); }

// FAKE_CUDA_CHECK_POINTERS=1: a buffer outside the runtime's allocations (a host pointer, or
// a range running past an allocation's end) fails the call with ncclInvalidArgument naming
// it, where a GPU would fault; cudaMalloc and cudaMallocManaged memory passes.
int HostPointers(int rank, int n, const ncclUniqueId& id) {
  ::setenv("FAKE_CUDA_CHECK_POINTERS", "1", 1);  // before the fake first reads it
  ncclComm_t comm = nullptr;
  RANK_CHECK(ncclCommInitRank(&comm, n, id, rank) == nccl::kSuccess);
  std::vector<float> host(16, 1.0f);
  float* dev = ToDevice(host);  // 16 floats and one byte
  void* managed = nullptr;
  RANK_CHECK(cudaMallocManaged(&managed, 16 * sizeof(float), 1) == cuda::kSuccess);
  cudaPointerAttributes attr{};
  RANK_CHECK(cudaPointerGetAttributes(&attr, managed) == cuda::kSuccess &&
             attr.type == cuda::kMemoryTypeManaged);
  const auto refused = [&](ncclResult_t r, const char* what) {
    return r == nccl::kInvalidArgument && std::strstr(ncclGetLastError(comm), what) != nullptr &&
           std::strstr(ncclGetLastError(comm), "not in device memory") != nullptr;
  };
  RANK_CHECK(refused(ncclAllReduce(host.data(), dev, 16, nccl::kFloat32, nccl::kSum, comm, nullptr),
                     "sendbuff (64 bytes)"));
  RANK_CHECK(refused(ncclAllReduce(dev, dev, 17, nccl::kFloat32, nccl::kSum, comm, nullptr),
                     "sendbuff (68 bytes)"));
  RANK_CHECK(
      refused(ncclAllGather(dev, host.data(), 4, nccl::kFloat32, comm, nullptr), "recvbuff"));
  RANK_CHECK(refused(ncclSend(host.data(), 1, nccl::kFloat32, 0, comm, nullptr), "sendbuff"));
  // Page-locked host memory is the plugin's bounce memory, never a buffer it gives NCCL.
  void* pinned = nullptr;
  RANK_CHECK(cudaMallocHost(&pinned, 16 * sizeof(float)) == cuda::kSuccess);
  RANK_CHECK(refused(ncclAllReduce(dev, pinned, 16, nccl::kFloat32, nccl::kSum, comm, nullptr),
                     "recvbuff"));
  RANK_CHECK(cudaFreeHost(pinned) == cuda::kSuccess);
  // The refused calls enqueued nothing: the ranks still agree on what comes next.
  RANK_CHECK(ncclAllReduce(dev, managed, 16, nccl::kFloat32, nccl::kSum, comm, nullptr) ==
             nccl::kSuccess);
  RANK_CHECK(cudaStreamSynchronize(nullptr) == cuda::kSuccess);
  RANK_CHECK(static_cast<float*>(managed)[15] == static_cast<float>(n));
  ncclCommDestroy(comm);
  cudaFree(managed);
  cudaFree(dev);
  return 0;
}

TEST(FakeNccl, HostPointersAreRefusedWhenChecked) {
  for (int n : {1, 2}) EXPECT_TRUE(RunRanks(n, HostPointers)) << n << " ranks";
}

// The runtime's rule for copies with pageable host memory, which the plugin's staging must
// not meet (a stream held by a silent peer would hold the caller): such a copy returns once
// the stream has run it, while one with page-locked memory returns at once. cudaFree and
// cudaFreeHost each refuse the other's memory.
TEST(FakeCuda, PageableCopiesWaitForTheStreamAndPinnedOnesDoNot) {
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreate(&s), cuda::kSuccess);
  std::atomic<bool> open{false};
  const auto gate = [](void* flag) {
    while (!static_cast<std::atomic<bool>*>(flag)->load()) std::this_thread::yield();
  };
  ASSERT_EQ(cudaLaunchHostFunc(s, gate, &open), cuda::kSuccess);
  void* dev = nullptr;
  void* pinned = nullptr;
  ASSERT_EQ(cudaMalloc(&dev, 64), cuda::kSuccess);
  ASSERT_EQ(cudaMallocHost(&pinned, 64), cuda::kSuccess);
  std::memset(dev, 5, 64);  // the fake's device memory is host memory
  ASSERT_EQ(cudaMemcpyAsync(pinned, dev, 64, cuda::kMemcpyDeviceToHost, s), cuda::kSuccess);
  EXPECT_EQ(cudaStreamQuery(s), cuda::kErrorNotReady) << "a pinned copy returned at once";
  std::thread opener([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    open = true;
  });
  std::vector<unsigned char> pageable(64, 0);
  ASSERT_EQ(cudaMemcpyAsync(pageable.data(), dev, 64, cuda::kMemcpyDeviceToHost, s),
            cuda::kSuccess);
  EXPECT_TRUE(open.load()) << "the pageable copy returned before the stream reached it";
  EXPECT_EQ(pageable[63], 5) << "and it had run when it returned";
  opener.join();
  ASSERT_EQ(cudaStreamSynchronize(s), cuda::kSuccess);
  EXPECT_EQ(static_cast<unsigned char*>(pinned)[63], 5);
  EXPECT_EQ(cudaFree(pinned), cuda::kErrorInvalidValue);
  EXPECT_EQ(cudaFreeHost(dev), cuda::kErrorInvalidValue);
  EXPECT_EQ(cudaFreeHost(pinned), cuda::kSuccess);
  EXPECT_EQ(cudaFree(dev), cuda::kSuccess);
  cudaStreamDestroy(s);
}

TEST(FakeNccl, NoVisibleDeviceIsAnError) {
  EXPECT_TRUE(RunRanks(1, [](int rank, int n, const ncclUniqueId& id) {
    ::setenv("CUDA_VISIBLE_DEVICES", "", 1);
    int count = -1;
    RANK_CHECK(cudaGetDeviceCount(&count) == cuda::kErrorNoDevice && count == 0);
    ncclComm_t comm = nullptr;
    RANK_CHECK(ncclCommInitRank(&comm, n, id, rank) == nccl::kUnhandledCudaError);
    return 0;
  }));
}

}  // namespace
