// Multiplexes concurrent requests over one store connection. Callers block on their own
// condition variable; a reader thread pairs each reply with its caller by request id, so a
// Get blocked for minutes does not hold up another thread's Set. Events pushed by the
// server go to a queue drained by an event thread, which runs the user's callback: the
// callback may therefore call back into the store without deadlocking the reader.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include "backends/bootstrap/client_socket.hpp"
#include "backends/bootstrap/store_types.hpp"
#include "backends/bootstrap/wire.hpp"

namespace weft::backends::bootstrap::detail {

using EventHandler = std::function<void(const std::string& key, const Bytes& value)>;

class ClientConnection {
 public:
  // `socket` has completed the handshake; frames longer than `max_message` are refused both
  // ways (an outgoing one with kInvalidArgument before anything is sent).
  ClientConnection(ClientSocket socket, std::string endpoint, uint32_t max_message);
  ~ClientConnection();
  ClientConnection(const ClientConnection&) = delete;
  ClientConnection& operator=(const ClientConnection&) = delete;

  // Sends `request` and waits for its reply. `what` names the operation and its keys for
  // error messages ("Get of key 'x'"). Non-OK replies become a Status with the server's
  // code. Errors: kTimeout at the deadline, kPeerFailure if the store is lost, kAborted
  // after Close().
  Result<wire::Frame> Call(wire::Frame request, Clock::time_point deadline,
                           const std::string& what);

  // Installs the event callback (starting the event thread on first use).
  void SetEventHandler(EventHandler handler);
  // While set, losing the store is delivered as the event {kStoreLostKey, reason}.
  void SetReportStoreLoss(bool report);
  // Drops the connection; no event is delivered after it returns (it waits for the one being
  // delivered, unless called from the handler).
  void Close();
  const std::string& endpoint() const { return endpoint_; }

 private:
  struct Pending;
  Status SendFrame(const wire::Frame& request, Clock::time_point deadline, Clock::time_point start,
                   const std::string& what);
  bool AcquireWriteTurn(Clock::time_point deadline);
  void ReleaseWriteTurn();
  Status LostError(const std::string& what) const;
  Status TimeoutError(const std::string& what, Clock::time_point start) const;
  Result<wire::Frame> ToResult(wire::Frame reply, const std::string& what, Clock::time_point start);
  void ReadLoop();
  void Deliver(wire::Frame reply);
  void FailAll(const std::string& reason);
  void EventLoop();

  ClientSocket socket_;
  const std::string endpoint_;
  const uint32_t max_message_;
  mutable std::mutex mu_;  // guards everything below
  // One frame on the wire at a time. A flag under mu_ rather than a std::timed_mutex: the
  // wait for it must honour the caller's deadline, and ThreadSanitizer does not model
  // timed_mutex::try_lock_until (pthread_mutex_clocklock).
  bool writing_ = false;
  std::condition_variable write_cv_;
  uint64_t next_id_ = 1;
  std::map<uint64_t, std::shared_ptr<Pending>> pending_;
  bool lost_ = false;
  bool closed_by_user_ = false;
  std::string lost_reason_;
  bool report_loss_ = false;
  EventHandler on_event_;
  std::deque<std::pair<std::string, Bytes>> events_;
  std::condition_variable events_cv_;
  bool stopping_ = false;

  std::thread reader_;
  std::thread event_thread_;
};

}  // namespace weft::backends::bootstrap::detail
