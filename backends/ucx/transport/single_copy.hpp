// The single-copy work State does after progress (cma.hpp, grants.hpp): receives whose
// descriptor arrived (read, lent to their sender, or answered through a pipe) and sends whose
// receiver asked for a push (written), the receives with a buffer lent out, the table of
// those loans, and the acknowledgements. A component of State (state.hpp), under its lock;
// the requests here stay alive (not deleted by request_free) until answered, since the other
// side waits for the answer.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <weft/backend_plugin.h>

#include "backends/ucx/transport/cma.hpp"

namespace weft::backends::ucx_plugin {

class State;
struct Request;

class SingleCopyQueue {
 public:
  explicit SingleCopyQueue(State& state) : st_(state) {}
  SingleCopyQueue(const SingleCopyQueue&) = delete;
  SingleCopyQueue& operator=(const SingleCopyQueue&) = delete;

  // The table of this rank's loans (lending needs it open).
  GrantTable& grants() { return grants_; }

  // A receive whose descriptor arrived, or a send whose receiver asked for a push (called
  // inside progress): read or written by the next Advance, after progress returns.
  void Queue(Request* r);
  // Performs the queued transfers and ends the receives whose lent buffer was written.
  void Advance() {
    if (!transfers_.empty()) RunTransfers();
    if (!loans_.empty()) CheckLoans();
  }
  // Takes back the buffer a receive lent to its sender (Request::Finish calls it).
  void EndLoan(Request* r);
  // Tells the sender of a descriptor how its message ended (a fire-and-forget tagged send),
  // and how long reading it took (`copy_ns`, 0 when not read).
  void SendAck(int32_t rank, uint64_t ack_tag, weft_status_t status, uint64_t receive_bytes,
               uint64_t copy_ns = 0);
  // Ends the queued transfers still pending and the loans with `rank` (every rank when < 0)
  // with `status` and "<op>: <text>"; whether there were any.
  bool FailWith(int32_t rank, weft_status_t status, const std::string& text);
  // Teardown: takes every loan back and lets go of the queued requests.
  void Close();

 private:
  void RunTransfers();
  // A queued transfer: Read for a receive, Write for a send.
  void Transfer(Request* r);
  void Read(Request* r);
  void Write(Request* r);
  // Lends the buffer of receive `r` to its sender (a push request); false: read it instead.
  bool Lend(Request* r);
  // Ends the receives whose writer reported its outcome.
  void CheckLoans();
  // The scratch of reads the kernel would copy slowly (cma.hpp), made on first use.
  Bounce ReadBounce();
  // A failed cross-memory copy with the peer: a peer that is gone is named in *why and
  // recorded as the context's failure.
  void NoteCopyFailure(weft_status_t s, int32_t peer_rank, std::string* why);

  State& st_;
  std::vector<Request*> transfers_;
  std::unique_ptr<char[]> bounce_;
  // Lending receive buffers to writers (grants.hpp), and the receives with a loan out.
  GrantTable grants_;
  std::vector<Request*> loans_;
};

}  // namespace weft::backends::ucx_plugin
