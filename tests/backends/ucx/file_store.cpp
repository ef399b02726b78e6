#include "file_store.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

namespace weft::test::ucx {
namespace {

using Clock = std::chrono::steady_clock;
thread_local std::string t_error;
// What the plugin logged in this process (each forked rank has its own copy).
std::mutex g_log_mu;
std::vector<std::string> g_logs;

template <typename T>
weft_status_t ReduceAs(int32_t op, void* inout, const void* in, uint64_t count) {
  auto* a = static_cast<T*>(inout);
  const auto* b = static_cast<const T*>(in);
  for (uint64_t i = 0; i < count; ++i)
    a[i] = op == WEFT_REDUCE_SUM    ? a[i] + b[i]
           : op == WEFT_REDUCE_PROD ? a[i] * b[i]
           : op == WEFT_REDUCE_MAX  ? std::max(a[i], b[i])
                                    : std::min(a[i], b[i]);
  return WEFT_OK;
}

FileStoreHost& Self(void* d) { return *static_cast<FileStoreHost*>(d); }

std::string PathOf(const std::string& dir, const char* key) {
  std::string name = key;
  for (char& c : name)
    if (c == '/') c = '%';
  return dir + "/" + name;
}

bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  *out = s.str();
  return true;
}

// Atomic for readers: write aside, then rename into place.
void WriteFile(const std::string& path, const void* v, size_t len) {
  const std::string tmp = path + ".tmp" + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(static_cast<const char*>(v), static_cast<std::streamsize>(len));
  }
  std::rename(tmp.c_str(), path.c_str());
}

// Polls (sleeping, never spinning) until the key's file exists or the deadline passes.
bool AwaitFile(const std::string& path, int64_t timeout_ms, std::string* out) {
  const auto until = timeout_ms < 0 ? Clock::time_point::max()
                                    : Clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!ReadFile(path, out)) {
    if (Clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

}  // namespace

std::string FileStoreHost::LastError() { return t_error; }

bool FileStoreHost::Logged(const std::string& part) {
  std::lock_guard<std::mutex> lock(g_log_mu);
  for (const std::string& line : g_logs)
    if (line.find(part) != std::string::npos) return true;
  return false;
}

FileStoreHost::FileStoreHost(std::string dir) : dir_(std::move(dir)) {
  api_.struct_size = sizeof(api_);
  api_.abi_version = WEFT_BACKEND_PLUGIN_ABI_VERSION;
  api_.host_data = this;
  api_.log = [](void*, int32_t, const char* m) {
    std::lock_guard<std::mutex> lock(g_log_mu);
    g_logs.emplace_back(m ? m : "");
  };
  api_.set_error = [](void*, const char* m) { t_error = m ? m : ""; };
  api_.store_set = [](void* d, const char* key, const void* v, size_t len,
                      int64_t) -> weft_status_t {
    WriteFile(PathOf(Self(d).dir_, key), v, len);
    return WEFT_OK;
  };
  api_.store_get = [](void* d, const char* key, void* buf, size_t cap, size_t* len,
                      int64_t timeout_ms) -> weft_status_t {
    std::string v;
    if (!AwaitFile(PathOf(Self(d).dir_, key), timeout_ms, &v)) return WEFT_ERR_TIMEOUT;
    *len = v.size();
    if (v.size() > cap) return WEFT_ERR_INVALID_ARGUMENT;
    if (!v.empty()) std::memcpy(buf, v.data(), v.size());
    return WEFT_OK;
  };
  api_.store_wait = [](void* d, const char* const* keys, size_t n,
                       int64_t timeout_ms) -> weft_status_t {
    std::string v;
    for (size_t i = 0; i < n; ++i)
      if (!AwaitFile(PathOf(Self(d).dir_, keys[i]), timeout_ms, &v)) return WEFT_ERR_TIMEOUT;
    return WEFT_OK;
  };
  api_.store_add = [](void* d, const char* key, int64_t delta, int64_t* value,
                      int64_t) -> weft_status_t {
    const std::string path = PathOf(Self(d).dir_, key);
    const int lock = open((path + ".lock").c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0600);
    if (lock < 0) return WEFT_ERR_SYSTEM;
    flock(lock, LOCK_EX);
    std::string v;
    const int64_t now = (ReadFile(path, &v) ? std::atoll(v.c_str()) : 0) + delta;
    v = std::to_string(now);
    WriteFile(path, v.data(), v.size());
    flock(lock, LOCK_UN);
    close(lock);
    *value = now;
    return WEFT_OK;
  };
  api_.alloc = [](void*, size_t bytes, size_t alignment) -> void* {
    return std::aligned_alloc(alignment, (bytes + alignment - 1) / alignment * alignment);
  };
  api_.free = [](void*, void* p) { std::free(p); };
  // int32, int64 and float64 with sum, max, min and prod, enough for the plugin's all-reduce
  // tests; the real kernels are the host's (device/host/reduce) and tested there.
  api_.reduce = [](void*, DLDataType t, int32_t op, void* inout, const void* in,
                   uint64_t count) -> weft_status_t {
    if (t.lanes != 1 || (op != WEFT_REDUCE_SUM && op != WEFT_REDUCE_MAX && op != WEFT_REDUCE_MIN &&
                         op != WEFT_REDUCE_PROD))
      return WEFT_ERR_UNSUPPORTED;
    if (t.code == kDLInt && t.bits == 32) return ReduceAs<int32_t>(op, inout, in, count);
    if (t.code == kDLInt && t.bits == 64) return ReduceAs<int64_t>(op, inout, in, count);
    if (t.code == kDLFloat && t.bits == 64) return ReduceAs<double>(op, inout, in, count);
    return WEFT_ERR_UNSUPPORTED;
  };
}

}  // namespace weft::test::ucx
