// A point-to-point operation: the plugin's weft_bk_request_t. Its result and the UCX request
// behind it are separate: an op ends (done) when UCX completes it, or earlier when its deadline
// passes, it is cancelled, its peer fails or the host aborts; the UCX request may still be
// outstanding then (UCX calls back once it has withdrawn it), so the object lives until both
// the caller freed it and UCX let go of it. Every field is guarded by State::mu().
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "backends/ucx/transport/cma.hpp"
#include "backends/ucx/transport/state.hpp"
#include "common/clock.hpp"

namespace weft::backends::ucx_plugin {

class Schedule;

struct Request {
  Request();
  ~Request();  // out of line: Schedule is incomplete here
  Request(const Request&) = delete;
  Request& operator=(const Request&) = delete;

  State* state = nullptr;
  bool is_recv = false;
  int32_t peer_rank = -1;  // world rank, for failure naming
  uint64_t bytes = 0;      // expected length of a receive
  Clock::time_point deadline = kNoDeadline;
  std::string op;  // "send to rank 3 (tag 5)", for messages; empty for a collective's step
  const char* coll = nullptr;  // a collective's step: the collective's name ("allreduce")
  // A collective: the steps it still has to run (the request itself owns no UCX request).
  std::unique_ptr<Schedule> sched;
  // Memory a step's UCX request may still touch after the collective ended (its scratch
  // buffer): kept until UCX lets go of the request.
  std::shared_ptr<void> keep_alive;

  void* ucx = nullptr;  // the UCX request while UCX owns it
  // State's list of the requests UCX owns (State::Track).
  Request* owned_prev = nullptr;
  Request* owned_next = nullptr;
  bool tracked = false;
  // UCX may call back inside the posting call and still return the request (a receive with
  // UCP_OP_ATTR_FLAG_NO_IMM_CMPL matching a message already there): the handle is then
  // already freed and must not be tracked.
  bool called_back = false;
  bool freed = false;  // request_free came while UCX still owned it (or a read was queued)

  // Single copy (cma.hpp).
  bool cma_send = false;  // the UCX request is the receive of the receiver's answer (in desc)
  bool cma_recv = false;  // the UCX request is the receive of the sender's Descriptor
  bool bounced = false;   // a receive shorter than a Descriptor, landing in `desc`
  // State::Progress still has to read or ack it (a receive), or write it (a send whose
  // receiver asked for a push, desc holding the request).
  bool in_transfer_queue = false;
  void* user_buf = nullptr;  // the message's memory (a receive's, or a single-copy send's)
  uint64_t ack_tag = 0;      // a receive: the tag its Ack goes back under
  Layout layout;             // the memory at user_buf (strided or one run)
  char* staged = nullptr;    // a strided receive landing in keep_alive's buffer, to unpack
  // A receive whose buffer is lent to the sender (grants.hpp): the loan's token, taken back
  // (State::EndLoan) whenever the op ends, so nothing is written into the buffer after that.
  uint64_t loan = 0;
  // A receive that asks a writable sender to push (State::Lend), whatever the layouts.
  bool lend = false;
  // A message through a pipe (pipes.hpp): the channel's token while the sender fills it or
  // the receiver is attached to it (State::EndPipe lets go whenever the op ends), and how far
  // this side got (bytes produced or consumed).
  uint64_t pipe = 0;
  uint64_t pipe_pos = 0;
  // This side's time copying the message: into or out of a pipe's ring, packing it for
  // single copy, or writing it into the receiver's buffer (a push). PathChoice's samples.
  uint64_t copy_ns = 0;
  bool bulk = false;     // a step of a collective that moves much: never through a pipe
  bool strided = false;  // a send whose memory is in several runs (PathChoice's kind)
  // A send whose way Peer::ways chose (a pipe could take it): what it cost is a sample. Only
  // those: a bulk collective's steps, say, copy in other conditions (from memory, not cache).
  bool chose_way = false;
  Descriptor desc;
  Ack ack;
  bool done = false;  // the op's result is final
  weft_status_t status = WEFT_OK;
  std::string message;                    // for status != WEFT_OK
  weft_status_t cancel_status = WEFT_OK;  // why we asked UCX to withdraw it
  std::string cancel_message;

  // "send to rank 3 (tag 5)" or "allreduce: receive from rank 2", for messages.
  std::string Name() const;

  void Finish(weft_status_t s, std::string msg) {
    if (done) return;
    done = true;
    status = s;
    message = std::move(msg);
    if (loan != 0) state->EndLoan(this);
    if (pipe != 0) state->EndPipe(this);
  }
  // Makes an idle request (done, and UCX let go of it) ready for its next message, keeping
  // its state, peer, deadline, name and keep_alive.
  void Reset();
  // Ends the op with `s` and asks UCX to withdraw it; UCX calls back later (or at once).
  void Cancel(weft_status_t s, const std::string& msg);
  // Frees the object now, or once UCX calls back.
  void Release();
};

// Completion callbacks for ucp_request_param_t (user_data is the Request).
void OnSendDone(void* ucx_request, ucs_status_t status, void* user_data);
void OnRecvDone(void* ucx_request, ucs_status_t status, const ucp_tag_recv_info_t* info,
                void* user_data);
// Applies an immediate completion (no callback) or a callback's result.
void CompleteSend(Request* r, ucs_status_t status);
void CompleteRecv(Request* r, ucs_status_t status, uint64_t length);
// Completion of a single-copy send's wait for the receiver's Ack.
void OnAckDone(void* ucx_request, ucs_status_t status, const ucp_tag_recv_info_t* info,
               void* user_data);

// The status and text for a UCX failure of `r` (peer failure names the rank).
weft_status_t MapFailure(const Request& r, ucs_status_t status, std::string* message);

}  // namespace weft::backends::ucx_plugin

// The C ABI handle is the Request itself.
struct weft_bk_request : weft::backends::ucx_plugin::Request {};
