#include "tests/backends/host/fakes/fake_core.hpp"

#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

namespace {

struct FakeState {
  const weft_bk_host_api_t* host = nullptr;
};

}  // namespace

struct weft_bk_comm {
  FakeState* state = nullptr;
  int32_t size = 0, me = 0;
  std::string prefix;
  std::mutex mu;
  std::map<std::string, uint64_t> counters;           // messages per (direction, peer, tag)
  std::map<std::string, std::vector<char>> loopback;  // messages to oneself, by key
};

// A receive is lazy: it is matched when waited on, so a receive posted before its send (as the
// host's compositions do) still completes. Sends complete when posted.
struct weft_bk_request {
  weft_bk_comm* comm = nullptr;
  bool done = true;
  weft_status_t status = WEFT_OK;
  std::string key;  // of the message a receive waits for
  void* buf = nullptr;
  uint64_t bytes = 0;
  bool loopback = false;
};

namespace {

weft_status_t Fail(weft_bk_comm* c, weft_status_t s, const std::string& msg) {
  c->state->host->set_error(c->state->host->host_data, msg.c_str());
  return s;
}

uint64_t Bytes(uint64_t count, DLDataType t) { return count * (t.bits / 8u) * t.lanes; }

// The key of the next message from group index `from` to `to` with `tag`; both sides count
// their messages per (peer, tag) in the same order, so the n-th send meets the n-th receive.
std::string NextKey(weft_bk_comm* c, char dir, int32_t from, int32_t to, int64_t tag) {
  std::lock_guard<std::mutex> lock(c->mu);
  const std::string link =
      std::to_string(from) + ">" + std::to_string(to) + "/" + std::to_string(tag);
  const uint64_t n = c->counters[dir + link]++;
  return c->prefix + "fake/" + link + "/" + std::to_string(n);
}

weft_status_t CheckPeer(weft_bk_comm* c, int32_t peer) {
  if (peer >= 0 && peer < c->size) return WEFT_OK;
  return Fail(
      c, WEFT_ERR_INVALID_ARGUMENT,
      "fake: peer " + std::to_string(peer) + " is not in a group of " + std::to_string(c->size));
}

// Tries to complete a receive within timeout_ms: WEFT_IN_PROGRESS when the message is not
// there yet.
weft_status_t Match(weft_bk_request* r, int64_t timeout_ms) {
  if (r->done) return r->status;
  weft_bk_comm* c = r->comm;
  weft_status_t s = WEFT_OK;
  if (r->loopback) {
    std::lock_guard<std::mutex> lock(c->mu);
    auto it = c->loopback.find(r->key);
    if (it == c->loopback.end()) return WEFT_IN_PROGRESS;  // only a later send can match
    if (it->second.size() != r->bytes)
      s = Fail(c, WEFT_ERR_INVALID_ARGUMENT, "fake: message size mismatch on " + r->key);
    else if (r->bytes)
      std::memcpy(r->buf, it->second.data(), r->bytes);
    c->loopback.erase(it);
  } else {
    const weft_bk_host_api_t* h = c->state->host;
    size_t len = 0;
    s = h->store_get(h->host_data, r->key.c_str(), r->buf, r->bytes, &len, timeout_ms);
    if (s == WEFT_ERR_TIMEOUT) return WEFT_IN_PROGRESS;
    if (s == WEFT_OK && len != r->bytes)
      s = Fail(c, WEFT_ERR_INVALID_ARGUMENT,
               "fake: message " + r->key + " has " + std::to_string(len) + " bytes, expected " +
                   std::to_string(r->bytes));
  }
  r->done = true;
  r->status = s;
  return s;
}

weft_status_t Init(const weft_bk_host_api_t* host, const weft_bk_init_args_t*, void** state) {
  auto* s = new (std::nothrow) FakeState();  // freed by Finalize (C ABI ownership)
  if (!s) return WEFT_ERR_OUT_OF_MEMORY;
  s->host = host;
  *state = s;
  return WEFT_OK;
}

void Finalize(void* state) { delete static_cast<FakeState*>(state); }
void Abort(void*, weft_status_t, int32_t, const char*) {}
weft_status_t AsyncError(void*, int32_t*) { return WEFT_OK; }

weft_status_t CommCreate(void* state, const int32_t*, int32_t nranks, int32_t my_index,
                         const char* store_prefix, int64_t, weft_bk_comm_t** comm) {
  auto* c = new (std::nothrow) weft_bk_comm();  // freed by CommDestroy
  if (!c) return WEFT_ERR_OUT_OF_MEMORY;
  c->state = static_cast<FakeState*>(state);
  c->size = nranks;
  c->me = my_index;
  c->prefix = store_prefix ? store_prefix : "";
  *comm = c;
  return WEFT_OK;
}

void CommDestroy(weft_bk_comm_t* comm) { delete comm; }

weft_status_t Send(weft_bk_comm_t* c, const void* buf, uint64_t count, DLDataType t, int32_t peer,
                   int64_t tag, const weft_bk_op_t* a, weft_bk_request_t** req) {
  if (weft_status_t s = CheckPeer(c, peer); s != WEFT_OK) return s;
  const uint64_t bytes = Bytes(count, t);
  const std::string key = NextKey(c, 's', c->me, peer, tag);
  weft_status_t s = WEFT_OK;
  if (peer == c->me) {
    const char* p = static_cast<const char*>(buf);
    std::lock_guard<std::mutex> lock(c->mu);
    c->loopback[key].assign(p, p + bytes);
  } else {
    const weft_bk_host_api_t* h = c->state->host;
    s = h->store_set(h->host_data, key.c_str(), buf, bytes, a ? a->timeout_ms : -1);
  }
  if (s != WEFT_OK || !req) return s;
  auto* r = new (std::nothrow) weft_bk_request();  // freed by RequestFree
  if (!r) return WEFT_ERR_OUT_OF_MEMORY;
  r->comm = c;
  *req = r;
  return WEFT_OK;
}

weft_status_t Recv(weft_bk_comm_t* c, void* buf, uint64_t count, DLDataType t, int32_t peer,
                   int64_t tag, const weft_bk_op_t* a, weft_bk_request_t** req) {
  if (weft_status_t s = CheckPeer(c, peer); s != WEFT_OK) return s;
  auto r = std::make_unique<weft_bk_request>();
  r->comm = c;
  r->done = false;
  r->key = NextKey(c, 'r', peer, c->me, tag);
  r->buf = buf;
  r->bytes = Bytes(count, t);
  r->loopback = peer == c->me;
  if (req) {
    *req = r.release();  // freed by RequestFree
    return WEFT_OK;
  }
  const weft_status_t s = Match(r.get(), a ? a->timeout_ms : -1);
  if (s == WEFT_IN_PROGRESS)
    return r->loopback ? Fail(c, WEFT_ERR_INVALID_USAGE,
                              "fake: blocking receive from oneself with no matching send")
                       : Fail(c, WEFT_ERR_TIMEOUT, "fake: no message " + r->key + " in time");
  return s;
}

weft_status_t RequestTest(weft_bk_request_t* r, int32_t* done) {
  Match(r, 0);
  *done = r->done ? 1 : 0;
  return WEFT_OK;
}
weft_status_t RequestWait(weft_bk_request_t* r, int64_t timeout_ms) { return Match(r, timeout_ms); }
weft_status_t RequestCancel(weft_bk_request_t* r) {
  if (!r->done) {
    r->done = true;
    r->status = WEFT_ERR_ABORTED;
  }
  return WEFT_OK;
}
void RequestFree(weft_bk_request_t* r) { delete r; }

}  // namespace

namespace fake {

weft_backend_plugin_t MandatoryTable(const char* name) {
  weft_backend_plugin_t t{};
  t.struct_size = sizeof(weft_backend_plugin_t);
  t.abi_version = WEFT_BACKEND_PLUGIN_ABI_VERSION;
  t.name = name;
  t.capabilities = WEFT_BK_CAP_SIZE_SAFE;  // Match() checks every length exactly
  t.init = Init;
  t.finalize = Finalize;
  t.abort = Abort;
  t.async_error = AsyncError;
  t.comm_create = CommCreate;
  t.comm_destroy = CommDestroy;
  t.send = Send;
  t.recv = Recv;
  t.request_test = RequestTest;
  t.request_wait = RequestWait;
  t.request_cancel = RequestCancel;
  t.request_free = RequestFree;
  return t;
}

const weft_bk_host_api_t* HostOf(weft_bk_comm_t* comm) { return comm->state->host; }

}  // namespace fake
