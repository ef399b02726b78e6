// Point-to-point requests posted by weft_send / weft_recv with a work handle (SPEC §6.3). The
// context holds each until it has ended and its work handle is released: releasing the handle
// of pending work detaches it (the request runs on), it does not free it under the backend.
// The work handle may outlive the context: the context's destroy cancels and frees the
// requests still pending, before its backend goes, and their work then reports
// WEFT_ERR_ABORTED instead of reaching into the freed backend.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "api/src/p2p_check.hpp"
#include "backends/host/communicator.hpp"

namespace weft::api {

class Context;

// One posted request, shared by its work's completion (Wait) and the context's registry.
class PostedRequest {
 public:
  PostedRequest(Context* ctx, backends::Communicator* comm, std::unique_ptr<PostedP2p> req,
                backends::OpArgs args)
      : ctx_(ctx), comm_(comm), req_(std::move(req)), args_(args) {}
  // The context's failure, the request's outcome, or kInProgress when `timeout_ms` (< 0: until
  // the operation's deadline) elapsed first.
  Status Wait(int64_t timeout_ms);
  // Whether the request ended (then it is freed once nothing else holds it).
  bool Ended();
  // The context is going: cancel and free the request if it is still held.
  void Orphan();

 private:
  static constexpr int64_t kWaitSliceMs = 20;
  std::mutex mu_;  // held while the backend is asked about the request
  std::atomic<bool> orphaning_{false};
  Context* ctx_;  // null once orphaned
  backends::Communicator* comm_;
  std::unique_ptr<PostedP2p> req_;  // the payload and, when checked, its records
  backends::OpArgs args_;
  Status outcome_;  // once orphaned: what Wait returns
};

// The context's posted requests. Each Add first drops, when the list has doubled, the requests
// that ended and that no work handle holds any more, so the list stays about as long as the
// requests in flight.
class PostedRequests {
 public:
  void Add(std::shared_ptr<PostedRequest> p);
  // Orphans every request still held; called once, at teardown, with no call in progress.
  void OrphanAll();

 private:
  std::mutex mu_;
  std::vector<std::shared_ptr<PostedRequest>> items_;
  size_t prune_at_ = 64;
};

}  // namespace weft::api
