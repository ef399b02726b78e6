#include "backends/ucx/transport/owned_requests.hpp"

#include "backends/ucx/transport/request.hpp"

namespace weft::backends::ucx_plugin {

void OwnedRequests::Track(Request* r) {
  if (r->tracked) return;
  r->tracked = true;
  r->owned_prev = nullptr;
  r->owned_next = head_;
  if (head_ != nullptr) head_->owned_prev = r;
  head_ = r;
}

void OwnedRequests::Untrack(Request* r) {
  if (!r->tracked) return;
  r->tracked = false;
  if (r->owned_prev != nullptr)
    r->owned_prev->owned_next = r->owned_next;
  else
    head_ = r->owned_next;
  if (r->owned_next != nullptr) r->owned_next->owned_prev = r->owned_prev;
  r->owned_prev = r->owned_next = nullptr;
}

std::vector<Request*> OwnedRequests::All() const {
  std::vector<Request*> out;
  for (Request* r = head_; r != nullptr; r = r->owned_next) out.push_back(r);
  return out;
}

}  // namespace weft::backends::ucx_plugin
