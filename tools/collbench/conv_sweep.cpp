// HaloSweep::MeasureConv: the conv2d-fwd-bwd pattern (conv_case.hpp) at one size, two rows:
// the forward exchange and the backward accumulate, each next to its raw reference, every
// iteration both sides back to back after barriers; then one checked run of each.
#include <chrono>

#include "tools/collbench/conv_case.hpp"
#include "tools/collbench/halo_sweep.hpp"
#include "tools/collbench/weft_runner.hpp"

namespace weft::collbench {
namespace {

using Clock = std::chrono::steady_clock;

Row ConvRow(const ConvCase& cc, const std::string& name, const std::vector<double>& weft_s,
            const std::vector<double>& raw_s, const int64_t (&counts)[3],
            const int64_t (&wrong)[2]) {
  Row row = MakeHaloRow({name, cc.shape(), cc.local(), 1, cc.block_bytes()}, weft_s, raw_s, counts,
                        wrong);
  row.raw_kind = name == "conv2d-fwd" ? "weft_send/recv rows, then packed columns + interior copy"
                                      : "weft_send/recv packed columns, then rows, added in";
  return row;
}

}  // namespace

bool HaloSweep::MeasureConv(const HaloPattern& p, int64_t bytes, std::string* plan,
                            std::vector<Row>* rows, std::string* error) {
  (void)p;
  ConvCase cc;
  if (!cc.Init(ctx_, bytes, rank_, nranks_, error)) return false;
  if (plan != nullptr) *plan = cc.plan();
  cc.Fill();
  for (const bool forward : {true, false}) {
    const std::string name = forward ? "conv2d-fwd" : "conv2d-bwd";
    const auto run = [&](bool raw) {
      const weft_status_t s = forward ? cc.Forward(raw) : cc.Backward(raw);
      if (s != WEFT_OK) *error = WeftError((raw ? "raw " : "") + name, s);
      return s == WEFT_OK;
    };
    std::vector<double> weft_s, raw_s;
    for (int i = 0; i < options_.warmup + options_.iters; ++i) {
      for (const bool raw : {false, true}) {
        if (!Barrier(ctx_, error)) return false;
        const auto t0 = Clock::now();
        if (!run(raw)) return false;
        if (i >= options_.warmup) (raw ? raw_s : weft_s).push_back(Seconds(t0, Clock::now()));
      }
    }
    int64_t wrong[2] = {-1, -1};
    if (options_.check) {
      for (const bool raw : {false, true}) {
        cc.Fill();
        if (!Barrier(ctx_, error) || !run(raw)) return false;
        wrong[raw ? 1 : 0] = forward ? cc.CountWrongForward() : cc.CountWrongBackward();
      }
      if (!AllreduceInPlace(ctx_, wrong, 2, {kDLInt, 64, 1}, WEFT_REDUCE_SUM, error)) return false;
    }
    int64_t counts[3] = {cc.recv_bytes(), cc.raw_recv_bytes(), cc.raw_messages()};
    const auto n = static_cast<int64_t>(weft_s.size());
    if (!AllreduceInPlace(ctx_, counts, 3, {kDLInt, 64, 1}, WEFT_REDUCE_MAX, error) ||
        !AllreduceInPlace(ctx_, weft_s.data(), n, {kDLFloat, 64, 1}, WEFT_REDUCE_MAX, error) ||
        !AllreduceInPlace(ctx_, raw_s.data(), n, {kDLFloat, 64, 1}, WEFT_REDUCE_MAX, error))
      return false;
    rows->push_back(ConvRow(cc, name, weft_s, raw_s, counts, wrong));
  }
  return true;
}

}  // namespace weft::collbench
