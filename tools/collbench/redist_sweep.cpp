#include "tools/collbench/redist_sweep.hpp"

#include <chrono>
#include <exception>
#include <memory>
#include <string>
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
  Reference(weft_context_t* ctx, Raw* raw, std::unique_ptr<Case> c)
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
    case_->Sync();  // device buffers: complete means run
    return s == WEFT_OK;
  }
  Case& c() { return *case_; }
  std::string Kind() const {
    return std::string(raw_ != nullptr ? raw_->name() : "weft") + " " + OpName(case_->op());
  }

 private:
  weft_context_t* ctx_;
  Raw* raw_;
  std::unique_ptr<Case> case_;
};

// The reference collective of pattern p at `size` global bytes, or nullptr when it has none.
std::unique_ptr<Reference> MakeReference(weft_context_t* ctx, Raw* raw_lib, DeviceMemory* device,
                                         const Pattern& p, int64_t size, int32_t nranks,
                                         int32_t rank) {
  const std::optional<RawRef> r = ReferenceFor(p, size, nranks);
  if (!r) return nullptr;
  const DType& f32 = *FindDType("float32");
  const Geometry g = MakeGeometry(r->op, r->nominal_bytes, f32, nranks, rank);
  if (g.count <= 0) return nullptr;
  auto c = std::make_unique<Case>(r->op, g, f32, r->redop, nranks, rank, device);
  Raw* raw = raw_lib != nullptr && raw_lib->Supports(*c) ? raw_lib : nullptr;
  return std::make_unique<Reference>(ctx, raw, std::move(c));
}

// Warm-up and timed iterations, each after a barrier: the redistribute, then the reference.
bool TimeRuns(weft_context_t* ctx, const Options& o, RedistCase& rc, Reference* ref,
              const std::string& name, std::vector<double>* redist_s, std::vector<double>* ref_s,
              std::string* error) {
  for (int i = 0; i < o.warmup + o.iters; ++i) {
    const bool timed = i >= o.warmup;
    if (weft_status_t s = weft_barrier(ctx, nullptr, 0, nullptr, nullptr, nullptr); s) {
      *error = WeftError("barrier", s);
      return false;
    }
    auto t0 = Clock::now();
    if (weft_status_t s = rc.Run(); s != WEFT_OK) {
      *error = WeftError("weft_plan_execute " + name, s);
      return false;
    }
    if (timed) redist_s->push_back(Seconds(t0, Clock::now()));
    if (!ref) continue;
    if (!ref->Barrier(error)) return false;
    t0 = Clock::now();
    if (!ref->Run(error)) return false;
    if (timed) ref_s->push_back(Seconds(t0, Clock::now()));
  }
  return true;
}

// One checked run of each: wrong[0] and wrong[1] become the world's wrong elements of the
// redistribute and the reference (-1: not checked).
bool CheckRuns(weft_context_t* ctx, RedistCase& rc, Reference* ref, const std::string& name,
               int64_t* wrong, std::string* error) {
  rc.Fill();
  if (weft_status_t s = rc.Run(); s != WEFT_OK) {
    *error = WeftError("weft_plan_execute " + name, s);
    return false;
  }
  wrong[0] = rc.CountWrong();
  if (ref) {
    ref->c().Fill();
    if (!ref->Run(error)) return false;
    wrong[1] = ref->c().CountWrong();
  }
  // -1 (unchecked) is the same on every rank, so the sum stays negative.
  if (!AllreduceInPlace(ctx, wrong, 2, {kDLInt, 64, 1}, WEFT_REDUCE_SUM, error)) return false;
  for (int k = 0; k < 2; ++k) wrong[k] = wrong[k] < 0 ? -1 : wrong[k];
  return true;
}

}  // namespace

std::optional<Row> RedistSweep::Measure(const Pattern& p, int64_t bytes, std::string* plan,
                                        std::string* error) {
  if (RedistCase::GlobalShape(bytes)[0] == 0) return std::nullopt;
  RedistCase rc;
  std::vector<double> redist_s, ref_s;
  int64_t wrong[2] = {-1, -1};  // redistribute, reference
  std::unique_ptr<Reference> ref;
  int64_t size = 0;
  try {
    if (!rc.Init(ctx_, p, bytes, rank_, nranks_, device_, error)) return std::nullopt;
    if (plan != nullptr) *plan = rc.Describe();
    size = rc.size_bytes();
    ref = MakeReference(ctx_, raw_, device_, p, size, nranks_, rank_);
    rc.Fill();
    if (ref) ref->c().Fill();
    if (!TimeRuns(ctx_, options_, rc, ref.get(), p.name, &redist_s, &ref_s, error))
      return std::nullopt;
    if (options_.check && !CheckRuns(ctx_, rc, ref.get(), p.name, wrong, error))
      return std::nullopt;
  } catch (const std::exception& e) {
    *error = "pattern " + p.name + ": " + e.what();
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
