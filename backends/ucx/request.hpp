// A point-to-point operation: the plugin's weft_bk_request_t. Its result and the UCX request
// behind it are separate: an op ends (done) when UCX completes it, or earlier when its deadline
// passes, it is cancelled, its peer fails or the host aborts; the UCX request may still be
// outstanding then (UCX calls back once it has withdrawn it), so the object lives until both
// the caller freed it and UCX let go of it. Every field is guarded by State::mu().
#pragma once

#include <cstdint>
#include <string>

#include "backends/ucx/state.hpp"

namespace weft::backends::ucx_plugin {

struct Request {
  State* state = nullptr;
  bool is_recv = false;
  int32_t peer_rank = -1;  // world rank, for failure naming
  uint64_t bytes = 0;      // expected length of a receive
  Clock::time_point deadline = Clock::time_point::max();
  std::string op;  // "send to rank 3 (tag 5)", for messages

  void* ucx = nullptr;  // the UCX request while UCX owns it
  // UCX may call back inside the posting call and still return the request (a receive with
  // UCP_OP_ATTR_FLAG_NO_IMM_CMPL matching a message already there): the handle is then
  // already freed and must not be tracked.
  bool called_back = false;
  bool freed = false;  // request_free came while UCX still owned it
  bool done = false;   // the op's result is final
  weft_status_t status = WEFT_OK;
  std::string message;                    // for status != WEFT_OK
  weft_status_t cancel_status = WEFT_OK;  // why we asked UCX to withdraw it
  std::string cancel_message;

  void Finish(weft_status_t s, std::string msg) {
    if (done) return;
    done = true;
    status = s;
    message = std::move(msg);
  }
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

// The status and text for a UCX failure of `r` (peer failure names the rank).
weft_status_t MapFailure(const Request& r, ucs_status_t status, std::string* message);

}  // namespace weft::backends::ucx_plugin

// The C ABI handle is the Request itself.
struct weft_bk_request : weft::backends::ucx_plugin::Request {};
