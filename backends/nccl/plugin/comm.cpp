#include "backends/nccl/plugin/comm.hpp"

#include <chrono>
#include <thread>

#include "backends/nccl/plugin/completion.hpp"

namespace weft::backends::nccl_plugin {

weft_status_t Comm::Create(State& s, int32_t nranks, int32_t my_index, const char* prefix,
                           int64_t timeout_ms, std::unique_ptr<Comm>* out) {
  std::unique_ptr<Comm> c(new Comm(s, nranks, my_index, prefix ? prefix : ""));
  if (weft_status_t st = s.UseDevice(); st != WEFT_OK) return st;
  const cudaError_t e = s.cuda().StreamCreateWithFlags(&c->stream_, cuda::kStreamNonBlocking);
  if (e != cuda::kSuccess)
    return s.Fail(WEFT_ERR_BACKEND, s.cuda().Describe("cudaStreamCreateWithFlags", e));
  if (weft_status_t st = c->Connect(timeout_ms); st != WEFT_OK) return st;
  *out = std::move(c);
  return WEFT_OK;
}

// Member 0's unique id, published under the group's prefix, to every member.
weft_status_t Comm::ShareUniqueId(ncclUniqueId* id, const plugin_kit::Deadline& deadline) {
  const weft_bk_host_api_t& h = state_.host();
  const std::string key = prefix_ + "/nccl-unique-id";
  if (index_ == 0)
    return h.store_set(h.host_data, key.c_str(), id, sizeof(*id), deadline.RemainingMs());
  size_t len = 0;
  if (weft_status_t st =
          h.store_get(h.host_data, key.c_str(), id, sizeof(*id), &len, deadline.RemainingMs());
      st != WEFT_OK)
    return st;
  if (len != sizeof(*id))
    return state_.Fail(WEFT_ERR_PLUGIN, "the unique id under " + key + " has " +
                                            std::to_string(len) + " bytes, not " +
                                            std::to_string(sizeof(*id)));
  return WEFT_OK;
}

// Member 0 makes the unique id and shares it; every member then initialises without blocking
// and polls until NCCL has connected the group or the deadline passes.
weft_status_t Comm::Connect(int64_t timeout_ms) {
  const plugin_kit::Deadline deadline = plugin_kit::Deadline::FromTimeoutMs(timeout_ms);
  const NcclApi& api = state_.nccl();
  ncclUniqueId id{};
  if (index_ == 0) {
    if (ncclResult_t r = api.GetUniqueId(&id); r != nccl::kSuccess)
      return state_.Fail(WEFT_ERR_BACKEND, api.Describe("ncclGetUniqueId", r));
  }
  // A group of one has nobody to tell (and a world of one has no store).
  if (nranks_ > 1) {
    if (weft_status_t st = ShareUniqueId(&id, deadline); st != WEFT_OK) return st;
  }
  weft_nccl_config_t config = nccl::MakeConfig(false);
  ncclResult_t r = api.CommInitRankConfig(&handle_, nranks_, id, index_, &config);
  if (r != nccl::kSuccess && r != nccl::kInProgress) {
    handle_ = nullptr;
    return state_.Fail(WEFT_ERR_BACKEND, api.Describe("ncclCommInitRankConfig", r));
  }
  auto nap = std::chrono::microseconds(50);
  for (;;) {
    ncclResult_t async = nccl::kInProgress;
    api.CommGetAsyncError(handle_, &async);
    if (async == nccl::kSuccess) return WEFT_OK;
    if (async != nccl::kInProgress) {
      const std::string why = api.Describe("ncclCommInitRankConfig", async, handle_);
      Abort();
      return state_.Fail(WEFT_ERR_PEER_FAILURE,
                         "a group of " + std::to_string(nranks_) + " could not connect: " + why);
    }
    if (deadline.passed()) {
      Abort();
      return state_.Fail(WEFT_ERR_TIMEOUT, "a group of " + std::to_string(nranks_) +
                                               " did not connect before the deadline (" +
                                               std::to_string(timeout_ms) + " ms)");
    }
    std::this_thread::sleep_for(nap);
    nap = std::min<std::chrono::microseconds>(nap * 2, std::chrono::milliseconds(5));
  }
}

Comm::~Comm() {
  const CudaApi& cuda = state_.cuda();
  state_.UseDevice();
  // What is in flight must pass before its scratch goes; a stream held by a dead peer is
  // released by the abort, which a bounded wait makes.
  const auto give_up = std::chrono::steady_clock::now() +
                       std::chrono::milliseconds(std::max<int64_t>(state_.default_timeout_ms(), 0));
  while (stream_ && cuda.StreamQuery(stream_) == cuda::kErrorNotReady) {
    std::string why;
    if (AsyncError(&why) || std::chrono::steady_clock::now() > give_up) {
      Abort();
      break;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (handle_) state_.nccl().CommDestroy(handle_);
    handle_ = nullptr;
  }
  if (stream_) cuda.StreamSynchronize(stream_);
  in_flight_.clear();
  for (cudaEvent_t e : all_events_) cuda.EventDestroy(e);
  if (stream_) cuda.StreamDestroy(stream_);
  cuda.GetLastError();
}

bool Comm::AsyncError(std::string* why) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!handle_) return false;
  ncclResult_t async = nccl::kSuccess;
  state_.nccl().CommGetAsyncError(handle_, &async);
  if (async == nccl::kSuccess || async == nccl::kInProgress) return false;
  *why = "a group of " + std::to_string(nranks_) +
         " failed: " + state_.nccl().Describe("ncclCommGetAsyncError", async, handle_);
  return true;
}

