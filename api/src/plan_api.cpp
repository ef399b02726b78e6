// extern "C" layer for plans: create, describe, stats, destroy (execution: redistribute_api.cpp).
#include <charconv>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "api/src/context_link.hpp"
#include "api/src/guard.hpp"
#include "api/src/handles.hpp"
#include "api/src/plan_handle.hpp"
#include "common/params.hpp"
#include "placement/planner/localize.hpp"
#include "placement/planner/search.hpp"
#include "placement/planner/tuned_model.hpp"

using weft::InvalidArgument;
using weft::Status;
using weft::api::Guard;
namespace executor = weft::placement::executor;
namespace planner = weft::placement::planner;

namespace weft::api {

PlanRunner NewRunner(std::shared_ptr<const executor::Runnable> exec) {
  PlanRunner r;
  r.shared = std::make_shared<PlanShared>();
  r.shared->exec = std::move(exec);
  r.ws = std::make_shared<executor::BatchWorkspace>();
  r.busy = std::make_shared<std::atomic<bool>>(false);
  return r;
}

Result<std::shared_ptr<const executor::Runnable>> PlanPair(const placement::LayoutPtr& src,
                                                           const placement::LayoutPtr& dst,
                                                           int32_t rank, int64_t extra_bytes_cap) {
  if (!src->mesh().SameAs(dst->mesh())) {
    if (src->mesh().context() != dst->mesh().context())
      return InvalidArgument(
          "src and dst layouts are on different meshes of different contexts (unrelated "
          "meshes; a cross-mesh redistribute needs one context)");
    WEFT_ASSIGN_OR_RETURN(auto cross, executor::CrossExecutor::Create(src, dst, rank));
    return std::shared_ptr<const executor::Runnable>(std::move(cross));
  }
  WEFT_ASSIGN_OR_RETURN(planner::CostModel model, planner::ModelFor(src->mesh()));
  WEFT_ASSIGN_OR_RETURN(planner::Plan p,
                        planner::PlanRedistribute(src, dst, model, extra_bytes_cap));
  WEFT_ASSIGN_OR_RETURN(auto exec, executor::Executor::Create(std::move(p), rank));
  WEFT_ASSIGN_OR_RETURN(auto batch, executor::BatchExecutor::Create({std::move(exec)}));
  return std::shared_ptr<const executor::Runnable>(std::move(batch));
}

Result<int32_t> PlanRank(const placement::Layout& layout, const weft_plan_options_t* opts,
                         const char* name) {
  int32_t rank = -1;
  if (opts) {
    WEFT_RETURN_IF_ERROR(CheckStructSize(opts, sizeof(*opts), kPlanOptionsFirstSize, "opts"));
    if (opts->reserved != 0)
      return InvalidArgument("opts->reserved is " + std::to_string(opts->reserved) +
                             " but must be 0");
    rank = opts->rank;
  }
  if (rank < -1) return InvalidArgument("opts->rank is " + std::to_string(rank));
  if (rank >= 0) return rank;
  const placement::ContextId ctx = layout.mesh().context();
  if (ctx.abstract())
    return InvalidArgument(std::string("opts->rank is -1 but ") + name +
                           " is on an abstract mesh: pass the rank to plan for");
  return ContextRank(ctx, (std::string(name) + "'s context").c_str());
}

Result<int64_t> ExtraBytesCapFromEnv() {
  WEFT_ASSIGN_OR_RETURN(param::Value cap, params::GetFresh("WEFT_PLAN_EXTRA_BYTES_CAP"));
  return cap.number;
}

Result<int64_t> PlanExtraBytesCap(const weft_plan_options_t* opts) {
  int64_t cap = -1;
  constexpr size_t kEnd = offsetof(weft_plan_options_t, extra_bytes_cap) + sizeof(int64_t);
  if (opts && opts->struct_size >= kEnd) cap = opts->extra_bytes_cap;
  if (cap < -1)
    return InvalidArgument("opts->extra_bytes_cap is " + std::to_string(cap) +
                           " but must be >= 0, or -1 for the default");
  if (cap >= 0) return cap;
  return ExtraBytesCapFromEnv();
}

}  // namespace weft::api

