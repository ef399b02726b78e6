// weft_redistribute's plans: the most recently used ones of one context, keyed by the layout
// pair (compared as weft_layout_equal does). Owned by the context, so it lives exactly as long
// as the context's communicators. Every rank of a context issues the same sequence of calls,
// so hits, misses and evictions — and with them which execution runs the first-use plan
// check — agree across ranks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <mutex>

#include "api/src/plan_handle.hpp"
#include "common/result.hpp"
#include "placement/layout.hpp"

namespace weft::api {

class PlanCache {
 public:
  static constexpr size_t kCapacity = 32;

  explicit PlanCache(int32_t rank) : rank_(rank) {}
  Result<PlanRunner> Get(const placement::LayoutPtr& src, const placement::LayoutPtr& dst);

 private:
  struct Entry {
    placement::LayoutPtr src, dst;
    PlanRunner runner;
  };

  const int32_t rank_;
  std::mutex mu_;
  std::list<Entry> entries_;  // most recently used first
};

}  // namespace weft::api
