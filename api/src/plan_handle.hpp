// What a weft_plan_t holds, and the one execution path of every plan (weft_plan_execute,
// weft_redistribute, weft_halo_*): per-rank buffer checks (published to the peers on
// rejection, SPEC §6.4), the first-execution plan check, and the run through the context's
// ordered executor.
#pragma once

#include <atomic>
#include <memory>

#include "api/src/handle_ref.hpp"
#include "placement/executor/cross_mesh.hpp"
#include "placement/executor/executor_batch.hpp"
#include "weft/halo.h"
#include "weft/redistribute.h"

namespace weft::api {

// Shared by a plan handle and the executions it has in flight (and, in weft_redistribute's
// cache, by executions that borrow a workspace of their own).
struct PlanShared {
  // One tensor or a batch on one mesh (BatchExecutor), a cross-mesh redistribute, or a halo
  // plan (HaloRunnable).
  std::shared_ptr<const placement::executor::Runnable> exec;
  std::atomic<bool> checked{false};   // a first execution has been issued (it runs the check)
  std::atomic<bool> poisoned{false};  // that check found ranks with different plans
};

struct PlanRunner {
  std::shared_ptr<PlanShared> shared;
  std::shared_ptr<placement::executor::BatchWorkspace> ws;
  std::shared_ptr<std::atomic<bool>> busy;  // one execution in flight (SPEC §6.3)
};

PlanRunner NewRunner(std::shared_ptr<const placement::executor::Runnable> exec);

// weft_plan_options_t's size before extra_bytes_cap was appended: the least a caller may pass.
inline constexpr size_t kPlanOptionsFirstSize = 16;

// The rank a plan is made for: opts->rank, or the context's (layouts on a context's mesh).
Result<int32_t> PlanRank(const placement::Layout& layout, const weft_plan_options_t* opts,
                         const char* name);

// WEFT_PLAN_EXTRA_BYTES_CAP (bytes >= 0; unset: the planner's default), read when a plan is
// made; a malformed value is an error naming the variable.
Result<int64_t> ExtraBytesCapFromEnv();
// opts->extra_bytes_cap where the caller's struct has it and it is >= 0, else the default.
Result<int64_t> PlanExtraBytesCap(const weft_plan_options_t* opts);

// Plans one redistribute for `rank`: on one mesh, or across two meshes of one context.
// `extra_bytes_cap`: SPEC §3.2's cap on bytes past the byte bound (same-mesh plans).
Result<std::shared_ptr<const placement::executor::Runnable>> PlanPair(
    const placement::LayoutPtr& src, const placement::LayoutPtr& dst, int32_t rank,
    int64_t extra_bytes_cap);

class Context;

// The context a plan or layout runs on (`owner`: its mesh's context identity, the context's
// handle), held for the call; INVALID_USAGE on an abstract mesh, INVALID_ARGUMENT naming
// `name` when that context was destroyed.
Status RunContext(placement::ContextId owner, const char* name, Ref<Context>* ctx);

// `borrow`: when the plan is busy, run with a workspace of this call's own instead of failing
// (weft_redistribute's shared cached plans).
// `call`: the form the plan runs in (a halo plan's exchange, in-place exchange or accumulate).
// n tensors: in[i] / out[i] (NULL arrays, or entries, on ranks outside the mesh).
Status ExecutePlan(Context& c, PlanRunner runner, const placement::executor::Call& call, int32_t n,
                   const DLTensor* const* in, DLTensor* const* out, void* stream,
                   const weft_call_options_t* opts, weft_work_t** work, bool borrow);

// What a weft_plan_t names: a redistribute or a halo plan (runner.shared->exec->kind()).
struct PlanObject {
  PlanRunner runner;
};
template <>
struct HandleTraits<weft_plan> {
  using Object = PlanObject;
  static constexpr HandleKind kKind = HandleKind::kPlan;
};

}  // namespace weft::api
