#include "backends/nccl/plugin/state.hpp"

#include <algorithm>
#include <chrono>

#include "backends/nccl/params.hpp"
#include "backends/nccl/plugin/comm.hpp"
#include "backends/nccl/plugin/watchdog.hpp"

namespace weft::backends::nccl_plugin {

weft_status_t State::Create(const weft_bk_host_api_t* host, const weft_bk_init_args_t* args,
                            std::unique_ptr<State>* out) {
  std::unique_ptr<State> s(new State());
  s->host_ = host;
  s->args_ = *args;
  std::string why;
  s->cuda_ = CudaApi::Load(&why);
  if (!s->cuda_) return s->Fail(WEFT_ERR_NOT_AVAILABLE, why);
  if (!s->cuda_->DeviceVisible(&why)) return s->Fail(WEFT_ERR_NOT_AVAILABLE, why);
  s->nccl_ = NcclApi::Load(&why);
  if (!s->nccl_) return s->Fail(WEFT_ERR_NOT_AVAILABLE, why);
  int count = 0;
  s->cuda_->GetDeviceCount(&count);
  // One GPU per rank as torchrun and srun lay them out: the node's ranks take the node's
  // devices in turn.
  s->device_ = std::max(0, args->local_rank) % std::max(1, count);
  if (weft_status_t st = s->UseDevice(); st != WEFT_OK) return st;
  const param::Parsed period = param::Read(kParams[2]);  // WEFT_NCCL_WATCHDOG_MS
  if (!period.ok()) return s->Fail(WEFT_ERR_INVALID_ARGUMENT, period.error);
  const param::Parsed timeouts = param::Read(kParams[3]);  // WEFT_NCCL_DEVICE_TIMEOUTS
  if (!timeouts.ok()) return s->Fail(WEFT_ERR_INVALID_ARGUMENT, timeouts.error);
  s->device_timeouts_ = timeouts.value.number != 0;
  State* raw = s.get();
  s->watchdog_ = std::make_unique<Watchdog>(std::chrono::milliseconds(period.value.number),
                                            [raw] { raw->Watch(); });
  *out = std::move(s);
  return WEFT_OK;
}

State::~State() { watchdog_.reset(); }

weft_status_t State::Fail(weft_status_t s, const std::string& message) const {
  const std::string m = "nccl: " + message;
  host_->set_error(host_->host_data, m.c_str());
  return s;
}

weft_status_t State::UseDevice() const {
  // cudaGetDevice is cheap (a thread-local read); cudaSetDevice may not be.
  int current = -1;
  if (cuda_->GetDevice(&current) == cuda::kSuccess && current == device_) return WEFT_OK;
  const cudaError_t e = cuda_->SetDevice(device_);
  if (e != cuda::kSuccess) return Fail(WEFT_ERR_BACKEND, cuda_->Describe("cudaSetDevice", e));
  return WEFT_OK;
}

void State::Register(Comm* c) {
  std::lock_guard<std::mutex> lock(mu_);
  comms_.push_back(c);
}

void State::Unregister(Comm* c) {
  std::lock_guard<std::mutex> lock(mu_);
  comms_.erase(std::remove(comms_.begin(), comms_.end(), c), comms_.end());
}

weft_status_t State::Failure() const {
  const weft_status_t s = failure_.load();
  if (s == WEFT_OK) return s;
  std::lock_guard<std::mutex> lock(mu_);
  host_->set_error(host_->host_data, failure_message_.c_str());
  return s;
}

weft_status_t State::Poll() {
  if (weft_status_t s = failure_.load(); s != WEFT_OK) return Failure();
  std::string why;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (Comm* c : comms_) {
      if (c->AsyncError(&why)) break;
    }
  }
  if (!why.empty()) AbortAll(WEFT_ERR_PEER_FAILURE, -1, why);
  return Failure();
}

void State::Watch() {
  if (Poll() != WEFT_OK) return;
  int64_t timeout_ms = -1;
  int32_t members = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (Comm* c : comms_) {
      if (c->Overdue(&timeout_ms)) {
        members = c->size();
        break;
      }
    }
  }
  if (members == 0) return;
  AbortAll(WEFT_ERR_TIMEOUT, -1,
           "an operation on a group of " + std::to_string(members) +
               " was still running on its stream past its deadline (" + std::to_string(timeout_ms) +
               " ms after it was enqueued); the context's communicators were aborted");
}

void State::AbortAll(weft_status_t s, int32_t failed_rank, const std::string& why) {
  std::vector<Comm*> comms;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (failure_.load() == WEFT_OK) {
      failure_message_ = "nccl: " + why;
      failed_rank_.store(failed_rank);
      failure_.store(s);
    }
    comms = comms_;
    // Abort under the lock: a communicator cannot unregister (and go) meanwhile.
    for (Comm* c : comms) c->Abort();
  }
}

}  // namespace weft::backends::nccl_plugin
