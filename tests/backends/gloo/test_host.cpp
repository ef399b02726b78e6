#include "tests/backends/gloo/test_host.hpp"

#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace weft::test {
namespace {

thread_local std::string t_last_error;
bool g_die_in_reduce = false;

FsStore& StoreOf(void* d) { return *static_cast<FsStore*>(d); }

void Log(void*, int32_t level, const char* message) {
  if (std::getenv("WEFT_TEST_VERBOSE")) std::fprintf(stderr, "[plugin %d] %s\n", level, message);
}

void SetError(void*, const char* message) { t_last_error = message ? message : ""; }

weft_status_t StoreSet(void* d, const char* key, const void* v, size_t len, int64_t) {
  return StoreOf(d).Set(key, v, len);
}

weft_status_t StoreGet(void* d, const char* key, void* buf, size_t cap, size_t* len,
                       int64_t timeout_ms) {
  std::string value;
  if (weft_status_t s = StoreOf(d).Get(key, &value, timeout_ms); s != WEFT_OK) return s;
  *len = value.size();
  if (value.size() > cap) return WEFT_ERR_INVALID_ARGUMENT;
  if (!value.empty()) std::memcpy(buf, value.data(), value.size());
  return WEFT_OK;
}

weft_status_t StoreWait(void* d, const char* const* keys, size_t n, int64_t timeout_ms) {
  return StoreOf(d).Wait(std::vector<std::string>(keys, keys + n), timeout_ms);
}

weft_status_t StoreAdd(void* d, const char* key, int64_t delta, int64_t* value, int64_t) {
  return StoreOf(d).Add(key, delta, value);
}

void* Alloc(void*, size_t bytes, size_t alignment) {
  return std::aligned_alloc(alignment, (bytes + alignment - 1) / alignment * alignment);
}

void Free(void*, void* p) { std::free(p); }

weft_status_t Reduce(void*, DLDataType t, int32_t op, void* inout, const void* in, uint64_t count) {
  if (g_die_in_reduce) raise(SIGKILL);
  return TestReduce(t, op, inout, in, count);
}

}  // namespace

TestHost::TestHost(FsStore* store) : store_(store) {
  api_ = weft_bk_host_api_t{sizeof(weft_bk_host_api_t),
                            WEFT_BACKEND_PLUGIN_ABI_VERSION,
                            store_,
                            &Log,
                            &SetError,
                            &StoreSet,
                            &StoreGet,
                            &StoreWait,
                            &StoreAdd,
                            &Alloc,
                            &Free,
                            &Reduce};
}

std::string TestHost::LastError() { return t_last_error; }

void SetDieInReduce(bool die) { g_die_in_reduce = die; }

}  // namespace weft::test
