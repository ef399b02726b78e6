// collbench: an nccl-tests-style sweep of Weft's collectives through the public C ABI, run
// under a launcher (`weftrun -n 2 collbench -b 8 -e 64M -f 2`). The table goes to stdout on
// rank 0, logs to stderr. See README.md for the columns and formulas.
#include <weft/weft.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tools/collbench/device_memory.hpp"
#include "tools/collbench/halo_pattern.hpp"
#include "tools/collbench/halo_sweep.hpp"
#include "tools/collbench/options.hpp"
#include "tools/collbench/pattern.hpp"
#include "tools/collbench/raw_gloo.hpp"
#include "tools/collbench/raw_nccl.hpp"
#include "tools/collbench/redist_sweep.hpp"
#include "tools/collbench/report.hpp"
#include "tools/collbench/sweep.hpp"
#include "tools/collbench/topo.hpp"
#include "tools/collbench/tune.hpp"

namespace {

using weft::collbench::Op;
using weft::collbench::Options;
using weft::collbench::Row;

int Fail(weft_context_t* ctx, int32_t rank, const std::string& what) {
  std::fprintf(stderr, "collbench: rank %d: %s\n", rank, what.c_str());
  // Wakes peers blocked on this rank; the launcher stops them as this process exits non-zero.
  if (ctx != nullptr) weft_context_abort(ctx);
  weft_context_destroy(ctx);
  return 1;
}

std::string BackendName(weft_context_t* ctx) {
  char name[64] = {};
  size_t needed = 0;
  if (weft_context_backend_name(ctx, name, sizeof(name), &needed) != WEFT_OK) return "?";
  return name;
}

// Runs every op over every size; rank 0 prints each row as it is measured.
bool RunSweep(weft::collbench::Sweep& sweep, const Options& o, bool print, std::vector<Row>* rows,
              std::string* error) {
  for (Op op : o.ops) {
    if (print) weft::collbench::PrintHeader(stdout, op, o.raw());
    for (int64_t bytes = o.min_bytes; bytes <= o.max_bytes;) {
      std::optional<Row> row = sweep.Measure(op, bytes, error);
      if (!error->empty()) return false;
      if (row) {
        if (print) weft::collbench::PrintRow(stdout, *row, o.raw());
        rows->push_back(std::move(*row));
      }
      const auto next = static_cast<int64_t>(static_cast<double>(bytes) * o.factor);
      bytes = next > bytes ? next : bytes + 1;
    }
  }
  return true;
}

int64_t NextSize(int64_t bytes, double factor) {
  const auto next = static_cast<int64_t>(static_cast<double>(bytes) * factor);
  return next > bytes ? next : bytes + 1;
}

// Every --pattern over every size; rank 0 prints the pattern's plan (its first size) with
// the header, then each row.
bool RunPatterns(weft::collbench::RedistSweep& sweep, const Options& o, bool print,
                 std::vector<Row>* rows, std::string* error) {
  std::vector<weft::collbench::Pattern> patterns;
  if (!weft::collbench::ParsePatterns(o.patterns, &patterns, error)) return false;
  for (const auto& p : patterns) {
    bool first = true;
    for (int64_t bytes = o.min_bytes; bytes <= o.max_bytes; bytes = NextSize(bytes, o.factor)) {
      std::string plan;
      std::optional<Row> row = sweep.Measure(p, bytes, first ? &plan : nullptr, error);
      if (!error->empty()) return false;
      if (!row) continue;
      if (print && first) weft::collbench::PrintPatternHeader(stdout, *row, plan);
      first = false;
      if (print) weft::collbench::PrintPatternRow(stdout, *row);
      rows->push_back(std::move(*row));
    }
  }
  return true;
}

// Every halo pattern of --pattern over every size (face bytes); rank 0 prints the pattern's
// plan (its first row) with the header, then each row.
bool RunHaloPatterns(weft::collbench::HaloSweep& sweep, const Options& o, bool print,
                     std::vector<Row>* rows, std::string* error) {
  std::vector<weft::collbench::HaloPattern> patterns;
  if (!weft::collbench::ParseHaloPatterns(o.patterns, &patterns, error)) return false;
  for (const auto& p : patterns) {
    bool first = true;
    for (int64_t bytes = o.min_bytes; bytes <= o.max_bytes; bytes = NextSize(bytes, o.factor)) {
      std::string plan;
      std::vector<Row> measured;
      if (!sweep.Measure(p, bytes, first ? &plan : nullptr, &measured, error)) return false;
      for (Row& row : measured) {
        if (print && first) weft::collbench::PrintHaloHeader(stdout, row, plan);
        first = false;
        if (print) weft::collbench::PrintHaloRow(stdout, row);
        rows->push_back(std::move(row));
      }
    }
  }
  return true;
}

// What a run measures on and compares with besides Weft on host buffers: device memory
// (-d cuda) and a raw library (--raw gloo | nccl).
struct Compared {
  std::unique_ptr<weft::collbench::DeviceMemory> device;
  std::unique_ptr<weft::collbench::RawGloo> gloo;
  std::unique_ptr<weft::collbench::RawNccl> nccl;

