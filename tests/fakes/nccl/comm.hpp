// A fake NCCL communicator: the mesh of sockets to its peers, its asynchronous error, and the
// order its operations run in. An operation runs on the stream it was issued on (through
// cudaLaunchHostFunc), after every operation issued on the communicator before it, on any
// stream: NCCL's rule that a communicator's operations happen in issue order on every rank.
//
// Failures behave as on a GPU: an operation whose peer is gone or whose sizes disagree sets the
// communicator's asynchronous error (ncclRemoteError, ncclInvalidUsage) and then does not
// complete (its stream stays blocked, as a kernel waiting for a dead peer spins) until the
// communicator is aborted. The caller is meant to poll ncclCommGetAsyncError and abort.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "backends/nccl/nccl_abi.hpp"
#include "device/cuda/cuda_abi.hpp"
#include "tests/fakes/nccl/mesh.hpp"

namespace weft::fake_nccl {

struct Comm {
  int rank = 0, nranks = 1;
  std::unique_ptr<Mesh> mesh;  // null until connected (and for one rank)
  std::atomic<ncclResult_t> async_error{nccl::kSuccess};
  std::atomic<bool> aborted{false};
  std::string last_error;
  int splits = 0;  // ncclCommSplit calls so far (names the children's directories)

  std::mutex mu;
  std::condition_variable cv;
  uint64_t issued = 0, ran = 0;  // operation tickets
  std::thread init;              // a non-blocking initialisation

  ~Comm();
  // Records the first error (later ones follow from it).
  void SetError(ncclResult_t e, const std::string& why);
};

// One operation: its transfers, the local work before and after them.
struct Op {
  std::shared_ptr<Comm> comm;
  uint64_t ticket = 0;
  std::vector<Transfer> transfers;
  std::vector<std::function<void()>> before, after;
  std::vector<std::unique_ptr<char[]>> scratch;  // receive buffers to reduce from
  // Non-empty: the operation fails as a broken link would, with every process alive (its
  // asynchronous error, its stream blocked until the abort): FAKE_NCCL_FAIL_BYTES.
  std::string injected_failure;
};

// Issues `op` on `stream`: it runs there after the communicator's earlier operations.
ncclResult_t Issue(std::unique_ptr<Op> op, cudaStream_t stream);
// Runs `op` now on this thread, after the earlier operations (ncclCommSplit's exchange); on
// failure it sets the asynchronous error and returns.
void RunNow(Op& op);

}  // namespace weft::fake_nccl
