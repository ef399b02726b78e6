// Every WEFT_* variable libweft reads, declared once (docs/parameters.md is generated from this
// table and the plugins' tables; tests/common/params_doc_test fails when they drift apart).
// Header-only. A variable that header-only code shared with plugins reads is declared beside
// that code and only listed here (common/copy_param.hpp).
//
// To add a variable: add one entry below (keep the groups), read it through
// weft::params::Get/Int/Text("WEFT_NEW_NAME") (common/params.hpp; the name is checked at
// compile time), and regenerate docs/parameters.md as tests/common/params_doc_test says.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/copy_param.hpp"
#include "common/param_parse.hpp"

namespace weft::params {

// A week: longer deadlines are better said as -1 (none).
inline constexpr int64_t kMaxDeadlineMs = int64_t{7} * 24 * 3600 * 1000;
inline constexpr int64_t kMaxInt32 = INT32_MAX;

namespace table {
using namespace weft::param;  // Declare*, audiences, flags: the table reads as a table

inline constexpr weft_bk_param_t kHostParams[] = {
    // What a user may set.
    DeclareString("WEFT_BACKEND", nullptr, kUser, kMustMatch,
                  "backend plugin: a name (self, gloo, ucx) or a path to a .so; unset: gloo "
                  "with 2+ ranks, self with 1 (options.backend wins)"),
    DeclareDeadlineMs("WEFT_TIMEOUT_MS", "300000", 1, kMaxDeadlineMs, kUser, kLocal,
                      "default deadline of every operation (options.timeout_ms wins)"),
    DeclareDeadlineMs("WEFT_CONNECT_TIMEOUT_MS", "60000", 1, kMaxDeadlineMs, kUser, kLocal,
                      "deadline of weft_context_create: store connection, rendezvous, "
                      "connecting the world (options.connect_timeout_ms wins)"),
    DeclareEnum("WEFT_LOG_LEVEL", "warn", "trace|debug|info|warn|warning|error|err|critical|off",
                kUser, kLocal, "level of Weft's log lines on stderr (spdlog's names)"),
    DeclareString("WEFT_PLUGIN_PATH", nullptr, kUser, kLocal,
                  "':'-separated directories searched for libweft-backend-NAME.so before the "
                  "directory of libweft"),
    DeclareString("WEFT_TUNING_FILE", nullptr, kUser, kLocal,
                  "tuning file from collbench tune: link costs for the planner, values for "
                  "tuning variables the environment leaves unset (docs/tuning.md)"),
    DeclareString("WEFT_RULES_PATH", nullptr, kUser, kLocal,
                  "':'-separated directories searched for libweft-rules-NAME.so (rule "
                  "plugins) before the directory of libweft"),
    // Set by weftrun or a job script (SPEC §8); read only when that launch convention wins.
    DeclareInt("WEFT_RANK", nullptr, 0, kMaxInt32, kLaunch, kLocal,
               "this process's rank (with WEFT_WORLD_SIZE: the WEFT launch convention)"),
    DeclareInt("WEFT_WORLD_SIZE", nullptr, 1, kMaxInt32, kLaunch, kLocal,
               "number of ranks (checked against rank 0's at creation)"),
    DeclareInt("WEFT_LOCAL_RANK", nullptr, 0, kMaxInt32, kLaunch, kLocal,
               "rank among the processes of this host"),
    DeclareInt("WEFT_LOCAL_WORLD_SIZE", nullptr, 1, kMaxInt32, kLaunch, kLocal,
               "number of ranks on this host"),
    DeclareString("WEFT_STORE", nullptr, kLaunch, kLocal,
                  "host:port of the bootstrap store (rank 0 hosts it); overrides every launch "
                  "convention's own address"),
    DeclareInt("WEFT_STORE_PORT", nullptr, 1, 65535, kLaunch, kLocal,
               "store port under Slurm; unset: derived from the job and step ids"),
    // The bootstrap store's security and limits (docs/design/bootstrap_store.md). The token's
    // own format (16-1024 printable characters) is checked by backends/env/store_settings.cpp.
    DeclareString("WEFT_STORE_TOKEN", nullptr, kUser, kSecret,
                  "the job's secret, the same on every rank (weftrun sets one per job); unset: "
                  "a loopback store shares one through a user-only file, a network store "
                  "refuses to start"),
    DeclareBool("WEFT_STORE_INSECURE", "0", kUser, kMustMatch,
                "1: let a store other machines can reach run without WEFT_STORE_TOKEN"),
    DeclareBytes("WEFT_STORE_MAX_MESSAGE", "64M", 4096, kGiB, kTuning, kMustMatch,
                 "largest store message, either direction"),
    DeclareBytes("WEFT_STORE_MAX_BYTES", "1G", kMiB, kTiB, kTuning, kLocal,
                 "bytes of keys and values the store holds (read by the store's host)"),
    DeclareInt("WEFT_STORE_MAX_CONNECTIONS", nullptr, 1, int64_t{1} << 20, kTuning, kLocal,
               "authenticated store connections at once (read by the store's host); unset: "
               "4 x world size + 64"),
    // Cross-rank argument checks of the collectives (docs/collective_checks.md).
    DeclareBool("WEFT_CHECK_COLLECTIVES", nullptr, kUser, kMustMatch,
                "1: check every collective and send/recv across the ranks; 0: only where the "
                "backend needs it; unset: also every collective from "
                "WEFT_CHECK_COLLECTIVES_MIN_BYTES per rank"),
    DeclareBytes("WEFT_CHECK_COLLECTIVES_MIN_BYTES", "1M", 0, kTiB, kTuning, kMustMatch,
                 "size from which collectives are checked on a backend that does not need it"),
    // Reproducible training: one reduction order on every backend (docs/redistribute.md).
    DeclareBool("WEFT_DETERMINISTIC_REDUCTIONS", "0", kUser, kMustMatch,
                "1: every all-reduce and reduce-scatter reduces in member order, ((x0 op x1) "
                "op x2) ..., so its bits are the same on every backend, algorithm and tuning "
                "(the backend's own reductions are bypassed)"),
    // Thresholds.
    DeclareBytes("WEFT_PLAN_EXTRA_BYTES_CAP", "256K", 0, kTiB, kTuning, kMustMatch,
                 "how many bytes per rank a cheaper redistribute plan may receive beyond "
                 "SPEC 3.2's bound (plan option extra_bytes_cap wins; part of the plan hash)"),
    DeclareBytes("WEFT_ALLTOALL_CHUNK_BYTES", "8M", 1, kTiB, kTuning, kMustMatch,
                 "redistribute's all-to-all moves each piece in chunks of about this many "
                 "bytes (part of the plan fingerprint)"),
    // Tests and debugging.
    DeclareString("WEFT_BACKEND_DISABLE_OPS", nullptr, kDebug, kMustMatch,
                  "comma list of the plugin's ops to hide (or all), so that the host composes "
                  "them from send/recv: allreduce, allgather, allgatherv, reduce_scatter, "
                  "reduce_scatterv, alltoall, alltoallv, broadcast, barrier, strided"),
    kCopySkewSlowParam,  // common/copy_param.hpp
};

}  // namespace table

using table::kHostParams;
inline constexpr size_t kNumHostParams = std::size(kHostParams);

// A host parameter, found by its name at compile time: Int("WEFT_TIMEOUT_MS") compiles only
// if the table above declares that name.
class Key {
 public:
  consteval Key(const char* name)  // NOLINT(google-explicit-constructor): by name, checked
      : index_(Find(name)) {}
  size_t index() const { return index_; }
  const weft_bk_param_t& spec() const { return kHostParams[index_]; }

 private:
  static consteval size_t Find(std::string_view name) {
    for (size_t i = 0; i < kNumHostParams; ++i)
      if (name == kHostParams[i].name) return i;
    throw "no such WEFT_* variable in common/host_params.hpp";  // a compile error
  }
  size_t index_;
};

}  // namespace weft::params
