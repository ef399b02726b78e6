#include "backends/bootstrap/store_server.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ip/v6_only.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <mutex>
#include <thread>

#include "backends/bootstrap/rank_registry.hpp"
#include "backends/bootstrap/store_state.hpp"

namespace weft::backends::bootstrap {
namespace asio = boost::asio;
using asio::ip::tcp;
using boost::system::error_code;

struct StoreServer::Impl {
  std::string host;
  uint16_t port = 0;
  // Declared first so that it is destroyed last: pending handlers own sessions and timers.
  asio::io_context io{1};
  detail::RankRegistry ranks;
  detail::StoreState state{io, ranks};
  tcp::acceptor acceptor{io};
  asio::steady_timer accept_retry{io};
  std::thread thread;
  std::mutex stop_mu;
  bool stopped = false;

  Status Listen(const std::string& requested_host, uint16_t requested_port);
  void Accept();
};

Status StoreServer::Impl::Listen(const std::string& requested_host, uint16_t requested_port) {
  auto fail = [&](const std::string& what, const error_code& ec) {
    return Status{Code::kSystem, "bootstrap store: cannot " + what + " " + requested_host + ":" +
                                     std::to_string(requested_port) + ": " + ec.message()};
  };
  error_code ec;
  tcp::resolver resolver(io);
  auto results = resolver.resolve(requested_host, std::to_string(requested_port),
                                  tcp::resolver::passive | tcp::resolver::numeric_service, ec);
  if (ec || results.empty()) return fail("resolve", ec);
  tcp::endpoint endpoint = results.begin()->endpoint();
  if (acceptor.open(endpoint.protocol(), ec)) return fail("open a socket for", ec);
  acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (endpoint.address().is_v6()) acceptor.set_option(asio::ip::v6_only(false), ec);
  if (acceptor.bind(endpoint, ec)) return fail("bind", ec);
  if (acceptor.listen(asio::socket_base::max_listen_connections, ec)) return fail("listen on", ec);
  host = requested_host;
  port = acceptor.local_endpoint(ec).port();
  return Status::Ok();
}

void StoreServer::Impl::Accept() {
  acceptor.async_accept([this](const error_code& ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted) return;
    if (!ec) {
      state.Attach(std::make_shared<detail::Session>(std::move(socket), state));
      return Accept();
    }
    // E.g. EMFILE: retrying at once would spin, so back off briefly.
    accept_retry.expires_after(std::chrono::milliseconds(100));
    accept_retry.async_wait([this](const error_code& wait_ec) {
      if (!wait_ec) Accept();
    });
  });
}

Result<std::unique_ptr<StoreServer>> StoreServer::Start(const std::string& host, uint16_t port) {
  auto impl = std::make_unique<Impl>();
  WEFT_RETURN_IF_ERROR(impl->Listen(host, port));
  impl->Accept();
  Impl* raw = impl.get();
  impl->thread = std::thread([raw] { raw->io.run(); });
  return std::make_unique<StoreServer>(PrivateTag(), std::move(impl));
}

StoreServer::StoreServer(PrivateTag, std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

StoreServer::~StoreServer() { Stop(); }

uint16_t StoreServer::port() const { return impl_->port; }
const std::string& StoreServer::host() const { return impl_->host; }

bool StoreServer::WaitAllLeft(int32_t expected_ranks, Clock::time_point deadline) {
  return impl_->ranks.WaitAllGone(expected_ranks, deadline);
}

std::vector<int32_t> StoreServer::FailedRanks() const { return impl_->ranks.FailedRanks(); }

void StoreServer::Stop() {
  std::lock_guard<std::mutex> lock(impl_->stop_mu);
  if (impl_->stopped) return;
  impl_->stopped = true;
  Impl* impl = impl_.get();
  asio::post(impl->io, [impl] {
    error_code ec;
    impl->acceptor.close(ec);
    impl->accept_retry.cancel();
    impl->state.CloseAll();
    impl->io.stop();
  });
  impl->thread.join();
  impl->ranks.Shutdown();
}

}  // namespace weft::backends::bootstrap
