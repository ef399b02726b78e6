#include "backends/ucx/transport/request.hpp"

#include <cstring>

#include "backends/ucx/coll/schedule.hpp"

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
  if (r->freed && !r->in_transfer_queue) {
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

Request::Request() = default;
Request::~Request() {
  // Deleted while still listed (teardown's orphans): keep the list whole for the others.
  if (tracked && state != nullptr) state->Untrack(this);
}

std::string Request::Name() const {
  if (!op.empty() || coll == nullptr) return op;
  return std::string(coll) + (is_recv ? ": receive from rank " : ": send to rank ") +
         std::to_string(peer_rank);
}

void Request::Reset() {
  called_back = freed = false;
  cma_send = cma_recv = bounced = in_transfer_queue = false;
  strided = chose_way = false;
  loan = 0;  // an idle request has none (Finish took it back)
  pipe = pipe_pos = copy_ns = 0;
  user_buf = nullptr;
  ack_tag = 0;
  staged = nullptr;
  done = false;
  status = cancel_status = WEFT_OK;
  message.clear();
  cancel_message.clear();
}

void Request::Cancel(weft_status_t s, const std::string& msg) {
  Finish(s, msg);
  if (sched) sched->CancelSteps(s, msg);
  if (ucx != nullptr) {
    cancel_status = s;
    cancel_message = msg;
    // UCX may call back inside this call; `freed` is false here, so `this` survives it.
    ucp_request_cancel(state->worker(), ucx);
  }
}

void Request::Release() {
  // A receive attached to a pipe lets go of it (and answers the sender) before it goes.
  if (pipe != 0 && !done) Finish(WEFT_ERR_ABORTED, Name() + ": freed while pending");
  if (in_transfer_queue) {  // the sender waits for an ack: State::Progress sends it, then deletes
    freed = true;
    if (!done) Finish(WEFT_ERR_ABORTED, Name() + ": freed while pending");
    return;
  }
  if (ucx == nullptr) {
    delete static_cast<weft_bk_request*>(this);
    return;
  }
  // A receive must not land in a buffer the caller may now reuse: withdraw it. The callback
  // (now or later) deletes the object; do not touch `this` after the cancel.
  freed = true;
  if (!done) Finish(WEFT_ERR_ABORTED, Name() + ": freed while pending");
  ucp_request_cancel(state->worker(), ucx);
}

weft_status_t MapFailure(const Request& r, ucs_status_t status, std::string* message) {
  std::string why;
  if (weft_status_t a = r.state->Aborted(&why); a != WEFT_OK) {
    *message = r.Name() + ": " + why;
    return a;
  }
  if (r.cancel_status != WEFT_OK) {
    *message = r.cancel_message;
    return r.cancel_status;
  }
  const std::string ucs = ucs_status_string(status);
  if (status == UCS_ERR_MESSAGE_TRUNCATED) {
    *message = r.Name() + ": the message is longer than the " + std::to_string(r.bytes) +
               "-byte receive buffer";
    return WEFT_ERR_INVALID_ARGUMENT;
  }
  if (PeerFailureStatus(status)) {
    *message = r.Name() + ": rank " + std::to_string(r.peer_rank) + " failed (UCX: " + ucs + ")";
    return WEFT_ERR_PEER_FAILURE;
  }
  if (status == UCS_ERR_TIMED_OUT) {
    *message = r.Name() + ": timed out (UCX: " + ucs + ")";
    return WEFT_ERR_TIMEOUT;
  }
  *message = r.Name() + ": UCX: " + ucs;
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

namespace {

// Whether `buf` holds a descriptor from the peer of `r` (a descriptor-sized message whose size
// class the two sides disagree on, or the expected descriptor).
bool IsDescriptor(const Request& r, const void* buf, uint64_t length) {
  if (length != sizeof(Descriptor) && length != kShortDescriptorBytes) return false;
  if (r.state->peer(r.peer_rank).cma_bytes == 0) return false;
  Descriptor d;
  std::memcpy(static_cast<void*>(&d), buf, kShortDescriptorBytes);
  return (d.magic == kDescriptorMagic || d.magic == kWritableMagic || d.magic == kPipeMagic) &&
         d.sender_rank == r.peer_rank && d.pid == r.state->peer(r.peer_rank).pid;
}

// Copies the descriptor at `buf` (`length` bytes) into r->desc; a short one is contiguous.
void TakeDescriptor(Request* r, const void* buf, uint64_t length) {
  if (buf != &r->desc) std::memcpy(static_cast<void*>(&r->desc), buf, length);
  if (length == kShortDescriptorBytes) {
    r->desc.layout = Contiguous(r->desc.length);
    r->desc.grant = 0;
  }
}

std::string SizeMismatch(const Request& r, uint64_t length) {
  return r.Name() + ": received " + std::to_string(length) + " bytes into a " +
         std::to_string(r.bytes) + "-byte receive; sizes must match";
}

// A descriptor this receive cannot take: fail it and tell the waiting sender (the ack goes
// out from State::Progress, outside UCX's callback).
void RefuseDescriptor(Request* r, uint64_t length) {
  r->Finish(WEFT_ERR_INVALID_ARGUMENT, SizeMismatch(*r, length));
  r->state->QueueTransfer(r);
}

}  // namespace

void CompleteRecv(Request* r, ucs_status_t status, uint64_t length) {
  if (status == UCS_OK && (r->cma_recv || r->bounced || r->done)) {
    const void* got = (r->cma_recv || r->bounced) ? static_cast<const void*>(&r->desc)
                      : r->staged != nullptr      ? static_cast<const void*>(r->staged)
                                                  : static_cast<const void*>(r->user_buf);
    if (IsDescriptor(*r, got, length)) {
      TakeDescriptor(r, got, length);
      if (r->done) {  // cancelled or failed meanwhile: the sender still waits for an answer
        r->state->QueueTransfer(r);
        return;
      }
      if (!r->cma_recv || r->desc.length != r->bytes) return RefuseDescriptor(r, r->desc.length);
      r->state->QueueTransfer(r);  // read outside UCX's callback
      return;
    }
  }
  if (r->done) return;
  if (status == UCS_OK && r->bounced && length == r->bytes) {
    UnpackRuns(reinterpret_cast<const char*>(&r->desc), r->layout, static_cast<char*>(r->user_buf));
    r->Finish(WEFT_OK, {});
    return;
  }
  const char* landed = r->staged != nullptr ? r->staged : static_cast<const char*>(r->user_buf);
  if (status == UCS_OK && !r->cma_recv && !r->bounced && length != r->bytes &&
      IsDescriptor(*r, landed, length)) {
    TakeDescriptor(r, landed, length);
    return RefuseDescriptor(r, r->desc.length);
  }
  if (status == UCS_OK && !r->cma_recv && !r->bounced && length == r->bytes && r->staged != nullptr)
    UnpackRuns(r->staged, r->layout, static_cast<char*>(r->user_buf));
  if (status == UCS_OK && (length != r->bytes || r->cma_recv)) {
    // The ABI's receive carries no length back: a shorter message would leave stale bytes.
    r->Finish(WEFT_ERR_INVALID_ARGUMENT, SizeMismatch(*r, length));
    return;
  }
  if (status == UCS_ERR_MESSAGE_TRUNCATED && (r->cma_recv || r->bounced)) {
    r->Finish(WEFT_ERR_INVALID_ARGUMENT, r->Name() + ": the message is not " +
                                             std::to_string(r->bytes) +
                                             " bytes long; sizes must match");
    return;
  }
  CompleteSend(r, status);
}

void OnAckDone(void* ucx_request, ucs_status_t status, const ucp_tag_recv_info_t* info,
               void* user_data) {
  auto* r = static_cast<Request*>(user_data);
  const uint64_t length = info != nullptr ? info->length : 0;
  if (status == UCS_OK && length == sizeof(Descriptor) && r->desc.magic == kPushMagic) {
    // The receiver lent us its buffer: write after progress returns. Even when this send
    // ended meanwhile, so that the receiver hears of it at once (State::WriteQueued).
    r->state->QueueTransfer(r);
  } else if (!r->done) {
    if (status == UCS_OK && length == sizeof(Ack)) {
      std::memcpy(static_cast<void*>(&r->ack), &r->desc, sizeof(Ack));
      if (r->ack.status == WEFT_OK) {
        // The receiver read it: its time, plus ours packing it if we did.
        if (r->ack.copy_ns != 0)
          r->state->RecordWay(*r, PathChoice::kSingleCopy, r->ack.copy_ns + r->copy_ns);
        r->Finish(WEFT_OK, {});
      } else if (r->ack.status == WEFT_ERR_INVALID_ARGUMENT)
        r->Finish(WEFT_ERR_INVALID_ARGUMENT, r->Name() + ": the receiver posted " +
                                                 std::to_string(r->ack.receive_bytes) +
                                                 " bytes for this " + std::to_string(r->bytes) +
                                                 "-byte message; sizes must match");
      else
        r->Finish(static_cast<weft_status_t>(r->ack.status),
                  r->Name() + ": the receiver could not take the message (status " +
                      std::to_string(r->ack.status) + ")");
    } else {
      CompleteSend(r, status);
    }
  }
  LetGo(r, ucx_request);
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
