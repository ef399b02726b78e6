#include "tests/fakes/nccl/comm.hpp"

#include <cstring>

extern "C" cudaError_t cudaLaunchHostFunc(cudaStream_t, cudaHostFn_t, void*);

namespace weft::fake_nccl {

Comm::~Comm() {
  // The initialising thread may hold the last reference (destroyed before it connected).
  if (init.joinable()) {
    if (init.get_id() == std::this_thread::get_id())
      init.detach();
    else
      init.join();
  }
}

void Comm::SetError(ncclResult_t e, const std::string& why) {
  std::lock_guard<std::mutex> lock(mu);
  ncclResult_t none = nccl::kSuccess;
  if (async_error.compare_exchange_strong(none, e)) last_error = why;
}

namespace {

// A group's sends to this rank and receives from it pair up in order (NCCL allows both in one
// group); they are copied here and left out of the mesh's transfers.
Outcome SelfTransfers(Op& op, std::string* why) {
  std::vector<Transfer*> sends, recvs;
  std::vector<Transfer> rest;
  for (Transfer& t : op.transfers)
    if (t.peer == op.comm->rank) (t.send ? sends : recvs).push_back(&t);
  if (sends.empty() && recvs.empty()) return Outcome::kDone;
  if (sends.size() != recvs.size()) {
    *why = "a group sends to this rank " + std::to_string(sends.size()) + " times and receives " +
           std::to_string(recvs.size());
    return Outcome::kSizeMismatch;
  }
  for (size_t i = 0; i < sends.size(); ++i) {
    if (sends[i]->bytes != recvs[i]->bytes) {
      *why = "a send to this rank of " + std::to_string(sends[i]->bytes) +
             " bytes meets a receive of " + std::to_string(recvs[i]->bytes);
      return Outcome::kSizeMismatch;
    }
    std::memmove(recvs[i]->buf, sends[i]->buf, sends[i]->bytes);
  }
  for (Transfer& t : op.transfers)
    if (t.peer != op.comm->rank) rest.push_back(t);
  op.transfers = std::move(rest);
  return Outcome::kDone;
}

// `hang`: on failure, wait for the abort (an operation on a stream) rather than return.
void Execute(Op& op, bool hang) {
  Comm& c = *op.comm;
  {
    std::unique_lock<std::mutex> lock(c.mu);
    c.cv.wait(lock, [&] { return c.ran + 1 == op.ticket || c.aborted.load(); });
  }
  if (!c.aborted.load() && !op.injected_failure.empty()) {
    c.SetError(nccl::kRemoteError, op.injected_failure);
    std::unique_lock<std::mutex> lock(c.mu);
    if (hang) c.cv.wait(lock, [&] { return c.aborted.load(); });
  } else if (!c.aborted.load()) {
    for (auto& f : op.before) f();
    std::string why;
    Outcome out = SelfTransfers(op, &why);
    if (out == Outcome::kDone && c.mesh) out = c.mesh->Run(op.transfers, c.aborted, &why);
    if (out == Outcome::kDone) {
      for (auto& f : op.after) f();
    } else if (out != Outcome::kAborted) {
      c.SetError(out == Outcome::kSizeMismatch ? nccl::kInvalidUsage : nccl::kRemoteError, why);
      // A kernel waiting for a dead peer never finishes: neither does this, until the abort.
      std::unique_lock<std::mutex> lock(c.mu);
      if (hang) c.cv.wait(lock, [&] { return c.aborted.load(); });
    }
  }
  std::lock_guard<std::mutex> lock(c.mu);
  ++c.ran;
  c.cv.notify_all();
}

void RunOnStream(void* data) {
  std::unique_ptr<Op> op(static_cast<Op*>(data));
  Execute(*op, true);
}

}  // namespace

ncclResult_t Issue(std::unique_ptr<Op> op, cudaStream_t stream) {
  {
    std::lock_guard<std::mutex> lock(op->comm->mu);
    op->ticket = ++op->comm->issued;
  }
  Op* raw = op.release();  // owned by the stream's queue until RunOnStream
  if (cudaLaunchHostFunc(stream, RunOnStream, raw) != cuda::kSuccess) {
    std::unique_ptr<Op> back(raw);
    back->comm->SetError(nccl::kUnhandledCudaError, "cudaLaunchHostFunc failed");
    Execute(*back, false);  // keep the ticket sequence whole
    return nccl::kUnhandledCudaError;
  }
  return nccl::kSuccess;
}

void RunNow(Op& op) {
  {
    std::lock_guard<std::mutex> lock(op.comm->mu);
    op.ticket = ++op.comm->issued;
  }
  Execute(op, false);
}

}  // namespace weft::fake_nccl
