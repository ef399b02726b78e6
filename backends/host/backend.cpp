#include "backends/host/backend.hpp"

#include <cstdlib>
#include <string>
#include <vector>

#include "backends/bootstrap/store_client.hpp"
#include "common/clock.hpp"
#include "common/log.hpp"
#include "device/host/reduce/reduce.hpp"

namespace weft::backends {
namespace {

thread_local std::string t_plugin_error;

using bootstrap::Clock;

Clock::time_point Deadline(int64_t timeout_ms) { return DeadlineFromTimeoutMs(timeout_ms); }

weft_status_t Report(const Status& s) {
  if (!s.ok()) t_plugin_error = s.message();
  return static_cast<weft_status_t>(s.code());
}

}  // namespace

// The C callbacks of weft_bk_host_api_t; host_data is the Backend.
struct HostCallbacks {
  static Backend& Self(void* d) { return *static_cast<Backend*>(d); }

  static void Log(void*, int32_t level, const char* msg) {
    static constexpr spdlog::level::level_enum kLevels[] = {
        spdlog::level::trace, spdlog::level::debug, spdlog::level::info, spdlog::level::warn,
        spdlog::level::err};
    log::Get().log(kLevels[level < 0 ? 0 : level > 4 ? 4 : level], "{}", msg ? msg : "");
  }
  static void SetError(void*, const char* msg) { t_plugin_error = msg ? msg : ""; }

  static bootstrap::StoreClient* Store(void* d) { return Self(d).store_; }

  static weft_status_t StoreSet(void* d, const char* key, const void* v, size_t len,
                                int64_t timeout_ms) {
    if (!Store(d)) return Report(Status(Code::kNotAvailable, "no store in a world of one"));
    return Report(
        Store(d)->Set(key, std::string(static_cast<const char*>(v), len), Deadline(timeout_ms)));
  }
  static weft_status_t StoreGet(void* d, const char* key, void* buf, size_t cap, size_t* len,
                                int64_t timeout_ms) {
    if (!Store(d)) return Report(Status(Code::kNotAvailable, "no store in a world of one"));
    auto r = Store(d)->Get(key, Deadline(timeout_ms));
    if (!r.ok()) return Report(r.status());
    *len = r->size();
    if (r->size() > cap)
      return Report(InvalidArgument("store value of " + std::string(key) + " has " +
                                    std::to_string(r->size()) + " bytes, buffer " +
                                    std::to_string(cap)));
    if (!r->empty()) std::memcpy(buf, r->data(), r->size());
    return WEFT_OK;
  }
  static weft_status_t StoreWait(void* d, const char* const* keys, size_t n, int64_t timeout_ms) {
    if (!Store(d)) return Report(Status(Code::kNotAvailable, "no store in a world of one"));
    return Report(Store(d)->Wait(std::vector<std::string>(keys, keys + n), Deadline(timeout_ms)));
  }
  static weft_status_t StoreAdd(void* d, const char* key, int64_t delta, int64_t* value,
                                int64_t timeout_ms) {
    if (!Store(d)) return Report(Status(Code::kNotAvailable, "no store in a world of one"));
    auto r = Store(d)->Add(key, delta, Deadline(timeout_ms));
    if (!r.ok()) return Report(r.status());
    *value = *r;
    return WEFT_OK;
  }
  static void* Alloc(void*, size_t bytes, size_t alignment) {
    if (alignment < sizeof(void*)) alignment = sizeof(void*);
    return std::aligned_alloc(alignment, (bytes + alignment - 1) / alignment * alignment);
  }
  static void Free(void*, void* p) { std::free(p); }
  static weft_status_t Reduce(void*, DLDataType t, int32_t op, void* inout, const void* in,
                              uint64_t count) {
    return Report(device::host::ReduceInto(DType{t.code, t.bits, t.lanes},
                                           static_cast<ReduceOp>(op), inout, in, count));
  }
  static weft_bk_reduce_fn ReduceKernelOf(void*, DLDataType t, int32_t op) {
    return device::host::ReduceKernel(DType{t.code, t.bits, t.lanes}, static_cast<ReduceOp>(op));
  }
};

std::string TakePluginError() {
  std::string m = std::move(t_plugin_error);
  t_plugin_error.clear();
  return m;
}

Result<std::unique_ptr<Backend>> Backend::Create(std::shared_ptr<LoadedPlugin> plugin,
                                                 const Args& args) {
  std::unique_ptr<Backend> b(new Backend());
  b->plugin_ = std::move(plugin);
  b->store_ = args.store;
  b->host_ = weft_bk_host_api_t{sizeof(weft_bk_host_api_t),
                                WEFT_BACKEND_PLUGIN_ABI_VERSION,
                                b.get(),
                                &HostCallbacks::Log,
                                &HostCallbacks::SetError,
                                &HostCallbacks::StoreSet,
                                &HostCallbacks::StoreGet,
                                &HostCallbacks::StoreWait,
                                &HostCallbacks::StoreAdd,
                                &HostCallbacks::Alloc,
                                &HostCallbacks::Free,
                                &HostCallbacks::Reduce,
                                &HostCallbacks::ReduceKernelOf};
  weft_bk_init_args_t init{sizeof(weft_bk_init_args_t), args.rank, args.world_size, args.local_rank,
                           args.local_world_size,       0,         args.timeout_ms};
  TakePluginError();
  const weft_status_t s = b->table().init(&b->host_, &init, &b->state_);
  if (s != WEFT_OK) return b->Error(s, "init");
  return b;
}

Backend::~Backend() {
  if (state_) table().finalize(state_);
}

Status Backend::Error(weft_status_t code, const char* op) const {
  std::string msg = TakePluginError();
  if (msg.empty()) msg = "failed without a message";
  // A blocking op that answers IN_PROGRESS, or a code outside the ABI's range, is the plugin
  // breaking its contract: never hand such a code to the caller as if it meant something.
  if (code >= WEFT_IN_PROGRESS || code < WEFT_ERR_INTERNAL)
    return Status(Code::kPlugin, std::string(name()) + " backend " + op + " returned status " +
                                     std::to_string(code) + ", which it may not: " + msg);
  return Status(static_cast<Code>(code), std::string(name()) + " backend " + op + ": " + msg);
}

}  // namespace weft::backends
