// The one-line reports a fault worker writes and the driver parses. Both sides share this
// header so that the format has a single definition; it depends on nothing of Weft's.
//
// A report is one line of space-separated fields, the message last (it may hold spaces):
//   <kind> <rank> <status> <ctx_status> <failed_rank> <t0_ns> <t1_ns> <message>
// kind: "create" (weft_context_create), "ready" (the worker's loop runs), "op" (the collective
// that ended the loop), "check" (a value check), "destroy" (abort + destroy).
// status: what the call returned; ctx_status, failed_rank, message: weft_context_error after
// it (or weft_last_error where there is no context). t0/t1: CLOCK_MONOTONIC nanoseconds when
// the call began and returned; the clock is system-wide on Linux, so the driver compares it
// with its own readings.
#pragma once

#include <time.h>

#include <cstdint>
#include <optional>
#include <sstream>
#include <string>

namespace weft::test {

// The worker's report channel: the driver dups a pipe onto this descriptor.
inline constexpr int kReportFd = 3;

inline int64_t MonotonicNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

struct Report {
  std::string kind;
  int32_t rank = -1;
  int32_t status = 0;
  int32_t ctx_status = 0;
  int32_t failed_rank = -1;
  int64_t t0_ns = 0;
  int64_t t1_ns = 0;
  std::string message;

  double seconds() const { return static_cast<double>(t1_ns - t0_ns) * 1e-9; }
};

// One line, newline included; newlines inside the message become spaces.
inline std::string FormatReport(const Report& r) {
  std::ostringstream out;
  out << r.kind << ' ' << r.rank << ' ' << r.status << ' ' << r.ctx_status << ' ' << r.failed_rank
      << ' ' << r.t0_ns << ' ' << r.t1_ns << ' ';
  for (char c : r.message) out << (c == '\n' || c == '\r' ? ' ' : c);
  out << '\n';
  return out.str();
}

// A line without its newline; nullopt if it is not a report.
inline std::optional<Report> ParseReport(const std::string& line) {
  std::istringstream in(line);
  Report r;
  if (!(in >> r.kind >> r.rank >> r.status >> r.ctx_status >> r.failed_rank >> r.t0_ns >> r.t1_ns))
    return std::nullopt;
  if (in.peek() == ' ') in.get();
  std::getline(in, r.message);
  return r;
}

}  // namespace weft::test
