// The table (stdout, rank 0) and the JSON records (--json) of a sweep.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "tools/collbench/options.hpp"
#include "tools/collbench/stats.hpp"

namespace weft::collbench {

struct Side {
  bool present = false;
  Summary time;                 // seconds: per iteration the max over ranks; then min/median/max
  double algbw = 0, busbw = 0;  // GB/s, at the median time
  int64_t wrong = -1;           // summed over ranks; -1: not checked
};

// One side of a row from its per-iteration times (max over ranks), at nccl-tests' formulas.
inline Side MakeSide(const std::vector<double>& seconds, int64_t size_bytes, double factor,
                     int64_t wrong) {
  Side side;
  side.present = true;
  side.time = Summarize(seconds);
  side.algbw = AlgBw(size_bytes, side.time.median);
  side.busbw = side.algbw * factor;
  side.wrong = wrong;
  return side;
}

struct Row {
  Op op = Op::kAllreduce;
  std::string pattern, shape;  // redistribute rows (--pattern): the pattern, "rowsxcols"
  int64_t size_bytes = 0, count = 0;
  std::string type, redop;
  Side weft, raw;
  std::string raw_kind;  // pattern rows: the reference collective ("weft allgather")
  // Halo rows (--pattern halo...): size is the bytes of one face, shape the global shape; the
  // local block, the halo depth, and (max over ranks) the bytes one rank receives per exchange
  // through the plan (weft_plan_stats) and through the raw reference, and the raw reference's
  // messages per rank. Both sides' algbw = busbw = their received bytes / time.
  bool halo = false;
  std::string local;
  int64_t depth = 0, recv_bytes = 0, raw_recv_bytes = 0, messages = 0;
  // Weft's busbw over raw's: the ratio of median times (raw / Weft), and the quartiles of the
  // per-iteration ratios (each iteration runs Weft and raw back to back).
  double ratio = 0, ratio_q1 = 0, ratio_q3 = 0;
};

struct RunInfo {
  int32_t ranks = 0;
  std::string backend;
  const Options* options = nullptr;
};

void PrintPreamble(std::FILE* out, const RunInfo& info);
void PrintHeader(std::FILE* out, Op op, bool raw);
void PrintRow(std::FILE* out, const Row& row, bool raw);
// Redistribute rows: a header naming the pattern, its reference collective and the plan's
// steps (as comment lines), then rows with the global shape in place of count.
void PrintPatternHeader(std::FILE* out, const Row& first, const std::string& plan);
void PrintPatternRow(std::FILE* out, const Row& row);
// Halo rows: a header naming the pattern and its raw reference, the plan's steps, then rows.
void PrintHaloHeader(std::FILE* out, const Row& first, const std::string& plan);
void PrintHaloRow(std::FILE* out, const Row& row);
// false when the file cannot be written.
bool WriteJson(const std::string& path, const RunInfo& info, const std::vector<Row>& rows);

}  // namespace weft::collbench
