#include "tools/collbench/sweep.hpp"

#include <chrono>
#include <exception>
#include <vector>

#include "tools/collbench/cases.hpp"
#include "tools/collbench/stats.hpp"
#include "tools/collbench/weft_runner.hpp"

namespace weft::collbench {
namespace {

const char* RedopName(int redop) {
  static const char* const names[] = {"sum", "avg", "max", "min", "prod"};
  return redop >= 0 && redop < 5 ? names[redop] : "?";
}

}  // namespace

bool Sweep::MaxOverRanks(std::vector<double>* seconds, std::string* error) {
  int64_t shape[1] = {static_cast<int64_t>(seconds->size())};
  DLTensor t{seconds->data(), {kDLCPU, 0}, 1, {kDLFloat, 64, 1}, shape, nullptr, 0};
  const weft_status_t s =
      weft_allreduce(ctx_, nullptr, 0, &t, &t, WEFT_REDUCE_MAX, nullptr, nullptr, nullptr);
  if (s != WEFT_OK) *error = WeftError("allreduce(max) of the times", s);
  return s == WEFT_OK;
}

bool Sweep::SumOverRanks(int64_t* value, std::string* error) {
  int64_t shape[1] = {1};
  DLTensor t{value, {kDLCPU, 0}, 1, {kDLInt, 64, 1}, shape, nullptr, 0};
  const weft_status_t s =
      weft_allreduce(ctx_, nullptr, 0, &t, &t, WEFT_REDUCE_SUM, nullptr, nullptr, nullptr);
  if (s != WEFT_OK) *error = WeftError("allreduce(sum) of #wrong", s);
  return s == WEFT_OK;
}

bool Sweep::Time(Case& c, Raw* raw, std::vector<double>* weft_s, std::vector<double>* raw_s,
                 std::string* error) {
  using Clock = std::chrono::steady_clock;
  for (int i = 0; i < options_.warmup + options_.iters; ++i) {
    const bool timed = i >= options_.warmup;
    // Each side starts together on every rank, so that one rank's lateness is not timed.
    if (weft_status_t s = weft_barrier(ctx_, nullptr, 0, nullptr, nullptr, nullptr); s) {
      *error = WeftError("barrier", s);
      return false;
    }
    auto t0 = Clock::now();
    if (weft_status_t s = RunWeft(ctx_, c); s != WEFT_OK) {
      *error = WeftError(OpName(c.op()), s);
      return false;
    }
    c.Sync();  // device buffers: complete means run, not enqueued
    if (timed) weft_s->push_back(Seconds(t0, Clock::now()));
    if (raw == nullptr) continue;
    raw->Barrier();
    t0 = Clock::now();
    raw->Run(c);
    if (timed) raw_s->push_back(Seconds(t0, Clock::now()));
  }
  return true;
}

bool Sweep::Check(Case& c, Raw* raw, int64_t* weft_wrong, int64_t* raw_wrong, std::string* error) {
  *weft_wrong = *raw_wrong = -1;
  if (!options_.check) return true;
  c.Fill();
  if (weft_status_t s = RunWeft(ctx_, c); s != WEFT_OK) {
    *error = WeftError(OpName(c.op()), s);
    return false;
  }
  *weft_wrong = c.CountWrong();
  if (!SumOverRanks(weft_wrong, error)) return false;
  if (raw == nullptr) return true;
  c.Fill();
  raw->Run(c);
  *raw_wrong = c.CountWrong();
  return SumOverRanks(raw_wrong, error);
}

std::optional<Row> Sweep::Measure(Op op, int64_t bytes, std::string* error) {
  const Geometry g = MakeGeometry(op, bytes, *options_.dtype, nranks_, rank_);
  if (g.count == 0) return std::nullopt;
  std::vector<double> weft_s, raw_s;
  int64_t weft_wrong = -1, raw_wrong = -1;
  Raw* raw = nullptr;
  try {
    Case c(op, g, *options_.dtype, options_.redop, nranks_, rank_, device_);
    c.Fill();
    raw = raw_ != nullptr && raw_->Supports(c) ? raw_ : nullptr;
    if (!Time(c, raw, &weft_s, &raw_s, error) || !Check(c, raw, &weft_wrong, &raw_wrong, error)) {
      return std::nullopt;
    }
  } catch (const std::exception& e) {
    *error = std::string("raw ") + OpName(op) + ": " + e.what();
    return std::nullopt;
  }
  if (!MaxOverRanks(&weft_s, error) || (raw && !MaxOverRanks(&raw_s, error))) return std::nullopt;
  Row row;
  row.op = op;
  row.size_bytes = g.size_bytes;
  row.count = g.count;
  row.type = options_.dtype->name;
  row.redop = OpReduces(op) ? RedopName(options_.redop) : "none";
  const double factor = BusFactor(op, nranks_);
  row.weft = MakeSide(weft_s, g.size_bytes, factor, weft_wrong);
  if (raw == nullptr) return row;
  row.raw = MakeSide(raw_s, g.size_bytes, factor, raw_wrong);
  row.raw_kind = raw->Describe(op);
  row.ratio = row.raw.time.median / row.weft.time.median;
  std::vector<double> paired;
  for (size_t i = 0; i < weft_s.size(); ++i) paired.push_back(raw_s[i] / weft_s[i]);
  row.ratio_q1 = Quantile(paired, 0.25);
  row.ratio_q3 = Quantile(paired, 0.75);
  return row;
}

}  // namespace weft::collbench