  bool Open(weft_context_t* ctx, int32_t rank, int32_t nranks, const Options& o,
            std::string* error) {
    if (o.device_cuda && !(device = weft::collbench::DeviceMemory::Open(rank, error))) {
      *error = "-d cuda: " + *error;
      return false;
    }
    if (o.raw_gloo && !(gloo = weft::collbench::RawGloo::Connect(ctx, rank, nranks, error)))
      return false;
    return !o.raw_nccl ||
           (nccl = weft::collbench::RawNccl::Connect(ctx, rank, nranks, device.get(), error));
  }
  weft::collbench::Raw* raw() const {
    return gloo ? static_cast<weft::collbench::Raw*>(gloo.get()) : nccl.get();
  }
  // The raw libraries first: NCCL's communicator waits on the device memory's stream.
  void Close() {
    nccl.reset();
    gloo.reset();
    device.reset();
  }
  ~Compared() { Close(); }
};

}  // namespace

int main(int argc, char** argv) {
  // collbench topo [--out F] [--mesh AxB], collbench tune [--out F] ...: commands of their own.
  if (argc > 1 && (std::string(argv[1]) == "topo" || std::string(argv[1]) == "tune")) {
    const std::string command = argv[1];
    weft_context_t* ctx = nullptr;
    if (weft_context_create(nullptr, &ctx) != WEFT_OK)
      return Fail(nullptr, -1, std::string("weft_context_create: ") + weft_last_error());
    int32_t rank = 0, nranks = 1;
    weft_context_rank(ctx, &rank);
    weft_context_world_size(ctx, &nranks);
    const int status = command == "topo"
                           ? weft::collbench::RunTopo(ctx, rank, nranks, argc - 1, argv + 1)
                           : weft::collbench::RunTune(ctx, rank, nranks, argc - 1, argv + 1);
    if (status != 0) return Fail(ctx, rank, command + " failed");
    return weft_context_destroy(ctx) == WEFT_OK ? 0 : 1;
  }
  Options o;
  std::string error;
  if (!weft::collbench::ParseOptions(argc, argv, &o, &error) || o.min_bytes < 1) {
    std::fprintf(stderr, "collbench: %s\n%s", error.empty() ? "-b must be >= 1" : error.c_str(),
                 weft::collbench::Usage().c_str());
    return 2;
  }
  if (o.help) {
    std::fputs(weft::collbench::Usage().c_str(), stdout);
    return 0;
  }
  weft_context_t* ctx = nullptr;
  if (weft_context_create(nullptr, &ctx) != WEFT_OK) {
    return Fail(nullptr, -1, std::string("weft_context_create: ") + weft_last_error());
  }
  int32_t rank = 0, nranks = 1;
  weft_context_rank(ctx, &rank);
  weft_context_world_size(ctx, &nranks);
  weft::collbench::RunInfo info{nranks, BackendName(ctx), &o};

  Compared with;
  if (!with.Open(ctx, rank, nranks, o, &error)) return Fail(ctx, rank, error);
  if (rank == 0) weft::collbench::PrintPreamble(stdout, info);
  weft::collbench::Sweep sweep(ctx, rank, nranks, o, with.raw(), with.device.get());
  std::vector<Row> rows;
  if ((o.patterns.empty() || o.ops_given) && !RunSweep(sweep, o, rank == 0, &rows, &error)) {
    return Fail(ctx, rank, error);
  }
  weft::collbench::RedistSweep redist(ctx, rank, nranks, o, with.raw(), with.device.get());
  if (!o.patterns.empty() && !RunPatterns(redist, o, rank == 0, &rows, &error)) {
    return Fail(ctx, rank, error);
  }
  weft::collbench::HaloSweep halo(ctx, rank, nranks, o);
  if (!o.patterns.empty() && !RunHaloPatterns(halo, o, rank == 0, &rows, &error)) {
    return Fail(ctx, rank, error);
  }

  if (rank == 0 && !o.json_path.empty() && !weft::collbench::WriteJson(o.json_path, info, rows)) {
    return Fail(ctx, rank, "cannot write " + o.json_path);
  }
  with.Close();  // before the context, which they use
  const weft_status_t s = weft_context_destroy(ctx);
  if (s != WEFT_OK) {
    std::fprintf(stderr, "collbench: rank %d: weft_context_destroy: %s\n", rank, weft_last_error());
    return 1;
  }
  // Like nccl-tests: a wrong value fails the run, so a sweep can serve as a test.
  int64_t bad_rows = 0;
  for (const auto& row : rows) bad_rows += (row.weft.wrong > 0 || row.raw.wrong > 0) ? 1 : 0;
  if (bad_rows > 0) {
    std::fprintf(stderr, "collbench: rank %d: %lld rows had wrong values\n", rank,
                 static_cast<long long>(bad_rows));
    return 1;
  }
  return 0;
}
