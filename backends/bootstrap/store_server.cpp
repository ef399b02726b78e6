#include "backends/bootstrap/store_server.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ip/v6_only.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstring>
#include <mutex>
#include <set>
#include <thread>

#include "backends/bootstrap/handshake.hpp"
#include "backends/bootstrap/host_lookup.hpp"
#include "backends/bootstrap/rank_registry.hpp"
#include "backends/bootstrap/store_state.hpp"
#include "backends/bootstrap/token_file.hpp"
#include "common/log.hpp"

namespace weft::backends::bootstrap {
namespace asio = boost::asio;
using asio::ip::tcp;
using boost::system::error_code;

namespace {

struct Listener {
  explicit Listener(asio::io_context& io) : acceptor(io), retry(io) {}
  tcp::acceptor acceptor;
  asio::steady_timer retry;
};

tcp::endpoint ToEndpoint(const detail::SocketAddress& a, uint16_t port) {
  tcp::endpoint endpoint;
  std::memcpy(endpoint.data(), &a.storage, a.length);
  endpoint.resize(a.length);
  endpoint.port(port);
  return endpoint;
}

}  // namespace

struct StoreServer::Impl {
  explicit Impl(const ServerLimits& l) : limits(l) {}

  std::string host;
  uint16_t port = 0;
  const ServerLimits limits;
  // Declared first so that it is destroyed last: pending handlers own sessions and timers.
  asio::io_context io{1};
  detail::RankRegistry ranks;
  std::unique_ptr<detail::StoreState> state;
  std::vector<std::unique_ptr<Listener>> listeners;
  std::unique_ptr<detail::PublishedToken> token_file;
  std::thread thread;
  std::mutex stop_mu;
  bool stopped = false;

  Status Listen(const std::string& requested_host, uint16_t requested_port);
  error_code BindOne(const tcp::endpoint& endpoint);
  void Accept(Listener& listener);
};

error_code StoreServer::Impl::BindOne(const tcp::endpoint& endpoint) {
  auto listener = std::make_unique<Listener>(io);
  tcp::acceptor& acceptor = listener->acceptor;
  error_code ec;
  acceptor.open(endpoint.protocol(), ec);
  if (ec) return ec;
  acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  // Only the wildcard "::" also serves IPv4; a named IPv6 address serves just itself.
  if (endpoint.address().is_v6()) {
    acceptor.set_option(asio::ip::v6_only(!endpoint.address().is_unspecified()), ec);
  }
  acceptor.bind(endpoint, ec);
  if (ec) return ec;
  acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return ec;
  port = acceptor.local_endpoint(ec).port();
  listeners.push_back(std::move(listener));
  return {};
}

// Binds every address the host resolves to. One that this machine lacks (an IPv6 "localhost"
// with IPv6 off) is skipped if another binds; a busy port fails the whole start.
Status StoreServer::Impl::Listen(const std::string& requested_host, uint16_t requested_port) {
  WEFT_ASSIGN_OR_RETURN(std::vector<detail::SocketAddress> addresses,
                        detail::ResolveHost(requested_host, requested_port));
  auto fail = [&](const detail::SocketAddress& a, const error_code& ec, const char* hint) {
    return Status{Code::kSystem, "bootstrap store: cannot listen on " + requested_host + ":" +
                                     std::to_string(requested_port) + " (" + a.Text() +
                                     "): " + ec.message() + hint};
  };
  port = requested_port;
  std::set<std::string> seen;
  Status first_error;
  bool all_loopback = true;
  for (const detail::SocketAddress& a : addresses) {
    if (!seen.insert(a.Text()).second) continue;
    const error_code ec = BindOne(ToEndpoint(a, port));
    if (ec == asio::error::address_in_use) return fail(a, ec, "");
    if (ec && first_error.ok()) {
      first_error = fail(a, ec, " (the store runs on the host its address names)");
    }
    if (!ec) all_loopback = all_loopback && detail::IsLoopback(a);
  }
  if (listeners.empty()) return first_error;
  host = requested_host;
  if (all_loopback && !detail::IsAddressLiteral(requested_host) && requested_host != "localhost") {
    WEFT_LOG_WARN(
        "bootstrap store: '{}' resolves only to loopback addresses on this host, so ranks on "
        "other machines cannot reach the store: name the host's network address instead",
        requested_host);
  }
  return Status::Ok();
}

void StoreServer::Impl::Accept(Listener& listener) {
  listener.acceptor.async_accept([this, &listener](const error_code& ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted) return;
    if (!ec) {
      state->Attach(std::move(socket));
      return Accept(listener);
    }
    // Out of descriptors: a dropped stranger frees one for the next accept at once; with none
    // to drop, back off rather than spin.
    if ((ec == asio::error::no_descriptors || ec.value() == ENFILE) &&
        state->ShedUnauthenticated("the store's process ran out of file descriptors")) {
      return Accept(listener);
    }
    listener.retry.expires_after(std::chrono::milliseconds(100));
    listener.retry.async_wait([this, &listener](const error_code& wait_ec) {
      if (!wait_ec) Accept(listener);
    });
  });
}

