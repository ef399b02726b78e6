#include "backends/bootstrap/waiter_table.hpp"

#include <algorithm>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <optional>

namespace weft::backends::bootstrap::detail {

struct WaiterTable::Waiter {
  std::shared_ptr<Session> session;
  wire::Frame request;
  std::string parked_on;
  std::optional<boost::asio::steady_timer> timer;
  bool done = false;
};

void WaiterTable::Submit(const std::shared_ptr<Session>& session, const wire::Frame& request) {
  auto waiter = std::make_shared<Waiter>();
  waiter->session = session;
  waiter->request.id = request.id;
  waiter->request.verb = request.verb;
  waiter->request.keys = request.keys;
  waiter->request.timeout_ms = request.timeout_ms;
  TryComplete(waiter);
  if (waiter->done || request.timeout_ms == wire::kNoTimeout) return;
  waiter->timer.emplace(io_, std::chrono::milliseconds(request.timeout_ms));
  waiter->timer->async_wait([this, waiter](const boost::system::error_code& ec) {
    if (!ec && !waiter->done) Expire(waiter);
  });
}

void WaiterTable::TryComplete(const std::shared_ptr<Waiter>& waiter) {
  for (const auto& key : waiter->request.keys) {
    if (kv_.count(key) == 0) {
      waiter->parked_on = key;
      parked_[key].push_back(waiter);
      return;
    }
  }
  wire::Frame reply;
  reply.id = waiter->request.id;
  if (waiter->request.verb == wire::Verb::kGet) {
    waiter->session->SendSharing(reply, kv_.at(waiter->request.keys.front()));
  } else {
    waiter->session->Send(reply);
  }
  Finish(waiter);
}

void WaiterTable::Expire(const std::shared_ptr<Waiter>& waiter) {
  Unindex(waiter);
  wire::Frame reply;
  reply.id = waiter->request.id;
  reply.code = static_cast<int8_t>(Code::kTimeout);
  reply.values.push_back("timed out on the server after " +
                         std::to_string(waiter->request.timeout_ms) + " ms waiting for key '" +
                         waiter->parked_on + "'");
  waiter->session->Send(reply);
  Finish(waiter);
}

void WaiterTable::Finish(const std::shared_ptr<Waiter>& waiter) {
  waiter->done = true;
  if (waiter->timer) waiter->timer->cancel();
  // Breaks the waiter -> session reference so a closed session can be freed.
  waiter->session.reset();
}

void WaiterTable::KeySet(const std::string& key) {
  auto it = parked_.find(key);
  if (it == parked_.end()) return;
  auto waiters = std::move(it->second);
  parked_.erase(it);
  for (const auto& waiter : waiters) {
    if (!waiter->done) TryComplete(waiter);
  }
}

void WaiterTable::Unindex(const std::shared_ptr<Waiter>& waiter) {
  auto it = parked_.find(waiter->parked_on);
  if (it == parked_.end()) return;
  auto& list = it->second;
  list.erase(std::remove(list.begin(), list.end(), waiter), list.end());
  if (list.empty()) parked_.erase(it);
}

void WaiterTable::DropSession(const Session* session) {
  for (auto it = parked_.begin(); it != parked_.end();) {
    auto& list = it->second;
    for (const auto& waiter : list) {
      if (waiter->session.get() == session) Finish(waiter);
    }
    list.erase(std::remove_if(list.begin(), list.end(), [](const auto& w) { return w->done; }),
               list.end());
    it = list.empty() ? parked_.erase(it) : std::next(it);
  }
}

void WaiterTable::Clear() {
  for (auto& [key, list] : parked_) {
    for (const auto& waiter : list) Finish(waiter);
  }
  parked_.clear();
}

}  // namespace weft::backends::bootstrap::detail
