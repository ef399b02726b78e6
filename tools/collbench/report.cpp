#include "tools/collbench/report.hpp"

#include <cmath>

namespace weft::collbench {
namespace {

void PrintSide(std::FILE* out, const Side& s) {
  if (!s.present) {
    std::fprintf(out, " %10s %8s %8s %6s", "-", "-", "-", "-");
    return;
  }
  std::fprintf(out, " %10.1f %8.3f %8.3f", s.time.median * 1e6, s.algbw, s.busbw);
  if (s.wrong < 0) {
    std::fprintf(out, " %6s", "N/A");
  } else {
    std::fprintf(out, " %6lld", static_cast<long long>(s.wrong));
  }
}

void JsonSide(std::FILE* f, const char* name, const Side& s) {
  std::fprintf(f,
               "\"%s\": {\"time_us\": %.3f, \"time_min_us\": %.3f, \"time_max_us\": %.3f, "
               "\"algbw_GBps\": %.6f, \"busbw_GBps\": %.6f, \"wrong\": %lld}",
               name, s.time.median * 1e6, s.time.min * 1e6, s.time.max * 1e6, s.algbw, s.busbw,
               static_cast<long long>(s.wrong));
}

void JsonRow(std::FILE* f, const RunInfo& info, const Row& r) {
  std::fprintf(f,
               "    {\"op\": \"%s\", \"ranks\": %d, \"backend\": \"%s\", \"size\": %lld, "
               "\"count\": %lld, \"type\": \"%s\", \"redop\": \"%s\", \"iters\": %d, "
               "\"warmup\": %d, ",
               r.halo              ? "halo"
               : r.pattern.empty() ? OpName(r.op)
                                   : "redistribute",
               info.ranks, info.backend.c_str(), static_cast<long long>(r.size_bytes),
               static_cast<long long>(r.count), r.type.c_str(), r.redop.c_str(),
               info.options->iters, info.options->warmup);
  if (!r.pattern.empty()) {
    std::fprintf(f, "\"pattern\": \"%s\", \"shape\": \"%s\", ", r.pattern.c_str(), r.shape.c_str());
  }
  if (r.halo) {
    std::fprintf(f,
                 "\"local\": \"%s\", \"depth\": %lld, \"recv_bytes\": %lld, "
                 "\"raw_recv_bytes\": %lld, \"messages\": %lld, ",
                 r.local.c_str(), static_cast<long long>(r.depth),
                 static_cast<long long>(r.recv_bytes), static_cast<long long>(r.raw_recv_bytes),
                 static_cast<long long>(r.messages));
  }
  // The row's own columns at top level, as in the table.
  std::fprintf(f,
               "\"time_us\": %.3f, \"time_min_us\": %.3f, \"time_max_us\": %.3f, "
               "\"algbw_GBps\": %.6f, \"busbw_GBps\": %.6f, \"wrong\": %lld",
               r.weft.time.median * 1e6, r.weft.time.min * 1e6, r.weft.time.max * 1e6, r.weft.algbw,
               r.weft.busbw, static_cast<long long>(r.weft.wrong));
  if (r.raw.present) {
    std::fprintf(f, ", ");
    JsonSide(f, "raw", r.raw);
    std::fprintf(f,
                 ", \"raw_kind\": \"%s\", \"ratio\": %.4f, \"ratio_q1\": %.4f, "
                 "\"ratio_q3\": %.4f",
                 r.raw_kind.c_str(), r.ratio, r.ratio_q1, r.ratio_q3);
  }
  std::fprintf(f, "}");
}

// The plan's description as comment lines.
void PrintPlan(std::FILE* out, const std::string& plan) {
  std::string line;
  for (const char c : plan + "\n") {
    if (c != '\n') {
      line += c;
      continue;
    }
    std::fprintf(out, "#   plan (rank 0, first size): %s\n", line.c_str());
    line.clear();
  }
}

}  // namespace

void PrintPreamble(std::FILE* out, const RunInfo& info) {
  const Options& o = *info.options;
  std::fprintf(out,
               "# collbench: %d ranks, backend %s, minBytes %lld maxBytes %lld step %g, "
               "warmup %d, iters %d, check %d, %s buffers%s\n",
               info.ranks, info.backend.c_str(), static_cast<long long>(o.min_bytes),
               static_cast<long long>(o.max_bytes), o.factor, o.warmup, o.iters, o.check ? 1 : 0,
               o.device_cuda ? "CUDA" : "host",
               o.raw_gloo   ? ", raw gloo in the same run (interleaved)"
               : o.raw_nccl ? ", raw nccl in the same run (interleaved)"
                            : "");
  std::fprintf(out,
               "# time: median over iterations of the max over ranks; algbw = size/time; "
               "busbw = algbw x factor\n");
}

void PrintHeader(std::FILE* out, Op op, bool raw) {
  std::fprintf(out, "#\n# %s\n", OpName(op));
  std::fprintf(out, "# %12s %12s %10s %6s %10s %8s %8s %6s", "size", "count", "type", "redop",
               "time", "algbw", "busbw", "#wrong");
  if (raw) {
    std::fprintf(out, " %10s %8s %8s %6s %7s %15s", "raw time", "algbw", "busbw", "#wrong", "ratio",
                 "ratio q1..q3");
  }
  std::fprintf(out, "\n# %12s %12s %10s %6s %10s %8s %8s %6s", "(B)", "(elements)", "", "", "(us)",
               "(GB/s)", "(GB/s)", "");
  if (raw) std::fprintf(out, " %10s %8s %8s %6s %7s %15s", "(us)", "(GB/s)", "(GB/s)", "", "", "");
  std::fprintf(out, "\n");
}

void PrintRow(std::FILE* out, const Row& r, bool raw) {
  std::fprintf(out, "  %12lld %12lld %10s %6s", static_cast<long long>(r.size_bytes),
               static_cast<long long>(r.count), r.type.c_str(), r.redop.c_str());
  PrintSide(out, r.weft);
  if (raw) {
    PrintSide(out, r.raw);
    if (r.raw.present) {
      std::fprintf(out, " %7.3f   %5.3f..%5.3f", r.ratio, r.ratio_q1, r.ratio_q3);
    } else {
      std::fprintf(out, " %7s %15s", "-", "-");
    }
  }
  std::fprintf(out, "\n");
  std::fflush(out);
}

void PrintPatternHeader(std::FILE* out, const Row& first, const std::string& plan) {
  std::fprintf(out, "#\n# redistribute %s (reference: %s)\n", first.pattern.c_str(),
               first.raw.present ? first.raw_kind.c_str() : "none, no communication");
  PrintPlan(out, plan);
  std::fprintf(out, "# %12s %12s %10s %6s %10s %8s %8s %6s", "size", "shape", "type", "", "time",
               "algbw", "busbw", "#wrong");
  std::fprintf(out, " %10s %8s %8s %6s %7s %15s\n", "ref time", "algbw", "busbw", "#wrong", "ratio",
               "ratio q1..q3");
  std::fprintf(out, "# %12s %12s %10s %6s %10s %8s %8s %6s %10s %8s %8s %6s %7s %15s\n", "(B)",
               "(global)", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "",
               "", "");
}

void PrintPatternRow(std::FILE* out, const Row& r) {
  std::fprintf(out, "  %12lld %12s %10s %6s", static_cast<long long>(r.size_bytes), r.shape.c_str(),
               r.type.c_str(), "");
  PrintSide(out, r.weft);
  PrintSide(out, r.raw);
  if (r.raw.present) {
    std::fprintf(out, " %7.3f   %5.3f..%5.3f", r.ratio, r.ratio_q1, r.ratio_q3);
  } else {
    std::fprintf(out, " %7s %15s", "-", "-");
  }
  std::fprintf(out, "\n");
  std::fflush(out);
}

void PrintHaloHeader(std::FILE* out, const Row& first, const std::string& plan) {
  if (first.pattern.rfind("conv2d", 0) == 0) {
    std::fprintf(out,
                 "#\n# halo conv2d-fwd-bwd (3x3 conv, zero boundary, the conv2d rule's plan; "
                 "size = a rank's block; per size a forward row, weft_halo_exchange vs %s, and "
                 "a backward row, weft_halo_accumulate vs the adjoint: packed columns, then rows, "
                 "added in)\n",
                 first.raw_kind.c_str());
  } else {
    std::fprintf(out, "#\n# halo %s (periodic; reference: %s, same messages)\n",
                 first.pattern.c_str(), first.raw_kind.c_str());
  }
  PrintPlan(out, plan);
  std::fprintf(out, "# %12s %12s %12s %5s %10s %4s %10s %8s %6s %10s %8s %6s %7s %15s\n", "size",
               "shape", "local", "depth", "recv", "msgs", "time", "recv bw", "#wrong", "raw time",
               "recv bw", "#wrong", "ratio", "ratio q1..q3");
  std::fprintf(out, "# %12s %12s %12s %5s %10s %4s %10s %8s %6s %10s %8s %6s %7s %15s\n",
               "(B, face)", "(global)", "", "", "(B/rank)", "", "(us)", "(GB/s)", "", "(us)",
               "(GB/s)", "", "", "");
}

void PrintHaloRow(std::FILE* out, const Row& r) {
  std::fprintf(out, "  %12lld %12s %12s %5lld %10lld %4lld", static_cast<long long>(r.size_bytes),
               r.shape.c_str(), r.local.c_str(), static_cast<long long>(r.depth),
               static_cast<long long>(r.recv_bytes), static_cast<long long>(r.messages));
  for (const Side* s : {&r.weft, &r.raw}) {
    std::fprintf(out, " %10.1f %8.3f", s->time.median * 1e6, s->algbw);
    if (s->wrong < 0) {
      std::fprintf(out, " %6s", "N/A");
    } else {
      std::fprintf(out, " %6lld", static_cast<long long>(s->wrong));
    }
  }
  std::fprintf(out, " %7.3f   %5.3f..%5.3f", r.ratio, r.ratio_q1, r.ratio_q3);
  if (r.pattern.rfind("conv2d", 0) == 0) std::fprintf(out, "  %s", r.pattern.c_str() + 7);
  std::fprintf(out, "\n");
  std::fflush(out);
}

bool WriteJson(const std::string& path, const RunInfo& info, const std::vector<Row>& rows) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) return false;
  std::fprintf(f, "{\n  \"tool\": \"collbench\", \"ranks\": %d, \"backend\": \"%s\",\n", info.ranks,
               info.backend.c_str());
  std::fprintf(f, "  \"rows\": [\n");
  for (size_t i = 0; i < rows.size(); ++i) {
    JsonRow(f, info, rows[i]);
    std::fprintf(f, i + 1 < rows.size() ? ",\n" : "\n");
  }
  std::fprintf(f, "  ]\n}\n");
  return std::fclose(f) == 0;
}

}  // namespace weft::collbench
