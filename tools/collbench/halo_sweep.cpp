#include "tools/collbench/halo_sweep.hpp"

#include <chrono>
#include <optional>
#include <utility>

#include "tools/collbench/halo_case.hpp"
#include "tools/collbench/halo_raw.hpp"
#include "tools/collbench/stats.hpp"
#include "tools/collbench/weft_runner.hpp"

namespace weft::collbench {
namespace {

using Clock = std::chrono::steady_clock;

std::string Dims(const std::vector<int64_t>& v) {
  std::string s;
  for (const int64_t x : v) s += (s.empty() ? "" : "x") + std::to_string(x);
  return s;
}

std::string RawKind(const HaloPattern& p, const RawHalo& raw) {
  std::string kind = "weft_send/recv";
  if (raw.packs()) kind += " + packing";
  if (!p.inplace) kind += p.star ? " + interior copy and zero corners" : " + interior copy";
  return kind;
}

// A halo pattern's row from what both halo sweeps measure.
Row MakeRow(const HaloPattern& p, const HaloGeometry& g, const std::vector<double>& halo_s,
            const std::vector<double>& raw_s, const int64_t (&counts)[3],
            const int64_t (&wrong)[2]) {
  return MakeHaloRow({p.name, Dims(g.GlobalShape(p)), Dims(g.local), g.depth, g.face_bytes}, halo_s,
                     raw_s, counts, wrong);
}

}  // namespace

Row MakeHaloRow(const HaloRowInfo& info, const std::vector<double>& halo_s,
                const std::vector<double>& raw_s, const int64_t (&counts)[3],
                const int64_t (&wrong)[2]) {
  Row row;
  row.halo = true;
  row.pattern = info.pattern;
  row.shape = info.shape;
  row.local = info.local;
  row.depth = info.depth;
  row.size_bytes = info.size_bytes;
  row.count = info.size_bytes / 4;
  row.type = "float32";
  row.redop = "none";
  row.recv_bytes = counts[0], row.raw_recv_bytes = counts[1], row.messages = counts[2];
  // Bandwidth: the bytes one rank receives per exchange over the time (busbw = algbw).
  row.weft = MakeSide(halo_s, counts[0], 1.0, wrong[0]);
  row.raw = MakeSide(raw_s, counts[1], 1.0, wrong[1]);
  row.ratio = row.raw.time.median / row.weft.time.median;
  std::vector<double> paired;
  for (size_t i = 0; i < halo_s.size(); ++i) paired.push_back(raw_s[i] / halo_s[i]);
  row.ratio_q1 = Quantile(paired, 0.25);
  row.ratio_q3 = Quantile(paired, 0.75);
  return row;
}

bool HaloSweep::Measure(const HaloPattern& p, int64_t bytes, std::string* plan,
                        std::vector<Row>* rows, std::string* error) {
  if (p.conv) return MeasureConv(p, bytes, plan, rows, error);
  for (const int64_t scale : InteriorScales(p)) {
    const std::optional<HaloGeometry> g = MakeHaloGeometry(p, bytes, nranks_, scale);
    if (!g) continue;
    Row row;
    if (!MeasureOne(p, *g, plan, &row, error)) return false;
    plan = nullptr;
    rows->push_back(std::move(row));
  }
  return true;
}

bool HaloSweep::MeasureOne(const HaloPattern& p, const HaloGeometry& g, std::string* plan, Row* row,
                           std::string* error) {
  HaloCase hc;
  if (!hc.Init(ctx_, p, g, rank_, error)) return false;
  if (plan != nullptr) *plan = hc.Describe();
  RawHalo raw(ctx_, p, g, rank_);
  const auto run = [&](bool halo) {
    const weft_status_t s = halo ? hc.Run() : raw.Run(hc.local(), hc.padded());
    if (s != WEFT_OK) *error = WeftError(halo ? "halo exchange " + p.name : "raw " + p.name, s);
    return s == WEFT_OK;
  };
  std::vector<double> halo_s, raw_s;
  hc.Fill();
  for (int i = 0; i < options_.warmup + options_.iters; ++i) {
    for (const bool halo : {true, false}) {
      if (!Barrier(ctx_, error)) return false;
      const auto t0 = Clock::now();
      if (!run(halo)) return false;
      if (i >= options_.warmup) (halo ? halo_s : raw_s).push_back(Seconds(t0, Clock::now()));
    }
  }
  int64_t wrong[2] = {-1, -1};  // halo, raw
  if (options_.check) {
    hc.Fill();
    if (!run(true)) return false;
    const Corners corners = p.inplace ? Corners::kPoison : Corners::kZero;
    wrong[0] = hc.CountWrong(corners);
    hc.Fill();
    if (!run(false)) return false;
    wrong[1] = hc.CountWrong(corners);
    if (!AllreduceInPlace(ctx_, wrong, 2, {kDLInt, 64, 1}, WEFT_REDUCE_SUM, error)) return false;
  }
  int64_t counts[3] = {hc.recv_bytes(), raw.recv_bytes(), raw.messages()};
  const auto n = static_cast<int64_t>(halo_s.size());
  if (!AllreduceInPlace(ctx_, counts, 3, {kDLInt, 64, 1}, WEFT_REDUCE_MAX, error) ||
      !AllreduceInPlace(ctx_, halo_s.data(), n, {kDLFloat, 64, 1}, WEFT_REDUCE_MAX, error) ||
      !AllreduceInPlace(ctx_, raw_s.data(), n, {kDLFloat, 64, 1}, WEFT_REDUCE_MAX, error)) {
    return false;
  }
  *row = MakeRow(p, g, halo_s, raw_s, counts, wrong);
  row->raw_kind = RawKind(p, raw);
  return true;
}

}  // namespace weft::collbench
