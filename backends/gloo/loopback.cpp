#include "backends/gloo/loopback.hpp"

#include <algorithm>
#include <cstring>

namespace weft::backends::gloo_plugin {

void Loopback::Deliver(Slot& slot, const char* data, uint64_t bytes) {
  // Exact, as with peers: a shorter message would leave stale bytes at the end.
  if (bytes != slot.bytes) {
    slot.status = WEFT_ERR_INVALID_ARGUMENT;
    slot.message = "message to self of " + std::to_string(bytes) + " bytes for a receive of " +
                   std::to_string(slot.bytes) + " bytes; lengths must match";
  } else if (bytes > 0) {
    std::memcpy(slot.data, data, bytes);
  }
  slot.done = true;
}

void Loopback::Send(int64_t tag, const void* data, uint64_t bytes) {
  const char* bytes_in = static_cast<const char*>(data);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = posted_.find(tag);
  if (it != posted_.end() && !it->second.empty()) {
    Deliver(*it->second.front(), bytes_in, bytes);
    it->second.pop_front();
    if (it->second.empty()) posted_.erase(it);
    cv_.notify_all();
    return;
  }
  unexpected_[tag].emplace_back(bytes_in, bytes_in + bytes);
}

std::shared_ptr<Loopback::Slot> Loopback::Recv(int64_t tag, void* data, uint64_t bytes) {
  auto slot = std::make_shared<Slot>();
  slot->data = data;
  slot->bytes = bytes;
  std::lock_guard<std::mutex> lock(mu_);
  if (failed_ != WEFT_OK) {
    slot->done = true;
    slot->status = failed_;
    slot->message = failed_message_;
    return slot;
  }
  auto it = unexpected_.find(tag);
  if (it != unexpected_.end() && !it->second.empty()) {
    const std::vector<char>& msg = it->second.front();
    Deliver(*slot, msg.data(), msg.size());
    it->second.pop_front();
    if (it->second.empty()) unexpected_.erase(it);
    return slot;
  }
  posted_[tag].push_back(slot);
  return slot;
}

bool Loopback::WaitUntil(const Slot& slot, std::chrono::steady_clock::time_point until) {
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_until(lock, until, [&] { return slot.done; });
}

void Loopback::Withdraw(const std::shared_ptr<Slot>& slot, weft_status_t status,
                        const std::string& message) {
  std::lock_guard<std::mutex> lock(mu_);
  if (slot->done) return;
  for (auto& [tag, queue] : posted_) {
    queue.erase(std::remove(queue.begin(), queue.end(), slot), queue.end());
  }
  slot->done = true;
  slot->status = status;
  slot->message = message;
  cv_.notify_all();
}

void Loopback::FailAll(weft_status_t status, const std::string& message) {
  std::lock_guard<std::mutex> lock(mu_);
  if (failed_ == WEFT_OK) {
    failed_ = status;
    failed_message_ = message;
  }
  for (auto& [tag, queue] : posted_) {
    for (auto& slot : queue) {
      slot->done = true;
      slot->status = status;
      slot->message = message;
    }
  }
  posted_.clear();
  cv_.notify_all();
}

}  // namespace weft::backends::gloo_plugin
