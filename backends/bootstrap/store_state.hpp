// The store server's state machine: the key-value map, the blocked requests and the
// registered ranks' liveness. Every method runs on the server's io thread; only the
// RankRegistry it feeds is shared with other threads.
#pragma once

#include <boost/asio/io_context.hpp>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "backends/bootstrap/rank_registry.hpp"
#include "backends/bootstrap/server_session.hpp"
#include "backends/bootstrap/waiter_table.hpp"

namespace weft::backends::bootstrap::detail {

class StoreState final : public SessionHandler {
 public:
  StoreState(boost::asio::io_context& io, RankRegistry& ranks) : waiters_(io, kv_), ranks_(ranks) {}

  void Attach(const std::shared_ptr<Session>& session);
  void OnFrame(const std::shared_ptr<Session>& session, wire::Frame request) override;
  void OnClosed(const std::shared_ptr<Session>& session, const std::string& reason) override;
  // Server shutdown: close every connection without declaring anyone failed.
  void CloseAll();

 private:
  using SessionPtr = std::shared_ptr<Session>;
  // Data verbs (store_state.cpp).
  void Dispatch(const SessionPtr& s, const wire::Frame& req);
  void DoSet(const SessionPtr& s, const wire::Frame& req);
  void DoCheck(const SessionPtr& s, const wire::Frame& req);
  void DoAdd(const SessionPtr& s, const wire::Frame& req);
  void DoCompareSet(const SessionPtr& s, const wire::Frame& req);
  void DoDelete(const SessionPtr& s, const wire::Frame& req);
  void Write(const std::string& key, Bytes value);
  // Liveness verbs (store_liveness.cpp).
  void DoRegister(const SessionPtr& s, const wire::Frame& req);
  void DoLeave(const SessionPtr& s, const wire::Frame& req);
  void DoPublish(const SessionPtr& s, const wire::Frame& req);
  void PushEvent(const std::string& key, const Bytes& value, const Session* except);

  KeyValueMap kv_;
  WaiterTable waiters_;
  RankRegistry& ranks_;
  std::set<SessionPtr> sessions_;
  std::map<int32_t, SessionPtr> registered_;
  bool closing_ = false;
};

// Reply helpers shared by the verb implementations.
void ReplyOk(Session& s, const wire::Frame& req, std::vector<std::string> values = {});
void ReplyError(Session& s, const wire::Frame& req, Code code, std::string message);

}  // namespace weft::backends::bootstrap::detail