Result<std::unique_ptr<StoreServer>> StoreServer::Start(const Options& options) {
  if (options.world_size < 1) {
    return InvalidArgument("bootstrap store: world_size " + std::to_string(options.world_size) +
                           " must be at least 1");
  }
  // The logger is made now rather than at the first refusal, which may come when the process
  // is out of descriptors.
  (void)log::Get();
  auto impl = std::make_unique<Impl>(options.limits);
  WEFT_RETURN_IF_ERROR(impl->Listen(options.host, options.port));
  std::string key = options.secret.key();
  if (options.secret.kind() == StoreSecret::Kind::kLocalFile) {
    WEFT_ASSIGN_OR_RETURN(key, handshake::NewToken());
    WEFT_ASSIGN_OR_RETURN(impl->token_file,
                          detail::PublishedToken::Publish(options.host, impl->port, key));
  }
  impl->state = std::make_unique<detail::StoreState>(impl->io, impl->ranks, std::move(key),
                                                     options.world_size, impl->limits);
  for (auto& listener : impl->listeners) impl->Accept(*listener);
  Impl* raw = impl.get();
  impl->thread = std::thread([raw] { raw->io.run(); });
  return std::make_unique<StoreServer>(PrivateTag(), std::move(impl));
}

StoreServer::StoreServer(PrivateTag, std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

StoreServer::~StoreServer() { Stop(); }

uint16_t StoreServer::port() const { return impl_->port; }
const std::string& StoreServer::host() const { return impl_->host; }

std::string StoreServer::token_path() const {
  std::lock_guard<std::mutex> lock(impl_->stop_mu);
  return impl_->token_file ? impl_->token_file->path() : std::string();
}

bool StoreServer::WaitAllLeft(int32_t expected_ranks, Clock::time_point deadline) {
  return impl_->ranks.WaitAllGone(expected_ranks, deadline);
}

std::vector<int32_t> StoreServer::FailedRanks() const { return impl_->ranks.FailedRanks(); }

void StoreServer::Stop() {
  std::lock_guard<std::mutex> lock(impl_->stop_mu);
  if (impl_->stopped) return;
  impl_->stopped = true;
  // Removed while the port is still ours, so that it cannot be another store's file by now.
  impl_->token_file.reset();
  Impl* impl = impl_.get();
  asio::post(impl->io, [impl] {
    error_code ec;
    for (auto& listener : impl->listeners) {
      listener->acceptor.close(ec);
      listener->retry.cancel();
    }
    impl->state->CloseAll();
    impl->io.stop();
  });
  impl->thread.join();
  impl->ranks.Shutdown();
}

}  // namespace weft::backends::bootstrap
