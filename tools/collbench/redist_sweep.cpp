#include "tools/collbench/redist_sweep.hpp"

#include <chrono>
#include <exception>
#include <memory>
#include <vector>

#include "tools/collbench/cases.hpp"
#include "tools/collbench/redist_case.hpp"
#include "tools/collbench/stats.hpp"
#include "tools/collbench/weft_runner.hpp"

namespace weft::collbench {
namespace {

using Clock = std::chrono::steady_clock;

// The reference collective: Weft's on the same backend, or raw Gloo.
class Reference {
 public:
  Reference(weft_context_t* ctx, RawGloo* raw, std::unique_ptr<Case> c)
      : ctx_(ctx), raw_(raw), case_(std::move(c)) {}
  bool Barrier(std::string* error) {
    if (raw_ != nullptr) {
      raw_->Barrier();
      return true;
    }
    const weft_status_t s = weft_barrier(ctx_, nullptr, 0, nullptr, nullptr, nullptr);
    if (s != WEFT_OK) *error = WeftError("barrier", s);
    return s == WEFT_OK;
  }
  bool Run(std::string* error) {
    if (raw_ != nullptr) {
      raw_->Run(*case_);
      return true;
    }
    const weft_status_t s = RunWeft(ctx_, *case_);
    if (s != WEFT_OK) *error = WeftError(OpName(case_->op()), s);
    return s == WEFT_OK;
  }
  Case& c() { return *case_; }
  std::string Kind() const {
    return std::string(raw_ != nullptr ? "gloo " : "weft ") + OpName(case_->op());
  }

 private:
  weft_context_t* ctx_;
  RawGloo* raw_;
  std::unique_ptr<Case> case_;
};

}  // namespace

std::optional<Row> RedistSweep::Measure(const Pattern& p, int64_t bytes, std::string* plan,
                                        std::string* error) {
  if (RedistCase::GlobalShape(bytes)[0] == 0) return std::nullopt;
  RedistCase rc;
  if (!rc.Init(ctx_, p, bytes, rank_, nranks_, error)) return std::nullopt;
  if (plan != nullptr) *plan = rc.Describe();
  const int64_t size = rc.size_bytes();

  std::unique_ptr<Reference> ref;
  if (const std::optional<RawRef> r = ReferenceFor(p, size, nranks_)) {
    const DType& f32 = *FindDType("float32");
    const Geometry g = MakeGeometry(r->op, r->nominal_bytes, f32, nranks_, rank_);
    if (g.count > 0) {
      auto c = std::make_unique<Case>(r->op, g, f32, r->redop, nranks_, rank_);
      RawGloo* raw = raw_ != nullptr && RawGloo::Supports(*c) ? raw_ : nullptr;
      ref = std::make_unique<Reference>(ctx_, raw, std::move(c));
    }
  }

  std::vector<double> redist_s, ref_s;
  int64_t wrong[2] = {-1, -1};  // redistribute, reference
  try {
    rc.Fill();
    if (ref) ref->c().Fill();
    for (int i = 0; i < options_.warmup + options_.iters; ++i) {
      const bool timed = i >= options_.warmup;
      if (weft_status_t s = weft_barrier(ctx_, nullptr, 0, nullptr, nullptr, nullptr); s) {
        *error = WeftError("barrier", s);
        return std::nullopt;
      }
      auto t0 = Clock::now();
      if (weft_status_t s = rc.Run(); s != WEFT_OK) {
        *error = WeftError("weft_plan_execute " + p.name, s);
        return std::nullopt;
      }
      if (timed) redist_s.push_back(Seconds(t0, Clock::now()));
      if (!ref) continue;
      if (!ref->Barrier(error)) return std::nullopt;
      t0 = Clock::now();
      if (!ref->Run(error)) return std::nullopt;
      if (timed) ref_s.push_back(Seconds(t0, Clock::now()));
    }
    if (options_.check) {
      rc.Fill();
      if (weft_status_t s = rc.Run(); s != WEFT_OK) {
        *error = WeftError("weft_plan_execute " + p.name, s);
        return std::nullopt;
      }
      wrong[0] = rc.CountWrong();
      if (ref) {
        ref->c().Fill();
        if (!ref->Run(error)) return std::nullopt;
        wrong[1] = ref->c().CountWrong();
      }
      // -1 (unchecked) is the same on every rank, so the sum stays negative.
      if (!AllreduceInPlace(ctx_, wrong, 2, {kDLInt, 64, 1}, WEFT_REDUCE_SUM, error)) {
        return std::nullopt;
      }
      for (int64_t& w : wrong) w = w < 0 ? -1 : w;
    }
  } catch (const std::exception& e) {
    *error = "raw gloo reference of " + p.name + ": " + e.what();
    return std::nullopt;
  }
  if (!AllreduceInPlace(ctx_, redist_s.data(), static_cast<int64_t>(redist_s.size()),
                        {kDLFloat, 64, 1}, WEFT_REDUCE_MAX, error) ||
      (ref && !AllreduceInPlace(ctx_, ref_s.data(), static_cast<int64_t>(ref_s.size()),
                                {kDLFloat, 64, 1}, WEFT_REDUCE_MAX, error))) {
    return std::nullopt;
  }
  Row row;
  row.pattern = p.name;
  row.shape = std::to_string(rc.shape()[0]) + "x" + std::to_string(rc.shape()[1]);
  row.size_bytes = size;
  row.count = size / 4;
  row.type = "float32";
  row.redop = "none";
  const double factor = PatternBusFactor(p, nranks_);
  row.weft = MakeSide(redist_s, size, factor, wrong[0]);
  if (!ref) return row;
  // The same global bytes and factor on both sides, so busbw ratio = time ratio.
  row.raw = MakeSide(ref_s, size, factor, wrong[1]);
  row.raw_kind = ref->Kind();
  row.ratio = row.raw.time.median / row.weft.time.median;
  std::vector<double> paired;
  for (size_t i = 0; i < redist_s.size(); ++i) paired.push_back(ref_s[i] / redist_s[i]);
  row.ratio_q1 = Quantile(paired, 0.25);
  row.ratio_q3 = Quantile(paired, 0.75);
  return row;
}

}  // namespace weft::collbench
