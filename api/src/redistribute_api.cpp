// extern "C" layer for executing redistributes: weft_plan_execute and the one-shot
// weft_redistribute with its plan cache.
#include <list>
#include <map>
#include <memory>
#include <mutex>

#include "api/src/context_link.hpp"
#include "api/src/guard.hpp"
#include "api/src/handles.hpp"
#include "api/src/plan_handle.hpp"
#include "placement/planner/search.hpp"

using weft::Result;
using weft::Status;
using weft::api::Guard;
using weft::api::PlanRunner;
using weft::placement::LayoutPtr;

namespace {

// Most recently used plans per context, keyed by the layout pair (compared as
// weft_layout_equal does). Per context because every rank of it issues the same sequence of
// calls, so hits, misses and evictions — and with them which execution runs the first-use
// plan check — agree across ranks.
class PlanCache {
 public:
  static constexpr size_t kCapacity = 32;

  Result<PlanRunner> Get(const LayoutPtr& src, const LayoutPtr& dst) {
    const void* ctx = src->mesh().context();
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto& list = lists_[ctx];
      for (auto it = list.begin(); it != list.end(); ++it) {
        if (!Same(it->src, src) || !Same(it->dst, dst)) continue;
        list.splice(list.begin(), list, it);
        return list.front().runner;
      }
    }
    // Planning happens outside the lock; it is deterministic, so a concurrent miss on the same
    // pair builds an identical plan.
    if (!ctx) return weft::InvalidUsage("src is on an abstract mesh: nothing to execute");
    const int32_t rank = weft::api::ContextRank(static_cast<const weft_context_t*>(ctx));
    WEFT_ASSIGN_OR_RETURN(auto exec, weft::api::PlanPair(src, dst, rank));
    PlanRunner runner = weft::api::NewRunner(std::move(exec));
    std::lock_guard<std::mutex> lock(mu_);
    auto& list = lists_[ctx];
    list.push_front(Entry{src, dst, runner});
    if (list.size() > kCapacity) list.pop_back();
    return runner;
  }

  void Forget(const void* ctx) {
    std::list<Entry> dropped;  // released outside the lock
    std::lock_guard<std::mutex> lock(mu_);
    auto it = lists_.find(ctx);
    if (it == lists_.end()) return;
    dropped.swap(it->second);
    lists_.erase(it);
  }

 private:
  struct Entry {
    LayoutPtr src, dst;
    PlanRunner runner;
  };
  static bool Same(const LayoutPtr& a, const LayoutPtr& b) { return a == b || a->SameAs(*b); }

  std::mutex mu_;
  std::map<const void*, std::list<Entry>> lists_;
};

PlanCache& Cache() {
  static PlanCache cache;
  return cache;
}

}  // namespace

void weft::api::ForgetCachedPlans(const void* ctx) { Cache().Forget(ctx); }

extern "C" {

weft_status_t weft_plan_execute(weft_plan_t* plan, const DLTensor* in, DLTensor* out,
                                WEFT_COLLECTIVE_TAIL) {
  return Guard(__func__, [&] {
    WEFT_REQUIRE(plan);
    return weft::api::ExecutePlan(plan->runner, 1, &in, &out, stream, opts, work, false);
  });
}

weft_status_t weft_plan_execute_n(weft_plan_t* plan, int32_t n, const DLTensor* const* in,
                                  DLTensor* const* out, WEFT_COLLECTIVE_TAIL) {
  return Guard(__func__, [&] {
    WEFT_REQUIRE(plan);
    return weft::api::ExecutePlan(plan->runner, n, in, out, stream, opts, work, false);
  });
}

weft_status_t weft_redistribute(const weft_layout_t* src_layout, const DLTensor* in,
                                const weft_layout_t* dst_layout, DLTensor* out,
                                WEFT_COLLECTIVE_TAIL) {
  return Guard(__func__, [&]() -> Status {
    WEFT_REQUIRE(src_layout);
    WEFT_REQUIRE(dst_layout);
    WEFT_ASSIGN_OR_RETURN(PlanRunner runner, Cache().Get(src_layout->layout, dst_layout->layout));
    // The cached plan may still be running (async work): this call then borrows a workspace.
    return weft::api::ExecutePlan(std::move(runner), 1, &in, &out, stream, opts, work, true);
  });
}

}  // extern "C"