void Comm::Abort() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!handle_) return;
  state_.nccl().CommAbort(handle_);
  handle_ = nullptr;
}

weft_status_t Comm::Aborted() const {
  if (weft_status_t f = state_.Failure(); f != WEFT_OK) return f;
  return state_.Fail(WEFT_ERR_ABORTED, "the communicator was aborted");
}

cudaEvent_t Comm::AcquireEvent() {
  {
    std::lock_guard<std::mutex> lock(pool_mu_);
    if (!free_events_.empty()) {
      cudaEvent_t e = free_events_.back();
      free_events_.pop_back();
      return e;
    }
  }
  cudaEvent_t e = nullptr;
  const cudaError_t r = state_.cuda().EventCreateWithFlags(&e, cuda::kEventDisableTiming);
  if (r != cuda::kSuccess) {
    state_.Fail(WEFT_ERR_BACKEND, state_.cuda().Describe("cudaEventCreateWithFlags", r));
    return nullptr;
  }
  std::lock_guard<std::mutex> lock(pool_mu_);
  all_events_.push_back(e);
  return e;
}

void Comm::ReleaseEvent(cudaEvent_t e) {
  if (!e) return;
  std::lock_guard<std::mutex> lock(pool_mu_);
  free_events_.push_back(e);
}

void Comm::Track(std::shared_ptr<Completion> c) {
  std::lock_guard<std::mutex> lock(pool_mu_);
  in_flight_.push_back(std::move(c));
}

void Comm::Reap() {
  std::vector<std::shared_ptr<Completion>> done;
  std::vector<cudaEvent_t> passed_events;
  deadlines_.Reap(state_.cuda(), &passed_events);
  {
    std::lock_guard<std::mutex> lock(pool_mu_);
    free_events_.insert(free_events_.end(), passed_events.begin(), passed_events.end());
    size_t keep = 0;
    for (auto& c : in_flight_) {
      // Only the completions no request holds any more: a request's owner learns the outcome.
      if (c.use_count() == 1 && state_.cuda().EventQuery(c->event()) != cuda::kErrorNotReady)
        done.push_back(std::move(c));
      else
        in_flight_[keep++] = std::move(c);
    }
    in_flight_.resize(keep);
  }
  for (auto& c : done) {
    bool passed = false;
    c->Test(&passed);  // runs its host work (a released request's delivery)
  }
}

bool Comm::Overdue(int64_t* timeout_ms) {
  if (deadlines_.Overdue(state_.cuda(), timeout_ms)) return true;
  // Ops that keep scratch or host work: their completions hold the event and the deadline.
  std::lock_guard<std::mutex> lock(pool_mu_);
  for (const auto& c : in_flight_) {
    if (c->deadline().passed() && state_.cuda().EventQuery(c->event()) == cuda::kErrorNotReady) {
      *timeout_ms = c->timeout_ms();
      return true;
    }
  }
  return false;
}

}  // namespace weft::backends::nccl_plugin
