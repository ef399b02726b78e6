#include "api/src/context.hpp"
#include "api/src/plan_cache.hpp"

#include <unistd.h>

#include <cstdlib>
#include <string>

#include "backends/bootstrap/store_client.hpp"
#include "backends/bootstrap/store_server.hpp"
#include "backends/env/launch_env.hpp"
#include "backends/env/store_settings.hpp"
#include "backends/host/plugin_loader.hpp"
#include "common/clock.hpp"
#include "common/fnv1a.hpp"
#include "common/log.hpp"

namespace weft::api {
namespace {

using Clock = std::chrono::steady_clock;

std::string Identity() {
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  return std::string(host) + ":" + std::to_string(getpid());
}

}  // namespace

Clock::time_point Context::Deadline(int64_t ms) const { return DeadlineFromTimeoutMs(ms); }

Result<std::unique_ptr<Context>> Context::Create(const weft_context_options_t* opts) {
  std::unique_ptr<Context> ctx(new Context());
  WEFT_RETURN_IF_ERROR(ctx->Bootstrap(opts));
  WEFT_RETURN_IF_ERROR(ctx->LoadBackend());
  if (ctx->world_size_ > 1) {
    // Connect the world now, so that a broken launch fails here and not in the first op.
    std::vector<int32_t> world(ctx->world_size_);
    for (int32_t r = 0; r < ctx->world_size_; ++r) world[r] = r;
    auto joined = ctx->Execute(
        [&]() -> Status {
          WEFT_ASSIGN_OR_RETURN(auto* comm,
                                ctx->Group(world, ctx->Deadline(ctx->connect_timeout_ms_)));
          (void)comm;
          return Status::Ok();
        },
        false);
    if (!joined.ok()) return joined.status();
  }
  WEFT_LOG_DEBUG("context ready: rank {} of {}, backend {}", ctx->rank_, ctx->world_size_,
                 ctx->backend_name_);
  return ctx;
}

Status Context::Bootstrap(const weft_context_options_t* opts) {
  WEFT_ASSIGN_OR_RETURN(check_policy_, ReadCheckPolicy());
  backends::LaunchOptions lo;
  if (opts) {
    lo.rank = opts->rank;
    lo.world_size = opts->world_size;
    lo.store_port = opts->store_port;
    if (opts->store_host) lo.store_host = opts->store_host;
  }
  WEFT_RETURN_IF_ERROR(ReadSettings(opts));
  WEFT_ASSIGN_OR_RETURN(backends::LaunchEnv env, backends::DetectLaunchEnv(lo, [](const char* n) {
                          return std::getenv(n);
                        }));
  rank_ = env.rank;
  world_size_ = env.world_size;
  world_ranks_.resize(world_size_);
  for (int32_t r = 0; r < world_size_; ++r) world_ranks_[r] = r;
  local_rank_ = env.local_rank;
  local_world_size_ = env.local_world_size;
  log::SetRank(rank_);
  if (!env.ignored.empty()) WEFT_LOG_INFO("launch: {}", env.ignored);
  WEFT_RETURN_IF_ERROR(OpenBackend(opts));
  if (world_size_ == 1) return Status::Ok();
  WEFT_RETURN_IF_ERROR(StartStore(env.store_host, env.store_port, env.hosts_store()));
  Status s = Rendezvous();
  if (server_ && s.code() == Code::kInvalidUsage) {
    // This store carries "init/error" to the other ranks: keep it up until they have read it
    // and gone (briefly), or they would see the store vanish instead of the reason.
    const auto linger =
        std::min(Deadline(connect_timeout_ms_), Clock::now() + std::chrono::seconds(2));
    (void)store_->Leave(linger);
    store_->Close();
    server_->WaitAllLeft(0, linger);
  }
  return s;
}

// SPEC §8 "Store security": the host rank binds exactly the address the others connect to,
// and every connection proves it holds the job's secret (docs/design/bootstrap_store.md).
Status Context::StartStore(const std::string& host, uint16_t port, bool host_it) {
  namespace bs = backends::bootstrap;
  WEFT_ASSIGN_OR_RETURN(backends::StoreSettings settings,
                        backends::ReadStoreSettings([](const char* n) { return std::getenv(n); }));
  WEFT_ASSIGN_OR_RETURN(bs::StoreSecret secret,
                        bs::ChooseStoreSecret(settings.token, settings.insecure, host, port));
  const uint32_t max_message = settings.max_message.value_or(bs::kDefaultMaxMessage);
  if (host_it) {
    bs::StoreServer::Options server{host, port, world_size_, secret, {}};
    server.limits.max_message = max_message;
    server.limits.max_stored_bytes = settings.max_bytes.value_or(bs::kDefaultMaxStoredBytes);
    server.limits.max_connections = settings.max_connections.value_or(0);
    WEFT_ASSIGN_OR_RETURN(server_, bs::StoreServer::Start(server));
  }
  return ConnectStore(host, port, secret, max_message);
}

Status Context::ConnectStore(const std::string& host, uint16_t port,
                             const backends::bootstrap::StoreSecret& secret, uint32_t max_message) {
  const auto deadline = Deadline(connect_timeout_ms_);
  WEFT_ASSIGN_OR_RETURN(store_, backends::bootstrap::StoreClient::Connect(host, port, deadline,
                                                                          {secret, max_message}));
  Status s = store_->Register(
      rank_, [this](const std::string& k, const std::string& v) { OnStoreEvent(k, v); }, deadline);
  if (s.code() == Code::kInvalidUsage) {
    // Another live process holds this rank already. Only this process learns it from the
    // store; tell the ranks waiting in Rendezvous, so that they fail now too and not at the
    // connect deadline.
    const std::string problem = "rank " + std::to_string(rank_) +
                                " is claimed twice: " + Identity() + " was refused (" +
                                s.message() + ")";
    (void)store_->Publish("init/error", problem, deadline);
    return InvalidUsage("inconsistent world: " + problem);
  }
  return s;
}

// Every rank claims its rank number and checks the world size against rank 0's, so that a
// broken launch fails fast on every rank with a message naming the ranks involved.
Status Context::Rendezvous() {
  const auto deadline = Deadline(connect_timeout_ms_);
  const std::string me = Identity();
  const std::string claim = "init/rank/" + std::to_string(rank_);
  WEFT_ASSIGN_OR_RETURN(std::string owner, store_->CompareSet(claim, std::nullopt, me, deadline));
  std::string problem;
  if (owner != me)
    problem = "rank " + std::to_string(rank_) + " is claimed twice: by " + owner + " and by " + me;
  if (rank_ == 0)
    WEFT_RETURN_IF_ERROR(store_->Set("init/world_size", std::to_string(world_size_), deadline));
  WEFT_ASSIGN_OR_RETURN(std::string ws, store_->Get("init/world_size", deadline));
  if (problem.empty() && ws != std::to_string(world_size_))
    problem = "rank " + std::to_string(rank_) + " was launched with a world size of " +
              std::to_string(world_size_) + " but rank 0 with " + ws;
  if (problem.empty()) WEFT_RETURN_IF_ERROR(CompareSettings(deadline));
  if (!problem.empty()) {
    (void)store_->Publish("init/error", problem, deadline);
    return InvalidUsage("inconsistent world: " + problem);
  }
  WEFT_ASSIGN_OR_RETURN(int64_t joined, store_->Add("init/joined", 1, deadline));
  if (joined == world_size_) WEFT_RETURN_IF_ERROR(store_->Set("init/ready", "1", deadline));
  // Wait for "ready" in short slices so that another rank's "init/error" ends the wait.
  while (true) {
    const auto slice = std::min(deadline, Clock::now() + std::chrono::milliseconds(100));
    Status s = store_->Wait({"init/ready"}, slice);
    if (s.ok()) break;
    WEFT_ASSIGN_OR_RETURN(bool err, store_->Check({"init/error"}, deadline));
    if (err) {
      WEFT_ASSIGN_OR_RETURN(std::string msg, store_->Get("init/error", deadline));
      return InvalidUsage("inconsistent world: " + msg);
    }
    if (s.code() != Code::kTimeout || Clock::now() >= deadline)
      return Status(s.code(), "waiting for all " + std::to_string(world_size_) +
                                  " ranks to join (" + std::to_string(joined) +
                                  " had when this rank joined): " + s.message());
  }
  return SettingsAgreed(deadline);
}

// Initialises the plugin OpenBackend (in Bootstrap) chose and opened.
Status Context::LoadBackend() {
  backends::Backend::Args args{rank_,       world_size_, local_rank_, local_world_size_,
                               timeout_ms_, store_.get()};
  WEFT_ASSIGN_OR_RETURN(backend_, backends::Backend::Create(std::move(plugin_), args));
  backend_name_ = backend_->name();
  return Status::Ok();
}

Result<backends::Communicator*> Context::Group(const std::vector<int32_t>& ranks,
                                               Clock::time_point deadline) {
  // The world's calls pass world_ranks_ itself: no lock, no comparison.
  if (&ranks == &world_ranks_) {
    if (backends::Communicator* c = world_comm_.load(std::memory_order_acquire)) return c;
  }
  {
    std::lock_guard<std::mutex> lock(comms_mu_);
    if (last_comm_ != nullptr && ranks == last_group_) return last_comm_;
  }
  std::string key = "comm/" + std::to_string(ranks.size());
  const uint64_t h = Fnv1a().Ints(ranks).value();  // the ordered rank list
  int32_t me = -1;
  for (size_t i = 0; i < ranks.size(); ++i)
    if (ranks[i] == rank_) me = static_cast<int32_t>(i);
  if (me < 0) return InvalidUsage("rank " + std::to_string(rank_) + " is not in the group");
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(h));
  key += "-" + std::string(hex);
  std::lock_guard<std::mutex> lock(comms_mu_);
  auto it = comms_.find(key);
  if (it != comms_.end()) {
    last_group_ = ranks;
    last_comm_ = it->second.get();
    if (ranks == world_ranks_) world_comm_.store(last_comm_, std::memory_order_release);
    return last_comm_;
  }
  const int64_t ms = RemainingMs(deadline);
  weft_bk_comm_t* raw = nullptr;
  backends::TakePluginError();
  const weft_status_t s = backend_->table().comm_create(backend_->state(), ranks.data(),
                                                        static_cast<int32_t>(ranks.size()), me,
                                                        (key + "/").c_str(), ms, &raw);
  if (s != WEFT_OK) return backend_->Error(s, "comm_create");
  auto comm = std::make_unique<backends::Communicator>(*backend_, raw, ranks, me);
  backends::Communicator* out = comm.get();
  comms_.emplace(key, std::move(comm));
  last_group_ = ranks;
  last_comm_ = out;
  if (ranks == world_ranks_) world_comm_.store(out, std::memory_order_release);
  return out;
}

}  // namespace weft::api
