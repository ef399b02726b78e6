#include "api/src/plan_cache.hpp"

#include "api/src/context.hpp"

namespace weft::api {
namespace {

bool Same(const placement::LayoutPtr& a, const placement::LayoutPtr& b) {
  return a == b || a->SameAs(*b);
}

}  // namespace

Result<PlanRunner> PlanCache::Get(const placement::LayoutPtr& src,
                                  const placement::LayoutPtr& dst) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (!Same(it->src, src) || !Same(it->dst, dst)) continue;
      entries_.splice(entries_.begin(), entries_, it);
      return entries_.front().runner;
    }
  }
  // Planning happens outside the lock; it is deterministic, so a concurrent miss on the same
  // pair builds an identical plan.
  WEFT_ASSIGN_OR_RETURN(int64_t cap, ExtraBytesCapFromEnv());
  WEFT_ASSIGN_OR_RETURN(auto exec, PlanPair(src, dst, rank_, cap));
  PlanRunner runner = NewRunner(std::move(exec));
  std::lock_guard<std::mutex> lock(mu_);
  entries_.push_front(Entry{src, dst, runner});
  if (entries_.size() > kCapacity) entries_.pop_back();
  return runner;
}

PlanCache& Context::plan_cache() {
  std::lock_guard<std::mutex> lock(plan_cache_mu_);
  if (!plan_cache_) plan_cache_ = std::make_unique<PlanCache>(rank_);
  return *plan_cache_;
}

}  // namespace weft::api
