// The requests UCX still owns (pending, or cancelled but not yet called back), linked through
// Request::owned_prev/next: tracking costs no allocation, which a small collective's latency
// notices. A component of State (state.hpp), under its lock.
#pragma once

#include <vector>

namespace weft::backends::ucx_plugin {

struct Request;

class OwnedRequests {
 public:
  void Track(Request* r);
  void Untrack(Request* r);
  // A copy of the list, for walks that may end (and unlink) the requests they visit.
  std::vector<Request*> All() const;
  // Forgets the list (after ucp_worker_destroy released what it held).
  void Clear() { head_ = nullptr; }

 private:
  Request* head_ = nullptr;
};

}  // namespace weft::backends::ucx_plugin
