// The store server's state machine: admission and authentication of connections, the
// key-value map, the blocked requests and the registered ranks' liveness. Every method runs
// on the server's io thread; only the RankRegistry it feeds is shared with other threads.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "backends/bootstrap/log_limiter.hpp"
#include "backends/bootstrap/rank_registry.hpp"
#include "backends/bootstrap/server_session.hpp"
#include "backends/bootstrap/store_limits.hpp"
#include "backends/bootstrap/waiter_table.hpp"

namespace weft::backends::bootstrap::detail {

class StoreState final : public SessionHandler {
 public:
  // `key` is the job's secret; `world_size` bounds the ranks that may register.
  StoreState(boost::asio::io_context& io, RankRegistry& ranks, std::string key, int32_t world_size,
             const ServerLimits& limits)
      : waiters_(io, kv_),
        ranks_(ranks),
        key_(std::move(key)),
        world_size_(world_size),
        limits_(limits),
        handshake_timer_(io) {}

  // A new connection: admitted as unauthenticated (store_admission.cpp).
  void Attach(boost::asio::ip::tcp::socket socket);
  void OnFrame(const std::shared_ptr<Session>& session, wire::Frame request) override;
  void OnClosed(const std::shared_ptr<Session>& session, const std::string& reason) override;
  // The process is out of descriptors: drops the oldest unauthenticated connection; false if
  // there is none.
  bool ShedUnauthenticated(const std::string& why);
  // Server shutdown: close every connection without declaring anyone failed.
  void CloseAll();

 private:
  using SessionPtr = std::shared_ptr<Session>;
  // Admission and the handshake (store_admission.cpp).
  void Authenticate(const SessionPtr& s, const wire::Frame& frame);
  void OnHello(const SessionPtr& s, const wire::Frame& frame);
  void OnProof(const SessionPtr& s, const wire::Frame& frame);
  void Admit(const SessionPtr& s, const wire::Frame& proof);
  // By value: callers pass elements of unauthenticated_, which Drop erases.
  void Drop(SessionPtr s, const std::string& why);
  void ForgetUnauthenticated(const Session* s);
  void ArmHandshakeTimer();
  void ExpireHandshakes();
  // Data verbs (store_state.cpp).
  void Dispatch(const SessionPtr& s, wire::Frame& req);
  void DoSet(const SessionPtr& s, wire::Frame& req);
  void DoCheck(const SessionPtr& s, const wire::Frame& req);
  void DoAdd(const SessionPtr& s, const wire::Frame& req);
  void DoCompareSet(const SessionPtr& s, wire::Frame& req);
  void DoDelete(const SessionPtr& s, const wire::Frame& req);
  // Stores key = value unless that would take the stored bytes over the limit (kOutOfMemory
  // naming it); `exempt` for the server's own small records (failed/<rank>).
  Status Write(const std::string& key, Bytes value, bool exempt = false);
  void Erase(const std::string& key);
  // Liveness verbs (store_liveness.cpp).
  void DoRegister(const SessionPtr& s, const wire::Frame& req);
  void DoLeave(const SessionPtr& s, const wire::Frame& req);
  void DoPublish(const SessionPtr& s, wire::Frame& req);
  void PushEvent(const std::string& key, const SharedBytes& value, const Session* except);

  KeyValueMap kv_;
  uint64_t stored_bytes_ = 0;  // keys and values in kv_
  WaiterTable waiters_;
  RankRegistry& ranks_;
  const std::string key_;
  const int32_t world_size_;
  const ServerLimits& limits_;
  std::set<SessionPtr> sessions_;
  std::deque<SessionPtr> unauthenticated_;  // oldest first
  size_t authenticated_ = 0;
  boost::asio::steady_timer handshake_timer_;
  bool handshake_timer_armed_ = false;
  LogLimiter refusals_;
  std::map<int32_t, SessionPtr> registered_;
  bool closing_ = false;
};

// Reply helpers shared by the verb implementations.
void ReplyOk(Session& s, const wire::Frame& req, std::vector<std::string> values = {});
void ReplyError(Session& s, const wire::Frame& req, Code code, std::string message);

}  // namespace weft::backends::bootstrap::detail
