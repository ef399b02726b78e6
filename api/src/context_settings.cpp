// A context's settings (docs/parameters.md): the deadlines, the backend plugin opened before
// the rendezvous so that its variables are known there, and the must-match values every rank
// compares with rank 0's during the rendezvous. One comparison per context is enough: host
// variables cannot change while a context lives (params::Pinned), and a plugin reads its own
// once, in init().
#include "api/src/context.hpp"
#include "backends/bootstrap/store_client.hpp"
#include "backends/host/plugin_loader.hpp"
#include "common/params.hpp"

namespace weft::api {

Status Context::ReadSettings(const weft_context_options_t* opts) {
  WEFT_RETURN_IF_ERROR(params::Check());
  // 0 in the options means "not given": then the variable, whose default is the documented one.
  if (opts && opts->timeout_ms != 0) {
    timeout_ms_ = opts->timeout_ms;
  } else {
    WEFT_ASSIGN_OR_RETURN(timeout_ms_, params::Int("WEFT_TIMEOUT_MS"));
  }
  if (opts && opts->connect_timeout_ms != 0) {
    connect_timeout_ms_ = opts->connect_timeout_ms;
  } else {
    WEFT_ASSIGN_OR_RETURN(connect_timeout_ms_, params::Int("WEFT_CONNECT_TIMEOUT_MS"));
  }
  return Status::Ok();
}

Status Context::OpenBackend(const weft_context_options_t* opts) {
  std::string name;
  const char* source = "opts->backend";
  if (opts && opts->backend) name = opts->backend;
  if (name.empty()) {
    source = "WEFT_BACKEND";
    WEFT_ASSIGN_OR_RETURN(name, params::Text("WEFT_BACKEND"));
  }
  if (name.empty()) name = world_size_ > 1 ? "gloo" : "self";
  // Named after where it came from, before the file system sees it (an overlong name once
  // escaped as a std::filesystem exception).
  WEFT_RETURN_IF_ERROR(backends::CheckPluginName(name, source));
  WEFT_ASSIGN_OR_RETURN(std::string disabled, params::Text("WEFT_BACKEND_DISABLE_OPS"));
  // Deterministic reductions: the host composes them (composed_ops.hpp: member order).
  WEFT_ASSIGN_OR_RETURN(const int64_t ordered, params::Int("WEFT_DETERMINISTIC_REDUCTIONS"));
  if (ordered != 0 && disabled != "all")
    disabled +=
        std::string(disabled.empty() ? "" : ",") + "allreduce,reduce_scatter,reduce_scatterv";
  WEFT_ASSIGN_OR_RETURN(plugin_, backends::LoadBackendPlugin(name, disabled));
  // The plugin reads these in init(); checked here first, so that a malformed one fails
  // before this rank joins the others, with the variable named.
  const std::vector<params::Setting> mine = params::ReadSettings(plugin_->params());
  WEFT_RETURN_IF_ERROR(params::FirstError(mine));
  must_match_ = params::MustMatch(params::HostSettings());
  for (params::MatchValue& v : must_match_) {
    // The backend in effect, wherever it was chosen (options, the variable, the default) and
    // however it was named (a name or a path): the plugin's own name.
    if (v.name == "WEFT_BACKEND") v.value = plugin_->table().name;
  }
  for (params::MatchValue& v : params::MustMatch(mine)) must_match_.push_back(std::move(v));
  return Status::Ok();
}

// A difference is reported only once every rank has joined (SettingsAgreed), unlike a broken
// launch, which fails at once: every rank is then registered with the store, so rank 0 keeps
// it up until each has read the reason, and no rank arrives late to a store that is gone.
// The first difference recorded wins, so that every rank reports the same one.
Status Context::CompareSettings(std::chrono::steady_clock::time_point deadline) {
  if (rank_ == 0) return store_->Set("init/settings", params::EncodeMatches(must_match_), deadline);
  WEFT_ASSIGN_OR_RETURN(std::string text, store_->Get("init/settings", deadline));
  auto theirs = params::DecodeMatches(text);
  std::string diff = theirs.ok() ? params::FirstMismatch(must_match_, rank_, *theirs, 0)
                                 : "rank 0's settings are unreadable: " + theirs.status().message();
  if (diff.empty()) return Status::Ok();
  diff += " (it must be equal on every rank: docs/parameters.md)";
  return store_->CompareSet("init/settings_error", std::nullopt, diff, deadline).status();
}

Status Context::SettingsAgreed(std::chrono::steady_clock::time_point deadline) {
  // Every rank recorded its difference before it joined, and this runs after the last join.
  WEFT_ASSIGN_OR_RETURN(bool differs, store_->Check({"init/settings_error"}, deadline));
  if (!differs) return Status::Ok();
  WEFT_ASSIGN_OR_RETURN(std::string msg, store_->Get("init/settings_error", deadline));
  return InvalidUsage("inconsistent world: " + msg);
}

}  // namespace weft::api
