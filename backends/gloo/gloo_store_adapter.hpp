// Gloo's rendezvous store, implemented on the host's store (SPEC §8) under a communicator's
// prefix. Gloo's connectFullMesh publishes each member's pair addresses and reads the others'.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include <gloo/rendezvous/store.h>

#include "backends/gloo/deadline.hpp"
#include "backends/gloo/host.hpp"

namespace weft::backends::gloo_plugin {

// Every call is bounded by the communicator's creation deadline, whatever timeout Gloo
// passes. A failing host call throws HostCallbackFailure with the host's status (Gloo's
// rendezvous is exception-neutral), which comm_create turns back into that status.
class StoreAdapter final : public ::gloo::rendezvous::Store {
 public:
  StoreAdapter(const Host& host, const std::string& prefix, Deadline deadline);

  void set(const std::string& key, const std::vector<char>& data) override;
  // Blocks until the key exists.
  std::vector<char> get(const std::string& key) override;
  void wait(const std::vector<std::string>& keys) override;
  void wait(const std::vector<std::string>& keys,
            const std::chrono::milliseconds& timeout) override;

  // The value get() returned for `key` (without the prefix); empty if never read.
  std::vector<char> Seen(const std::string& key) const;

 private:
  std::string Key(const std::string& key) const { return prefix_ + key; }
  [[noreturn]] void Throw(weft_status_t status, const char* what, const std::string& key) const;

  const Host& host_;
  std::string prefix_;
  Deadline deadline_;
  std::map<std::string, std::vector<char>> seen_;
};

}  // namespace weft::backends::gloo_plugin