namespace {

Status PublishPlan(weft::api::PlanObject object, weft_plan_t** plan) {
  return weft::api::PublishTo(std::make_unique<weft::api::PlanObject>(std::move(object)), plan);
}

Status CreatePlan(const weft_layout_t* src, const weft_layout_t* dst,
                  const weft_plan_options_t* opts, weft_plan_t** plan) {
  WEFT_REQUIRE(plan);
  WEFT_USE(s, src);
  WEFT_USE(d, dst);
  WEFT_ASSIGN_OR_RETURN(int32_t rank, weft::api::PlanRank(*s->layout, opts, "src"));
  WEFT_ASSIGN_OR_RETURN(int64_t cap, weft::api::PlanExtraBytesCap(opts));
  WEFT_ASSIGN_OR_RETURN(auto exec, weft::api::PlanPair(s->layout, d->layout, rank, cap));
  return PublishPlan({weft::api::NewRunner(std::move(exec))}, plan);
}

// Plans each pair; the executor fuses the steps when the plans share their structure.
Status CreatePlanN(int32_t n, const weft_layout_t* const* src, const weft_layout_t* const* dst,
                   const weft_plan_options_t* opts, weft_plan_t** plan) {
  WEFT_REQUIRE(plan);
  if (n < 1) return InvalidArgument("n is " + std::to_string(n) + " but must be >= 1");
  WEFT_REQUIRE(src);
  WEFT_REQUIRE(dst);
  std::vector<weft::placement::LayoutPtr> s(static_cast<size_t>(n)), d(static_cast<size_t>(n));
  for (int32_t i = 0; i < n; ++i) {
    const std::string at = "[" + std::to_string(i) + "]";
    weft::api::Ref<weft::api::LayoutObject> si, di;
    WEFT_RETURN_IF_ERROR(weft::api::Use(src[i], ("src" + at).c_str(), &si));
    WEFT_RETURN_IF_ERROR(weft::api::Use(dst[i], ("dst" + at).c_str(), &di));
    s[static_cast<size_t>(i)] = si->layout;  // shared references: the handles may go now
    d[static_cast<size_t>(i)] = di->layout;
  }
  WEFT_ASSIGN_OR_RETURN(int32_t rank, weft::api::PlanRank(*s[0], opts, "src"));
  WEFT_ASSIGN_OR_RETURN(int64_t cap, weft::api::PlanExtraBytesCap(opts));
  std::vector<std::shared_ptr<const executor::Executor>> parts;
  WEFT_ASSIGN_OR_RETURN(planner::CostModel model, planner::ModelFor(s[0]->mesh()));
  for (size_t i = 0; i < s.size(); ++i) {
    if (!s[i]->mesh().SameAs(d[i]->mesh()))
      return InvalidArgument("pair " + std::to_string(i) +
                             ": src and dst are on different meshes; a batched plan runs on one "
                             "mesh (plan a cross-mesh redistribute on its own)");
    auto p = planner::PlanRedistribute(s[i], d[i], model, cap);
    if (!p.ok())
      return Status(p.status().code(), "pair " + std::to_string(i) + ": " + p.status().message());
    WEFT_ASSIGN_OR_RETURN(auto exec, executor::Executor::Create(std::move(*p), rank));
    parts.push_back(std::move(exec));
  }
  WEFT_ASSIGN_OR_RETURN(auto batch, executor::BatchExecutor::Create(std::move(parts)));
  return PublishPlan({weft::api::NewRunner(std::move(batch))}, plan);
}

}  // namespace

extern "C" {

weft_status_t weft_redistribute_plan_create(const weft_layout_t* src, const weft_layout_t* dst,
                                            const weft_plan_options_t* opts, weft_plan_t** plan) {
  return Guard(__func__, [&] { return CreatePlan(src, dst, opts, plan); });
}

weft_status_t weft_redistribute_plan_create_n(int32_t n, const weft_layout_t* const* src,
                                              const weft_layout_t* const* dst,
                                              const weft_plan_options_t* opts, weft_plan_t** plan) {
  return Guard(__func__, [&] { return CreatePlanN(n, src, dst, opts, plan); });
}

weft_status_t weft_plan_describe(const weft_plan_t* plan, char* buf, size_t len, size_t* needed) {
  return Guard(__func__, [&] {
    WEFT_USE(p, plan);
    return weft::api::WriteText(p->runner.shared->exec->Describe(), buf, len, needed);
  });
}

weft_status_t weft_plan_stats(const weft_plan_t* plan, weft_plan_stats_t* stats) {
  return Guard(__func__, [&]() -> Status {
    WEFT_USE(p, plan);
    WEFT_REQUIRE(stats);
    WEFT_RETURN_IF_ERROR(
        weft::api::CheckStructSize(stats, sizeof(*stats), sizeof(weft_plan_stats_t), "stats"));
    WEFT_ASSIGN_OR_RETURN(planner::RankStats s, p->runner.shared->exec->Stats());
    stats->steps = s.steps;
    stats->send_bytes = s.send_bytes;
    stats->recv_bytes = s.recv_bytes;
    stats->extra_bytes = s.extra_bytes;
    return Status::Ok();
  });
}

weft_status_t weft_plan_destroy(weft_plan_t* plan) {
  // Executions in flight hold their own references to what they run.
  return Guard(__func__, [&] { return weft::api::Destroy(plan, "plan"); });
}

}  // extern "C"
