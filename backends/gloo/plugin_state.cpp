#include "backends/gloo/plugin_state.hpp"

#include <signal.h>

#include <algorithm>
#include <cstring>

#include "backends/gloo/gloo_comm.hpp"
#include "backends/gloo/gloo_device.hpp"

namespace weft::backends::gloo_plugin {
namespace {

// Gloo's TCP pairs write with writev(2), without MSG_NOSIGNAL: writing to a peer that just
// died raises SIGPIPE, whose default action kills this process instead of letting the write
// fail with EPIPE (which Gloo turns into an IoException). So the plugin ignores SIGPIPE,
// unless the program installed its own disposition, which it then keeps.
void IgnoreSigpipe(const Host& host) {
  struct sigaction current {};
  if (sigaction(SIGPIPE, nullptr, &current) != 0 || current.sa_handler != SIG_DFL) return;
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  if (sigaction(SIGPIPE, &ignore, nullptr) == 0) {
    host.Log(WEFT_LOG_DEBUG, "gloo: SIGPIPE ignored (Gloo writes to sockets without MSG_NOSIGNAL)");
  }
}

bool HostApiComplete(const weft_bk_host_api_t& api) {
  return api.set_error && api.store_set && api.store_get && api.store_wait && api.alloc &&
         api.free && api.reduce;
}

}  // namespace

weft_status_t State::Create(const weft_bk_host_api_t* api, const weft_bk_init_args_t* args,
                            std::shared_ptr<State>* out) {
  if (api == nullptr || api->struct_size < sizeof(weft_bk_host_api_t)) {
    // No usable set_error to report through: the status alone says it.
    return WEFT_ERR_VERSION_MISMATCH;
  }
  auto state = std::make_shared<State>(api);
  const Host& host = state->host();
  if ((api->abi_version >> 16) != WEFT_BACKEND_PLUGIN_ABI_MAJOR) {
    return host.Fail(WEFT_ERR_VERSION_MISMATCH,
                     "init: host ABI " + std::to_string(api->abi_version >> 16) + "." +
                         std::to_string(api->abi_version & 0xffff) + ", plugin ABI " +
                         std::to_string(WEFT_BACKEND_PLUGIN_ABI_MAJOR) + "." +
                         std::to_string(WEFT_BACKEND_PLUGIN_ABI_MINOR));
  }
  if (!HostApiComplete(*api)) {
    return host.Fail(WEFT_ERR_INVALID_ARGUMENT, "init: host API lacks a mandatory callback");
  }
  if (weft_status_t s = state->ReadArgs(args); s != WEFT_OK) return s;
  if (state->args_.world_size > 1) {
    IgnoreSigpipe(host);
    if (weft_status_t s = CreateTcpDevice(host, state->args_, &state->device_); s != WEFT_OK) {
      return s;
    }
  }
  *out = std::move(state);
  return WEFT_OK;
}

weft_status_t State::ReadArgs(const weft_bk_init_args_t* args) {
  if (args == nullptr || args->struct_size < offsetof(weft_bk_init_args_t, reserved)) {
    return host_.Fail(WEFT_ERR_INVALID_ARGUMENT, "init: args is NULL or too small");
  }
  // A smaller struct from an older host keeps the defaults of the fields it lacks.
  std::memcpy(&args_, args, std::min<size_t>(args->struct_size, sizeof(args_)));
  args_.struct_size = sizeof(args_);
  if (args_.world_size < 1 || args_.world_rank < 0 || args_.world_rank >= args_.world_size) {
    return host_.Fail(WEFT_ERR_INVALID_ARGUMENT,
                      "init: world_rank " + std::to_string(args_.world_rank) +
                          " outside world_size " + std::to_string(args_.world_size));
  }
  if (args_.local_world_size < 1) args_.local_world_size = 1;
  return WEFT_OK;
}

void State::Abort(weft_status_t status, int32_t failed_rank, const std::string& reason) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!aborted_) {
    abort_status_ = status == WEFT_ERR_PEER_FAILURE ? status : WEFT_ERR_ABORTED;
    abort_rank_ = abort_status_ == WEFT_ERR_PEER_FAILURE ? failed_rank : -1;
    abort_message_ = abort_status_ == WEFT_ERR_PEER_FAILURE
                         ? "rank " + std::to_string(failed_rank) + " failed: " + reason
                         : "aborted: " + reason;
    aborted_ = true;
  }
  for (Comm* comm : comms_) comm->Poison(abort_status_, abort_message_);
}

weft_status_t State::Aborted(std::string* message) const {
  if (!aborted_) return WEFT_OK;
  std::lock_guard<std::mutex> lock(mu_);
  *message = abort_message_;
  return abort_status_;
}

weft_status_t State::AsyncError(int32_t* failed_rank) const {
  std::lock_guard<std::mutex> lock(mu_);
  const bool abort = aborted_;
  if (failed_rank) *failed_rank = abort ? abort_rank_ : first_failed_rank_;
  return abort ? abort_status_ : first_failure_;
}

void State::RecordFailure(weft_status_t status, int32_t failed_rank) {
  std::lock_guard<std::mutex> lock(mu_);
  if (first_failure_ != WEFT_OK) return;
  first_failure_ = status;
  first_failed_rank_ = failed_rank;
}

weft_status_t State::Register(Comm* comm, std::string* abort_message) {
  std::lock_guard<std::mutex> lock(mu_);
  if (aborted_) {
    *abort_message = abort_message_;
    return abort_status_;
  }
  comms_.push_back(comm);
  return WEFT_OK;
}

void State::Unregister(Comm* comm) {
  std::lock_guard<std::mutex> lock(mu_);
  comms_.erase(std::remove(comms_.begin(), comms_.end(), comm), comms_.end());
}

}  // namespace weft::backends::gloo_plugin
