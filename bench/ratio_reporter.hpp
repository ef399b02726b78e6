// A console reporter that also prints, after the table, each benchmark's time as a ratio of a
// reference measured in the same run (STYLE: benchmarks report ratios, because the CI
// machines are too noisy for absolute figures to compare across runs). Ratios use CPU time:
// these benchmarks are single-threaded, and on a loaded 2-core machine wall time mostly
// measures preemption.
#pragma once

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace weft::bench {

class RatioReporter : public benchmark::ConsoleReporter {
 public:
  // Pairs of (benchmark, its reference), by function name.
  // Colours only on a terminal, so that logs and CI output stay plain text.
  explicit RatioReporter(std::vector<std::pair<std::string, std::string>> pairs)
      : ConsoleReporter(static_cast<OutputOptions>(OO_Tabular | (isatty(1) ? OO_Color : 0))),
        pairs_(std::move(pairs)) {}

  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.error_occurred) continue;
      // With --benchmark_repetitions, the median stands for the benchmark.
      const bool median = run.run_type == Run::RT_Aggregate && run.aggregate_name == "median";
      if (run.run_type == Run::RT_Iteration || median)
        ns_[run.run_name.function_name] = run.GetAdjustedCPUTime() *
                                          benchmark::GetTimeUnitMultiplier(benchmark::kNanosecond) /
                                          benchmark::GetTimeUnitMultiplier(run.time_unit);
    }
  }

  void Finalize() override {
    ConsoleReporter::Finalize();
    for (const auto& [name, reference] : pairs_) {
      const auto a = ns_.find(name), b = ns_.find(reference);
      if (a == ns_.end() || b == ns_.end() || b->second <= 0) continue;
      std::printf("ratio %-24s %10.1f ns cpu = %6.2fx %s (%.1f ns)\n", name.c_str(), a->second,
                  a->second / b->second, reference.c_str(), b->second);
    }
    std::fflush(stdout);
  }

 private:
  std::vector<std::pair<std::string, std::string>> pairs_;
  std::map<std::string, double> ns_;
};

}  // namespace weft::bench
