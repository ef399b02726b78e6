#include "backends/ucx/request.hpp"

namespace weft::backends::ucx_plugin {
namespace {

// UCX is done with the request: release its handle, and our object if the caller already let
// go of it. Returns false when `r` was deleted.
bool LetGo(Request* r, void* ucx_request) {
  ucp_request_free(ucx_request);
  r->called_back = true;
  if (r->ucx != nullptr) {
    r->ucx = nullptr;
    r->state->Untrack(r);
  }
  if (r->freed) {
    delete static_cast<weft_bk_request*>(r);
    return false;
  }
  return true;
}

bool PeerFailureStatus(ucs_status_t s) {
  return s == UCS_ERR_CONNECTION_RESET || s == UCS_ERR_ENDPOINT_TIMEOUT ||
         s == UCS_ERR_UNREACHABLE || s == UCS_ERR_IO_ERROR || s == UCS_ERR_REJECTED ||
         s == UCS_ERR_CANCELED;
}

}  // namespace

void Request::Cancel(weft_status_t s, const std::string& msg) {
  Finish(s, msg);
  if (ucx != nullptr) {
    cancel_status = s;
    cancel_message = msg;
    // UCX may call back inside this call; `freed` is false here, so `this` survives it.
    ucp_request_cancel(state->worker(), ucx);
  }
}

void Request::Release() {
  if (ucx == nullptr) {
    delete static_cast<weft_bk_request*>(this);
    return;
  }
  // A receive must not land in a buffer the caller may now reuse: withdraw it. The callback
  // (now or later) deletes the object; do not touch `this` after the cancel.
  freed = true;
  if (!done) Finish(WEFT_ERR_ABORTED, op + ": freed while pending");
  ucp_request_cancel(state->worker(), ucx);
}

weft_status_t MapFailure(const Request& r, ucs_status_t status, std::string* message) {
  std::string why;
  if (weft_status_t a = r.state->Aborted(&why); a != WEFT_OK) {
    *message = r.op + ": " + why;
    return a;
  }
  if (r.cancel_status != WEFT_OK) {
    *message = r.cancel_message;
    return r.cancel_status;
  }
  const std::string ucs = ucs_status_string(status);
  if (status == UCS_ERR_MESSAGE_TRUNCATED) {
    *message = r.op + ": the message is longer than the " + std::to_string(r.bytes) +
               "-byte receive buffer";
    return WEFT_ERR_INVALID_ARGUMENT;
  }
  if (PeerFailureStatus(status)) {
    *message = r.op + ": rank " + std::to_string(r.peer_rank) + " failed (UCX: " + ucs + ")";
    return WEFT_ERR_PEER_FAILURE;
  }
  if (status == UCS_ERR_TIMED_OUT) {
    *message = r.op + ": timed out (UCX: " + ucs + ")";
    return WEFT_ERR_TIMEOUT;
  }
  *message = r.op + ": UCX: " + ucs;
  return WEFT_ERR_BACKEND;
}

void CompleteSend(Request* r, ucs_status_t status) {
  if (r->done) return;
  if (status == UCS_OK) {
    r->Finish(WEFT_OK, {});
    return;
  }
  std::string msg;
  const weft_status_t s = MapFailure(*r, status, &msg);
  r->Finish(s, std::move(msg));
  if (s == WEFT_ERR_PEER_FAILURE) r->state->RecordFailure(s, r->peer_rank);
}

void CompleteRecv(Request* r, ucs_status_t status, uint64_t length) {
  if (r->done) return;
  if (status == UCS_OK && length != r->bytes) {
    // The ABI's receive carries no length back: a shorter message would leave stale bytes.
    r->Finish(WEFT_ERR_INVALID_ARGUMENT, r->op + ": received " + std::to_string(length) +
                                             " bytes into a " + std::to_string(r->bytes) +
                                             "-byte receive; sizes must match");
    return;
  }
  CompleteSend(r, status);
}

void OnSendDone(void* ucx_request, ucs_status_t status, void* user_data) {
  auto* r = static_cast<Request*>(user_data);
  CompleteSend(r, status);
  LetGo(r, ucx_request);
}

void OnRecvDone(void* ucx_request, ucs_status_t status, const ucp_tag_recv_info_t* info,
                void* user_data) {
  auto* r = static_cast<Request*>(user_data);
  CompleteRecv(r, status, info != nullptr ? info->length : 0);
  LetGo(r, ucx_request);
}

}  // namespace weft::backends::ucx_plugin
