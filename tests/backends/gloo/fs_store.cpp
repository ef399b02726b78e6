#include "tests/backends/gloo/fs_store.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

namespace weft::test {
namespace {

using Clock = std::chrono::steady_clock;

std::atomic<uint64_t> g_tmp_counter{0};

}  // namespace

std::string FsStore::Path(const std::string& key) const {
  // Keys hold '/', which a file name cannot: hex-escape everything but [A-Za-z0-9_.-].
  std::string name;
  static const char* hex = "0123456789abcdef";
  for (unsigned char c : key) {
    if (isalnum(c) || c == '_' || c == '.' || c == '-') {
      name += static_cast<char>(c);
    } else {
      name += '%';
      name += hex[c >> 4];
      name += hex[c & 15];
    }
  }
  return dir_ + "/k_" + name;
}

bool FsStore::TryRead(const std::string& key, std::string* value) const {
  std::ifstream in(Path(key), std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  *value = s.str();
  return true;
}

weft_status_t FsStore::Set(const std::string& key, const void* value, size_t len) {
  const std::string tmp =
      dir_ + "/.tmp." + std::to_string(getpid()) + "." + std::to_string(g_tmp_counter++);
  {
    std::ofstream out(tmp, std::ios::binary);
    out.write(static_cast<const char*>(value), static_cast<std::streamsize>(len));
    if (!out) return WEFT_ERR_SYSTEM;
  }
  return std::rename(tmp.c_str(), Path(key).c_str()) == 0 ? WEFT_OK : WEFT_ERR_SYSTEM;
}

weft_status_t FsStore::Get(const std::string& key, std::string* value, int64_t timeout_ms) {
  const auto deadline = timeout_ms < 0 ? Clock::time_point::max()
                                       : Clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!TryRead(key, value)) {
    if (Clock::now() >= deadline) return WEFT_ERR_TIMEOUT;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return WEFT_OK;
}

weft_status_t FsStore::Wait(const std::vector<std::string>& keys, int64_t timeout_ms) {
  std::string ignored;
  for (const auto& k : keys) {
    if (weft_status_t s = Get(k, &ignored, timeout_ms); s != WEFT_OK) return s;
  }
  return WEFT_OK;
}

weft_status_t FsStore::Add(const std::string& key, int64_t delta, int64_t* value) {
  const int lock = open((dir_ + "/.lock").c_str(), O_CREAT | O_RDWR, 0600);
  if (lock < 0 || flock(lock, LOCK_EX) != 0) return WEFT_ERR_SYSTEM;
  std::string old;
  const int64_t now = (TryRead(key, &old) ? std::stoll(old) : 0) + delta;
  const std::string text = std::to_string(now);
  const weft_status_t s = Set(key, text.data(), text.size());
  close(lock);  // releases the lock
  *value = now;
  return s;
}

}  // namespace weft::test
