// The token file of a loopback store without a token (token_file.hpp): private, atomic,
// checked before it is trusted, removed when the store stops, and a stale one is outlived.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <thread>

#include "backends/bootstrap/store.hpp"
#include "backends/bootstrap/token_file.hpp"
#include "tests/backends/bootstrap/store_test_util.hpp"

namespace weft::backends::bootstrap::testing {
namespace {

// Each test gets its own $XDG_RUNTIME_DIR, so the user's real token directory is untouched.
class StoreTokenFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/weft-token-test-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    runtime_dir_ = pattern;
    const char* old = std::getenv("XDG_RUNTIME_DIR");
    if (old != nullptr) saved_ = old;
    setenv("XDG_RUNTIME_DIR", runtime_dir_.c_str(), 1);
  }
  void TearDown() override {
    if (saved_) {
      setenv("XDG_RUNTIME_DIR", saved_->c_str(), 1);
    } else {
      unsetenv("XDG_RUNTIME_DIR");
    }
    std::string cmd = "rm -rf '" + runtime_dir_ + "'";
    EXPECT_EQ(std::system(cmd.c_str()), 0);
  }

  static StoreServer::Options LocalOptions(uint16_t port = 0) {
    return {"127.0.0.1", port, 2, StoreSecret::LocalFile(), {}};
  }

  std::string runtime_dir_;
  std::optional<std::string> saved_;
};

mode_t ModeOf(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 ? (st.st_mode & 0777) : 0;
}

TEST_F(StoreTokenFileTest, PublishesAPrivateFileAndRemovesItOnStop) {
  auto server = StoreServer::Start(LocalOptions());
  ASSERT_TRUE(server.ok()) << server.status().message();
  const std::string path = (*server)->token_path();
  EXPECT_EQ(path, runtime_dir_ + "/weft/" + detail::TokenFileName("127.0.0.1", (*server)->port()));
  EXPECT_EQ(ModeOf(runtime_dir_ + "/weft"), 0700u);
  EXPECT_EQ(ModeOf(path), 0600u);
  std::string token;
  std::ifstream(path) >> token;
  EXPECT_EQ(token.size(), 64u);
  auto client =
      StoreClient::Connect("127.0.0.1", (*server)->port(), In(5000), {StoreSecret::LocalFile()});
  ASSERT_TRUE(client.ok()) << client.status().message();
  WEFT_ASSERT_OK((*client)->Set("k", "v", In(2000)));
  // The token file's secret is the store's secret.
  auto by_key =
      StoreClient::Connect("127.0.0.1", (*server)->port(), In(5000), {StoreSecret::Key(token)});
  EXPECT_TRUE(by_key.ok()) << by_key.status().message();
  server->reset();
  struct stat st {};
  EXPECT_NE(stat(path.c_str(), &st), 0) << path << " outlived its store";
}

TEST_F(StoreTokenFileTest, AnUntrustedDirectoryIsRefused) {
  const std::string dir = runtime_dir_ + "/weft";
  ASSERT_EQ(mkdir(dir.c_str(), 0755), 0);
  ASSERT_EQ(chmod(dir.c_str(), 0755), 0);  // regardless of the umask
  auto server = StoreServer::Start(LocalOptions());
  EXPECT_EQ(server.status().code(), Code::kInvalidUsage);
  EXPECT_NE(server.status().message().find(dir), std::string::npos) << server.status().message();
  EXPECT_NE(server.status().message().find("0755"), std::string::npos) << server.status().message();
  auto client = StoreClient::Connect("127.0.0.1", 9, In(2000), {StoreSecret::LocalFile()});
  EXPECT_EQ(client.status().code(), Code::kInvalidUsage) << client.status().message();
}

TEST_F(StoreTokenFileTest, AStaleFileOfAnEarlierStoreIsOutlived) {
  auto probe = StoreServer::Start(LocalOptions());  // a free port, then gone
  ASSERT_TRUE(probe.ok());
  const uint16_t port = (*probe)->port();
  const std::string path = (*probe)->token_path();
  probe->reset();
  {
    std::ofstream stale(path);
    stale << std::string(64, 'f') << "\n";
  }
  ASSERT_EQ(chmod(path.c_str(), 0600), 0);
  Result<std::unique_ptr<StoreClient>> client = Status{Code::kInternal, "not run"};
  std::thread rank([&] {
    client = StoreClient::Connect("127.0.0.1", port, In(8000), {StoreSecret::LocalFile()});
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  auto server = StoreServer::Start(LocalOptions(port));
  rank.join();
  ASSERT_TRUE(server.ok()) << server.status().message();
  EXPECT_TRUE(client.ok()) << client.status().message();
}

TEST_F(StoreTokenFileTest, WithoutAStoreTheClientNamesTheVariable) {
  auto start = Clock::now();
  auto client = StoreClient::Connect("127.0.0.1", 9, In(300), {StoreSecret::LocalFile()});
  EXPECT_GE(MsSince(start), 250);
  EXPECT_EQ(client.status().code(), Code::kTimeout);
  EXPECT_NE(client.status().message().find("WEFT_STORE_TOKEN"), std::string::npos)
      << client.status().message();
}

}  // namespace
}  // namespace weft::backends::bootstrap::testing
