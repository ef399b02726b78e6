#include "tools/weftrun/free_port.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace weft::tools {
namespace {

TEST(WeftrunPickFreePort, ReturnsAPortThatCanBeBoundRightAway) {
  const Result<int> port = PickFreePort();
  ASSERT_TRUE(port.ok()) << port.status().message();
  ASSERT_GT(*port, 0);
  ASSERT_LT(*port, 65536);
  // What rank 0 will do with it: bind and listen on 127.0.0.1.
  const int sock = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(sock, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(*port));
  EXPECT_EQ(::bind(sock, reinterpret_cast<const sockaddr*>(&addr), sizeof addr), 0);
  EXPECT_EQ(::listen(sock, 1), 0);
  ::close(sock);
}

}  // namespace
}  // namespace weft::tools
